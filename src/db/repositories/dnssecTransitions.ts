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
