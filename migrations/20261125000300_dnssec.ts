import type { Knex } from 'knex';

// DNSSEC (docs/dnssec.md): the keys the service makes and keeps for each signed zone, and the
// zone's place in the spec's state machine.
//
// A key's private half is stored encrypted (AES-256-GCM under DNSSEC_KEY_ENCRYPTION_KEY, or the
// lab's key in DATA_DIR); the public half as the DNSKEY's public-key field. `state`: `published`
// (in the DNSKEY RRset, not signing: a pre-published ZSK), `active` (signing), `retired` (still
// published while resolvers may hold signatures made with it), then deleted.
//
// On zones: `dnssec_state` and `dnssec_mode` exist since the first migration; added here are the
// denial method, when the state last changed (the waits are measured from it), what the last
// check saw (`dnssec_status`, shown in the DNSSEC object), and when the worker looks next.
const STATES = ['off', 'signing', 'keys_published', 'ds_submitted', 'awaiting_ds', 'ds_published', 'validated', 'active', 'ds_removing', 'unsigning'];

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE dnssec_keys (
      id text PRIMARY KEY,
      zone_id text NOT NULL REFERENCES zones (id) ON DELETE CASCADE,
      role text NOT NULL CHECK (role IN ('ksk', 'zsk')),
      algorithm smallint NOT NULL CHECK (algorithm IN (13, 15)),
      flags integer NOT NULL CHECK (flags IN (256, 257)),
      key_tag integer NOT NULL CHECK (key_tag BETWEEN 0 AND 65535),
      public_key bytea NOT NULL,
      private_key bytea NOT NULL,
      state text NOT NULL CHECK (state IN ('published', 'active', 'retired')),
      created_at timestamptz NOT NULL,
      activated_at timestamptz,
      retired_at timestamptz
    )`);
  await knex.raw('CREATE INDEX dnssec_keys_zone ON dnssec_keys (zone_id)');
  await knex.raw(`
    ALTER TABLE zones
      ADD COLUMN dnssec_denial text NOT NULL DEFAULT 'nsec3' CHECK (dnssec_denial IN ('nsec3', 'nsec')),
      ADD COLUMN dnssec_state_changed_at timestamptz,
      ADD COLUMN dnssec_status jsonb NOT NULL DEFAULT '{}'::jsonb,
      ADD COLUMN dnssec_next_check_at timestamptz,
      ADD CONSTRAINT zones_dnssec_state CHECK (dnssec_state IN (${STATES.map((s) => `'${s}'`).join(', ')})),
      ADD CONSTRAINT zones_dnssec_mode CHECK (dnssec_mode IS NULL OR dnssec_mode IN ('automatic', 'assisted'))`);
  await knex.raw(`CREATE INDEX zones_dnssec_due ON zones (dnssec_next_check_at) WHERE dnssec_state <> 'off'`);
  // What a version was signed with (src/dnssec/signingKeys.ts signingFingerprint); null: unsigned.
  await knex.raw('ALTER TABLE zone_versions ADD COLUMN signing text');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE zone_versions DROP COLUMN IF EXISTS signing');
  await knex.raw('DROP INDEX IF EXISTS zones_dnssec_due');
  await knex.raw(`
    ALTER TABLE zones
      DROP CONSTRAINT IF EXISTS zones_dnssec_mode,
      DROP CONSTRAINT IF EXISTS zones_dnssec_state,
      DROP COLUMN IF EXISTS dnssec_next_check_at,
      DROP COLUMN IF EXISTS dnssec_status,
      DROP COLUMN IF EXISTS dnssec_state_changed_at,
      DROP COLUMN IF EXISTS dnssec_denial`);
  await knex.raw('DROP TABLE IF EXISTS dnssec_keys');
}
