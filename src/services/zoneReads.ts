// Reading zones and records through the tenant scope: the queries the reads and the write seam share.
import type { Knex } from 'knex';
import type { Config } from '../config/index.js';
import { PREPARED } from '../db/preparedStatements.js';
import { type RecordRow, recordToDomain } from '../db/repositories/recordRows.js';
import { type ZoneRow, zoneToDomain } from '../db/repositories/zoneRows.js';
import type { ScopedDb } from '../db/tenantScope.js';
import { notFound } from '../domain/errors.js';
import type { DnsRecord } from '../domain/model/record.js';
import { HIDDEN_ZONE_KINDS, type Zone } from '../domain/model/zone.js';
import { zoneNameFromPath } from '../domain/zoneName.js';
import { noteLock } from '../db/lockOrder.js';
import { zoneOutsidePolicy } from './credentialPolicy.js';

/**
 * Which zones a lookup reaches: the tenants' zones (the API, every service), the lab's parent
 * zones (the lab registrar only, src/lab/registrar.ts) or the provider's reverse zones (the PTR
 * service only, docs/rdns.md). Neither reaches the other: a lab parent
 * zone is as absent from the API as another tenant's zone (404).
 */
export type ZoneReach = 'tenant' | 'lab_parent' | 'provider_reverse';

/** The tenants' zones of the scope, without the lab's parent zones: what counts and stats see. */
export const tenantZones = (scoped: ScopedDb): Knex.QueryBuilder => scoped.from('zones').whereNotIn('kind', HIDDEN_ZONE_KINDS);

/** Zones with their publication summary (the state of their newest change set). */
export function zonesQuery(scoped: ScopedDb, protectedNames: string[], reach: ZoneReach = 'tenant'): Knex.QueryBuilder {
  const q = scoped
    .from('zones', 'z')
    .leftJoin('change_sets as c', 'c.id', 'z.last_changeset_id')
    .select('z.*', 'c.state as publication_state', 'c.updated_at as publication_updated_at');
  if (reach !== 'tenant') return q.where('z.kind', reach);
  q.whereNotIn('z.kind', HIDDEN_ZONE_KINDS);
  // A credential confined to some zones sees only those (docs/credentials.md).
  // One array parameter: the statement keeps one shape (findZone's is prepared).
  if (scoped.zoneNames) q.whereRaw('z.name = any(?::text[])', [[...scoped.zoneNames]]);
  // Protected names are never listed nor reachable (spec "Zone").
  for (const p of protectedNames) q.whereNot('z.name', p).whereNot('z.name', 'like', `%.${p}`);
  return q;
}

/**
 * The zone named in a path; `lock`: its row locked FOR NO KEY UPDATE (the write seam's lockZone
 * only). Not FOR UPDATE: that also waits for every transaction that inserted a row referencing
 * the zone (the foreign key's FOR KEY SHARE), such as the publication writing the 370,000 rows of
 * a zone signed whole for seconds (docs/dnssec.md); writers of one zone are serialised all
 * the same.
 * A lab parent zone is named by its stored name ('' the root), never by a request path.
 */
export async function findZone(scoped: ScopedDb, config: Config, pathName: string, lock: Knex.Transaction | null, reach: ZoneReach = 'tenant'): Promise<Zone> {
  const name = reach === 'tenant' ? zoneNameFromPath(pathName) : pathName;
  if (name === null) throw notFound('zone');
  if (reach === 'tenant' && scoped.zoneNames && !scoped.zoneNames.includes(name)) throw zoneOutsidePolicy(name);
  const q = zonesQuery(scoped, config.zones.protectedNames, reach).where('z.name', name).first().options(PREPARED);
  if (lock) {
    noteLock(lock, reach === 'lab_parent' ? 'lab_parent_zones' : 'zones');
    q.forNoKeyUpdate('z');
  }
  const row = (await q) as ZoneRow | undefined;
  if (!row) throw notFound('zone');
  return zoneToDomain(row);
}

/** A zone for reading (no lock). Writes get theirs from writeZone. */
export const getZone = (scoped: ScopedDb, config: Config, pathName: string): Promise<Zone> => findZone(scoped, config, pathName, null);

/**
 * Records (aliased `r`) with the state of their last change set. One no longer kept was `live`:
 * retention deletes only live change sets (db/retention.ts).
 */
export const withPublicationState = (records: Knex.QueryBuilder): Knex.QueryBuilder =>
  records.leftJoin('change_sets as c', 'c.id', 'r.last_changeset_id').select('r.*', records.client.raw("coalesce(c.state, 'live') as publication_state"));

/** Records of the tenant's subtree with the state of their last change set. */
export const recordsQuery = (scoped: ScopedDb): Knex.QueryBuilder => withPublicationState(scoped.from('records', 'r'));

export async function getRecord(scoped: ScopedDb, zone: Zone, id: string): Promise<DnsRecord> {
  const row = (await recordsQuery(scoped).where('r.zone_id', zone.id).andWhere('r.id', id).first()) as RecordRow | undefined;
  if (!row) throw notFound('record');
  return recordToDomain(row);
}
