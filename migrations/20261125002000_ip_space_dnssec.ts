import type { Knex } from 'knex';

// DNSSEC for the provider's own reverse zones (docs/rdns.md "DNSSEC of the provider's reverse
// zones"): an address space says whether its reverse zones are signed; the zones' own DNSSEC
// state stays in zones.dnssec_state, walked by the DNSSEC worker like every zone's.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('ip_spaces', (t) => {
    t.boolean('dnssec').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('ip_spaces', (t) => {
    t.dropColumn('dnssec');
  });
}
