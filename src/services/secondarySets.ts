// Secondary sets as resources of a tenant (docs/catalog-zones.md): create, list, read, change,
// delete. Each set owns one catalog zone — a zone row of kind 'catalog', hidden from the zone API,
// whose records the build renders from the set's members (src/catalog/catalogSource.ts). The
// catalog is created and deleted here, as reverse zones of an address space are: its creation
// asks for its first build, its deletion withdraws it like any zone's (requestZoneDeletion).
// A member zone's own write never touches its catalogs: see catalogMembers.ts.
import { notifySecondarySetsChanged } from '../db/repositories/secondaryFleet.js';
import type { Config } from '../config/index.js';
import type { DbContext } from '../db/context.js';
import { recordAudit } from '../db/repositories/auditLog.js';
import {
  deleteSecondarySetRow,
  findSecondarySet,
  insertSecondarySet,
  pageSecondarySets,
  type SecondarySet,
  secondarySetNameTaken,
  updateSecondarySetRow,
} from '../db/repositories/secondarySetRows.js';
import { findTsigKey } from '../db/repositories/tsigKeyRows.js';
import { insertZone, zoneIdNamed, zoneOverlaps } from '../db/repositories/zoneStore.js';
import { DomainError, type FieldError, notFound, validationFailed } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import { ifMatchSatisfied, rowEtag } from '../domain/model/etag.js';
import { NameError, toAsciiName } from '../domain/names.js';
import { DEFAULT_ZONE_TTL } from '../domain/records/ttl.js';
import {
  canonicalAddress,
  DEFAULT_SECONDARY_PORT,
  defaultCatalogZone,
  type GroupBy,
  ALL_ZONES,
  MAX_SECONDARIES,
  type Secondary,
  SET_NAME,
  type SetSelection,
  type ZoneGroup,
} from '../domain/secondarySets.js';
import { findTenant } from '../db/repositories/tenantRows.js';
import { requestRebuild } from './requestRebuild.js';
import type { WriteContext } from './writeContext.js';
import { lockNameFamily, requestZoneDeletion } from './zones.js';
import { writeZone } from './zoneWrite.js';

export type { SecondarySet };

export interface SecondaryInput {
  address: string;
  port?: number;
}

/** `all`, or the tenant whose subtree and/or the DNSSEC group whose zones the set carries. */
export type SetZonesInput = 'all' | { tenant?: string; group?: ZoneGroup };

export interface SecondarySetInput {
  name: string;
  secondaries: SecondaryInput[];
  zones?: SetZonesInput;
  group_by?: GroupBy;
  tsig_key?: string | null;
  catalog_zone?: string;
}

export interface SecondarySetChange {
  secondaries?: SecondaryInput[];
  zones?: SetZonesInput;
  group_by?: GroupBy;
  tsig_key?: string | null;
}

/** The addresses in canonical form, each at most once; 422 located at the offending entry. */
function secondariesOf(input: SecondaryInput[]): Secondary[] {
  const errors: FieldError[] = [];
  if (input.length < 1 || input.length > MAX_SECONDARIES)
    errors.push({ pointer: '/secondaries', code: 'invalid_length', detail: `A set has 1 to ${MAX_SECONDARIES} secondaries.` });
  const seen = new Set<string>();
  const secondaries = input.map((s, i) => {
    const address = canonicalAddress(s.address);
    const port = s.port ?? DEFAULT_SECONDARY_PORT;
    if (address === null)
      errors.push({ pointer: `/secondaries/${i}/address`, code: 'invalid_address', detail: `${s.address} is not a literal IPv4 or IPv6 address.` });
    else if (seen.has(`${address}|${port}`))
      errors.push({ pointer: `/secondaries/${i}`, code: 'duplicate', detail: `${address} port ${port} is listed more than once.` });
    seen.add(`${address}|${port}`);
    return { address: address ?? s.address, port };
  });
  if (errors.length) throw validationFailed(errors);
  return secondaries;
}

/** The key's id when the acting tenant sees it (its subtree's); 422 otherwise, as for a missing one. */
async function tsigKeyOf(ctx: WriteContext, id: string | null | undefined): Promise<string | null> {
  if (!id) return null;
  if (!(await findTsigKey(ctx.scoped, id))) {
    throw validationFailed([{ pointer: '/tsig_key', code: 'not_found', detail: `There is no TSIG key ${id}.` }]);
  }
  return id;
}

