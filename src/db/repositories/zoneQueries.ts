// Zones and records read through the tenant scope: the queries the reads and the write seam share.
import type { Knex } from 'knex';
import { HIDDEN_ZONE_KINDS } from '../../domain/model/zone.js';
import type { Transaction } from '../context.js';
import { noteLock } from '../lockOrder.js';
import { PREPARED } from '../preparedStatements.js';
import type { ScopedDb } from '../tenantScope.js';
import type { RecordRow } from './recordRows.js';
import { ZONE_LAG_JOIN } from './secondaryLagRows.js';
import type { ZoneRow } from './zoneRows.js';

/**
 * Which zones a lookup reaches: the tenants' zones (the API, every service), the lab's parent
 * zones (the lab registrar only, src/lab/registrar.ts) or the provider's reverse zones (the PTR
 * service only, docs/rdns.md) or the secondary sets' catalog zones (src/services/secondarySets.ts
 * only, docs/catalog-zones.md). Neither reaches the other: a lab parent
 * zone is as absent from the API as another tenant's zone (404).
 */
export type ZoneReach = 'tenant' | 'lab_parent' | 'provider_reverse' | 'catalog';

/** The tenants' zones of the scope, without the lab's parent zones: what counts and stats see. */
export const tenantZones = (scoped: ScopedDb): Knex.QueryBuilder => scoped.from('zones').whereNotIn('kind', HIDDEN_ZONE_KINDS);

/** Zones with their publication summary (the state of their newest change set). */
export function zonesQuery(scoped: ScopedDb, protectedNames: string[], reach: ZoneReach = 'tenant'): Knex.QueryBuilder {
  const q = scoped
    .from('zones', 'z')
    .leftJoin('change_sets as c', 'c.id', 'z.last_changeset_id')
    .joinRaw(ZONE_LAG_JOIN)
    .select('z.*', 'c.state as publication_state', 'c.updated_at as publication_updated_at', 'lag.secondary_lag');
  if (reach !== 'tenant') return q.where('z.kind', reach);
  q.whereNotIn('z.kind', HIDDEN_ZONE_KINDS);
  // A credential confined to some zones sees only those (docs/credentials.md).
  // One array parameter: the statement keeps one shape (getZone's and lockedZone's is prepared).
  if (scoped.zoneNames) q.whereRaw('z.name = any(?::text[])', [[...scoped.zoneNames]]);
  // Protected names are never listed nor reachable (spec "Zone").
  for (const p of protectedNames) q.whereNot('z.name', p).whereNot('z.name', 'like', `%.${p}`);
  return q;
}

/**
 * The zone row of that name, `lock`: locked FOR NO KEY UPDATE (the write seam's lockedZone only).
 * Not FOR UPDATE: that also waits for every transaction that inserted a row referencing the zone
 * (the foreign key's FOR KEY SHARE), such as the publication writing the 370,000 rows of a zone
 * signed whole for seconds (docs/dnssec.md); writers of one zone are serialised all the same.
 */
export async function zoneRowByName(
  scoped: ScopedDb,
  protectedNames: string[],
  name: string,
  lock: Transaction | null,
  reach: ZoneReach,
): Promise<ZoneRow | undefined> {
  const q = zonesQuery(scoped, protectedNames, reach).where('z.name', name).first().options(PREPARED);
  if (lock) {
    noteLock(lock, reach === 'lab_parent' ? 'lab_parent_zones' : 'zones');
    q.forNoKeyUpdate('z');
  }
  return (await q) as ZoneRow | undefined;
}

/**
 * Records (aliased `r`) with the state of their last change set. One no longer kept was `live`:
 * retention deletes only live change sets (db/retention.ts).
 */
const withPublicationState = (records: Knex.QueryBuilder): Knex.QueryBuilder =>
  records.leftJoin('change_sets as c', 'c.id', 'r.last_changeset_id').select('r.*', records.client.raw("coalesce(c.state, 'live') as publication_state"));

/**
 * Records of a zone the caller has already found through its tenant scope and locked: by zone
 * id alone. A tenant condition here adds nothing, and with it the prepared statement's generic
 * plan intersected the tenant and zone indexes (every record of the zone) instead of using
 * (zone_id, name).
 */
const lockedZoneRecords = (trx: Transaction, zoneId: string): Knex.QueryBuilder => withPublicationState(trx.from('records as r')).where('r.zone_id', zoneId);

/** The records at these owner names of a zone found and locked through the scope (prepared; one array parameter). */
export const lockedRecordsAtNames = async (trx: Transaction, zoneId: string, names: string[]): Promise<RecordRow[]> =>
  (await lockedZoneRecords(trx, zoneId).whereRaw('r.name = any(?::text[])', [names]).options(PREPARED)) as RecordRow[];

/** Records of the tenant's subtree with the state of their last change set. */
export const recordsQuery = (scoped: ScopedDb): Knex.QueryBuilder => withPublicationState(scoped.from('records', 'r'));

export const recordRowById = async (scoped: ScopedDb, zoneId: string, id: string): Promise<RecordRow | undefined> =>
  (await recordsQuery(scoped).where('r.zone_id', zoneId).andWhere('r.id', id).first()) as RecordRow | undefined;

/** The zone's records at these owner names. */
export const recordRowsAtNames = async (scoped: ScopedDb, zoneId: string, names: string[]): Promise<RecordRow[]> =>
  (await recordsQuery(scoped).where('r.zone_id', zoneId).whereIn('r.name', names)) as RecordRow[];

/** Every record of the zone, with its publication state. */
export const zoneRecordRows = async (scoped: ScopedDb, zoneId: string): Promise<RecordRow[]> =>
  (await recordsQuery(scoped).where('r.zone_id', zoneId)) as RecordRow[];

/** Every stored record of the zone, in zone-file order. */
export const zoneRecordRowsInOrder = async (scoped: ScopedDb, zoneId: string): Promise<RecordRow[]> =>
  (await scoped.from('records').where('zone_id', zoneId).orderBy(['name_sort', 'type', 'content'])) as RecordRow[];
