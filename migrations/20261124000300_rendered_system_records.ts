import type { Knex } from 'knex';

// One publication build (docs/publication.md): the SOA and the apex NS set are rendered by every
// build from the zone's settings and the NAMESERVERS configuration instead of being stored as
// records; the serial lives only in the published version (zone_versions.serial, pointed at by
// zones.published_serial); what the nameservers serve is stored in wire form, encoded once by the
// build; record_count counts stored records only.
export async function up(knex: Knex): Promise<void> {
  // The stored copies of the system records and of the serial.
  await knex.raw(`DELETE FROM records WHERE system`);
  // Every stored record is the tenant's own from now on: the flag would always be false.
  await knex.schema.alterTable('records', (t) => t.dropColumn('system'));
  await knex.schema.alterTable('zones', (t) => t.dropColumn('serial'));

  // Served records in wire form. The rows stored so far hold presentation data the nameservers
  // had to encode; they are dropped, and every published zone is built once more, whole (the
  // worker finds them at start: their version names no nameservers). Until then a nameserver
  // does not load them; secondaries transfer them whole (AXFR) once.
  await knex.raw(`DELETE FROM published_records`);
  await knex.schema.alterTable('published_records', (t) => {
    t.dropColumn('data');
    t.dropColumn('type');
  });
  await knex.schema.alterTable('published_records', (t) => {
    // The RR type code (RFC 1035 §3.2.2, IANA registry) and the RDATA as the build encoded it.
    t.integer('type').notNullable();
    t.binary('rdata').notNullable();
  });
  await knex.schema.alterTable('zone_versions', (t) => {
    // The records the build rendered for this version (SOA with the version's serial, the apex NS
    // set), wire form like `added`; null for versions built before they were rendered.
    t.jsonb('system').nullable();
    // The NAMESERVERS the version's apex NS set and SOA MNAME were rendered from: a zone whose
    // version names others is built again when the worker starts.
    t.specificType('nameservers', 'text[]').nullable();
  });

  // record_count counts stored records only now (the system rows are gone); the write statement
  // keeps it from here on (appendChangeSet: the plan's growth).
  await knex.raw(`UPDATE zones z SET record_count = (SELECT count(*) FROM records r WHERE r.zone_id = z.id)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('records', (t) => t.boolean('system').notNullable().defaultTo(false));
  await knex.schema.alterTable('zone_versions', (t) => t.dropColumns('system', 'nameservers'));
  await knex.raw(`DELETE FROM published_records`);
  await knex.schema.alterTable('published_records', (t) => t.dropColumns('type', 'rdata'));
  await knex.schema.alterTable('published_records', (t) => {
    t.text('type').notNullable();
    t.jsonb('data').notNullable();
  });
  // The stored system records are not brought back: zones built by the older code need them
  // (recreate them, or rebuild from an export) — a down migration for development only.
  await knex.schema.alterTable('zones', (t) => t.bigInteger('serial').notNullable().defaultTo(0));
  await knex.raw(`UPDATE zones SET serial = coalesce(published_serial, 0)`);
}
