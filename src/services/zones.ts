// Zones: creation with the spec's ordered checks, settings, deletion, reading and listing.
import { domainToUnicode } from 'node:url';
import type { Transaction, DbContext } from '../db/context.js';
import type { Config } from '../config/index.js';
import { recordAudit } from '../db/repositories/auditLog.js';
import { recordEvents } from '../db/repositories/events.js';
import { nameSortKey, recordToDomain } from '../db/repositories/recordRows.js';
import { zoneToDomain } from '../db/repositories/zoneRows.js';
import type { SortKey } from '../db/paginate.js';
import type { ChangeItem, LocateItem, Warning } from '../domain/changeSets/planChangeSet.js';
import { DomainError } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import { canonicalName } from '../domain/names.js';
import { type DomainEvent, quotaThresholdCrossed } from '../domain/model/events.js';
import type { DnsRecord } from '../domain/model/record.js';
import type { Zone } from '../domain/model/zone.js';
import type { ChangeSetState } from '../domain/publication.js';
import { DEFAULT_ZONE_TTL } from '../domain/records/ttl.js';
import { isAtOrBelow } from '../../nameserver/wire/name.js';
import { checkNewZoneName } from '../domain/zoneName.js';
import { type DnssecDeps, prepareDeletion } from './dnssec.js';
import { applyChangeSet, appendChangeSet } from './changeSets.js';
import { requestRebuild } from './requestRebuild.js';
import { assertCredentialAllows } from './credentialPolicy.js';
import type { WriteContext } from './writeContext.js';
import { countBackendZones } from '../db/repositories/backendReadings.js';
import {
  deleteZoneDyndnsHosts,
  insertDeletedZoneExport,
  insertZone,
  lockedTenantQuotas,
  recordPage,
  subtreeZoneCount,
  zoneNameTaken,
  zoneOverlaps,
  zonePage,
} from '../db/repositories/zoneStore.js';
import { getZone, lockedZone } from './zoneReads.js';
import { assertZoneMatches, writeZone } from './zoneWrite.js';
import { exportZoneFile } from './zoneExport.js';
import { lastSystemWrite, renderSystemRecords } from './systemRecords.js';
import { advisoryLock } from '../db/lockOrder.js';

const DELETED_EXPORT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

export interface ZoneListFilter {
  q?: string;
  kind?: string;
  dnssecState?: string[];
  publicationState?: ChangeSetState[];
  tenantId?: string;
  sort: 'name' | '-name' | 'created_at' | '-created_at';
}

const SORTS: Record<ZoneListFilter['sort'], SortKey[]> = {
  name: [{ column: 'z.name', direction: 'asc', field: 'name' }],
  '-name': [{ column: 'z.name', direction: 'desc', field: 'name' }],
  created_at: [
    { column: 'z.created_at', direction: 'asc', field: 'created_at' },
    { column: 'z.id', direction: 'asc', field: 'id' },
  ],
  '-created_at': [
    { column: 'z.created_at', direction: 'desc', field: 'created_at' },
    { column: 'z.id', direction: 'desc', field: 'id' },
  ],
};

export async function listZones(ctx: DbContext, config: Config, filter: ZoneListFilter, after: unknown[] | null, limit: number) {
  const sort = SORTS[filter.sort];
  // Cursor values of timestamps travel as ISO strings.
  const decoded = after?.map((v, i) => (sort[i]!.field === 'created_at' ? new Date(v as string) : v)) ?? null;
  const { total, ...page } = await zonePage(ctx.scoped, config.zones.protectedNames, filter, sort, decoded, limit);
  return {
    items: page.rows.map(zoneToDomain),
    next: page.next?.map((v) => (v instanceof Date ? v.toISOString() : v)) ?? null,
    total,
  };
}

const nameFamily = (name: string) => `zone-family|${name.split('.').slice(-2).join('.')}`;

/**
 * Serialises creations that could overlap: one advisory lock per registrable-domain family. A
 * transaction that creates several zones takes all their families first (lockNameFamilies), in
 * order, before any zone's row (src/db/lockOrder.ts); this one then finds its family held.
 */
