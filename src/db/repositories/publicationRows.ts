// The publication workers' statements (docs/publication.md): which zones wait for a build or a
// verification, and the verification's outcomes (change sets live, a withdrawn zone removed).
// The build's own statements are in versionStore.ts.
import { CHANGESETS_SETTLED_CHANNEL } from '../channels.js';
import type { Runner, Transaction } from '../context.js';
import { noteLock } from '../lockOrder.js';
import { PREPARED } from '../preparedStatements.js';

export interface VerifyZoneRow {
  id: string;
  name: string;
  tenant_id: string;
  status: string;
  published_serial: number | null;
  published_seq: number;
  changeset_seq: number;
  /** Whether a change set of the zone is `pushed` (waits for verification). */
  waiting: boolean;
  /** Whether the zone has rows in secondary_lag (a version waited on a set's secondary). */
  lagged: boolean;
}

export async function readZoneToVerify(db: Runner, zoneId: string): Promise<VerifyZoneRow | undefined> {
  return (await db('zones')
    .where('id', zoneId)
    .first(
      'id',
      'name',
      'tenant_id',
      'status',
      'published_serial',
      'published_seq',
      'changeset_seq',
      db.raw(`EXISTS (SELECT 1 FROM change_sets c WHERE c.zone_id = zones.id AND c.state = 'pushed') AS waiting`),
      db.raw('EXISTS (SELECT 1 FROM secondary_lag l WHERE l.zone_id = zones.id) AS lagged'),
    )
    .options(PREPARED)) as VerifyZoneRow | undefined;
}

/**
 * One statement: the change sets the verified version carries become live (a newer version may be
 * pushed by now: only seq <= published_seq), an activating zone becomes active, one
 * record.published event row per change set that this statement moved (ids by the database's
 * new_id, the format of newId: one id format in the events outbox), and, when it moved any, the
 * NOTIFY that wakes the API's `Prefer: wait` answers (delivered on commit, so a woken waiter reads
 * them live). Returns how many change sets became live.
 */
export async function markChangeSetsLive(db: Runner, zone: { id: string; name: string; published_seq: number }, serial: number, now: Date): Promise<number> {
  const result = await db
    .raw<{ rows: { n: number }[] }>(
      `WITH live AS (
       UPDATE change_sets SET state = 'live', live_at = ?, updated_at = ?
       WHERE zone_id = ? AND state = 'pushed' AND seq <= ?
       RETURNING id, tenant_id, serial, acting_tenant_id
     ), activated AS (
       UPDATE zones SET status = 'active', activated_at = ? WHERE id = ? AND status = 'activating' RETURNING id
     ), events AS (
       INSERT INTO events (id, tenant_id, kind, zone_id, payload, occurred_at)
       SELECT new_id('evt'), tenant_id, 'record.published', ?,
              jsonb_build_object('zone', ?::text, 'changeset_id', id, 'state', 'live', 'serial', coalesce(serial, ?))
                || CASE WHEN acting_tenant_id IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('acting_tenant_id', acting_tenant_id) END, ?
       FROM live
       RETURNING id
     )
     SELECT (SELECT count(*) FROM live) AS n, (SELECT count(*) FROM activated) AS a, (SELECT count(*) FROM events) AS e,
            CASE WHEN EXISTS (SELECT 1 FROM live) THEN pg_notify(?, ?) END AS notified`,
      [now, now, zone.id, zone.published_seq, now, zone.id, zone.id, zone.name, serial, now, CHANGESETS_SETTLED_CHANNEL, zone.id],
    )
    .options(PREPARED);
  return Number(result.rows[0]!.n);
}

/**
 * Deletes the zone if it is still withdrawn and unpublished (under its row lock), and wakes whoever
 * waits for one of its change sets: they went with it. Returns whether it deleted it.
 */
export async function deleteWithdrawnZone(trx: Transaction, zoneId: string): Promise<boolean> {
  noteLock(trx, 'zones');
  const locked = await trx('zones').where({ id: zoneId, status: 'deleting' }).whereNull('published_serial').forUpdate().first('id');
  if (!locked) return false;
  await trx('zones').where('id', zoneId).delete();
  await trx.raw('SELECT pg_notify(?, ?)', [CHANGESETS_SETTLED_CHANNEL, zoneId]);
  return true;
}

/** Change sets `pushed` since `pushedBefore` or earlier get error.code verification_timeout (state unchanged). */
export async function markVerificationTimeoutRows(db: Runner, pushedBefore: Date, now: Date): Promise<number> {
  return db('change_sets')
    .where('state', 'pushed')
    .whereNull('error')
    .andWhere('pushed_at', '<=', pushedBefore)
    .update({
      error: JSON.stringify({ code: 'verification_timeout', detail: 'The new data was not seen on every authoritative nameserver within 60 minutes.' }),
      updated_at: now,
    });
}

