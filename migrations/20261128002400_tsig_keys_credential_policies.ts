import type { Knex } from 'knex';

// TSIG keys as a tenant's resources, and credential policies on API tokens and TSIG keys
// (docs/credentials.md).
//
// - tsig_keys: a key's name is unique across the deployment (a nameserver finds a key by its name
//   alone); the secret is sealed like a DNSSEC private key (AES-256-GCM under the service's
//   key-encryption key); `policy` is the credential policy, null for none.
// - api_tokens.policy: the same shape; null for the tokens issued so far.
// - Tokens that held every scope there was (the platform's first token, the lab's tokens) were
//   meant to hold everything: they get the two new scopes tsig:read and tsig:write. Every other
//   token keeps exactly its scopes (a token grants only scopes it holds, so without this no
//   existing token could ever issue a tsig:write token).
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
];
const NEW_SCOPES = ['tsig:read', 'tsig:write'];

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('tsig_keys', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    // Lower case, A-labels, no trailing dot.
    t.text('name').notNullable().unique();
    t.text('algorithm').notNullable();
    t.binary('secret').notNullable();
    t.jsonb('policy');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.timestamp('rotated_at', { useTz: true });
    t.index(['tenant_id']);
  });
  await knex.raw(`ALTER TABLE tsig_keys ADD CONSTRAINT tsig_keys_algorithm_check
    CHECK (algorithm IN ('hmac-md5', 'hmac-sha1', 'hmac-sha224', 'hmac-sha256', 'hmac-sha384', 'hmac-sha512'))`);

  await knex.schema.alterTable('api_tokens', (t) => {
    t.jsonb('policy');
  });
  await knex.raw(`UPDATE api_tokens SET scopes = scopes || ?::text[] WHERE scopes @> ?::text[] AND NOT scopes && ?::text[]`, [
    NEW_SCOPES,
    SCOPES_BEFORE,
    NEW_SCOPES,
  ]);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`UPDATE api_tokens SET scopes = array_remove(array_remove(scopes, 'tsig:read'), 'tsig:write')`);
  await knex.schema.alterTable('api_tokens', (t) => {
    t.dropColumn('policy');
  });
  await knex.schema.dropTable('tsig_keys');
}
