import type { Knex } from 'knex';

// Secondary sets and their catalog zones (docs/catalog-zones.md).
//
// - secondary_sets: a fleet of standard secondaries as a tenant's resource — the addresses it is
//   sent NOTIFY and asked before `live` (jsonb [{address, port}]), the TSIG key it transfers with,
//   how its members are grouped, and its catalog zone (a zone row of kind 'catalog').
// - zones.kind 'catalog': a catalog zone is published like any zone (its records rendered from
//   its members) and hidden from the zone API, events and webhooks.
// - zones.catalog_seq: a stamp from one sequence, set when a zone's membership in catalogs
//   changes (created, deleted, signing on or off); the catalog's build renders the members whose
//   stamp is newer than the one its version rendered — no lock on the catalog's row in a zone's write.
// - Tokens that held every scope there was get the new secondaries:read and secondaries:write,
//   as tsig:read and tsig:write were given (20261128002400).
const SCOPES_BEFORE = [
  'tenant:read',
  'zones:read',
  'zones:write',
  'records:read',
  'records:write',
  'dnssec:read',
  'dnssec:write',
  'rdns:read',
  'rdns:write',
  'dyndns:read',
  'dyndns:write',
  'audit:read',
  'webhooks:manage',
  'act_as',
  'tenants:read',
  'tenants:write',
  'tsig:read',
  'tsig:write',
];
const NEW_SCOPES = ['secondaries:read', 'secondaries:write'];

export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE zones DROP CONSTRAINT zones_kind_check');
  await knex.raw(`ALTER TABLE zones ADD CONSTRAINT zones_kind_check CHECK (kind IN ('forward','reverse','provider_reverse','lab_parent','catalog'))`);
  await knex.raw('CREATE SEQUENCE zone_catalog_seq');
  await knex.raw(`ALTER TABLE zones ADD COLUMN catalog_seq bigint NOT NULL DEFAULT nextval('zone_catalog_seq')`);

  await knex.schema.createTable('secondary_sets', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('catalog_zone_id').notNullable().unique().references('zones.id');
    t.jsonb('secondaries').notNullable();
    t.text('group_by').notNullable().defaultTo('none');
    t.text('tsig_key_id').references('tsig_keys.id');
    t.bigInteger('version').notNullable().defaultTo(1);
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.unique(['tenant_id', 'name']);
  });
  await knex.raw(`ALTER TABLE secondary_sets ADD CONSTRAINT secondary_sets_group_by_check CHECK (group_by IN ('none', 'dnssec'))`);

  await knex.raw(`UPDATE api_tokens SET scopes = scopes || ?::text[] WHERE scopes @> ?::text[] AND NOT scopes && ?::text[]`, [
    NEW_SCOPES,
    SCOPES_BEFORE,
    NEW_SCOPES,
  ]);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`UPDATE api_tokens SET scopes = array_remove(array_remove(scopes, 'secondaries:read'), 'secondaries:write')`);
  await knex.schema.dropTable('secondary_sets');
  await knex('zones').where('kind', 'catalog').delete();
  await knex.raw('ALTER TABLE zones DROP COLUMN catalog_seq');
  await knex.raw('DROP SEQUENCE zone_catalog_seq');
  await knex.raw('ALTER TABLE zones DROP CONSTRAINT zones_kind_check');
  await knex.raw(`ALTER TABLE zones ADD CONSTRAINT zones_kind_check CHECK (kind IN ('forward','reverse','provider_reverse','lab_parent'))`);
}
