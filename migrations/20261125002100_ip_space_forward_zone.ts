import type { Knex } from 'knex';

// Forward records of default PTRs (docs/rdns.md "Forward records of default PTRs"): an address
// space may name a zone of the platform in which the service keeps an A/AAAA record for every
// default name (records.managed_by = the space's id). A zone removed forgets the space's choice.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('ip_spaces', (t) => {
    t.text('forward_zone_id').nullable().references('zones.id').onDelete('SET NULL');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('ip_spaces', (t) => {
    t.dropColumn('forward_zone_id');
  });
}
