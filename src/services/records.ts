// Single-record writes: change sets of one item, through the write seam like every zone write.
// Their warnings (rrset_ttl_aligned, name_repeats_zone) come back like a change set's.
import type { Config } from '../config/index.js';
import type { ChangeItem, LocateItem, Warning } from '../domain/changeSets/planChangeSet.js';
import type { ChangeSet } from '../domain/model/changeSet.js';
import type { DnsRecord } from '../domain/model/record.js';
import type { Zone } from '../domain/model/zone.js';
import { applyChangeSet, createdRecord } from './changeSets.js';
import type { WriteContext } from './writeContext.js';
import { getRecordOrSystem } from './recordView.js';
import { getRecord } from './zoneReads.js';
import { writeZone } from './zoneWrite.js';

export interface RecordWriteOptions {
  /** Where an item's problem is in the request (the record body, the If-Match header). */
  locate: LocateItem;
  /** The request's If-Match header: the record's precondition. */
  ifMatch?: string | null;
}

const ifMatchItem = (ifMatch: string | null | undefined) => (ifMatch ? { if_match: ifMatch } : {});

export const createRecord = (
  ctx: WriteContext,
  config: Config,
  zoneRef: string,
  record: Extract<ChangeItem, { op: 'create' }>['record'],
  options: RecordWriteOptions,
) =>
  writeZone(ctx, config, zoneRef, {}, async (zone): Promise<{ zone: Zone; record: DnsRecord; warnings: Warning[] }> => {
    const { plan, changeSet, storedAt } = await applyChangeSet(ctx, zone, { changes: [{ op: 'create', record }] }, { kind: 'records', locate: options.locate });
    return { zone, record: createdRecord(zone, plan.created[0]!, changeSet!, storedAt!), warnings: plan.warnings };
  });

/** A PATCH that changes nothing stores no change set. */
export const updateRecord = (
  ctx: WriteContext,
  config: Config,
  zoneRef: string,
  id: string,
  patch: Extract<ChangeItem, { op: 'update' }>['record'],
  options: RecordWriteOptions,
) =>
  writeZone(ctx, config, zoneRef, {}, async (zone): Promise<{ record: DnsRecord; warnings: Warning[] }> => {
    await getRecordOrSystem(ctx, zone, id, config.zones.nameservers);
    const { plan } = await applyChangeSet(
      ctx,
      zone,
      { changes: [{ op: 'update', id, record: patch, ...ifMatchItem(options.ifMatch) }] },
      { kind: 'records', locate: options.locate, skipWhenUnchanged: true },
    );
    return { record: await getRecord(ctx, zone, id), warnings: plan.warnings };
  });

export const deleteRecord = (ctx: WriteContext, config: Config, zoneRef: string, id: string, options: RecordWriteOptions) =>
  writeZone(ctx, config, zoneRef, {}, async (zone): Promise<{ zone: Zone; changeSet: ChangeSet; warnings: Warning[] }> => {
    await getRecordOrSystem(ctx, zone, id, config.zones.nameservers);
    const { changeSet, plan } = await applyChangeSet(
      ctx,
      zone,
      { changes: [{ op: 'delete', id, ...ifMatchItem(options.ifMatch) }] },
      { kind: 'records', locate: options.locate },
    );
    return { zone, changeSet: changeSet!, warnings: plan.warnings };
  });
