import type { Knex } from 'knex';

// GET /events (docs/webhooks.md "Polling events") reads a subtree's events in (tx, seq) order
// (20261127002305_event_feed_position): its tenants' own, and those of writes made for one of its
// tenants in another's zone (the event names that tenant in `acting_tenant_id`). One index for
// each, both ending in that order, so a page is read from the index instead of sorting the
// tenant's whole month of events.
//
// `events` is among the largest tables: built CONCURRENTLY, outside a transaction, as
// 20261126020000_retention does; an invalid index left by an interrupted build is built again.
export const config = { transaction: false };

const INDEXES: [name: string, on: string][] = [
  ['events_tenant_position', 'events (tenant_id, tx, seq)'],
  ['events_acting_tenant_position', `events ((payload->>'acting_tenant_id'), tx, seq) WHERE (payload->>'acting_tenant_id') IS NOT NULL`],
];

export async function up(knex: Knex): Promise<void> {
  for (const [name, on] of INDEXES) {
    const invalid = await knex.raw('SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = ? AND NOT i.indisvalid', [name]);
    if (invalid.rowCount) await knex.raw(`DROP INDEX CONCURRENTLY ${name}`);
    await knex.raw(`CREATE INDEX CONCURRENTLY IF NOT EXISTS ${name} ON ${on}`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const [name] of INDEXES) await knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
}
