// Customer-owned prefixes (docs/rdns.md "Prefixes", "Delegation checks"): attached by provider
// staff or the customer's reseller, each with its reverse zones created at once — zones of kind
// 'reverse' owned by the customer, stored like every zone creation (appendChangeSet), published
// and served like any zone, deleted through the normal zone deletion when the prefix goes.
import { blockInPath, blockInput } from './addressInput.js';
import { type BlockTable, lockBlocks, overlappingBlock } from './blocks.js';
import type { Config } from '../../config/index.js';
import { recordAudit } from '../../db/repositories/auditLog.js';
import type { DbContext } from '../../db/context.js';
import {
  insertPrefix,
  deletePrefixRow,
  pagePrefixRows,
  prefixByCidr,
  type PrefixRow,
  prefixZoneRows,
  reverseZonesOfPrefix,
  scopedTenantType,
  storeZoneDelegation,
  zoneNameStillDeleting,
} from '../../db/repositories/prefixRows.js';
import { readWindowCount, windowStartOf } from '../../db/rateLimitWindows.js';
import { DomainError, notFound } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import { type Block, type Family, formatBlock, parseBlock, type ReverseZone, reverseZonesOf } from '../../domain/ip/address.js';
import { classifyDelegation, type Delegation, type ObservedDelegation, observeDelegations, UNCHECKED } from '../../domain/ip/delegation.js';
import { DEFAULT_ZONE_TTL } from '../../domain/records/ttl.js';
import { appendChangeSet } from '../changeSets.js';
import type { DnssecDeps } from '../dnssec.js';
import type { RateLimiter } from '../rateLimiter.js';
import { insertZone } from '../../db/repositories/zoneStore.js';
import type { WriteContext } from '../writeContext.js';
import { lockedZone } from '../zoneReads.js';
import { assertBackendCapacity, assertNameFree, deleteZone, lockNameFamilies, lockNameFamily } from '../zones.js';

export type { Delegation, DelegationState, ObservedDelegation } from '../../domain/ip/delegation.js';

/** What the prefixes need from outside the database: a look at a reverse zone's parent. */
export interface RdnsDeps {
  /** Asks the parent of reverse zone `zone` where it delegates it (src/rdns/delegationCheck.ts; the lab's registry in the lab). */
  observeDelegation(zone: string): Promise<ObservedDelegation>;
}

export interface PrefixZone {
  name: string;
  /** How the zone is cut: an IPv4 octet boundary, an RFC 2317 classless zone, an IPv6 nibble boundary. */
  kind: 'octet' | 'classless' | 'nibble';
  delegation: Delegation;
}

export interface Prefix {
  id: string;
  block: Block;
  tenantId: string;
  createdAt: Date;
  zones: PrefixZone[];
}

/** At most this many reverse zones per prefix (an IPv4 /9 is 128 /16 zones, an IPv6 /45 eight /48s). */
const MAX_ZONES_PER_PREFIX = 256;

/** How a reverse zone's block is cut: IPv6 nibbles, IPv4 octets, or an RFC 2317 classless block below a /24. */
const cutOf = (block: Block): PrefixZone['kind'] => (block.family === 6 ? 'nibble' : block.prefixLength > 24 ? 'classless' : 'octet');

async function zonesOf(ctx: DbContext, prefixIds: string[]): Promise<Map<string, PrefixZone[]>> {
  const rows = await prefixZoneRows(ctx.scoped, prefixIds);
  const byPrefix = new Map<string, PrefixZone[]>();
  for (const r of rows) {
    const block = parseBlock(r.reverse_block);
    const list = byPrefix.get(r.prefix_id) ?? [];
    list.push({ name: r.name, kind: cutOf(block), delegation: r.delegation ?? UNCHECKED });
    byPrefix.set(r.prefix_id, list);
  }
  return byPrefix;
}

const toPrefix = (r: PrefixRow, zones: PrefixZone[]): Prefix => ({
  id: r.id,
  block: parseBlock(r.cidr),
  tenantId: r.tenant_id,
  createdAt: r.created_at,
  zones,
});

/** The prefix `block` exactly, as the scope sees it (another tenant's: 404). */
async function findPrefix(ctx: DbContext, block: Block): Promise<PrefixRow> {
  const row = await prefixByCidr(ctx.scoped, formatBlock(block));
  if (!row) throw notFound('prefix');
  return row;
}

export async function getPrefix(ctx: DbContext, segment: string): Promise<Prefix> {
  const row = await findPrefix(ctx, blockInPath(segment, '/prefix'));
  return toPrefix(row, (await zonesOf(ctx, [row.id])).get(row.id) ?? []);
}

