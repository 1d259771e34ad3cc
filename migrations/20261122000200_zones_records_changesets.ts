import type { Knex } from 'knex';

// Zones, their records, and the change sets every write produces.
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE EXTENSION IF NOT EXISTS btree_gist');

  await knex.schema.createTable('zones', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.text('name').notNullable().unique();
    t.text('kind').notNullable();
    t.text('status').notNullable();
    t.integer('default_ttl').notNullable();
    t.text('soa_email').notNullable();
    t.bigInteger('serial').notNullable();
    t.text('dnssec_state').notNullable().defaultTo('off');
    t.text('dnssec_mode');
    // Per-zone sequence of change sets; the newest one gives the zone's publication summary.
    t.integer('changeset_seq').notNullable().defaultTo(0);
    // Kept by every write, so the per-zone record limit needs no count(*) over the zone.
    t.integer('record_count').notNullable().defaultTo(0);
    t.text('last_changeset_id');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.timestamp('deletion_requested_at', { useTz: true });
    t.index(['tenant_id', 'name']);
    t.index(['created_at', 'id']);
  });
  // Byte order for names, whatever the database's collation: list order and keyset pagination
  // must not depend on how a locale sorts '-', '.' and '_'.
  await knex.raw('ALTER TABLE zones ALTER COLUMN name TYPE text COLLATE "C"');
  await knex.raw(`ALTER TABLE zones ADD CONSTRAINT zones_kind_check CHECK (kind IN ('forward','reverse'))`);
  await knex.raw(`ALTER TABLE zones ADD CONSTRAINT zones_status_check CHECK (status IN ('activating','active','deleting'))`);

  await knex.schema.createTable('records', (t) => {
    t.text('id').primary();
    t.text('zone_id').notNullable().references('zones.id').onDelete('CASCADE');
    t.text('tenant_id').notNullable();
    // Zone-relative owner, lower-case A-labels; '@' is the apex.
    t.text('name').notNullable();
    // Sort key: the apex first, then names in order (spec list order).
    t.text('name_sort').notNullable();
    t.text('type').notNullable();
    t.integer('ttl');
    t.jsonb('data').notNullable();
    // RDATA in presentation format: identity of a record within its RRset, and the `q` search.
    t.text('content').notNullable();
    t.text('comment');
    t.boolean('system').notNullable().defaultTo(false);
    t.text('last_changeset_id').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.index(['zone_id', 'name_sort', 'type', 'content', 'id']);
    t.index(['tenant_id']);
  });
  for (const column of ['name', 'name_sort', 'type', 'content']) {
    await knex.raw(`ALTER TABLE records ALTER COLUMN ${column} TYPE text COLLATE "C"`);
  }
  // The database guards the invariants too (the change-set validator reports them by item index
  // first). Deferred: within one change set, order of the statements does not matter.
  await knex.raw(`ALTER TABLE records ADD CONSTRAINT records_no_duplicate
    UNIQUE (zone_id, name, type, content) DEFERRABLE INITIALLY DEFERRED`);
  await knex.raw(`ALTER TABLE records ADD CONSTRAINT records_cname_exclusive
    EXCLUDE USING gist (zone_id WITH =, name WITH =, (type = 'CNAME') WITH <>) DEFERRABLE INITIALLY DEFERRED`);
  await knex.raw(`ALTER TABLE records ADD CONSTRAINT records_one_cname
    EXCLUDE USING gist (zone_id WITH =, name WITH =) WHERE (type = 'CNAME') DEFERRABLE INITIALLY DEFERRED`);

  await knex.schema.createTable('change_sets', (t) => {
    t.text('id').primary();
    t.text('zone_id').notNullable().references('zones.id').onDelete('CASCADE');
    t.text('tenant_id').notNullable();
    t.integer('seq').notNullable();
    t.text('state').notNullable();
    t.jsonb('error');
    t.text('kind').notNullable();
    t.text('comment');
    t.integer('item_count').notNullable();
    t.jsonb('summary').notNullable();
    t.jsonb('results').notNullable();
    t.text('api_client_id');
    t.text('request_id');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.unique(['zone_id', 'seq']);
    t.index(['tenant_id']);
    t.index(['state']);
  });
  await knex.raw(`ALTER TABLE change_sets ADD CONSTRAINT change_sets_state_check CHECK (state IN ('pending','pushed','live','failed'))`);

  // The last export of a deleted zone, kept 30 days (spec), restorable by support.
  await knex.schema.createTable('deleted_zone_exports', (t) => {
    t.text('id').primary();
    t.text('zone_id').notNullable();
    t.text('zone_name').notNullable();
    t.text('tenant_id').notNullable();
    t.text('zonefile').notNullable();
    t.timestamp('deleted_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.index(['zone_name']);
    t.index(['tenant_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['deleted_zone_exports', 'change_sets', 'records', 'zones']) await knex.schema.dropTableIfExists(table);
}
