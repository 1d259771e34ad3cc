// Change sets: every write to a zone stores its data and exactly one change set (state `pending`)
// with its zone.changed event in the caller's transaction, then NOTIFYs the publication workers.
// Writes reach here through the write seam (writeZone, src/services/zoneWrite.ts), which has
// locked the zone and checked the zone's If-Match header.
import type { Statement, DbContext } from '../db/context.js';
import type { Config } from '../config/index.js';
import { auditRow, recordAudit } from '../db/repositories/auditLog.js';
import { changeSetToDomain, changeSetToRow } from '../db/repositories/changeSetRows.js';
import {
  bumpZoneVersion,
  changeSetPage,
  changeSetRowById,
  recordNamesByIds,
  recordWriteStatements,
  requeueChangeSet,
  restateChangeSet,
  storeChangeSet,
} from '../db/repositories/changeSetStore.js';
import { eventRow } from '../db/repositories/events.js';
import { recordDataToRow, recordToDomain, storedRecord } from '../db/repositories/recordRows.js';
import {
  type ChangeItem,
  type ChangeSetPlan,
  changeSetItem,
  type LocateItem,
  type PlannedRecord,
  planChangeSet,
  referencesOf,
} from '../domain/changeSets/planChangeSet.js';
import { DomainError, type FieldError, notFound } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import type { ChangeSet } from '../domain/model/changeSet.js';
import { ifMatchSatisfied, rowEtag } from '../domain/model/etag.js';
import { actingCustomerOf, zoneChangedEvent } from '../domain/model/events.js';
import type { DnsRecord } from '../domain/model/record.js';
import type { Zone } from '../domain/model/zone.js';
import type { ChangeSetKind, ChangeSetState } from '../domain/publication.js';
import { MAX_RECORDS_PER_ZONE } from '../domain/records/ttl.js';
import type { WriteContext } from './writeContext.js';
import { lockedRecordsAtNames } from '../db/repositories/zoneQueries.js';
import { writeZone } from './zoneWrite.js';

import { isSystemRecordId, systemRecordStub } from './systemRecords.js';
import { absoluteName } from '../../nameserver/wire/name.js';
import { assertCredentialAllows } from './credentialPolicy.js';

export interface ChangeSetRequest {
  changes: ChangeItem[];
  comment?: string | null;
  dry_run?: boolean;
  zone_if_match?: string;
}

const toPlanned = (r: DnsRecord): PlannedRecord => ({
  id: r.id,
  name: r.name,
  type: r.type as PlannedRecord['type'],
  ttl: r.ttl,
  data: r.data,
  content: r.content,
  comment: r.comment,
  system: r.system,
  managedBy: r.managedBy ?? null,
});

type RecordWrite = Statement;

/**
 * Writes one change set row, its audit entry and its zone.changed event, and moves the zone's
 * publication pointer and version. Every write path (records, zone settings, creation, deletion,
 * imports, templates) ends here.
 */
