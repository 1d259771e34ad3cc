// The provider's address spaces (docs/rdns.md "Staff endpoints"): provider staff add a block with
// its default-PTR pattern, and the space's 'provider_reverse' zones are created with it — owned by
// the platform tenant, stored and published like every zone (appendChangeSet, as the lab's
// parent zones are), never listed in /zones.
import { blockInput } from './addressInput.js';
import { lockBlocks, overlappingBlock } from './blocks.js';
import type { Config } from '../../config/index.js';
import { recordAudit } from '../../db/repositories/auditLog.js';
import { type IpSpace, ipSpaceToDomain } from '../../db/repositories/rdnsRows.js';
import { DomainError, validationFailed } from '../../domain/errors.js';
import { type Block, formatBlock, parseBlock, reverseZonesOf } from '../../domain/ip/address.js';
import { canonicalPattern, patternProblem } from '../../domain/ip/defaultPtr.js';
import { newId } from '../../domain/ids.js';
import { DEFAULT_ZONE_TTL } from '../../domain/records/ttl.js';
import { normalizeHostname, NameError } from '../../domain/names.js';
import type { Actor } from '../actor.js';
import { requestRebuild } from '../requestRebuild.js';
import { requestZoneDeletion } from '../zones.js';
import { insertZone } from '../../db/repositories/zoneStore.js';
import type { WriteContext } from '../writeContext.js';
import { type DnssecDeps, type DnssecView, disableDnssec, dnssecViews, enableDnssec, prepareDeletion } from '../dnssec.js';
import { zoneToDomain } from '../../db/repositories/zoneRows.js';
import { DISABLING, type DnssecState } from '../../domain/dnssec/states.js';
import type { DbContext } from '../../db/context.js';
import {
  allIpSpaceRows,
  deleteIpSpaceRow,
  insertIpSpaceRow,
  ipSpaceRow,
  liveSpaceZoneNames,
  liveSpaceZoneStates,
  lockIpSpaceForChange,
  lockIpSpaceForDeletion,
  pageSpaceZoneRows,
  spaceHasAssignments,
  takenZoneName,
  updateIpSpaceRow,
  zoneNameById,
} from '../../db/repositories/ipSpaceRows.js';
import { writeZone } from '../zoneWrite.js';
import { type ForwardRecordsState, forwardRecordsStates, forwardZoneInput, syncForwardRecords } from './forwardRecords.js';

/** Address spaces and assignments from the provider are the platform's (403 for everyone else). */
export function assertPlatform(actor: Actor): void {
  if (actor.acting.type !== 'platform') throw new DomainError('forbidden', { reason: 'ip_spaces_for_platform' });
}

/** A space as the API shows it: with how far its forward records are. */
export type IpSpaceView = IpSpace & { forwardRecords: ForwardRecordsState };

async function withForwardRecords(ctx: DbContext, spaces: IpSpace[]): Promise<IpSpaceView[]> {
  const states = await forwardRecordsStates(
    ctx,
    spaces.map((s) => ({ id: s.id, block: s.block, forwardZoneId: s.forwardZone?.id ?? null })),
  );
  return spaces.map((s) => ({ ...s, forwardRecords: states.get(s.id)! }));
}

export async function listIpSpaces(ctx: DbContext, actor: Actor): Promise<IpSpaceView[]> {
  assertPlatform(actor);
  return withForwardRecords(ctx, (await allIpSpaceRows(ctx.db)).map(ipSpaceToDomain));
}

export async function getIpSpace(ctx: DbContext, id: string): Promise<IpSpaceView> {
  const row = await ipSpaceRow(ctx.db, id);
  if (!row) throw new DomainError('not_found', { resource: 'address space' });
  return (await withForwardRecords(ctx, [ipSpaceToDomain(row)]))[0]!;
}

