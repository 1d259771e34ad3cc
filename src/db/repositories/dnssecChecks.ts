// The DNSSEC worker's reads (docs/dnssec.md "States"): which zones are due for a look, a zone's
// DNSSEC columns (locked for the step), the longest TTL it publishes, and the wake-up of the
// build. What a look stores goes through dnssecTransitions.ts, the one writer of the state.
import { ZONE_CHANNEL } from '../channels.js';
import type { Runner, Transaction } from '../context.js';
import { noteLock } from '../lockOrder.js';

/** Up to `limit` zones whose DNSSEC is not off and whose next check is due (or never set), soonest first. */
export async function zonesDueForDnssecCheck(db: Runner, now: Date, limit: number): Promise<string[]> {
  const rows = (await db('zones')
    .whereNot('dnssec_state', 'off')
    .andWhere((w) => w.whereNull('dnssec_next_check_at').orWhere('dnssec_next_check_at', '<=', now))
    .orderBy('dnssec_next_check_at')
    .limit(limit)
    .select('id')) as { id: string }[];
  return rows.map((r) => r.id);
}

/**
 * The zone's DNSSEC columns (with its name, tenant and kind). `lock`: the row locked FOR NO KEY
 * UPDATE in the transaction `db`, as a lock of that class.
 */
export async function dnssecZoneRow<Row>(db: Runner, zoneId: string, lock: 'zones' | 'lab_parent_zones' | null = null): Promise<Row | undefined> {
  const q = db('zones').where('id', zoneId).first('id', 'name', 'tenant_id', 'dnssec_state', 'dnssec_mode', 'dnssec_state_changed_at', 'dnssec_status', 'kind');
  // NO KEY: the row's DNSSEC columns change, never its key, so a version being written (whose
  // rows hold the zone FOR KEY SHARE until their commit) does not keep the worker waiting.
  if (lock) noteLock(db as Transaction, lock);
  return (await (lock ? q.forNoKeyUpdate() : q)) as Row | undefined;
}

/** The longest TTL among the zone's published records; null when it publishes none. */
export async function maxPublishedTtl(db: Runner, zoneId: string): Promise<number | null> {
  const row = (await db('published_records').where('zone_id', zoneId).max('ttl as ttl').first()) as { ttl: number | null } | undefined;
  return row?.ttl ?? null;
}

/** Wakes the publication build for the zone (delivered on commit). */
export async function notifyZoneChanged(trx: Transaction, zoneId: string): Promise<void> {
  await trx.raw('SELECT pg_notify(?, ?)', [ZONE_CHANNEL, zoneId]);
}
