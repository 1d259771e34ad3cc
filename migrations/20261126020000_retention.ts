import type { Knex } from 'knex';

// Retention (docs/operations.md "Retention"): what the maintenance job deletes is found by its age,
// a batch at a time, through these indexes rather than by reading whole tables; an event's
// deliveries go with it (ON DELETE CASCADE), which needs their event_id indexed. A zone's history
// of versions is read newest first by the nameserver feed and trimmed by each build
// (publishZone.ts), both by (zone_id, created_at).
const INDEXES = [
  'CREATE INDEX events_occurred_at ON events (occurred_at)',
  'CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id)',
  'CREATE INDEX change_sets_created_at ON change_sets (created_at)',
  'CREATE INDEX audit_log_occurred_at ON audit_log (occurred_at)',
  'CREATE INDEX zone_versions_history ON zone_versions (zone_id, created_at)',
];

export async function up(knex: Knex): Promise<void> {
  for (const sql of INDEXES) await knex.raw(sql);
}

export async function down(knex: Knex): Promise<void> {
  for (const sql of INDEXES) await knex.raw(`DROP INDEX IF EXISTS ${sql.split(' ')[2]}`);
}
