import type { Knex } from 'knex';

// What each catalog zone lists (docs/catalog-zones.md "Moving between catalogs"): the producer's
// memory of what it told the consumers, written by the catalog's build in the version's
// transaction. A member the catalog no longer selects stays listed for a while with a change of
// ownership (`coo_to`, since `departed_at`) when another set carries it; a member another
// catalog still lists is held back (`listed` false) until that catalog has said where it goes.
// Rows go with either zone; a `coo` whose catalog is deleted is forgotten.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE catalog_listings (
    catalog_zone_id text NOT NULL REFERENCES zones(id) ON DELETE CASCADE,
    zone_id text NOT NULL REFERENCES zones(id) ON DELETE CASCADE,
    listed boolean NOT NULL DEFAULT true,
    coo_to text REFERENCES zones(id) ON DELETE SET NULL,
    departed_at timestamptz,
    PRIMARY KEY (catalog_zone_id, zone_id)
  )`);
  await knex.raw('CREATE INDEX catalog_listings_zone ON catalog_listings (zone_id)');
  await knex.raw('CREATE INDEX catalog_listings_coo_to ON catalog_listings (coo_to) WHERE coo_to IS NOT NULL');
  await knex.raw('CREATE INDEX catalog_listings_unsettled ON catalog_listings (catalog_zone_id) WHERE departed_at IS NOT NULL OR NOT listed');
  // What every catalog lists now: its set's members, by the membership rule of this migration's
  // time (memberOfSetSql), written out here so that the migration never changes with that code.
  await knex.raw(`INSERT INTO catalog_listings (catalog_zone_id, zone_id)
    SELECT s.catalog_zone_id, m.id FROM secondary_sets s JOIN zones m ON
      m.kind IN ('forward', 'reverse', 'provider_reverse')
      AND m.tenant_id IN (SELECT t.id FROM tenants t WHERE t.path @> ARRAY[s.tenant_id, coalesce(s.zones_tenant_id, s.tenant_id)]::text[])
      AND (s.zones_group IS NULL OR s.zones_group = CASE WHEN m.dnssec_state IN ('off', 'unsigning') THEN 'unsigned' ELSE 'signed' END)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE catalog_listings');
}
