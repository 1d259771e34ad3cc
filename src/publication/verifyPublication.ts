// `pushed → live`: a version is live when every authoritative server answers the zone's SOA with
// its serial (or a later one). A withdrawn zone is gone when none of the service's own
// nameservers serves it any more; the zone row goes then, with a zone.changed (deleted) event.
import type { Knex } from 'knex';
import type { HostPort } from '../config/index.js';
import { PREPARED } from '../db/preparedStatements.js';
import { recordEvents } from '../db/repositories/events.js';
import type { Clock } from '../domain/clock.js';
import { serialGreater } from '../../nameserver/wire/serial.js';
import type { SoaProbe, SoaProbeResult } from './soaProbe.js';
import { transactionWithRetry } from '../db/transaction.js';
import { noteLock } from '../db/lockOrder.js';
import { CHANGESETS_SETTLED_CHANNEL } from '../db/channels.js';

/** Spec: still `pushed` after 60 minutes → error.code verification_timeout (state unchanged). */
export const VERIFICATION_TIMEOUT_MS = 60 * 60_000;

export interface VerifyDeps {
  db: Knex;
  clock: Clock;
  probe: SoaProbe;
  /** The service's own nameservers (embedded, ROLES=nameserver processes). */
  nameservers: () => HostPort[];
  secondaries: HostPort[];
}

export type VerifyOutcome =
  | { kind: 'idle' }
  | { kind: 'live'; changeSets: number }
  | { kind: 'deleted' }
  | { kind: 'waiting'; lagging: { server: HostPort; seen: SoaProbeResult }[] };

interface ZoneState {
  id: string;
  name: string;
  tenant_id: string;
  status: string;
  published_serial: number | null;
  published_seq: number;
  changeset_seq: number;
}

const serves = (seen: SoaProbeResult, serial: number) => seen.kind === 'serial' && (seen.serial === serial || serialGreater(seen.serial, serial));

export async function verifyZone(deps: VerifyDeps, zoneId: string): Promise<VerifyOutcome> {
  const zone = (await deps.db('zones')
    .where('id', zoneId)
    .first('id', 'name', 'tenant_id', 'status', 'published_serial', 'published_seq', 'changeset_seq', deps.db.raw(`EXISTS (SELECT 1 FROM change_sets c WHERE c.zone_id = zones.id AND c.state = 'pushed') AS waiting`))
    .options(PREPARED)) as
    | (ZoneState & { waiting: boolean })
    | undefined;
  if (!zone) return { kind: 'idle' };
  if (zone.status === 'deleting') {
    if (zone.published_serial !== null || zone.published_seq < zone.changeset_seq) return { kind: 'idle' };
    // Secondaries drop a zone when their operator removes it from their configuration; the
    // deletion waits for the service's own nameservers only (docs/publication.md).
    const servers = deps.nameservers();
    const seen = await Promise.all(servers.map((s) => deps.probe(s, zone.name)));
    const lagging = seen.map((r, i) => ({ server: servers[i]!, seen: r })).filter((x) => x.seen.kind !== 'not_served');
    if (lagging.length) return { kind: 'waiting', lagging };
    return (await removeZone(deps, zone)) ? { kind: 'deleted' } : { kind: 'idle' };
  }
  if (zone.published_serial === null) return { kind: 'idle' };
  if (!zone.waiting && zone.status !== 'activating') return { kind: 'idle' };

  const serial = Number(zone.published_serial);
  const servers = [...deps.nameservers(), ...deps.secondaries];
  const seen = await Promise.all(servers.map((s) => deps.probe(s, zone.name)));
  const lagging = seen.map((r, i) => ({ server: servers[i]!, seen: r })).filter((x) => !serves(x.seen, serial));
  if (lagging.length) return { kind: 'waiting', lagging };
  return { kind: 'live', changeSets: await markLive(deps, zone, serial) };
}

/**
 * One statement: the change sets the verified version carries become live (a newer version may be
 * pushed by now: only seq <= published_seq), an activating zone becomes active, one
 * record.published event row per change set that this statement moved (ids by the database's
 * new_id, the format of newId: one id format in the events outbox), and, when it moved any, the
 * NOTIFY that wakes the API's `Prefer: wait` answers (delivered on commit, so a woken waiter reads
 * them live).
 */
async function markLive(deps: VerifyDeps, zone: ZoneState, serial: number): Promise<number> {
  const now = deps.clock.now();
  const result = await deps.db.raw<{ rows: { n: number }[] }>(
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
  ).options(PREPARED);
  return Number(result.rows[0]!.n);
}

async function removeZone(deps: VerifyDeps, zone: ZoneState): Promise<boolean> {
  const now = deps.clock.now();
  return transactionWithRetry(deps.db, async (trx) => {
    noteLock(trx, 'zones');
    const locked = await trx('zones').where({ id: zone.id, status: 'deleting' }).whereNull('published_serial').forUpdate().first('id');
    if (!locked) return false;
    await trx('zones').where('id', zone.id).delete();
    // Its change sets went with it: whoever waits for one of them stops waiting.
    await trx.raw('SELECT pg_notify(?, ?)', [CHANGESETS_SETTLED_CHANNEL, zone.id]);
    await recordEvents(trx, [{ tenantId: zone.tenant_id, kind: 'zone.changed', zoneId: zone.id, payload: { zone: zone.name, change: 'deleted' } }], now);
    return true;
  });
}

/** Change sets `pushed` for 60 minutes get error.code verification_timeout and stay `pushed`. */
export async function markVerificationTimeouts(db: Knex, now: Date): Promise<number> {
  return db('change_sets')
    .where('state', 'pushed')
    .whereNull('error')
    .andWhere('pushed_at', '<=', new Date(now.getTime() - VERIFICATION_TIMEOUT_MS))
    .update({
      error: JSON.stringify({ code: 'verification_timeout', detail: 'The new data was not seen on every authoritative nameserver within 60 minutes.' }),
      updated_at: now,
    });
}