/**
 * The selection `input` names for a set owned by `ownerId`: a tenant the acting tenant sees and
 * within the owner's subtree (422 at /zones/tenant otherwise, as for a missing one).
 */
async function selectionOf(ctx: WriteContext, ownerId: string, input: SetZonesInput | undefined): Promise<SetSelection> {
  if (input === undefined || input === 'all') return ALL_ZONES;
  let tenantId: string | null = null;
  if (input.tenant !== undefined) {
    const tenant = await findTenant(ctx.scoped, input.tenant);
    if (!tenant?.path.includes(ownerId))
      throw validationFailed([{ pointer: '/zones/tenant', code: 'not_found', detail: `There is no tenant ${input.tenant} in the set owner’s subtree.` }]);
    tenantId = tenant.id;
  }
  return { tenantId, group: input.group ?? null };
}

/** The selection's columns. */
const selectionColumns = (s: SetSelection) => ({ zones_tenant_id: s.tenantId, zones_group: s.group });

const sameSelection = (a: SetSelection, b: SetSelection) => a.tenantId === b.tenantId && a.group === b.group;

function catalogZoneName(input: string | undefined, setName: string): string {
  if (input === undefined) return defaultCatalogZone(setName);
  try {
    const name = toAsciiName(input);
    if (name.includes('*') || name.includes('_')) throw new NameError('invalid_character', 'A catalog zone’s name is a host name (letters, digits, hyphens).');
    return name;
  } catch (e) {
    if (e instanceof NameError) throw validationFailed([{ pointer: '/catalog_zone', code: e.code, detail: e.message }]);
    throw e;
  }
}

export const listSecondarySets = (ctx: DbContext, after: unknown[] | null, limit: number) => pageSecondarySets(ctx.scoped, after, limit);

export async function getSecondarySet(ctx: DbContext, id: string): Promise<SecondarySet> {
  const set = await findSecondarySet(ctx.scoped, id);
  if (!set) throw notFound('secondary set');
  return set;
}

/** The set locked for its write, its If-Match checked against its stored version. */
async function lockedSet(ctx: WriteContext, id: string, ifMatch: string | null): Promise<SecondarySet> {
  const set = await findSecondarySet(ctx.scoped, id, true);
  if (!set) throw notFound('secondary set');
  const tag = rowEtag(set.id, set.version);
  if (!ifMatchSatisfied(ifMatch, tag)) {
    throw new DomainError('precondition_failed', {}, [
      { in: 'header', pointer: '/If-Match', code: 'etag_mismatch', detail: `The secondary set's current ETag is ${tag}.` },
    ]);
  }
  return set;
}