/** Zones with unpublished change sets (not waiting for a retry) or a pending deletion, at most 1000. */
export async function zonesAwaitingBuild(db: Runner, now: Date): Promise<string[]> {
  const rows = (await db('zones')
    .where((q) =>
      q
        .where((w) => w.whereRaw('published_seq < changeset_seq').andWhere((r) => r.whereNull('publish_retry_at').orWhere('publish_retry_at', '<=', now)))
        .orWhere((w) => w.where('status', 'deleting').whereNotNull('published_serial')),
    )
    .limit(1000)
    .select('id')) as { id: string }[];
  return rows.map((r) => r.id);
}

/** Zones with a pushed change set, an activation or a withdrawal that waits for verification. */
export async function zonesAwaitingVerification(db: Runner): Promise<string[]> {
  const rows = (await db
    .select('zone_id as id')
    .from('change_sets')
    .where('state', 'pushed')
    .union((q) =>
      q
        .select('id')
        .from('zones')
        .where((w) => w.where('status', 'activating').whereNotNull('published_serial'))
        .orWhere((w) => w.where('status', 'deleting').whereNull('published_serial')),
    )) as { id: string }[];
  return rows.map((r) => r.id);
}

// What the nameserver feed reads (src/publication/nameserverFeed.ts): the published versions.

/** One step of a zone's version history. */
export interface VersionHead {
  serial: number;
  from_serial: number | null;
  withdrawn: boolean;
}

/** The zones with a published version. */
export async function publishedZones(db: Runner): Promise<{ id: string; name: string; published_serial: number }[]> {
  return (await db('zones').whereNotNull('published_serial').select('id', 'name', 'published_serial')) as {
    id: string;
    name: string;
    published_serial: number;
  }[];
}

/** The zone with its newest version (absent fields: no version row for the published serial). */
export async function publishedHead(
  db: Runner,
  zoneId: string,
): Promise<(Partial<VersionHead> & { name: string; published_serial: number | null }) | undefined> {
  const result = await db
    .raw<{ rows: (Partial<VersionHead> & { name: string; published_serial: number | null })[] }>(
      `SELECT z.name, z.published_serial, v.serial, v.from_serial, v.withdrawn
       FROM zones z LEFT JOIN zone_versions v ON v.zone_id = z.id AND v.serial = z.published_serial
       WHERE z.id = ?`,
      [zoneId],
    )
    .options(PREPARED);
  return result.rows[0];
}

/** The published serial and the system records (as stored) of that version. */
export async function publishedSystem<Stored>(db: Runner, zoneId: string): Promise<{ published_serial: number | null; system: Stored[] | null } | undefined> {
  return (await db('zones')
    .where('id', zoneId)
    .first('published_serial', db.raw('(SELECT v.system FROM zone_versions v WHERE v.zone_id = zones.id AND v.serial = zones.published_serial) AS system'))) as
    | { published_serial: number | null; system: Stored[] | null }
    | undefined;
}

export interface PublishedRecordRow {
  record_id: string;
  name: string;
  type: number;
  ttl: number;
  rdata: Buffer;
}

/** Up to `limit` published records of the zone after `after` (record id order). */
export async function publishedRecordPage(db: Runner, zoneId: string, after: string, limit: number): Promise<PublishedRecordRow[]> {
  return (await db('published_records')
    .where('zone_id', zoneId)
    .andWhere('record_id', '>', after)
    .orderBy('record_id')
    .limit(limit)
    .select('record_id', 'name', 'type', 'ttl', 'rdata')) as PublishedRecordRow[];
}

/** The zone's newest `limit` versions, newest first. */
export async function latestVersionHeads(db: Runner, zoneId: string, limit: number): Promise<VersionHead[]> {
  return (await db('zone_versions')
    .where('zone_id', zoneId)
    .orderBy('created_at', 'desc')
    .limit(limit)
    .select('serial', 'from_serial', 'withdrawn')) as VersionHead[];
}

/**
 * The removed and added records of the versions `serials` as rows, by serial, removed first, each
 * in its version's order. RDATA comes as the version's base64: as bytea it comes in hex (half again
 * as many bytes), which pg decodes as each packet arrives.
 */
export async function versionDiffRows(db: Runner, zoneId: string, serials: number[]) {
  const { rows } = await db.raw<{ rows: { serial: string; removed: boolean; name: string; type: number; ttl: number; rdata: string }[] }>(
    `SELECT v.serial, s.removed, e.r->>'name' AS name, (e.r->>'type')::int AS type, (e.r->>'ttl')::int AS ttl, e.r->>'rdata' AS rdata
     FROM zone_versions v
     CROSS JOIN LATERAL (VALUES (true, v.removed), (false, v.added)) AS s(removed, records)
     CROSS JOIN LATERAL jsonb_array_elements(s.records) WITH ORDINALITY AS e(r, n)
     WHERE v.zone_id = ? AND v.serial = any(?::bigint[])
     ORDER BY v.serial, s.removed DESC, e.n`,
    [zoneId, serials],
  );
  return rows;
}