export async function lockNameFamily(trx: Transaction, name: string) {
  await advisoryLock(trx, 'zone_family', nameFamily(name));
}

/** The families of all of `names`, in ascending order: for a transaction that creates several zones. */
export async function lockNameFamilies(trx: Transaction, names: readonly string[]) {
  for (const family of [...new Set(names.map(nameFamily))].sort()) await advisoryLock(trx, 'zone_family', family);
}

export async function assertNameFree(trx: Transaction, name: string) {
  if (await zoneNameTaken(trx, name)) throw new DomainError('zone_exists', { name });
  // Overlap (spec, docs/zones.md): a zone inside or above any existing zone, the tenant's own
  // included: records of the parent at or below the child's apex would never be served.
  // The lab's parent zones (the root, TLDs) lie above every zone by design: they delegate them.
  if (await zoneOverlaps(trx, name)) throw new DomainError('zone_overlap', { name });
}

/**
 * Room for one more zone, and the quota.warning events it causes: one for each tenant of the
 * chain whose zone count crosses 80 % or 100 % of its max_zones with this zone (docs/webhooks.md
 * "quota.warning"). A count that falls below and climbs again crosses again.
 */
async function assertQuota(ctx: WriteContext): Promise<DomainEvent[]> {
  // Every tenant of the chain must have room: a reseller's quota covers its whole subtree. The
  // rows are locked root first, so concurrent creations queue instead of overshooting; FOR NO KEY
  // UPDATE, so that inserts referencing a tenant (its FOR KEY SHARE) pass (src/db/lockOrder.ts).
  const chain = await lockedTenantQuotas(ctx.db, ctx.actor.acting.path);
  const warnings: DomainEvent[] = [];
  for (const tenant of chain) {
    const count = await subtreeZoneCount(ctx.db, tenant.id);
    if (count >= tenant.max_zones) {
      throw new DomainError('quota_exceeded', { quota: 'max_zones', limit: tenant.max_zones });
    }
    const crossed = quotaThresholdCrossed(count, count + 1, tenant.max_zones);
    if (crossed !== null) {
      warnings.push({
        tenantId: tenant.id,
        kind: 'quota.warning',
        zoneId: null,
        payload: { quota: 'max_zones', threshold_percent: crossed, usage: count + 1, limit: tenant.max_zones },
      });
    }
  }
  return warnings;
}

export async function assertBackendCapacity(trx: Transaction, capacity: number) {
  if ((await countBackendZones(trx)) >= capacity) throw new DomainError('backend_capacity_exhausted', {}, [], { 'Retry-After': '3600' });
}

export interface ZoneCreateInput {
  name: string;
  default_ttl?: number;
  records?: ChangeItem[];
}

/**
 * Spec order: (1) valid name, (2) not protected, (3) not taken and no overlap, (4) quota,
 * (5) backend capacity. The initial records go into one change set; the SOA and the apex NS set
 * are not stored: the publication build renders them (docs/publication.md). There is no zone row
 * to lock yet: the name family's advisory lock serialises creations, and the data is stored like
 * every other write (appendChangeSet, applyChangeSet).
 */
