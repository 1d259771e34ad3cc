import type { Knex } from 'knex';

// Retention (docs/operations.md "Retention"): what the maintenance job deletes is found by its age,
// a batch at a time, through these indexes rather than by reading whole tables; an event's
// deliveries go with it (ON DELETE CASCADE), which needs their event_id indexed. A zone's history
// of versions is read newest first by the nameserver feed and trimmed by each build
// (publishZone.ts), both by (zone_id, created_at).
//
// These are the largest tables of a running service: the indexes are built CONCURRENTLY, outside
// a transaction, so writes go on meanwhile. A build interrupted leaves an invalid index behind,
// which the next run drops and builds again.
export const config = { transaction: false };

const INDEXES: [name: string, on: string][] = [
  ['events_occurred_at', 'events (occurred_at)'],
  ['webhook_deliveries_event', 'webhook_deliveries (event_id)'],
  ['change_sets_created_at', 'change_sets (created_at)'],
  ['audit_log_occurred_at', 'audit_log (occurred_at)'],
  ['zone_versions_history', 'zone_versions (zone_id, created_at)'],
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
