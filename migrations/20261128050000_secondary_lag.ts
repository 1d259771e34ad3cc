import type { Knex } from 'knex';

// Which secondaries of the secondary sets a zone's published version waits on (docs/catalog-zones.md
// "`live` includes the fleet"): written by the publication verifier (only when what it saw
// changed), read with the zone into its publication object, so any API process shows what a
// worker process saw. One row per zone, set and secondary that does not serve the serial yet;
// `since` is when that secondary was first seen behind on the zone.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('secondary_lag', (t) => {
    t.text('zone_id').notNullable().references('zones.id').onDelete('CASCADE');
    t.text('set_id').notNullable().references('secondary_sets.id').onDelete('CASCADE');
    t.text('host').notNullable();
    t.integer('port').notNullable();
    t.bigInteger('serial');
    t.timestamp('since', { useTz: true }).notNullable();
    t.primary(['zone_id', 'set_id', 'host', 'port']);
  });
  await knex.raw('CREATE INDEX secondary_lag_set_id ON secondary_lag (set_id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('secondary_lag');
}
