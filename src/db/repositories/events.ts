// Event rows: what happened, for webhooks to deliver (the webhooks issue reads them). Written in
// the same transaction as the change they report, so an event exists exactly when its change does.
import type { Knex } from 'knex';
import { newId } from '../../domain/ids.js';

export type EventKind = 'record.published' | 'record.failed' | 'zone.changed';

export interface EventInput {
  tenantId: string;
  kind: EventKind;
  zoneId: string | null;
  payload: Record<string, unknown>;
}

export async function recordEvents(db: Knex, events: EventInput[], now: Date): Promise<void> {
  if (!events.length) return;
  await db('events').insert(
    events.map((e) => ({ id: newId('evt'), tenant_id: e.tenantId, kind: e.kind, zone_id: e.zoneId, payload: JSON.stringify(e.payload), occurred_at: now })),
  );
}