/** The acting tenant's prefixes and those of the tenants below it, IPv4 before IPv6, by address. */
export async function listPrefixes(ctx: DbContext, filter: { family?: Family; tenantId?: string }, after: unknown[] | null, limit: number) {
  const page = await pagePrefixRows(ctx.scoped, filter, after, limit);
  const zones = await zonesOf(
    ctx,
    page.rows.map((r) => r.id),
  );
  return { items: page.rows.map((r) => toPrefix(r, zones.get(r.id) ?? [])), next: page.next };
}

/** Customers use their prefixes; staff (platform tokens) and resellers attach and detach them. */
function assertStaff(ctx: WriteContext) {
  if (ctx.actor.token.tenant.type === 'customer') throw new DomainError('forbidden', { reason: 'prefixes_for_staff' });
}

const OVERLAPPED: Record<BlockTable, string> = { prefixes: 'a customer prefix', ip_spaces: "the provider's address space", ip_assignments: 'an IP assignment' };

/** No block the service hosts reverse DNS for overlaps a prefix: address spaces, assignments, prefixes (409 prefix_overlap). */
async function assertNoOverlap(ctx: WriteContext, block: Block) {
  const other = await overlappingBlock(ctx, block, ['prefixes', 'ip_spaces', 'ip_assignments']);
  if (other) throw new DomainError('prefix_overlap', { cidr: formatBlock(block), other: other.cidr, what: OVERLAPPED[other.table] });
}

/**
 * A reverse zone of the prefix, created as createZone stores a zone (the name family's lock, name
 * free, backend capacity, the creation change set) but of kind 'reverse' and owned by the
 * customer. Not counted against max_zones: how a prefix is cut is the DNS's rule, not the
 * customer's choice (docs/rdns.md).
 */
async function createReverseZone(ctx: WriteContext, config: Config, tenantId: string, prefixId: string, zone: ReverseZone): Promise<void> {
  await lockNameFamily(ctx.db, zone.name);
  if (await zoneNameStillDeleting(ctx.db, zone.name)) throw new DomainError('conflict', { reason: 'reverse_zone_still_deleting', zone: zone.name });
  await assertNameFree(ctx.db, zone.name);
  await assertBackendCapacity(ctx.db, config.zones.backendCapacity);
  const now = ctx.clock.now();
  const id = newId('zon');
  await insertZone(ctx.scoped, {
    id,
    tenant_id: tenantId,
    name: zone.name,
    unicode_name: null,
    kind: 'reverse',
    status: 'activating',
    default_ttl: DEFAULT_ZONE_TTL,
    soa_email: config.zones.defaultSoaEmail,
    prefix_id: prefixId,
    reverse_block: formatBlock(zone.block),
    delegation: JSON.stringify(UNCHECKED),
    created_at: now,
    updated_at: now,
  });
  const created = await lockedZone(ctx, config, zone.name);
  await appendChangeSet(ctx, created, { kind: 'zone_create', comment: `reverse zone of prefix ${prefixId}`, itemCount: 0, summary: {}, results: [] });
  await recordAudit(ctx.db, ctx.actor, now, { action: 'zone.created', targetType: 'zone', targetId: id, details: { name: zone.name, prefix_id: prefixId } });
}

/** The name families of the prefix's reverse zones, all before the first zone is made (src/db/lockOrder.ts). */
const lockPrefixZoneFamilies = (ctx: WriteContext, block: Block) =>
  lockNameFamilies(
    ctx.db,
    reverseZonesOf(block).map((z) => z.name),
  );

