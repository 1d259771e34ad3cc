// A catalog zone's members (docs/catalog-zones.md): the zones of its owner's subtree — forward,
// reverse and provider reverse, those being deleted too until their row goes (a signed zone's
// deletion waits for its DS to leave the parent: the fleet keeps serving it, signed, until then)
// — that its set selects (all, a
// tenant's subtree within it, a DNSSEC group), read in the catalog's build; and the stamps that
// say, without a lock on the catalog, that its members changed since a version. memberOfSetSql is
// the one definition of membership: the build, the stamp and the serving side (which sets carry a
// zone, secondaryFleet.ts) all read it.
import type { Knex } from 'knex';
import { UNSIGNED_STATES } from '../../domain/dnssec/states.js';
import { CATALOG_MEMBER_KINDS } from '../../domain/model/zone.js';
import type { Listing, ListedElsewhere, ListingPlan } from '../../domain/catalogListing.js';
import { COO_GRACE_S, COO_HOLD_S, type GroupBy } from '../../domain/secondarySets.js';
import type { Runner, Transaction } from '../context.js';

/** The member kinds as an SQL list, for statements written as text. */
const MEMBER_KINDS_SQL = `(${CATALOG_MEMBER_KINDS.map((k) => `'${k}'`).join(', ')})`;

const sqlList = (values: readonly string[]) => `(${values.map((v) => `'${v}'`).join(', ')})`;

/**
 * SQL: zone row `m` is a member of set row `s` (table aliases), being deleted or not: a member
 * kind, of the set owner's subtree and of the selected tenant's (both on the zone's tenant path:
 * a selected tenant outside the owner's subtree selects nothing), of the selected DNSSEC group.
 */
export const memberOfSetSql = (m: string, s: string) =>
  `(${m}.kind IN ${MEMBER_KINDS_SQL}
    AND ${m}.tenant_id IN (SELECT t.id FROM tenants t WHERE t.path @> ARRAY[${s}.tenant_id, coalesce(${s}.zones_tenant_id, ${s}.tenant_id)]::text[])
    AND (${s}.zones_group IS NULL OR ${s}.zones_group = CASE WHEN ${m}.dnssec_state IN ${sqlList(UNSIGNED_STATES)} THEN 'unsigned' ELSE 'signed' END))`;

/**
 * The SQL of a catalog's member stamp, for the catalog zone row aliased `alias` (text, null for
 * other kinds): the number of member rows and a digest of their stamps (zones.catalog_seq), those
 * being deleted included. A zone's membership changes give it a fresh stamp (created, signing on
 * or off) and a row removed lowers the count, so any change moves the digest;
 * a digest of the whole set rather than its maximum, because stamps are taken when a write runs,
 * not when it commits: a write that took a lower stamp may commit after a catalog rendered a higher one.
 */
export const catalogStampSql = (alias: string) =>
  `(CASE WHEN ${alias}.kind = 'catalog' THEN (
     SELECT count(*)::text || ':' || coalesce(md5(string_agg(m.catalog_seq::text, ',' ORDER BY m.catalog_seq)), '')
     FROM secondary_sets s JOIN zones m ON ${memberOfSetSql('m', 's')}
     WHERE s.catalog_zone_id = ${alias}.id
   ) END)`;

/** A fresh membership stamp for a zone row's UPDATE: its catalogs render it again (no lock on them). */
export const membershipStamp = (db: Runner): Knex.Raw => db.raw(`nextval('zone_catalog_seq')`);

/** A zone as a catalog renders it. */
export interface CatalogZoneRow {
  zoneId: string;
  name: string;
  dnssecState: string;
}

/** A catalog's set and listing as its build starts (catalogSource.ts): null when the set is gone (the catalog is being deleted). */
export interface CatalogState {
  setId: string;
  groupBy: GroupBy;
  /** The zones the set selects now. */
  members: CatalogZoneRow[];
  /** The catalog's listing (catalog_listings), with the zones' names and the `coo` catalogs' names. */
  listings: (Listing & CatalogZoneRow & { cooName: string | null })[];
}