export async function createZone(
  ctx: WriteContext,
  config: Config,
  input: ZoneCreateInput,
  /** Further items for the creation change set, computed once the zone exists (a template). */
  moreItems?: (zone: Zone) => Promise<ChangeItem[]>,
): Promise<{ zone: Zone; warnings: Warning[] }> {
  const name = checkNewZoneName(input.name, config.zones);
  // A credential confined to some zones creates only those, and one confined to names or types
  // none (docs/credentials.md): refused before the name is looked up or anything locked.
  assertCredentialAllows(ctx.actor, { zone: name, name: null, type: null }, ctx.clock.now());
  await lockNameFamily(ctx.db, name);
  await assertNameFree(ctx.db, name);
  const quotaWarnings = await assertQuota(ctx);
  await assertBackendCapacity(ctx.db, config.zones.backendCapacity);

  const now = ctx.clock.now();
  const id = newId('zon');
  await insertZone(ctx.scoped, {
    id,
    tenant_id: ctx.actor.acting.id,
    name,
    unicode_name: name.includes('xn--') ? domainToUnicode(name) || null : null,
    kind: 'forward',
    status: 'activating',
    default_ttl: input.default_ttl ?? DEFAULT_ZONE_TTL,
    soa_email: config.zones.defaultSoaEmail,
    created_at: now,
    updated_at: now,
  });
  const zone = await lockedZone(ctx, config, name);
  const changeSet = await appendChangeSet(ctx, zone, { kind: 'zone_create', itemCount: input.records?.length ?? 0, summary: {}, results: [] });
  // Initial records (and a template's) join the creation's change set: one atomic unit (spec).
  const records = input.records ?? [];
  const changes = [...records, ...((await moreItems?.(zone)) ?? [])];
  let warnings: Warning[] = [];
  if (changes.length) {
    // The initial items are record inputs themselves (/records/1/data/address); a template's
    // problems point at the template.
    const locate: LocateItem = (i, inner) =>
      i < records.length ? { pointer: `/records/${i}${inner.replace(/^\/record(?=\/|$)/, '')}`, index: i } : { pointer: '/template' };
    warnings = (await applyChangeSet(ctx, zone, { changes }, { kind: 'zone_create', locate, within: changeSet })).plan.warnings;
  }
  await recordAudit(ctx.db, ctx.actor, now, { action: 'zone.created', targetType: 'zone', targetId: id, details: { name } });
  await recordEvents(ctx.db, quotaWarnings, now);
  return { zone: await getZone(ctx, config, name), warnings };
}

export interface ZoneSettings {
  default_ttl?: number;
  soa_email?: string;
}

/** Zone settings are published like a record change: one change set, through the write seam. */
export const updateZone = (ctx: WriteContext, config: Config, zoneRef: string, settings: ZoneSettings, ifMatch: string | null): Promise<Zone> =>
  writeZone(ctx, config, zoneRef, { ifMatch }, async (zone) => {
    if (zone.status === 'deleting') throw new DomainError('conflict', { reason: 'zone_being_deleted', zone: zone.name });
    const changes: Record<string, unknown> = {};
    if (settings.default_ttl !== undefined && settings.default_ttl !== zone.defaultTtl) changes.default_ttl = settings.default_ttl;
    if (settings.soa_email !== undefined && settings.soa_email !== zone.soaEmail) changes.soa_email = settings.soa_email;
    if (Object.keys(changes).length === 0) return zone;
    const now = ctx.clock.now();
    await appendChangeSet(ctx, zone, {
      kind: 'zone_settings',
      itemCount: 0,
      summary: { created: 0, updated: changes.soa_email ? 1 : 0, deleted: 0 },
      results: [{ settings: Object.keys(changes) }],
      zoneColumns: changes,
    });
    await recordAudit(ctx.db, ctx.actor, now, { action: 'zone.updated', targetType: 'zone', targetId: zone.id, details: { name: zone.name, ...changes } });
    return getZone(ctx, config, zone.name);
  });

/**
 * Marks the zone `deleting` and keeps its last export for 30 days; the backend withdraws it and
 * removes the row later (publication pipeline). `confirm` must name the zone (A- or U-label).
 */
export const deleteZone = (
  ctx: WriteContext,
  config: Config,
  zoneRef: string,
  request: { confirm: string; ifMatch: string | null; force?: boolean; withPrefix?: boolean },
  dnssec: DnssecDeps,
): Promise<Zone> =>
  writeZone(ctx, config, zoneRef, {}, async (zone) => {
    // A prefix's reverse zone goes with its prefix (DELETE /prefixes/{prefix}), never alone.
    if (zone.kind === 'reverse' && !request.withPrefix) throw new DomainError('reverse_zone_managed', { name: zone.name });
    const confirm = canonicalName(request.confirm);
    if (confirm !== zone.name && request.confirm !== (domainToUnicode(zone.name) || zone.name)) {
      throw new DomainError('validation_failed', {}, [
        { in: 'query', pointer: '/confirm', code: 'confirmation_mismatch', detail: `confirm must equal the zone name ${zone.name}.` },
      ]);
    }
    assertZoneMatches(zone, request.ifMatch);
    if (zone.status === 'deleting') throw new DomainError('conflict', { reason: 'zone_deletion_running', zone: zone.name });
    await prepareDeletion(ctx, dnssec, zone, request.force ?? false);
    const now = ctx.clock.now();
    await insertDeletedZoneExport(ctx.db, {
      id: newId('zon'),
      zone_id: zone.id,
      zone_name: zone.name,
      tenant_id: zone.tenantId,
      zonefile: await exportZoneFile(ctx, zone, { includeSystem: true, nameservers: config.zones.nameservers }),
      deleted_at: now,
      expires_at: new Date(now.getTime() + DELETED_EXPORT_RETENTION_MS),
    });
    await requestZoneDeletion(ctx, zone, now);
    await recordAudit(ctx.db, ctx.actor, now, { action: 'zone.deletion_requested', targetType: 'zone', targetId: zone.id, details: { name: zone.name } });
    return getZone(ctx, config, zone.name);
  });

