import type { Knex } from 'knex';

// The lab's parent side (docs/lab.md "Lab parent zones"): a lab root and TLD zones are real zones
// of kind 'lab_parent', owned by the lab platform tenant, published like any zone and hidden from
// the zone and record API. lab_registrations is the simulated registry's state per lab zone:
// registered through the provider or at a foreign registrar, where the delegation points, and
// the DS set at the parent.
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE zones DROP CONSTRAINT zones_kind_check');
  await knex.raw(`ALTER TABLE zones ADD CONSTRAINT zones_kind_check CHECK (kind IN ('forward','reverse','lab_parent'))`);
  await knex.schema.createTable('lab_registrations', (t) => {
    t.text('zone_name').primary();
    t.boolean('registered_here').notNullable().defaultTo(true);
    // null: the delegation points at the service's nameservers.
    t.specificType('delegation', 'text[]');
    // DS records at the parent, presentation form of their RDATA.
    t.specificType('ds', 'text[]').notNullable().defaultTo('{}');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('lab_registrations');
  await knex('zones').where('kind', 'lab_parent').delete();
  await knex.raw('ALTER TABLE zones DROP CONSTRAINT zones_kind_check');
  await knex.raw(`ALTER TABLE zones ADD CONSTRAINT zones_kind_check CHECK (kind IN ('forward','reverse'))`);
}
