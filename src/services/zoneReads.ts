// Reading zones and records through the tenant scope (the queries: src/db/repositories/zoneQueries.ts).
import type { Config } from '../config/index.js';
import type { DbContext, Transaction, TransactionContext } from '../db/context.js';
import { recordToDomain } from '../db/repositories/recordRows.js';
import { recordRowById, type ZoneReach, zoneRowByName } from '../db/repositories/zoneQueries.js';
import { zoneToDomain } from '../db/repositories/zoneRows.js';
import { notFound } from '../domain/errors.js';
import type { DnsRecord } from '../domain/model/record.js';
import type { Zone } from '../domain/model/zone.js';
import { zoneNameFromPath } from '../domain/zoneName.js';
import { zoneOutsidePolicy } from './credentialPolicy.js';

export type { ZoneReach } from '../db/repositories/zoneQueries.js';

/** The zone named in a path. A lab parent zone is named by its stored name ('' the root), never by a request path. */
async function zoneNamed(ctx: DbContext, config: Config, pathName: string, lock: Transaction | null, reach: ZoneReach): Promise<Zone> {
  const name = reach === 'tenant' ? zoneNameFromPath(pathName) : pathName;
  if (name === null) throw notFound('zone');
  if (reach === 'tenant' && ctx.scoped.zoneNames && !ctx.scoped.zoneNames.includes(name)) throw zoneOutsidePolicy(name);
  const row = await zoneRowByName(ctx.scoped, config.zones.protectedNames, name, lock, reach);
  if (!row) throw notFound('zone');
  return zoneToDomain(row);
}

/** A zone for reading (no lock). Writes get theirs from writeZone (lockedZone). */
export const getZone = (ctx: DbContext, config: Config, pathName: string, reach: ZoneReach = 'tenant'): Promise<Zone> =>
  zoneNamed(ctx, config, pathName, null, reach);

/** The zone, its row locked FOR NO KEY UPDATE for the rest of the transaction (writeZone's lock; see zoneRowByName). */
export const lockedZone = (ctx: TransactionContext, config: Config, pathName: string, reach: ZoneReach = 'tenant'): Promise<Zone> =>
  zoneNamed(ctx, config, pathName, ctx.db, reach);

export async function getRecord(ctx: DbContext, zone: Zone, id: string): Promise<DnsRecord> {
  const row = await recordRowById(ctx.scoped, zone.id, id);
  if (!row) throw notFound('record');
  return recordToDomain(row);
}
