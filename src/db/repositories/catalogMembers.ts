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
import type { GroupBy } from '../../domain/secondarySets.js';
import type { Runner, Transaction } from '../context.js';

/** What a catalog is rendered from (src/catalog/catalogSource.ts): plain data, it crosses to the signing thread. */
export interface CatalogInputs {
  groupBy: GroupBy;
  members: { zoneId: string; name: string; dnssecState: string }[];
}

/** The member kinds as an SQL list, for statements written as text. */
export const MEMBER_KINDS_SQL = `(${CATALOG_MEMBER_KINDS.map((k) => `'${k}'`).join(', ')})`;

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

/** The catalog's set (how it groups) and its members by name; null when the set is gone (the catalog is being deleted). */
export async function readCatalogInputs(trx: Transaction, catalog: { id: string; tenant_id: string }): Promise<CatalogInputs | null> {
  const set = (await trx('secondary_sets').where('catalog_zone_id', catalog.id).first('group_by')) as { group_by: GroupBy } | undefined;
  if (!set) return null;
  const { rows } = await trx.raw<{ rows: { id: string; name: string; dnssec_state: string }[] }>(
    `SELECT m.id, m.name, m.dnssec_state FROM secondary_sets s JOIN zones m ON ${memberOfSetSql('m', 's')}
     WHERE s.catalog_zone_id = ?
     ORDER BY m.name`,
    [catalog.id],
  );
  return { groupBy: set.group_by, members: rows.map((r) => ({ zoneId: r.id, name: r.name, dnssecState: r.dnssec_state })) };
}

/** Catalogs whose members changed since their served version (the publication poll builds them), at most 1000. */
export async function catalogsWithChangedMembers(db: Runner): Promise<string[]> {
  const { rows } = await db.raw<{ rows: { id: string }[] }>(
    `SELECT c.id FROM secondary_sets s JOIN zones c ON c.id = s.catalog_zone_id
     LEFT JOIN zone_versions v ON v.zone_id = c.id AND v.serial = c.published_serial
     WHERE c.status <> 'deleting' AND c.published_serial IS NOT NULL
       AND v.catalog_stamp IS DISTINCT FROM ${catalogStampSql('c')}
     LIMIT 1000`,
  );
  return rows.map((r) => r.id);
}
