// PTRs (docs/rdns.md "PTR endpoints"): the host name of one address of the acting tenant's
// assignments or prefixes, read and written in the address's reverse zone. Every write is an
// ordinary change set of that zone through the write seam (writeZone + applyChangeSet), so a PTR
// is published, evented and audited like any record. Default PTRs are never stored: they are
// computed from the space's pattern here and rendered by the publication build (defaultPtr.ts).
import { addressInput } from './addressInput.js';
import type { DbContext } from '../../db/context.js';
import {
  assignedSingles,
  blockHeld,
  forwardAddressRecords,
  ptrOwnersWithin,
  reverseZonesHolding,
  scopedAssignmentsHolding,
  singleAssignmentsWithin,
  spacePtrPatterns,
  storedPtrs,
  subtreePrefixIds,
} from '../../db/repositories/ptrRows.js';
import type { Config } from '../../config/index.js';
import type { Warning } from '../../domain/changeSets/planChangeSet.js';
import { DomainError, type FieldError, validationFailed } from '../../domain/errors.js';
import {
  type Address,
  AddressError,
  addressOfReverseName,
  type Block,
  blockContains,
  formatAddress,
  formatBlock,
  lastOf,
  parseAddress,
  parseBlock,
  reverseNameOfOwner,
} from '../../domain/ip/address.js';
import { ownerOfAddress, renderDefaultPtr } from '../../domain/ip/defaultPtr.js';
import { parseRecordData } from '../../domain/records/parseRecordData.js';
import type { Actor } from '../actor.js';
import { applyChangeSet } from '../changeSets.js';
import type { WriteContext } from '../writeContext.js';
import { writeZone } from '../zoneWrite.js';
import { ownerScope, type ReverseZoneRow } from './reverseZones.js';

export interface PtrView {
  ip: string;
  target: string | null;
  source: 'set' | 'default' | null;
  defaultTarget: string | null;
  zone: string;
  assignmentId: string | null;
  prefixId: string | null;
}

/** IPv4 listings cover at most a /22 (1,024 addresses, every one listed). */
const MAX_IPV4_LISTING = 22;

interface Resolved {
  address: Address;
  zone: ReverseZoneRow;
  owner: string;
  assignmentId: string | null;
  prefixId: string | null;
}

const zoneBlock = (z: ReverseZoneRow) => parseBlock(z.reverse_block);

/**
 * The reverse zone of each address and the acting tenant's title to it: an assignment (or, for
 * provider staff, the address space itself) in a provider reverse zone, a prefix in a customer's
 * reverse zone. Addresses outside the tenant's space: 403 not_owner, naming the first.
 */
async function resolve(ctx: DbContext, actor: Actor, addresses: Address[]): Promise<Resolved[]> {
  if (addresses.length === 0) return [];
  const texts = addresses.map(formatAddress);
  const zones = await reverseZonesHolding(ctx.db, texts);
  const zoneBlocks = zones.map((z) => ({ z, b: zoneBlock(z) })).sort((x, y) => y.b.prefixLength - x.b.prefixLength);
  const assignments = await scopedAssignmentsHolding(ctx, texts);
  const assignmentBlocks = assignments.map((a) => ({ id: a.id, b: parseBlock(a.cidr) })).sort((x, y) => y.b.prefixLength - x.b.prefixLength);
  const prefixIds = [...new Set(zones.flatMap((z) => (z.prefix_id ? [z.prefix_id] : [])))];
  const ownPrefixes = new Set(prefixIds.length ? await subtreePrefixIds(ctx, prefixIds) : []);
  const platform = actor.acting.type === 'platform';
  return addresses.map((address) => {
    const zone = zoneBlocks.find((x) => blockContains(x.b, address))?.z;
    const assignmentId = assignmentBlocks.find((x) => blockContains(x.b, address))?.id ?? null;
    const mine = zone && (zone.kind === 'reverse' ? zone.prefix_id !== null && ownPrefixes.has(zone.prefix_id) : platform || assignmentId !== null);
    if (!zone || !mine) throw new DomainError('not_owner', { ip: formatAddress(address) });
    return {
      address,
      zone,
      owner: ownerOfAddress(address, zone.name),
      assignmentId: zone.kind === 'reverse' ? null : assignmentId,
      prefixId: zone.kind === 'reverse' ? zone.prefix_id : null,
    };
  });
}

