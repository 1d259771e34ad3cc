import type { Knex } from 'knex';

// What a catalog zone's version rendered (docs/catalog-zones.md "Change without a lock"): the
// stamp of its members when it was built (src/db/repositories/catalogMembers.ts catalogStampSql),
// so the build and the publication poll see that members changed since — with no write to the
// catalog's row in a member zone's write. Null for every other zone.
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE zone_versions ADD COLUMN catalog_stamp text');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE zone_versions DROP COLUMN catalog_stamp');
}
