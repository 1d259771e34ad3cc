// Reading zones and records through the tenant scope: the queries the reads and the write seam share.
import type { Knex } from 'knex';
import type { Config } from '../config/index.js';
import { PREPARED } from '../db/preparedStatements.js';
import { type RecordRow, recordToDomain } from '../db/repositories/recordRows.js';
import { type ZoneRow, zoneToDomain } from '../db/repositories/zoneRows.js';
import type { ScopedDb } from '../db/tenantScope.js';
import { notFound } from '../domain/errors.js';
import type { DnsRecord } from '../domain/model/record.js';
import type { Zone } from '../domain/model/zone.js';
import { zoneNameFromPath } from '../domain/zoneName.js';

/** Zones with their publication summary (the state of their newest change set). */
export function zonesQuery(scoped: ScopedDb, protectedNames: string[]): Knex.QueryBuilder {
  const q = scoped
    .from('zones', 'z')
    .leftJoin('change_sets as c', 'c.id', 'z.last_changeset_id')
    .select('z.*', 'c.state as publication_state', 'c.updated_at as publication_updated_at');
  // Protected names are never listed nor reachable (spec "Zone").
  for (const p of protectedNames) q.whereNot('z.name', p).whereNot('z.name', 'like', `%.${p}`);
  return q;
}

/** The zone named in a path; `lock`: its row locked FOR UPDATE (the write seam's lockZone only). */
export async function findZone(scoped: ScopedDb, config: Config, pathName: string, lock: Knex.Transaction | null): Promise<Zone> {
  const name = zoneNameFromPath(pathName);
  if (!name) throw notFound('zone');
  const q = zonesQuery(scoped, config.zones.protectedNames).where('z.name', name).first().options(PREPARED);
  if (lock) q.forUpdate('z');
  const row = (await q) as ZoneRow | undefined;
  if (!row) throw notFound('zone');
  return zoneToDomain(row);
}

/** A zone for reading (no lock). Writes get theirs from writeZone. */
export const getZone = (scoped: ScopedDb, config: Config, pathName: string): Promise<Zone> => findZone(scoped, config, pathName, null);

/** Records (aliased `r`) with the state of their last change set. */
export const withPublicationState = (records: Knex.QueryBuilder): Knex.QueryBuilder =>
  records.join('change_sets as c', 'c.id', 'r.last_changeset_id').select('r.*', 'c.state as publication_state');

/** Records of the tenant's subtree with the state of their last change set. */
export const recordsQuery = (scoped: ScopedDb): Knex.QueryBuilder => withPublicationState(scoped.from('records', 'r'));

export async function getRecord(scoped: ScopedDb, zone: Zone, id: string): Promise<DnsRecord> {
  const row = (await recordsQuery(scoped).where('r.zone_id', zone.id).andWhere('r.id', id).first()) as RecordRow | undefined;
  if (!row) throw notFound('record');
  return recordToDomain(row);
}
