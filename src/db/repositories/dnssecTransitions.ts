// The one writer of a zone's DNSSEC state: the state columns and the dnssec.state_changed event in
// the caller's transaction, for the API's transitions (src/services/dnssec.ts) and the worker's
// (src/dnssec/dnssecWorker.ts) alike.
import type { Knex } from 'knex';
import { recordEvents } from './events.js';

/**
 * Moves the zone to `to`, with its event; `columns` are further zone columns of the same statement
 * (they win over the defaults here). A zone back at `off` keeps no mode and is checked no more.
 */
export async function recordTransition(
  trx: Knex.Transaction,
  zone: { id: string; tenantId: string; name: string },
  /** States and modes of src/domain/dnssec/states.ts (this layer does not know the table). */
  from: string,
  to: string,
  mode: string | null,
  now: Date,
  columns: Record<string, unknown> = {},
): Promise<void> {
  const off = to === 'off';
  await trx('zones')
    .where('id', zone.id)
    .update({ dnssec_state: to, dnssec_mode: off ? null : mode, dnssec_state_changed_at: now, dnssec_next_check_at: off ? null : now, ...columns });
  await recordEvents(trx, [{ tenantId: zone.tenantId, kind: 'dnssec.state_changed', zoneId: zone.id, payload: { zone: zone.name, from, to, mode } }], now);
}

/** The DNSSEC columns of zones, by id (the state the API shows beside the keys). */
export const zoneDnssecRows = async <Row>(db: Knex | Knex.Transaction, zoneIds: string[]): Promise<(Row & { id: string })[]> =>
  (await db('zones')
    .whereIn('id', zoneIds)
    .select('id', 'dnssec_state', 'dnssec_mode', 'dnssec_denial', 'dnssec_state_changed_at', 'dnssec_status')) as (Row & { id: string })[];

/** What the last check saw of the zone (zones.dnssec_status). */
export const zoneDnssecStatus = async <Status>(db: Knex | Knex.Transaction, zoneId: string): Promise<Status> =>
  ((await db('zones').where('id', zoneId).first('dnssec_status')) as { dnssec_status: Status }).dnssec_status;

/** Records a KSK rollover under way in the zone's status, and has the worker look at it now. */
export async function recordKskRollover(trx: Knex.Transaction, zoneId: string, rollover: Record<string, unknown>, now: Date): Promise<void> {
  await trx('zones')
    .where('id', zoneId)
    .update({ dnssec_status: trx.raw(`dnssec_status || jsonb_build_object('ksk_rollover', ?::jsonb)`, [JSON.stringify(rollover)]), dnssec_next_check_at: now });
}