/** A default-PTR pattern for the block as it is stored, or 422 at /ptr_pattern (docs/rdns.md "Default PTRs"). */
function checkPattern(pattern: string, block: Block): string {
  const problem = patternProblem(pattern, block);
  if (problem) throw validationFailed([{ pointer: '/ptr_pattern', code: 'invalid_ptr_pattern', detail: problem }]);
  try {
    normalizeHostname(pattern.replaceAll('{dashed}', 'a-b').replaceAll('{ip}', '192.0.2.1').replaceAll('{reversed}', '1.2.0.192'));
    return canonicalPattern(pattern);
  } catch (e) {
    if (e instanceof NameError) throw validationFailed([{ pointer: '/ptr_pattern', code: 'invalid_ptr_pattern', detail: e.message }]);
    throw e;
  }
}

/** The reverse zones of a space: a /16 of IPv4 gives 256 /24 zones, the most one space makes. */
const MAX_ZONES_PER_SPACE = 256;
const MIN_IPV4_SPACE = 16;

/**
 * A provider space's IPv4 zones are /24s (RFC 2317 zones below): each renders its default PTRs
 * in every build, so a zone holds at most 256 of them, not a /16's 65,536 rewritten with every
 * PTR write. IPv6 zones are cut on nibbles as any reverse zone (their defaults are /128s only).
 */
function providerZonesOf(block: Block) {
  if (block.family === 6 || block.prefixLength >= 24) return reverseZonesOf(block);
  const count = 1n << BigInt(24 - block.prefixLength);
  return Array.from({ length: Number(count) }, (_, i) => reverseZonesOf({ family: 4, network: block.network + BigInt(i) * 256n, prefixLength: 24 })).flat();
}

export async function createIpSpace(
  ctx: WriteContext,
  config: Config,
  request: { cidr: string; ptr_pattern: string; dnssec?: boolean; forward_zone?: string | null },
  /** Needed when the space is signed from the start (`dnssec: true`). */
  dnssec: DnssecDeps | null = null,
): Promise<IpSpaceView> {
  assertPlatform(ctx.actor);
  const block = blockInput(request.cidr, '/cidr');
  const pattern = checkPattern(request.ptr_pattern, block);
  const forwardZone = request.forward_zone ? await forwardZoneInput(ctx, config, request.forward_zone, pattern, block) : null;
  if (block.family === 4 && block.prefixLength < MIN_IPV4_SPACE) {
    throw validationFailed([
      { pointer: '/cidr', code: 'block_too_large', detail: `An IPv4 address space is at most a /${MIN_IPV4_SPACE}; add ${formatBlock(block)} in parts.` },
    ]);
  }
  const zones = providerZonesOf(block);
  if (zones.length > MAX_ZONES_PER_SPACE) {
    throw validationFailed([
      {
        pointer: '/cidr',
        code: 'too_many_reverse_zones',
        detail: `${formatBlock(block)} is cut into ${zones.length} reverse zones; add it in parts of at most ${MAX_ZONES_PER_SPACE}.`,
      },
    ]);
  }
  await lockBlocks(ctx);
  const other = await overlappingBlock(ctx, block, ['ip_spaces', 'prefixes']);
  if (other) throw new DomainError('conflict', { reason: 'ip_block_overlap', cidr: formatBlock(block), other: other.cidr });
  const taken = await takenZoneName(
    ctx.db,
    zones.map((z) => z.name),
  );
  if (taken) throw new DomainError('zone_exists', { name: taken });

  const now = ctx.clock.now();
  const id = newId('spc');
  const space = { id, cidr: formatBlock(block), ptr_pattern: pattern };
  await insertIpSpaceRow(ctx.db, { ...space, dnssec: request.dnssec === true, forward_zone_id: forwardZone?.id ?? null, created_at: now });
  for (const z of zones) {
    await insertZone(ctx.scoped, {
      id: newId('zon'),
      tenant_id: ctx.actor.acting.id,
      name: z.name,
      unicode_name: null,
      kind: 'provider_reverse',
      status: 'activating',
      default_ttl: DEFAULT_ZONE_TTL,
      soa_email: config.zones.defaultSoaEmail,
      ip_space_id: id,
      reverse_block: formatBlock(z.block),
      created_at: now,
      updated_at: now,
    });
    await writeZone(ctx, config, z.name, { reach: 'provider_reverse' }, (zone) =>
      requestRebuild(ctx, zone, { kind: 'zone_create', comment: `address space ${formatBlock(block)}` }, null),
    );
  }
  if (request.dnssec) await applySpaceDnssec(ctx, requireDnssec(dnssec), id, true);
  if (forwardZone)
    await syncForwardRecords(ctx, config, space, block, forwardZone.id, true, `address space ${space.cidr}: forward records of its default PTRs`);
  await recordAudit(ctx.db, ctx.actor, now, {
    action: 'ip_space.created',
    targetType: 'ip_space',
    targetId: id,
    details: { cidr: formatBlock(block), zones: zones.map((z) => z.name), dnssec: request.dnssec === true, forward_zone: forwardZone?.name ?? null },
  });
  return getIpSpace(ctx, id);
}

