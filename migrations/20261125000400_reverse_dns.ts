import type { Knex } from 'knex';

// Reverse DNS (docs/rdns.md): the provider's address spaces with their default-PTR pattern, IP
// assignments of those to tenants (a reseller may hand part of its own on to a customer), and
// customer-owned prefixes. Reverse zones are zones: kind 'provider_reverse' for an address space's
// (owned by the platform tenant, never listed), 'reverse' for a prefix's (owned by its customer),
// each knowing the block it covers; a prefix's zones carry what the last delegation check saw.
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE zones DROP CONSTRAINT zones_kind_check');
  await knex.raw(`ALTER TABLE zones ADD CONSTRAINT zones_kind_check CHECK (kind IN ('forward','reverse','provider_reverse','lab_parent'))`);

  await knex.schema.createTable('ip_spaces', (t) => {
    t.text('id').primary();
    t.specificType('cidr', 'cidr').notNullable().unique();
    // e.g. 'static.{dashed}.hosting.example.' (docs/rdns.md "Default PTRs").
    t.text('ptr_pattern').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('ALTER TABLE ip_spaces ADD CONSTRAINT ip_spaces_no_overlap EXCLUDE USING gist (cidr inet_ops WITH &&)');

  await knex.schema.createTable('ip_assignments', (t) => {
    t.text('id').primary();
    t.text('space_id').notNullable().references('ip_spaces.id');
    t.text('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.specificType('cidr', 'cidr').notNullable();
    t.text('server_name').nullable();
    // Handed on by a reseller from its own assignment; null: assigned by the provider.
    t.text('parent_id').nullable().references('ip_assignments.id').onDelete('CASCADE');
    t.text('assigned_by').notNullable().references('tenants.id').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['tenant_id']);
  });
  await knex.raw('CREATE INDEX ip_assignments_cidr ON ip_assignments USING gist (cidr inet_ops)');

  await knex.schema.createTable('prefixes', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.specificType('cidr', 'cidr').notNullable().unique();
    t.text('attached_by').notNullable().references('tenants.id').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['tenant_id']);
  });
  await knex.raw('ALTER TABLE prefixes ADD CONSTRAINT prefixes_no_overlap EXCLUDE USING gist (cidr inet_ops WITH &&)');

  await knex.schema.alterTable('zones', (t) => {
    t.text('ip_space_id').nullable().references('ip_spaces.id');
    t.text('prefix_id').nullable().references('prefixes.id');
    // The block a reverse zone covers (for an RFC 2317 zone, the classless block).
    t.specificType('reverse_block', 'cidr').nullable();
    // A prefix zone's last delegation check: { state, seen, checked_at } (docs/rdns.md).
    t.jsonb('delegation').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex('zones').whereIn('kind', ['provider_reverse']).delete();
  await knex.schema.alterTable('zones', (t) => t.dropColumns('ip_space_id', 'prefix_id', 'reverse_block', 'delegation'));
  await knex.schema.dropTable('prefixes');
  await knex.schema.dropTable('ip_assignments');
  await knex.schema.dropTable('ip_spaces');
  await knex.raw('ALTER TABLE zones DROP CONSTRAINT zones_kind_check');
  await knex.raw(`ALTER TABLE zones ADD CONSTRAINT zones_kind_check CHECK (kind IN ('forward','reverse','lab_parent'))`);
}
