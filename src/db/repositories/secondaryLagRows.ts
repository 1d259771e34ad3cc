// The `secondary_lag` table (migration 20261128050000): the set secondaries a zone's published
// version waits on, as the verifier last saw them.
import type { Secondary } from '../../domain/secondarySets.js';
import type { Runner } from '../context.js';
import { secondariesOf } from './secondaryFleet.js';

export interface LagRow {
  setId: string;
  /** The secondary, as its set lists it. */
  host: string;
  port: number;
  /** The serial it answered; null when it answered none (down, REFUSED, not serving the zone). */
  serial: number | null;
}

/**
 * Makes the zone's rows exactly `behind`, in one statement that writes only what changed: rows
 * of secondaries no longer behind go, new ones come with `since` = now, a changed serial is
 * updated and `since` kept.
 */
export async function replaceZoneLag(db: Runner, zoneId: string, behind: readonly LagRow[], now: Date): Promise<void> {
  await db.raw(
    `WITH behind AS (
       SELECT b.set_id, b.host, b.port, b.serial FROM jsonb_to_recordset(?::jsonb) AS b(set_id text, host text, port integer, serial bigint)
     ), gone AS (
       DELETE FROM secondary_lag l WHERE l.zone_id = ?
       AND NOT EXISTS (SELECT 1 FROM behind b WHERE b.set_id = l.set_id AND b.host = l.host AND b.port = l.port)
     )
     INSERT INTO secondary_lag (zone_id, set_id, host, port, serial, since)
     SELECT ?, b.set_id, b.host, b.port, b.serial, ? FROM behind b
     -- A set deleted meanwhile: nothing to record for it.
     WHERE EXISTS (SELECT 1 FROM secondary_sets s WHERE s.id = b.set_id)
     ON CONFLICT (zone_id, set_id, host, port) DO UPDATE SET serial = EXCLUDED.serial
     WHERE secondary_lag.serial IS DISTINCT FROM EXCLUDED.serial`,
    [JSON.stringify(behind.map((b) => ({ set_id: b.setId, host: b.host, port: b.port, serial: b.serial }))), zoneId, zoneId, now],
  );
}

/**
 * A join for a zone row aliased `z`: `lag.secondary_lag`, a JSON array of {host, port, serial, since},
 * null when none. A join, not a subquery in the select list: a slow statement's log shows its
 * first 160 characters, which should name the table.
 */
export const ZONE_LAG_JOIN = `LEFT JOIN LATERAL (SELECT json_agg(json_build_object('host', l.host, 'port', l.port, 'serial', l.serial, 'since', l.since) ORDER BY l.host, l.port) AS secondary_lag
  FROM secondary_lag l WHERE l.zone_id = z.id) lag ON true`;

/** A set secondary behind on a zone, with what to NOTIFY it of. */
export interface LaggingTarget {
  zoneId: string;
  origin: string;
  /** The zone's published serial. */
  serial: number;
  host: string;
  port: number;
  /** The set's key (credential id), NOTIFY is signed with it. */
  tsigKeyId: string | null;
}

/** The set secondaries behind on a zone since `seenBefore` or earlier (zones being deleted left out). */
export async function laggingTargets(db: Runner, seenBefore: Date): Promise<LaggingTarget[]> {
  const rows = (await db('secondary_lag as l')
    .join('zones as z', 'z.id', 'l.zone_id')
    .join('secondary_sets as s', 's.id', 'l.set_id')
    .where('l.since', '<=', seenBefore)
    .whereNotNull('z.published_serial')
    .whereNot('z.status', 'deleting')
    .orderBy(['l.zone_id', 'l.host', 'l.port'])
    .select('l.zone_id', 'z.name', 'z.published_serial', 'l.host', 'l.port', 's.tsig_key_id')) as {
    zone_id: string;
    name: string;
    published_serial: string | number;
    host: string;
    port: number;
    tsig_key_id: string | null;
  }[];
  return rows.map((r) => ({ zoneId: r.zone_id, origin: r.name, serial: Number(r.published_serial), host: r.host, port: r.port, tsigKeyId: r.tsig_key_id }));
}

/**
 * Every set's secondaries, and per secondary behind on anything its summary over those zones:
 * the largest lag in serials (RFC 1982 distance from the published serial), whether any zone got
 * no serial from it, and the oldest wait. Summed up in SQL: a secondary down behind 100,000 zones
 * is 100,000 rows, read at every /metrics scrape and /healthz.
 */
export interface FleetLag {
  sets: { id: string; secondaries: Secondary[] }[];
  behind: { setId: string; host: string; port: number; serials: number; silent: boolean; since: Date }[];
}

export async function readFleetLag(db: Runner): Promise<FleetLag> {
  const sets = (await db('secondary_sets').orderBy('id').select('id', 'secondaries')) as { id: string; secondaries: unknown }[];
  const { rows } = await db.raw<{
    rows: { set_id: string; host: string; port: number; serials: string | number | null; silent: boolean; since: Date }[];
  }>(
    `SELECT l.set_id, l.host, l.port,
            max((z.published_serial - l.serial + 4294967296) % 4294967296) AS serials,
            bool_or(l.serial IS NULL) AS silent,
            min(l.since) AS since
     FROM secondary_lag l JOIN zones z ON z.id = l.zone_id
     WHERE z.published_serial IS NOT NULL
     GROUP BY l.set_id, l.host, l.port`,
  );
  return {
    sets: sets.map((s) => ({ id: s.id, secondaries: secondariesOf(s.secondaries) })),
    behind: rows.map((r) => ({ setId: r.set_id, host: r.host, port: r.port, serials: Number(r.serials ?? 0), silent: r.silent, since: r.since })),
  };
}