function requireDnssec(deps: DnssecDeps | null): DnssecDeps {
  if (!deps) throw new Error('signing an address space needs the DNSSEC dependencies');
  return deps;
}

/**
 * Brings every reverse zone of the space to `on` through the DNSSEC service, as the zone's own
 * enable or disable would (keys, `dnssec.state_changed`, a `dnssec` change set, the worker's
 * walk to `active` or `off`). A zone already on its way there is left alone; enabling a zone
 * still being disabled is 409 `dnssec_transition_in_progress`, as for any zone.
 */
async function applySpaceDnssec(ctx: WriteContext, deps: DnssecDeps, spaceId: string, on: boolean): Promise<void> {
  const zones = await liveSpaceZoneStates<DnssecState>(ctx.db, spaceId);
  for (const z of zones) {
    if (on) await enableDnssec(ctx, deps, z.name, {}, 'provider_reverse');
    else if (z.dnssec_state !== 'off' && !DISABLING.includes(z.dnssec_state)) await disableDnssec(ctx, deps, z.name, 'provider_reverse');
  }
}

export interface IpSpaceChange {
  dnssec?: boolean;
  ptr_pattern?: string;
  /** A zone name; null: no forward records any more. */
  forward_zone?: string | null;
}

/**
 * PATCH /ip-spaces/{space}: `dnssec` signs or unsigns every reverse zone of the space; a new
 * `ptr_pattern` republishes every reverse zone (the build renders the defaults anew) and renames
 * the forward records; a new `forward_zone` moves them (one change set in each zone).
 */
export async function updateIpSpace(ctx: WriteContext, config: Config, deps: DnssecDeps, id: string, change: IpSpaceChange): Promise<IpSpaceView> {
  assertPlatform(ctx.actor);
  const row = await lockIpSpaceForChange(ctx.db, id);
  if (!row) throw new DomainError('not_found', { resource: 'address space' });
  const block = parseBlock(row.cidr);
  const pattern = change.ptr_pattern === undefined ? row.ptr_pattern : checkPattern(change.ptr_pattern, block);
  const patternChanged = pattern !== row.ptr_pattern;
  // The pattern's names must lie in the forward zone, whichever of the two changes.
  let forwardZoneId = row.forward_zone_id;
  if (change.forward_zone !== undefined || (patternChanged && row.forward_zone_id)) {
    const name = change.forward_zone === undefined ? await zoneNameById(ctx.db, row.forward_zone_id!) : change.forward_zone;
    forwardZoneId = name ? (await forwardZoneInput(ctx, config, name, pattern, block, id)).id : null;
  }

  const space = { id, cidr: row.cidr, ptr_pattern: pattern };
  await updateIpSpaceRow(ctx.db, id, {
    ptr_pattern: pattern,
    forward_zone_id: forwardZoneId,
    ...(change.dnssec !== undefined ? { dnssec: change.dnssec } : {}),
  });
  // Applied even when the flag already says so: a zone left behind (a transition refused earlier) follows now.
  if (change.dnssec !== undefined) await applySpaceDnssec(ctx, deps, id, change.dnssec);
  if (patternChanged) await republishSpaceZones(ctx, config, id, `address space ${row.cidr}: default PTR pattern ${pattern}`);
  if (row.forward_zone_id && row.forward_zone_id !== forwardZoneId) {
    await syncForwardRecords(ctx, config, space, block, row.forward_zone_id, false, `address space ${row.cidr}: forward records leave this zone`);
  }
  // forward_zone sent again (the same zone) restarts its job now, a failed one too.
  if (forwardZoneId && (patternChanged || change.forward_zone !== undefined)) {
    await syncForwardRecords(ctx, config, space, block, forwardZoneId, true, `address space ${row.cidr}: forward records of its default PTRs`);
  }
  await recordAudit(ctx.db, ctx.actor, ctx.clock.now(), {
    action: 'ip_space.updated',
    targetType: 'ip_space',
    targetId: id,
    details: { cidr: row.cidr, ...change },
  });
  return getIpSpace(ctx, id);
}