/** A new set of the acting tenant, with its catalog zone asked to be built. */
export async function createSecondarySet(ctx: WriteContext, config: Config, input: SecondarySetInput): Promise<SecondarySet> {
  if (!SET_NAME.test(input.name))
    throw validationFailed([{ pointer: '/name', code: 'invalid_name', detail: 'A set’s name is one DNS label: a-z, 0-9 and inner hyphens, at most 63.' }]);
  const secondaries = secondariesOf(input.secondaries);
  const catalogZone = catalogZoneName(input.catalog_zone, input.name);
  const tsigKeyId = await tsigKeyOf(ctx, input.tsig_key);
  const tenantId = ctx.actor.acting.id;
  const selection = await selectionOf(ctx, tenantId, input.zones);
  if (await secondarySetNameTaken(ctx.db, tenantId, input.name)) throw new DomainError('conflict', { reason: 'secondary_set_name_taken', name: input.name });
  // As a zone's creation: serialised on the name family, then the name checked free.
  await lockNameFamily(ctx.db, catalogZone);
  if (await zoneIdNamed(ctx.db, catalogZone)) throw new DomainError('zone_exists', { name: catalogZone });
  if (await zoneOverlaps(ctx.db, catalogZone)) throw new DomainError('zone_overlap', { name: catalogZone });

  const now = ctx.clock.now();
  const zoneId = newId('zon');
  await insertZone(ctx.scoped, {
    id: zoneId,
    tenant_id: tenantId,
    name: catalogZone,
    unicode_name: null,
    kind: 'catalog',
    status: 'activating',
    default_ttl: DEFAULT_ZONE_TTL,
    soa_email: config.zones.defaultSoaEmail,
    created_at: now,
    updated_at: now,
  });
  const id = newId('sst');
  const groupBy = input.group_by ?? 'none';
  const inserted = await insertSecondarySet(ctx.db, {
    id,
    tenant_id: tenantId,
    name: input.name,
    catalog_zone_id: zoneId,
    secondaries,
    group_by: groupBy,
    tsig_key_id: tsigKeyId,
    ...selectionColumns(selection),
    created_at: now,
    updated_at: now,
  });
  // A parallel creation of the same name won: this one rolls back, its catalog zone with it.
  if (!inserted) throw new DomainError('conflict', { reason: 'secondary_set_name_taken', name: input.name });
  await notifySecondarySetsChanged(ctx.db, id);
  await writeZone(ctx, config, catalogZone, { reach: 'catalog' }, (zone) =>
    requestRebuild(ctx, zone, { kind: 'zone_create', comment: `catalog of secondary set ${input.name}` }, null),
  );
  await recordAudit(ctx.db, ctx.actor, now, {
    action: 'secondary_set.created',
    targetType: 'secondary_set',
    targetId: id,
    details: { name: input.name, catalog_zone: catalogZone, secondaries, group_by: groupBy, tsig_key: tsigKeyId, ...selectionColumns(selection) },
  });
  return getSecondarySet(ctx, id);
}

/** Changes the set's secondaries, grouping, zones or key; a new grouping or selection rebuilds its catalog. */
export async function updateSecondarySet(
  ctx: WriteContext,
  config: Config,
  id: string,
  change: SecondarySetChange,
  ifMatch: string | null,
): Promise<SecondarySet> {
  const current = await lockedSet(ctx, id, ifMatch);
  const columns: Parameters<typeof updateSecondarySetRow>[2] = {};
  if (change.secondaries !== undefined) columns.secondaries = secondariesOf(change.secondaries);
  if (change.group_by !== undefined && change.group_by !== current.groupBy) columns.group_by = change.group_by;
  if (change.tsig_key !== undefined) columns.tsig_key_id = await tsigKeyOf(ctx, change.tsig_key);
  if (change.zones !== undefined) {
    const selection = await selectionOf(ctx, current.tenantId, change.zones);
    if (!sameSelection(selection, current.zones)) Object.assign(columns, selectionColumns(selection));
  }
  if (Object.keys(columns).length === 0) return current;
  const now = ctx.clock.now();
  await updateSecondarySetRow(ctx.scoped, id, columns, now, ctx.db);
  await notifySecondarySetsChanged(ctx.db, id);
  if (columns.group_by !== undefined || 'zones_group' in columns) {
    await writeZone(ctx, config, current.catalogZone, { reach: 'catalog' }, (zone) =>
      requestRebuild(ctx, zone, { kind: 'records', comment: `secondary set ${current.name}: its grouping or its zones changed` }, null),
    );
  }
  await recordAudit(ctx.db, ctx.actor, now, {
    action: 'secondary_set.updated',
    targetType: 'secondary_set',
    targetId: id,
    details: { name: current.name, ...columns },
  });
  return getSecondarySet(ctx, id);
}

/** The set goes at once; its catalog zone is withdrawn from the nameservers like a deleted zone. Member zones stay. */
export async function deleteSecondarySet(ctx: WriteContext, config: Config, id: string, ifMatch: string | null): Promise<void> {
  const current = await lockedSet(ctx, id, ifMatch);
  const now = ctx.clock.now();
  await deleteSecondarySetRow(ctx.scoped, id);
  await notifySecondarySetsChanged(ctx.db, id);
  await writeZone(ctx, config, current.catalogZone, { reach: 'catalog' }, (zone) => requestZoneDeletion(ctx, zone, now));
  await recordAudit(ctx.db, ctx.actor, now, {
    action: 'secondary_set.deleted',
    targetType: 'secondary_set',
    targetId: id,
    details: { name: current.name, catalog_zone: current.catalogZone },
  });
}
