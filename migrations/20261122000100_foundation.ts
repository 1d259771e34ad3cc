import type { Knex } from 'knex';

// Foundation: tenants, users, API clients and tokens, audit log, idempotency records,
// rate-limit windows, service secrets, and the lab's simulations.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('tenants', (t) => {
    t.text('id').primary();
    t.text('parent_id').references('tenants.id').onDelete('CASCADE');
    t.text('type').notNullable();
    t.text('name').notNullable();
    // Ids from the root down to this tenant; `path @> ARRAY[x]` selects x's subtree (GIN index).
    t.specificType('path', 'text[]').notNullable();
    t.integer('api_rate_limit_per_minute').notNullable();
    t.integer('max_zones').notNullable();
    t.jsonb('branding').notNullable().defaultTo('{}');
    t.specificType('features', 'text[]').notNullable().defaultTo('{}');
    t.text('support_email');
    t.text('billing_client_id').unique();
    t.timestamp('suspended_at', { useTz: true });
    t.text('suspension_reason');
    t.boolean('lab_seed').notNullable().defaultTo(false);
    t.integer('version').notNullable().defaultTo(1);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`ALTER TABLE tenants ADD CONSTRAINT tenants_type_check CHECK (type IN ('platform','reseller','customer'))`);
  await knex.raw('CREATE INDEX tenants_path_gin ON tenants USING gin (path)');

  await knex.schema.createTable('users', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.text('email').notNullable();
    t.specificType('permissions', 'text[]').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['tenant_id', 'email']);
  });

  await knex.schema.createTable('api_clients', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('api_tokens', (t) => {
    t.text('id').primary();
    t.text('api_client_id').notNullable().references('api_clients.id').onDelete('CASCADE');
    t.text('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.text('user_id').references('users.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('deployment').notNullable();
    // SHA-256 of the whole token; the token itself is never stored.
    t.text('token_hash').notNullable().unique();
    // First characters, so people can tell their tokens apart in listings.
    t.text('display_prefix').notNullable();
    t.specificType('scopes', 'text[]').notNullable();
    t.timestamp('expires_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.timestamp('last_used_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('audit_log', (t) => {
    t.bigIncrements('seq').primary();
    t.text('id').notNullable().unique();
    t.timestamp('occurred_at', { useTz: true }).notNullable();
    // The tenant whose data the action concerned (the acting tenant); scoping uses it.
    t.text('tenant_id').notNullable();
    t.text('api_client_id');
    t.text('token_id');
    t.text('user_id');
    t.text('actor_tenant_id');
    t.text('on_behalf_of_tenant_id');
    t.text('action').notNullable();
    t.text('target_type').notNullable();
    t.text('target_id').notNullable();
    t.text('request_id');
    t.jsonb('details').notNullable().defaultTo('{}');
    t.index(['tenant_id', 'occurred_at']);
    t.index(['action']);
    t.index(['target_id']);
  });

  await knex.schema.createTable('idempotency_records', (t) => {
    t.text('api_client_id').notNullable();
    t.text('tenant_id').notNullable();
    t.text('key').notNullable();
    t.text('fingerprint').notNullable();
    t.integer('status').notNullable();
    t.jsonb('headers').notNullable();
    t.text('body');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.primary(['api_client_id', 'tenant_id', 'key']);
    t.index(['expires_at']);
  });

  await knex.schema.createTable('rate_limit_windows', (t) => {
    t.text('bucket').notNullable();
    t.timestamp('window_start', { useTz: true }).notNullable();
    t.integer('count').notNullable();
    t.primary(['bucket', 'window_start']);
  });

  await knex.schema.createTable('service_secrets', (t) => {
    t.text('name').primary();
    t.binary('value').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  // The lab's simulated billing system (read through the same BillingDirectory interface as the
  // production HTTP adapter).
  await knex.schema.createTable('lab_billing_clients', (t) => {
    t.text('id').primary();
    t.text('name').notNullable();
    t.text('email');
    t.text('status').notNullable();
  });

  await knex.schema.createTable('lab_state', (t) => {
    t.text('key').primary();
    t.jsonb('value').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'lab_state',
    'lab_billing_clients',
    'service_secrets',
    'rate_limit_windows',
    'idempotency_records',
    'audit_log',
    'api_tokens',
    'api_clients',
    'users',
    'tenants',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}
