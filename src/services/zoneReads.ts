// Reading zones and records through the tenant scope (the queries: src/db/repositories/zoneQueries.ts).
import type { Config } from '../config/index.js';
import type { Transaction } from '../db/context.js';
import { recordToDomain } from '../db/repositories/recordRows.js';
import { recordRowById, type ZoneReach, zoneRowByName } from '../db/repositories/zoneQueries.js';
import { zoneToDomain } from '../db/repositories/zoneRows.js';
import type { ScopedDb } from '../db/tenantScope.js';
import { notFound } from '../domain/errors.js';
import type { DnsRecord } from '../domain/model/record.js';
import type { Zone } from '../domain/model/zone.js';
import { zoneNameFromPath } from '../domain/zoneName.js';
import { zoneOutsidePolicy } from './credentialPolicy.js';

export { type ZoneReach, zonesQuery } from '../db/repositories/zoneQueries.js';

/**
 * The zone named in a path; `lock`: its row locked (the write seam's lockZone only; see
 * zoneRowByName). A lab parent zone is named by its stored name ('' the root), never by a request path.
 */
export async function findZone(scoped: ScopedDb, config: Config, pathName: string, lock: Transaction | null, reach: ZoneReach = 'tenant'): Promise<Zone> {
  const name = reach === 'tenant' ? zoneNameFromPath(pathName) : pathName;
  if (name === null) throw notFound('zone');
  if (reach === 'tenant' && scoped.zoneNames && !scoped.zoneNames.includes(name)) throw zoneOutsidePolicy(name);
  const row = await zoneRowByName(scoped, config.zones.protectedNames, name, lock, reach);
  if (!row) throw notFound('zone');
  return zoneToDomain(row);
}

/** A zone for reading (no lock). Writes get theirs from writeZone. */
export const getZone = (scoped: ScopedDb, config: Config, pathName: string): Promise<Zone> => findZone(scoped, config, pathName, null);

export async function getRecord(scoped: ScopedDb, zone: Zone, id: string): Promise<DnsRecord> {
  const row = await recordRowById(scoped, zone.id, id);
  if (!row) throw notFound('record');
  return recordToDomain(row);
}