export async function appendChangeSet(
  ctx: WriteContext,
  zone: Zone,
  entry: {
    kind: ChangeSetKind;
    comment?: string | null;
    itemCount: number;
    summary: Record<string, number>;
    results: unknown[];
    /** Records added minus records removed. */
    growth?: number;
    /** Owner names the change touched, for an incremental publication; absent: the whole zone. */
    touchedNames?: string[];
    /** Columns of the zone row this write changes (settings, deletion), in the same statement. */
    zoneColumns?: Record<string, unknown>;
  },
  /** Record writes that belong to the change set, sent in the same statement as its row. */
  recordWrites?: (changeSetId: string, now: Date) => Promise<RecordWrite[]>,
): Promise<ChangeSet> {
  const now = ctx.clock.now();
  // A write without touched names covers the whole zone (settings, creation, deletion, DNSSEC):
  // checked here as such; record writes were checked record by record (assertPlanAllowed).
  if (!entry.touchedNames) assertCredentialAllows(ctx.actor, { zone: zone.name, name: null, type: null }, now);
  const changeSet: ChangeSet = {
    id: newId('chg'),
    zoneId: zone.id,
    zoneName: zone.name,
    seq: zone.changesetSeq + 1,
    state: 'pending',
    error: null,
    kind: entry.kind,
    comment: entry.comment ?? null,
    itemCount: entry.itemCount,
    summary: entry.summary,
    results: entry.results,
    touchedNames: entry.touchedNames ?? null,
    serial: null,
    apiClientId: ctx.actor.token.apiClientId,
    requestId: ctx.actor.requestId,
    pushedAt: null,
    liveAt: null,
    createdAt: now,
    updatedAt: now,
  };
  // One round trip: the change set, its audit entry, its event, the zone's pointer and version,
  // the record writes and the NOTIFY, delivered on commit: publication workers pick the zone up.
  // Data-modifying CTEs all see the statement's starting snapshot; each touches other rows, and
  // the uniqueness constraints on records are deferred to commit, so their order does not matter.
  const audit = auditRow(ctx.actor, now, {
    action: 'changeset.created',
    targetType: 'changeset',
    targetId: changeSet.id,
    details: { zone: zone.name, kind: entry.kind, ...entry.summary },
  });
  const actingCustomer = actingCustomerOf(zone, ctx.actor.acting.id);
  // record_count moves with the records the same statement writes: the plan's growth. (Statement
  // triggers over transition tables counted it too, and cost a third of the single-record write
  // throughput: bench/RESULTS.md.)
  await storeChangeSet(
    ctx,
    { changeSet: changeSetToRow(changeSet, zone.tenantId, actingCustomer), audit, event: eventRow(zoneChangedEvent(zone, changeSet, actingCustomer), now) },
    {
      id: zone.id,
      columns: { ...entry.zoneColumns, changeset_seq: changeSet.seq, last_changeset_id: changeSet.id, updated_at: now },
      growth: entry.growth ?? 0,
    },
    (await recordWrites?.(changeSet.id, now)) ?? [],
  );
  zone.changesetSeq = changeSet.seq;
  zone.recordCount += entry.growth ?? 0;
  zone.version += 1;
  zone.publication = { ...zone.publication, state: 'pending', changesetId: changeSet.id, updatedAt: now };
  zone.updatedAt = now;
  return changeSet;
}

/** Item `if_match` and `zone_if_match`, against the stored versions (rowEtag). */
function preconditionErrors(zone: Zone, existing: DnsRecord[], request: ChangeSetRequest, locate: LocateItem): FieldError[] {
  const errors: FieldError[] = [];
  if (request.zone_if_match) {
    const zoneTag = rowEtag(zone.id, zone.version);
    if (!ifMatchSatisfied(request.zone_if_match, zoneTag)) {
      errors.push({ pointer: '/zone_if_match', code: 'etag_mismatch', detail: `The zone's current ETag is ${zoneTag}.` });
    }
  }
  const byId = new Map(existing.map((r) => [r.id, r]));
  request.changes.forEach((item, index) => {
    if ((item.op === 'update' || item.op === 'delete') && item.if_match) {
      const current = byId.get(item.id);
      if (!current) return; // an unknown id is the planner's not_found
      const tag = rowEtag(current.id, current.version);
      if (!ifMatchSatisfied(item.if_match, tag)) {
        errors.push({ ...locate(index, '/if_match'), code: 'etag_mismatch', detail: `The record's current ETag is ${tag}.` });
      }
    }
  });
  return errors;
}

/** The statements that store a plan's records: deletes, one update, one insert, as needed. */
const recordWrites = (ctx: WriteContext, zone: Zone, plan: ChangeSetPlan, changeSetId: string, now: Date): Promise<RecordWrite[]> =>
  recordWriteStatements(
    ctx,
    zone,
    { deletedIds: plan.deleted.map((r) => r.id), updated: plan.updated.map(({ after }) => recordDataToRow(after)), created: plan.created.map(recordDataToRow) },
    changeSetId,
    now,
  );