/**
 * The zone's deletion as a change set: the build withdraws it from the nameservers, the verifier
 * removes the row once none serves it (docs/zones.md). `columns`: more of the zone row to set with it.
 */
export async function requestZoneDeletion(ctx: WriteContext, zone: Zone, now: Date, columns: Record<string, unknown> = {}): Promise<void> {
  zone.status = 'deleting';
  // Spec "DELETE zone rules" 2: the zone's DynDNS hosts go with it, at once: their routers get
  // badauth from now on (their records go with the zone's).
  await deleteZoneDyndnsHosts(ctx.db, zone.id);
  await requestRebuild(ctx, zone, { kind: 'zone_delete', zoneColumns: { status: 'deleting', deletion_requested_at: now, ...columns } }, null);
}

export interface RecordListFilter {
  type?: string[];
  name?: string;
  q?: string;
  publicationState?: ChangeSetState[];
  includeSystem: boolean;
}

const RECORD_SORT: SortKey[] = [
  { column: 'r.name_sort', direction: 'asc', field: 'name_sort' },
  { column: 'r.type', direction: 'asc', field: 'type' },
  { column: 'r.content', direction: 'asc', field: 'content' },
  { column: 'r.id', direction: 'asc', field: 'id' },
];

type RecordKey = [string, string, string, string];
const keyOf = (r: { name_sort: string; type: string; content: string; id: string }): RecordKey => [r.name_sort, r.type, r.content, r.id];
const compareKeys = (a: unknown[], b: unknown[]) => {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return String(a[i]) < String(b[i]) ? -1 : 1;
  return 0;
};

/**
 * A page of the zone's records; with `includeSystem`, the rendered SOA and apex NS set
 * (systemRecords.ts) take their place in the order as stored rows did: all sort at the apex,
 * whose name key is the smallest, among the apex records by type.
 */
export async function listRecords(
  ctx: DbContext,
  zone: Zone,
  filter: RecordListFilter,
  after: unknown[] | null,
  limit: number,
  nameservers: readonly string[],
) {
  const page = await recordPage(ctx.scoped, zone.id, filter, RECORD_SORT, after, limit);
  if (!filter.includeSystem) return { items: page.rows.map(recordToDomain) as DnsRecord[], next: page.next };

  const system = renderSystemRecords(zone, nameservers, await lastSystemWrite(ctx, zone))
    .filter((r) => !filter.type?.length || filter.type.includes(r.type))
    .filter((r) => filter.name === undefined || filter.name === r.name)
    .filter((r) => !filter.q || r.name.includes(filter.q) || r.content.toLowerCase().includes(filter.q))
    .filter((r) => !filter.publicationState?.length || filter.publicationState.includes(r.publication.state))
    .map((r) => ({ record: r, key: keyOf({ name_sort: nameSortKey(r.name), type: r.type, content: r.content, id: r.id }) }))
    .filter((r) => !after || compareKeys(r.key, after) > 0);
  const merged = [...system, ...page.rows.map((row) => ({ record: recordToDomain(row), key: keyOf(row) }))].sort((a, b) => compareKeys(a.key, b.key));
  const items = merged.slice(0, limit);
  const more = page.next !== null || merged.length > limit;
  return { items: items.map((i) => i.record), next: more && items.length ? items[items.length - 1]!.key : null };
}
