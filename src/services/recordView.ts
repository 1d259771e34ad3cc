// A record as GET /records/{id} shows it: stored, or one of the rendered system records.
import type { DbContext } from '../db/context.js';
import type { DnsRecord } from '../domain/model/record.js';
import type { Zone } from '../domain/model/zone.js';
import { notFound } from '../domain/errors.js';
import { getRecord } from './zoneReads.js';
import { isSystemRecordId, lastSystemWrite, renderSystemRecords } from './systemRecords.js';

/** A record by id: a stored one, or one of the rendered system records. */
export async function getRecordOrSystem(ctx: DbContext, zone: Zone, id: string, nameservers: readonly string[]): Promise<DnsRecord> {
  if (!isSystemRecordId(zone, id)) return getRecord(ctx, zone, id);
  const system = renderSystemRecords(zone, nameservers, await lastSystemWrite(ctx, zone)).find((r) => r.id === id);
  if (!system) throw notFound('record');
  return system;
}