export async function attachPrefix(ctx: WriteContext, config: Config, input: { cidr: string; tenant_id: string }): Promise<Prefix> {
  // A tenant outside the subtree is missing for everyone (404); one inside it, for a customer token, 403.
  const tenant = await scopedTenantType(ctx.scoped, input.tenant_id);
  if (!tenant) throw notFound('tenant');
  assertStaff(ctx);
  const block = blockInput(input.cidr, '/cidr');
  if (tenant.type !== 'customer') {
    throw new DomainError('validation_failed', {}, [
      { pointer: '/tenant_id', code: 'not_a_customer', detail: `${input.tenant_id} is not a customer tenant; prefixes belong to customers.` },
    ]);
  }
  const zones = reverseZonesOf(block);
  const tooWide = block.prefixLength < (block.family === 4 ? 8 : 16) || zones.length > MAX_ZONES_PER_PREFIX;
  if (tooWide) {
    throw new DomainError('validation_failed', {}, [
      {
        pointer: '/cidr',
        code: 'prefix_too_large',
        detail: `${formatBlock(block)} would be ${zones.length} reverse zones; at most ${MAX_ZONES_PER_PREFIX} (IPv4 /8 or longer, IPv6 /16 or longer).`,
      },
    ]);
  }
  await lockBlocks(ctx);
  await lockPrefixZoneFamilies(ctx, block);
  await assertNoOverlap(ctx, block);
  const now = ctx.clock.now();
  const id = newId('pfx');
  await insertPrefix(ctx.scoped, { id, tenant_id: tenant.id, cidr: formatBlock(block), attached_by: ctx.actor.token.tenant.id, created_at: now });
  for (const zone of zones) await createReverseZone(ctx, config, tenant.id, id, zone);
  await recordAudit(ctx.db, ctx.actor, now, {
    action: 'prefix.attached',
    targetType: 'prefix',
    targetId: id,
    details: { cidr: formatBlock(block), tenant_id: tenant.id },
  });
  return {
    id,
    block,
    tenantId: tenant.id,
    createdAt: now,
    zones: zones.map((z) => ({ name: z.name, kind: cutOf(z.block), delegation: UNCHECKED })),
  };
}

/**
 * Detaches the prefix: its reverse zones go through the normal zone deletion (withdrawn by the
 * backend, their last export kept 30 days) and forget the prefix, whose row goes at once.
 */
export async function detachPrefix(ctx: WriteContext, config: Config, dnssec: DnssecDeps, segment: string): Promise<void> {
  const block = blockInPath(segment, '/prefix');
  const row = await findPrefix(ctx, block);
  assertStaff(ctx);
  await lockBlocks(ctx);
  const zones = await reverseZonesOfPrefix(ctx.db, row.id);
  for (const name of zones) await deleteZone(ctx, config, name, { confirm: name, ifMatch: null, withPrefix: true }, dnssec);
  await deletePrefixRow(ctx.db, row.id);
  await recordAudit(ctx.db, ctx.actor, ctx.clock.now(), {
    action: 'prefix.detached',
    targetType: 'prefix',
    targetId: row.id,
    details: { cidr: row.cidr, tenant_id: row.tenant_id },
  });
}

const delegationCheckBucket = (prefixId: string) => `delegation-check:${prefixId}`;

/**
 * The delegation check's lookups, made before its request transaction opens (the route's prepare
 * step), so that no connection waits for the parents' answers: what the parent of each of the
 * prefix's reverse zones shows. Null when the check will be refused anyway (no such prefix, or
 * this minute's check made) — checkPrefixDelegation decides, in the transaction.
 */
export async function observePrefixDelegation(ctx: DbContext, deps: RdnsDeps, segment: string, now: Date): Promise<Map<string, ObservedDelegation> | null> {
  let row: PrefixRow;
  try {
    row = await findPrefix(ctx, blockInPath(segment, '/prefix'));
  } catch (err) {
    if (err instanceof DomainError) return null;
    throw err;
  }
  if ((await readWindowCount(ctx.db, delegationCheckBucket(row.id), windowStartOf(now))) >= 1) return null;
  return observeDelegations(await reverseZonesOfPrefix(ctx.db, row.id), deps.observeDelegation);
}

/**
 * POST …/delegation-check: one per prefix per minute (counted like the API's rate limits), then
 * what the parent of every reverse zone shows is stored on the zone: as `observed` saw it before
 * the transaction, or, for a zone it did not see (made meanwhile), asked now.
 */
export async function checkPrefixDelegation(
  ctx: WriteContext,
  config: Config,
  deps: RdnsDeps,
  limiter: RateLimiter,
  segment: string,
  observed: Map<string, ObservedDelegation> | null,
): Promise<Prefix> {
  const row = await findPrefix(ctx, blockInPath(segment, '/prefix'));
  const reading = await limiter.consume(delegationCheckBucket(row.id), 1, ctx.clock.now(), ctx.db);
  if (!reading.allowed) throw new DomainError('rate_limited', { retry_after: reading.resetSeconds }, [], { 'Retry-After': String(reading.resetSeconds) });
  const zones = await reverseZonesOfPrefix(ctx.db, row.id);
  const seen = new Map(observed ?? []);
  const unseen = zones.filter((name) => !seen.has(name));
  if (unseen.length) for (const [name, o] of await observeDelegations(unseen, deps.observeDelegation)) seen.set(name, o);
  for (const name of zones) {
    const delegation = classifyDelegation(seen.get(name)!, config.zones.nameservers, ctx.clock.now());
    await storeZoneDelegation(ctx.db, row.id, name, delegation);
  }
  return getPrefix(ctx, formatBlock(parseBlock(row.cidr)));
}
