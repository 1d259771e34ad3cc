import type { Knex } from 'knex';

// Readings of the backend that stats show without a live call (docs/rdns.md "Stats"): the zone
// quota, taken by the worker every 15 minutes. One row per reading kind, replaced each time.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('backend_readings', (t) => {
    t.text('key').primary();
    t.jsonb('value').notNullable();
    t.timestamp('read_at', { useTz: true }).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('backend_readings');
}
