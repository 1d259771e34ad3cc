import type { Knex } from 'knex';

// Zones, their records, and the change sets every write produces.
export async function up(knex: Knex): Promise<void> {
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
  // One CNAME per name: a unique constraint on a column that holds the name for CNAMEs only.
  await knex.raw(`ALTER TABLE records ADD COLUMN cname_name text COLLATE "C"
    GENERATED ALWAYS AS (CASE WHEN type = 'CNAME' THEN name END) STORED`);
  await knex.raw(`ALTER TABLE records ADD CONSTRAINT records_one_cname
    UNIQUE (zone_id, cname_name) DEFERRABLE INITIALLY DEFERRED`);
  // A CNAME alone at its name, checked at commit by a deferred constraint trigger (an index
  // lookup on records_no_duplicate). A GiST exclusion constraint did the same but made bulk
  // inserts (a 20,000-record import) five times slower (bench/RESULTS.md).
  await knex.raw(`CREATE FUNCTION records_check_cname_exclusive() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF EXISTS (SELECT 1 FROM records WHERE id = NEW.id AND name = NEW.name AND type = NEW.type)
         AND EXISTS (SELECT 1 FROM records r WHERE r.zone_id = NEW.zone_id AND r.name = NEW.name
                     AND (r.type = 'CNAME') <> (NEW.type = 'CNAME')) THEN
        RAISE EXCEPTION 'a CNAME and other records at % in zone %', NEW.name, NEW.zone_id
          USING ERRCODE = 'exclusion_violation', CONSTRAINT = 'records_cname_exclusive';
      END IF;
      RETURN NULL;
    END $$`);
  await knex.raw(`CREATE CONSTRAINT TRIGGER records_cname_exclusive AFTER INSERT OR UPDATE OF name, type ON records
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION records_check_cname_exclusive()`);

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
  await knex.raw('DROP FUNCTION IF EXISTS records_check_cname_exclusive()');
}