/** The set, its members by name and the listing, in the build's transaction. */
export async function readCatalogState(trx: Transaction, catalog: { id: string }): Promise<CatalogState | null> {
  const set = (await trx('secondary_sets').where('catalog_zone_id', catalog.id).first('id', 'group_by')) as { id: string; group_by: GroupBy } | undefined;
  if (!set) return null;
  const { rows } = await trx.raw<{ rows: { id: string; name: string; dnssec_state: string }[] }>(
    `SELECT m.id, m.name, m.dnssec_state FROM secondary_sets s JOIN zones m ON ${memberOfSetSql('m', 's')}
     WHERE s.id = ?
     ORDER BY m.name`,
    [set.id],
  );
  const listed = await trx.raw<{
    rows: { zone_id: string; listed: boolean; coo_to: string | null; coo_name: string | null; expired: boolean; name: string; dnssec_state: string }[];
  }>(
    `SELECT l.zone_id, l.listed, l.coo_to, c.name AS coo_name, z.name, z.dnssec_state,
            (l.departed_at IS NOT NULL AND (l.coo_to IS NULL OR l.departed_at + make_interval(secs => ?) <= now())) AS expired
     FROM catalog_listings l JOIN zones z ON z.id = l.zone_id LEFT JOIN zones c ON c.id = l.coo_to
     WHERE l.catalog_zone_id = ?`,
    [COO_GRACE_S, catalog.id],
  );
  return {
    setId: set.id,
    groupBy: set.group_by,
    members: rows.map((r) => ({ zoneId: r.id, name: r.name, dnssecState: r.dnssec_state })),
    listings: listed.rows.map((r) => ({
      zoneId: r.zone_id,
      listed: r.listed,
      cooTo: r.coo_to,
      cooName: r.coo_name,
      expired: r.expired,
      name: r.name,
      dnssecState: r.dnssec_state,
    })),
  };
}

/**
 * SQL: set rows `a` and `b` share a secondary (address and port): one server follows both
 * catalogs — it must be on both lists to transfer them — and is the one a `coo` is for.
 */
const sharesSecondarySql = (a: string, b: string) =>
  `EXISTS (SELECT 1 FROM jsonb_array_elements(${a}.secondaries) x, jsonb_array_elements(${b}.secondaries) y
           WHERE x->>'address' = y->>'address' AND x->'port' = y->'port')`;

/**
 * Where zones move (planListing's inputs beyond the state), among the sets sharing a secondary
 * with this one (a move between catalogs no server follows together needs no order): for
 * newcomers, the catalogs that still list them although their sets no longer select them; for
 * departing members, the catalog of a set carrying each now — one that does not list it yet (the
 * zone is moving there), then the oldest.
 */
export async function readCatalogMoves(
  trx: Transaction,
  catalog: { id: string; setId: string },
  newcomers: string[],
  departing: string[],
): Promise<{ elsewhere: ListedElsewhere[]; targets: Map<string, { id: string; name: string }> }> {
  const elsewhere = newcomers.length
    ? (
        await trx.raw<{ rows: { zone_id: string; coo_to: string | null; ripe: boolean }[] }>(
          `SELECT l.zone_id, l.coo_to, (l.departed_at IS NOT NULL AND l.departed_at + make_interval(secs => ?) <= now()) AS ripe
           FROM catalog_listings l JOIN secondary_sets s ON s.catalog_zone_id = l.catalog_zone_id JOIN zones m ON m.id = l.zone_id
           CROSS JOIN (SELECT secondaries FROM secondary_sets WHERE id = ?) me
           WHERE l.zone_id = any(?::text[]) AND l.catalog_zone_id <> ? AND l.listed AND NOT ${memberOfSetSql('m', 's')}
             AND ${sharesSecondarySql('s', 'me')}`,
          [COO_HOLD_S, catalog.setId, newcomers, catalog.id],
        )
      ).rows.map((r) => ({ zoneId: r.zone_id, cooTo: r.coo_to, ripe: r.ripe }))
    : [];
  const targets = new Map<string, { id: string; name: string }>();
  if (departing.length) {
    const { rows } = await trx.raw<{ rows: { zone_id: string; id: string; name: string }[] }>(
      `SELECT DISTINCT ON (m.id) m.id AS zone_id, c.id, c.name
       FROM zones m JOIN secondary_sets s ON ${memberOfSetSql('m', 's')} JOIN zones c ON c.id = s.catalog_zone_id
       CROSS JOIN (SELECT secondaries FROM secondary_sets WHERE id = ?) me
       WHERE m.id = any(?::text[]) AND s.id <> ? AND c.status <> 'deleting' AND ${sharesSecondarySql('s', 'me')}
       ORDER BY m.id, EXISTS (SELECT 1 FROM catalog_listings o WHERE o.catalog_zone_id = c.id AND o.zone_id = m.id AND o.listed), s.created_at, s.id`,
      [catalog.setId, departing, catalog.setId],
    );
    for (const r of rows) targets.set(r.zone_id, { id: r.id, name: r.name });
  }
  return { elsewhere, targets };
}

