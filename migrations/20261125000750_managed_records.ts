import type { Knex } from 'knex';

// Records another object of the service keeps (a dynamic DNS host's address, an address space's
// forward record of a default PTR): the owning object's id, null for the tenant's own records.
// docs/records.md "Managed records".
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('records', (t) => {
    t.text('managed_by').nullable();
  });
  // Removing an object removes its records: found by this index, not by scanning its zone.
  await knex.raw('CREATE INDEX records_managed_by ON records (managed_by) WHERE managed_by IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS records_managed_by');
  await knex.schema.alterTable('records', (t) => {
    t.dropColumn('managed_by');
  });
}
