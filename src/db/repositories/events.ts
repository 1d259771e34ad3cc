// The events outbox (docs/zones.md "Events"): the one writer of event rows. Rows are written in
// the transaction of the change they report — an event exists exactly when its change does — and
// are never updated (a trigger refuses it); `seq` orders them. Ids have the format of newId('evt');
// statements that write events by SQL alone use the database's new_id('evt'), the same format.
import type { Knex } from 'knex';
import type { DomainEvent } from '../../domain/model/events.js';
import { newId } from '../../domain/ids.js';

export type { DomainEvent as EventInput, EventKind } from '../../domain/model/events.js';

/** The row of one event, with its id: for inserts sent inside a larger statement. */
export const eventRow = (e: DomainEvent, now: Date) => ({
  id: newId('evt'),
  tenant_id: e.tenantId,
  kind: e.kind,
  zone_id: e.zoneId,
  payload: JSON.stringify(e.payload),
  occurred_at: now,
});

/**
 * Writes events in the caller's transaction; returns their ids. `dispatched`: the writer hands the
 * event to its receivers itself (a webhook's test ping), so the webhook dispatcher skips it.
 */
export async function recordEvents(db: Knex, events: DomainEvent[], now: Date, options: { dispatched?: boolean } = {}): Promise<string[]> {
  if (!events.length) return [];
  const rows = events.map((e) => ({ ...eventRow(e, now), ...(options.dispatched ? { awaiting_dispatch: false } : {}) }));
  await db('events').insert(rows);
  return rows.map((r) => r.id);
}