/**
 * The actor's credential policy (docs/credentials.md) against every record the plan creates,
 * changes (before and after) or deletes, at its absolute name: 403 credential_policy before
 * anything is stored. A plan that touches no record still names its zone.
 */
function assertPlanAllowed(ctx: WriteContext, zone: Zone, plan: ChangeSetPlan): void {
  if (!ctx.actor.token.policy) return;
  const now = ctx.clock.now();
  const records = [...plan.created, ...plan.deleted, ...plan.updated.flatMap((u) => [u.before, u.after])];
  if (records.length === 0) assertCredentialAllows(ctx.actor, { zone: zone.name }, now);
  for (const r of records) assertCredentialAllows(ctx.actor, { zone: zone.name, name: absoluteName(r.name, zone.name), type: r.type }, now);
}

/** Owner names whose records a plan changes: what the publisher re-reads for the next version. */
const touchedNames = (plan: ChangeSetPlan): string[] => [
  ...new Set([...plan.created, ...plan.deleted, ...plan.updated.flatMap((u) => [u.before, u.after])].map((r) => r.name)),
];

const planSummary = (plan: ChangeSetPlan) => ({
  created: plan.created.length,
  updated: plan.updated.length,
  deleted: plan.deleted.length,
});

export interface AppliedChangeSet {
  /** null: a dry run, or a write that changed nothing (skipWhenUnchanged). */
  changeSet: ChangeSet | null;
  plan: ChangeSetPlan;
  storedAt?: Date;
}

/**
 * Checks the items' preconditions, plans and stores a change set on a zone the write seam has
 * locked (writeZone). Dry runs plan and return without storing anything.
 */
export async function applyChangeSet(
  ctx: WriteContext,
  zone: Zone,
  request: ChangeSetRequest,
  options: {
    kind: ChangeSetKind;
    locate?: LocateItem;
    /** Store under this change set instead of a new one (a zone's initial records). */
    within?: ChangeSet;
    /** A write that changes nothing stores no change set (a no-op PATCH), like zone settings. */
    skipWhenUnchanged?: boolean;
    /** The object writing its own records (planChangeSet's `manager`): a dynamic DNS host, an address space. */
    manager?: string;
  },
): Promise<AppliedChangeSet> {
  if (zone.status === 'deleting') throw new DomainError('conflict', { reason: 'zone_being_deleted', zone: zone.name });
  const locate = options.locate ?? changeSetItem;
  const refs = referencesOf(request.changes, zone);
  // The names of the records named by id, then every record at those names and at the names the
  // items give: an update there (data or ttl only) is checked for duplicates and aligns the
  // RRset's TTL (planChangeSet). Two statements with literal lists keep to the (zone_id, name)
  // index; one with `OR name IN (subquery)` read every record of the zone on every write. Each
  // list is ONE array parameter (`= any(?)`): an import names tens of thousands of owners, more
  // than the 65,535 parameters a PostgreSQL statement may have.
  const idNames = refs.ids.length ? await recordNamesByIds(ctx.scoped, zone.id, refs.ids) : [];
  const names = [...new Set([...refs.names, ...idNames])];
  const existing: DnsRecord[] = names.length ? (await lockedRecordsAtNames(ctx.db, zone.id, names)).map(recordToDomain) : [];
  // The SOA and apex NS are rendered, not stored (systemRecords.ts): named by id they are
  // read-only, answered by the planner's record_readonly guard.
  for (const id of refs.ids) if (isSystemRecordId(zone, id)) existing.push(systemRecordStub(zone, id));
  const unmet = preconditionErrors(zone, existing, request, locate);
  if (unmet.length) throw new DomainError('precondition_failed', {}, unmet);

  const plan = planChangeSet({ zone, existing: existing.map(toPlanned), items: request.changes, newId: () => newId('rec'), locate, manager: options.manager });
  assertPlanAllowed(ctx, zone, plan);
  const growth = plan.created.length - plan.deleted.length;
  if (growth > 0) {
    if (zone.recordCount + growth > MAX_RECORDS_PER_ZONE) {
      throw new DomainError('validation_failed', {}, [
        { pointer: '/changes', code: 'too_many_records', detail: `A zone holds at most ${MAX_RECORDS_PER_ZONE} records.` },
      ]);
    }
  }
  if (request.dry_run) return { changeSet: null, plan };
  if (options.skipWhenUnchanged && plan.created.length + plan.updated.length + plan.deleted.length === 0) return { changeSet: null, plan };

  const entry = {
    kind: options.kind,
    comment: request.comment,
    itemCount: request.changes.length,
    summary: planSummary(plan),
    results: plan.results.map((r) => ({ ...r, status: 'applied' })),
    growth,
    touchedNames: touchedNames(plan),
  };
  if (options.within) {
    const changeSet = options.within;
    changeSet.itemCount = entry.itemCount;
    changeSet.summary = entry.summary;
    changeSet.results = entry.results;
    await restateChangeSet(ctx.db, changeSet.id, entry);
    await bumpZoneVersion(ctx, zone.id, growth);
    zone.recordCount += growth;
    zone.version += 1;
    const storedAt = ctx.clock.now();
    for (const write of await recordWrites(ctx, zone, plan, changeSet.id, storedAt)) await write;
    return { changeSet, plan, storedAt };
  }
  const changeSet = await appendChangeSet(ctx, zone, entry, (changeSetId, now) => recordWrites(ctx, zone, plan, changeSetId, now));
  return { changeSet, plan, storedAt: changeSet.createdAt };
}

