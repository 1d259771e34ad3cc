import type { Knex } from 'knex';

// The publication pipeline: what the nameservers serve (published_records), the published
// versions they load and transfer (zone_versions), the change-set bookkeeping of pending → pushed
// → live, and the event rows webhooks deliver later.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('zones', (t) => {
    // The version the nameservers serve; null until the first publication.
    t.bigInteger('published_serial').nullable();
    // Highest change-set seq included in that version: seq > published_seq is unpublished work.
    t.integer('published_seq').notNullable().defaultTo(0);
    t.timestamp('activated_at', { useTz: true }).nullable();
    // After a failed build the poll waits until then (a new write or a retry tries at once).
    t.timestamp('publish_retry_at', { useTz: true }).nullable();
  });
  // The publisher's work list: zones with unpublished change sets or a deletion to carry out.
  await knex.raw(`CREATE INDEX zones_unpublished ON zones (id) WHERE published_seq < changeset_seq OR status = 'deleting'`);

  await knex.schema.alterTable('change_sets', (t) => {
    // Owner names (zone-relative) whose records the change set touched; null: the whole zone.
    t.specificType('touched_names', 'text[]').nullable();
    // The published version (SOA serial) that carried this change set.
    t.bigInteger('serial').nullable();
    t.timestamp('pushed_at', { useTz: true }).nullable();
    t.timestamp('live_at', { useTz: true }).nullable();
  });
  await knex.raw(`CREATE INDEX change_sets_unverified ON change_sets (zone_id) WHERE state IN ('pushed', 'failed')`);

  await knex.schema.createTable('published_records', (t) => {
    t.text('zone_id').notNullable().references('zones.id').onDelete('CASCADE');
    t.text('record_id').notNullable();
    t.specificType('name', 'text COLLATE "C"').notNullable();
    t.text('type').notNullable();
    // The TTL as served (a record's ttl or the zone's default_ttl at publication).
    t.integer('ttl').notNullable();
    t.jsonb('data').notNullable();
    t.primary(['zone_id', 'record_id']);
    t.index(['zone_id', 'name']);
  });

  await knex.schema.createTable('zone_versions', (t) => {
    t.text('zone_id').notNullable().references('zones.id').onDelete('CASCADE');
    t.bigInteger('serial').notNullable();
    // The version this one applies to; null: a whole zone (first publication or full rebuild).
    t.bigInteger('from_serial').nullable();
    // Records as {name, type, ttl, data}, names zone-relative ('@' the apex).
    t.jsonb('removed').notNullable();
    t.jsonb('added').notNullable();
    // The zone is withdrawn from the nameservers (deletion).
    t.boolean('withdrawn').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.primary(['zone_id', 'serial']);
  });

  await knex.schema.createTable('events', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.text('kind').notNullable();
    // No foreign key: a zone.changed (deleted) event outlives its zone.
    t.text('zone_id').nullable();
    t.jsonb('payload').notNullable();
    t.timestamp('occurred_at', { useTz: true }).notNullable();
    t.index(['tenant_id', 'occurred_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('events');
  await knex.schema.dropTableIfExists('zone_versions');
  await knex.schema.dropTableIfExists('published_records');
  await knex.raw('DROP INDEX IF EXISTS change_sets_unverified');
  await knex.schema.alterTable('change_sets', (t) => {
    t.dropColumns('touched_names', 'serial', 'pushed_at', 'live_at');
  });
  await knex.raw('DROP INDEX IF EXISTS zones_unpublished');
  await knex.schema.alterTable('zones', (t) => {
    t.dropColumns('published_serial', 'published_seq', 'activated_at', 'publish_retry_at');
  });
}
