import type { Knex } from 'knex';

// The lab registry's side of customer prefixes (docs/lab.md "Reverse parents"): how the lab's
// in-addr.arpa / ip6.arpa parents delegate a prefix's reverse zones — correctly (to the service's
// nameservers), not at all, or elsewhere. No row: correct. Gone with the prefix.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('lab_prefix_delegations', (t) => {
    t.text('prefix_id').primary().references('prefixes.id').onDelete('CASCADE');
    t.text('state').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`ALTER TABLE lab_prefix_delegations ADD CONSTRAINT lab_prefix_delegations_state CHECK (state IN ('correct','missing','wrong'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('lab_prefix_delegations');
}
