import type { Knex } from 'knex';

// Which zones of its owner's subtree a secondary set carries (docs/catalog-zones.md "The
// resource"): all of them (both null), or those of one tenant's subtree within it
// (zones_tenant_id), or of one DNSSEC group (zones_group: 'signed' or 'unsigned'), or both. No
// foreign key on the tenant: a set naming a tenant deleted since carries no zone (never all).
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE secondary_sets ADD COLUMN zones_tenant_id text');
  await knex.raw(`ALTER TABLE secondary_sets ADD COLUMN zones_group text CHECK (zones_group IN ('signed', 'unsigned'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE secondary_sets DROP COLUMN zones_group');
  await knex.raw('ALTER TABLE secondary_sets DROP COLUMN zones_tenant_id');
}