/** The PTRs as they are stored (set) and as the space's pattern gives them (default). */
async function views(ctx: DbContext, resolved: Resolved[]): Promise<PtrView[]> {
  if (resolved.length === 0) return [];
  const zoneIds = [...new Set(resolved.map((r) => r.zone.id))];
  const set = await storedPtrs(ctx.db, zoneIds, [...new Set(resolved.map((r) => r.owner))]);
  const targets = new Map<string, string>();
  for (const r of set) if (!targets.has(`${r.zone_id} ${r.name}`)) targets.set(`${r.zone_id} ${r.name}`, r.data.target);
  const defaults = await defaultTargets(ctx, resolved);
  return resolved.map((r, i) => {
    const own = targets.get(`${r.zone.id} ${r.owner}`) ?? null;
    const def = defaults[i] ?? null;
    return {
      ip: formatAddress(r.address),
      target: own ?? def,
      source: own ? 'set' : def ? 'default' : null,
      defaultTarget: def,
      zone: r.zone.name,
      assignmentId: r.assignmentId,
      prefixId: r.prefixId,
    };
  });
}

/** Default PTRs: provider reverse zones only; every IPv4 address, IPv6 only when assigned alone (/128). */
async function defaultTargets(ctx: DbContext, resolved: Resolved[]): Promise<(string | null)[]> {
  const spaceIds = [...new Set(resolved.flatMap((r) => (r.zone.kind === 'provider_reverse' && r.zone.ip_space_id ? [r.zone.ip_space_id] : [])))];
  if (spaceIds.length === 0) return resolved.map(() => null);
  const patterns = new Map((await spacePtrPatterns(ctx.db, spaceIds)).map((s) => [s.id, s.ptr_pattern]));
  const v6 = resolved.filter((r) => r.address.family === 6).map((r) => `${formatAddress(r.address)}/128`);
  const single = new Set(v6.length ? (await assignedSingles(ctx.db, v6)).map((ip) => formatAddress(parseAddress(ip))) : []);
  return resolved.map((r) => {
    const pattern = r.zone.ip_space_id ? patterns.get(r.zone.ip_space_id) : undefined;
    if (r.zone.kind !== 'provider_reverse' || !pattern) return null;
    if (r.address.family === 6 && !single.has(formatAddress(r.address))) return null;
    return renderDefaultPtr(pattern, r.address);
  });
}

export async function getPtr(ctx: DbContext, actor: Actor, ip: string): Promise<PtrView> {
  const address = addressInput(ip, '/ip', 'path');
  return (await views(ctx, await resolve(ctx, actor, [address])))[0]!;
}

/**
 * The PTRs of a block inside one of the tenant's assignments or prefixes, by address: IPv4 every
 * address (at most a /22), IPv6 only addresses with a PTR (set, or default for /128 assignments).
 */
export async function listPtrs(
  ctx: DbContext,
  actor: Actor,
  within: Block,
  after: unknown[] | null,
  limit: number,
): Promise<{ items: PtrView[]; next: unknown[] | null }> {
  if (within.family === 4 && within.prefixLength < MAX_IPV4_LISTING) {
    throw validationFailed([
      {
        in: 'query',
        pointer: '/within',
        code: 'block_too_large',
        detail: `IPv4 PTRs are listed for at most a /${MAX_IPV4_LISTING} at a time; ${formatBlock(within)} is larger.`,
      },
    ]);
  }
  await assertBlockOwned(ctx, actor, within);
  const start = after ? BigInt(String(after[0])) + 1n : within.network;
  let addresses: Address[];
  if (within.family === 4) {
    addresses = [];
    for (let v = start; v <= lastOf(within) && addresses.length <= limit; v++) addresses.push({ family: 4, value: v });
  } else {
    addresses = (await ipv6WithPtr(ctx, within))
      .filter((v) => v >= start)
      .slice(0, limit + 1)
      .map((value) => ({ family: 6 as const, value }));
  }
  const more = addresses.length > limit;
  const page = addresses.slice(0, limit);
  const items = await views(ctx, await resolve(ctx, actor, page));
  return { items, next: more && page.length ? [page[page.length - 1]!.value.toString()] : null };
}