/** POST /zones/{zone}/changesets: through the write seam. */
export const submitChangeSet = (ctx: WriteContext, config: Config, zoneRef: string, request: ChangeSetRequest) =>
  writeZone(ctx, config, zoneRef, {}, async (zone) => ({ zone, ...(await applyChangeSet(ctx, zone, request, { kind: 'records' })) }));

/** A record just created by a change set, as a read would return it (no second query). */
export const createdRecord = (zone: Zone, planned: PlannedRecord, changeSet: ChangeSet, storedAt: Date): DnsRecord =>
  storedRecord(zone.id, planned, { version: 1, changeSet, at: storedAt });

export async function getChangeSet(ctx: DbContext, zone: Zone, id: string): Promise<ChangeSet> {
  const row = await changeSetRowById(ctx.scoped, zone.id, id);
  if (!row) throw notFound('change set');
  return changeSetToDomain(row, zone.name);
}

export async function listChangeSets(ctx: DbContext, zone: Zone, filter: { state?: ChangeSetState[]; since?: Date }, after: unknown[] | null, limit: number) {
  const page = await changeSetPage(ctx.scoped, zone.id, filter, after, limit);
  return { items: page.rows.map((r) => changeSetToDomain(r, zone.name)), next: page.next };
}

/**
 * Spec: only a failed change set can be retried; only the push is retried. Through the write
 * seam (the zone's lock orders it with the publisher's builds); no data changes, so no version moves.
 */
export const retryChangeSet = (ctx: WriteContext, config: Config, zoneRef: string, id: string): Promise<ChangeSet> =>
  writeZone(ctx, config, zoneRef, {}, async (zone) => {
    const row = await changeSetRowById(ctx.scoped, zone.id, id, ctx.db);
    if (!row) throw notFound('change set');
    if (row.state !== 'failed') {
      throw new DomainError('conflict', { reason: 'retry_needs_failed_change_set', state: row.state });
    }
    const now = ctx.clock.now();
    const updated = await requeueChangeSet(ctx, zone.id, id, now);
    await recordAudit(ctx.db, ctx.actor, now, { action: 'changeset.retried', targetType: 'changeset', targetId: id, details: { zone: zone.name } });
    return changeSetToDomain(updated, zone.name);
  });