/** Every reverse zone of the space built anew (its defaults rendered from the pattern now stored): a whole-zone change set each. */
async function republishSpaceZones(ctx: WriteContext, config: Config, spaceId: string, comment: string): Promise<void> {
  const names = await liveSpaceZoneNames(ctx.db, spaceId);
  for (const name of names) {
    await writeZone(ctx, config, name, { reach: 'provider_reverse' }, (zone) => requestRebuild(ctx, zone, { kind: 'records', comment }, null));
  }
}

export interface SpaceZone {
  name: string;
  block: string;
  status: string;
  dnssec: DnssecView;
}

/** The reverse zones of a space with their DNSSEC object, by block: what staff read to follow or hand on the DS. */
export async function listIpSpaceZones(ctx: DbContext, config: Config, actor: Actor, id: string, after: unknown[] | null, limit: number) {
  assertPlatform(actor);
  await getIpSpace(ctx, id);
  const page = await pageSpaceZoneRows(ctx, config.zones.protectedNames, id, after, limit);
  const zones = page.rows.map(zoneToDomain);
  const views = await dnssecViews(ctx, zones);
  const items: SpaceZone[] = page.rows.map((row, i) => ({ name: zones[i]!.name, block: row.reverse_block_text, status: zones[i]!.status, dnssec: views[i]! }));
  return { items, next: page.next };
}

/**
 * Only a space without assignments goes; its reverse zones are withdrawn like deleted zones — a
 * signed one once its DS left the parent (prepareDeletion: 409 `dnssec_ds_present` for a DS staff
 * placed themselves and that is still seen, unless `force`).
 */
export async function deleteIpSpace(ctx: WriteContext, config: Config, deps: DnssecDeps, id: string, force = false): Promise<void> {
  assertPlatform(ctx.actor);
  const space = await lockIpSpaceForDeletion(ctx.db, id);
  if (!space) throw new DomainError('not_found', { resource: 'address space' });
  if (await spaceHasAssignments(ctx.db, id)) throw new DomainError('conflict', { reason: 'ip_space_has_assignments', cidr: space.cidr });
  const now = ctx.clock.now();
  const names = await liveSpaceZoneNames(ctx.db, id);
  for (const name of names) {
    await writeZone(ctx, config, name, { reach: 'provider_reverse' }, async (zone) => {
      await prepareDeletion(ctx, deps, zone, force);
      await requestZoneDeletion(ctx, zone, now, { ip_space_id: null });
    });
  }
  if (space.forward_zone_id) {
    await syncForwardRecords(
      ctx,
      config,
      space,
      parseBlock(space.cidr),
      space.forward_zone_id,
      false,
      `address space ${space.cidr} removed: its forward records`,
    );
  }
  await deleteIpSpaceRow(ctx.db, id);
  await recordAudit(ctx.db, ctx.actor, now, { action: 'ip_space.deleted', targetType: 'ip_space', targetId: id, details: { cidr: space.cidr, zones: names } });
}