/** Addresses of an IPv6 block with a stored PTR or a /128 assignment (a default), ascending. */
async function ipv6WithPtr(ctx: DbContext, within: Block): Promise<bigint[]> {
  const cidr = formatBlock(within);
  const stored = await ptrOwnersWithin(ctx.db, cidr);
  const singles = await singleAssignmentsWithin(ctx.db, cidr);
  const values = new Set<bigint>();
  for (const r of stored) {
    const a = addressOfReverseName(reverseNameOfOwner(r.name, r.zone));
    if (a && blockContains(within, a)) values.add(a.value);
  }
  for (const ip of singles) values.add(parseAddress(ip).value);
  return [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** A listed block lies inside one assignment or prefix of the tenant (provider staff: one address space). */
async function assertBlockOwned(ctx: DbContext, actor: Actor, within: Block): Promise<void> {
  const cidr = formatBlock(within);
  if (await blockHeld(ctx, cidr, actor.acting.type === 'platform')) return;
  throw new DomainError('not_owner', { ip: cidr });
}

export interface PtrWrite {
  ip: string;
  target: string | null;
}

export interface PtrWritten {
  items: PtrView[];
  changeSetIds: string[];
  warnings: Warning[];
}

/**
 * Sets (target) or resets (null) PTRs: one change set per reverse zone, in the request's one
 * transaction — all stored or none. `pointer` names the items for field errors ('' for PUT).
 */
export async function writePtrs(ctx: WriteContext, config: Config, writes: PtrWrite[], pointerOf: (i: number) => string, bulk: boolean): Promise<PtrWritten> {
  const errors: FieldError[] = [];
  const addresses: Address[] = [];
  const targets: (string | null)[] = [];
  const seen = new Map<string, number>();
  writes.forEach((w, i) => {
    try {
      const a = parseAddress(w.ip);
      const key = formatAddress(a);
      if (seen.has(key)) errors.push({ pointer: `${pointerOf(i)}/ip`, code: 'duplicate_ip', detail: `${key} is named by item ${seen.get(key)} already.` });
      seen.set(key, i);
      addresses.push(a);
    } catch (e) {
      if (!(e instanceof AddressError)) throw e;
      errors.push({ ...(bulk ? {} : { in: 'path' as const }), pointer: bulk ? `${pointerOf(i)}/ip` : '/ip', code: e.code, detail: e.message });
    }
    if (w.target === null) return targets.push(null);
    const parsed = parseRecordData('PTR', { target: w.target });
    if (parsed.ok) targets.push((parsed.data as { target: string }).target);
    else for (const e of parsed.errors) errors.push({ pointer: `${pointerOf(i)}${e.pointer}`, code: e.code, detail: e.detail });
  });
  if (errors.length) throw validationFailed(errors);

  const resolved = await resolve(ctx, ctx.actor, addresses);
  const byZone = new Map<string, number[]>();
  resolved.forEach((r, i) => byZone.set(r.zone.id, [...(byZone.get(r.zone.id) ?? []), i]));
  const changeSetIds: string[] = [];
  for (const indexes of byZone.values()) {
    const zoneRow = resolved[indexes[0]!]!.zone;
    const owned = ownerScope(ctx, zoneRow.tenant_id);
    const reach = zoneRow.kind === 'provider_reverse' ? 'provider_reverse' : 'tenant';
    const changeSet = await writeZone(owned, config, zoneRow.name, { reach }, async (zone) => {
      const changes = indexes.map((i) => ({
        op: 'replace_rrset' as const,
        name: resolved[i]!.owner,
        type: 'PTR',
        ttl: null,
        records: targets[i] === null ? [] : [{ target: targets[i] }],
      }));
      const comment = bulk ? `PTR bulk write (${indexes.length})` : `PTR ${formatAddress(resolved[indexes[0]!]!.address)}`;
      return (await applyChangeSet(owned, zone, { changes, comment }, { kind: 'records' })).changeSet!;
    });
    changeSetIds.push(changeSet.id);
  }
  const items = await views(ctx, resolved);
  const warnings = await forwardConfirmation(ctx, items, targets);
  return { items, changeSetIds, warnings };
}

/**
 * A PTR is forward-confirmed when an A (IPv4) or AAAA (IPv6) record at the target, in one of the
 * service's forward zones, holds the address. Unconfirmed is a warning, never a refusal: the
 * forward zone may be hosted elsewhere or written next.
 */
async function forwardConfirmation(ctx: DbContext, items: PtrView[], setTargets: (string | null)[]): Promise<Warning[]> {
  const checks = items.flatMap((item, index) => (setTargets[index] ? [{ index, item, target: setTargets[index]! }] : []));
  if (checks.length === 0) return [];
  const suffixes = [...new Set(checks.flatMap((c) => c.target.split('.').map((_, i, labels) => labels.slice(i).join('.'))))];
  const rows = await forwardAddressRecords(ctx.db, suffixes);
  const confirmed = new Set(
    rows.flatMap((r) => {
      try {
        return [`${r.fqdn} ${formatAddress(parseAddress(r.address))}`];
      } catch {
        return [];
      }
    }),
  );
  return checks
    .filter((c) => !confirmed.has(`${c.target} ${c.item.ip}`))
    .map((c) => ({
      ...(items.length > 1 ? { index: c.index } : {}),
      code: 'ptr_not_forward_confirmed',
      detail: `No ${c.item.ip.includes(':') ? 'AAAA' : 'A'} record of ${c.target} in the service's zones points back to ${c.item.ip}; the PTR is stored.`,
    }));
}