/** The listing's changes for the version being built (planListing's rows), in its transaction. */
export async function writeCatalogListing(trx: Transaction, catalogId: string, plan: Pick<ListingPlan, 'list' | 'hold' | 'depart' | 'drop'>): Promise<void> {
  if (plan.list.length)
    await trx.raw(
      `INSERT INTO catalog_listings (catalog_zone_id, zone_id) SELECT ?, unnest(?::text[])
       ON CONFLICT (catalog_zone_id, zone_id) DO UPDATE SET listed = true, coo_to = NULL, departed_at = NULL`,
      [catalogId, plan.list],
    );
  if (plan.hold.length)
    await trx.raw(`INSERT INTO catalog_listings (catalog_zone_id, zone_id, listed) SELECT ?, unnest(?::text[]), false ON CONFLICT DO NOTHING`, [
      catalogId,
      plan.hold,
    ]);
  if (plan.depart.length)
    await trx.raw(
      `UPDATE catalog_listings l SET coo_to = x.coo_to, departed_at = now()
       FROM unnest(?::text[], ?::text[]) AS x(zone_id, coo_to)
       WHERE l.catalog_zone_id = ? AND l.zone_id = x.zone_id`,
      [plan.depart.map((d) => d.zoneId), plan.depart.map((d) => d.cooTo), catalogId],
    );
  if (plan.drop.length) await trx('catalog_listings').where('catalog_zone_id', catalogId).whereIn('zone_id', plan.drop).delete();
}

/**
 * SQL: the catalog zone row `alias` is due a build although its members' stamp did not move
 * (docs/catalog-zones.md "Moving between catalogs"): a departed member's grace ended (or its
 * `coo` catalog went), a held-back newcomer is to be looked at again (every hold time), or another
 * catalog's `coo` to it has just been out for the hold time — once, and once more a hold time
 * later: BIND 9.18 moves a zone the new catalog already listed on the new catalog's next change,
 * and adds it back (it deleted it from the old one) only on the change after that.
 */
export const catalogDueSql = (alias: string) => {
  const servedAt = `(SELECT v.created_at FROM zone_versions v WHERE v.zone_id = ${alias}.id AND v.serial = ${alias}.published_serial)`;
  // CASE, not AND: evaluated in every zone's build row, and only CASE promises the subqueries are
  // not run for other zones (as catalogStampSql).
  return `(CASE WHEN ${alias}.kind = 'catalog' THEN (
     EXISTS (SELECT 1 FROM catalog_listings l WHERE l.catalog_zone_id = ${alias}.id AND (l.departed_at IS NOT NULL OR NOT l.listed)
             AND ((l.departed_at IS NOT NULL AND (l.coo_to IS NULL OR l.departed_at + interval '${COO_GRACE_S} seconds' <= now()))
                  OR (NOT l.listed AND ${servedAt} + interval '${COO_HOLD_S} seconds' <= now())))
     OR EXISTS (SELECT 1 FROM catalog_listings l CROSS JOIN (VALUES (1), (2)) AS k(n)
                WHERE l.coo_to = ${alias}.id AND l.departed_at + k.n * interval '${COO_HOLD_S} seconds' <= now()
                  AND l.departed_at + k.n * interval '${COO_HOLD_S} seconds' > ${servedAt})) ELSE false END)`;
};

/** Catalogs whose members changed since their served version, or due a build (catalogDueSql): the publication poll builds them, at most 1000. */
export async function catalogsWithChangedMembers(db: Runner): Promise<string[]> {
  const { rows } = await db.raw<{ rows: { id: string }[] }>(
    `SELECT c.id FROM secondary_sets s JOIN zones c ON c.id = s.catalog_zone_id
     LEFT JOIN zone_versions v ON v.zone_id = c.id AND v.serial = c.published_serial
     WHERE c.status <> 'deleting' AND c.published_serial IS NOT NULL
       AND (v.catalog_stamp IS DISTINCT FROM ${catalogStampSql('c')} OR ${catalogDueSql('c')})
     LIMIT 1000`,
  );
  return rows.map((r) => r.id);
}
