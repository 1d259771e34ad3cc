// IP assignments (docs/rdns.md "The model"): blocks of the provider's address spaces assigned to
// tenants with the server they belong to. Provider staff assign from a space to any tenant; a
// reseller hands part of its own assignment on to one of its customers. An assignment is seen by
// its tenant and the tenants above it (the tenant scope), and read-only below the one that made it.
import { lockBlocks } from './blocks.js';
import type { Knex } from 'knex';
import type { Config } from '../../config/index.js';
import { likeEscape } from '../../db/like.js';
import { paginate } from '../../db/paginate.js';
import { recordAudit } from '../../db/repositories/auditLog.js';
import { type IpAssignment, type IpAssignmentRow, ipAssignmentToDomain, type IpSpaceRow } from '../../db/repositories/rdnsRows.js';
import type { ScopedDb } from '../../db/tenantScope.js';
import { DomainError, validationFailed } from '../../domain/errors.js';
import { addressOfReverseName, type Block, formatAddress, formatBlock, reverseNameOfOwner } from '../../domain/ip/address.js';
import { newId } from '../../domain/ids.js';
import { NameError, normalizeHostname } from '../../domain/names.js';
import { requestRebuild } from '../requestRebuild.js';
import { writeZone } from '../zoneWrite.js';
import type { WriteContext } from '../writeContext.js';
import { blockInput } from './addressInput.js';
import { syncSpaceForwardRecords } from './forwardRecords.js';
import { ownerScope, reverseZoneOf } from './reverseZones.js';
import { ownerOfAddress } from '../../domain/ip/defaultPtr.js';

export const ASSIGNMENT_SORT = [
  { column: 'a.cidr', direction: 'asc' as const, field: 'cidr' },
  { column: 'a.id', direction: 'asc' as const, field: 'id' },
];

export interface AssignmentFilter {
  family?: 4 | 6;
  q?: string;
  within?: Block;
}

/** Addresses whose PTR target (set, not default) matches the ILIKE pattern `like`, from the reverse zones; at most 1000 looked at. */
async function addressesWithTarget(db: Knex | Knex.Transaction, like: string): Promise<string[]> {
  const rows = (await db('records as r')
    .join('zones as z', 'z.id', 'r.zone_id')
    .whereIn('z.kind', ['provider_reverse', 'reverse'])
    .andWhere('r.type', 'PTR')
    .andWhereRaw("r.data->>'target' ilike ?", [like])
    .limit(1000)
    .select('r.name', 'z.name as zone')) as { name: string; zone: string }[];
  return rows.flatMap((r) => {
    const a = addressOfReverseName(reverseNameOfOwner(r.name, r.zone));
    return a ? [formatAddress(a)] : [];
  });
}

export async function listAssignments(scoped: ScopedDb, db: Knex | Knex.Transaction, filter: AssignmentFilter, after: unknown[] | null, limit: number) {
  const qb = scoped.from('ip_assignments', 'a').select('a.*', db.raw('a.cidr::text as cidr'));
  if (filter.family) qb.whereRaw('family(a.cidr) = ?', [filter.family]);
  if (filter.within) qb.whereRaw('a.cidr <<= ?::cidr', [formatBlock(filter.within)]);
  if (filter.q) {
    const like = `%${likeEscape(filter.q)}%`;
    const targets = await addressesWithTarget(db, like);
    qb.where((w) => {
      w.whereRaw('host(a.cidr) ilike ?', [like]).orWhereRaw('a.cidr::text ilike ?', [like]).orWhereRaw('a.server_name ilike ?', [like]);
      if (targets.length) w.orWhereRaw('a.cidr >>= any(?::inet[])', [targets]);
    });
  }
  const page = await paginate<IpAssignmentRow & Record<string, unknown>>(qb, ASSIGNMENT_SORT, after, limit);
  return { items: page.rows.map(ipAssignmentToDomain), next: page.next };
}

export async function getAssignment(scoped: ScopedDb, id: string): Promise<IpAssignment> {
  const row = (await scoped.from('ip_assignments', 'a').where('a.id', id).first('a.*')) as IpAssignmentRow | undefined;
  if (!row) throw new DomainError('not_found', { resource: 'IP assignment' });
  return ipAssignmentToDomain(row);
}

export interface AssignRequest {
  cidr: string;
  tenant_id: string;
  server_name?: string | null;
}

/**
 * Platform: a block of one address space, to any tenant. Reseller: a block of one of its own
 * assignments, to one of its customers. Blocks of different tenants never overlap; a handed-on
 * block lies inside its parent.
 */
export async function createAssignment(ctx: WriteContext, config: Config, request: AssignRequest): Promise<IpAssignment> {
  const { acting } = ctx.actor;
  // A tenant outside the subtree is as absent as a missing one, whoever asks (tenant isolation).
  await ctx.scoped.assertInSubtree([request.tenant_id]);
  if (acting.type !== 'platform' && acting.type !== 'reseller') throw new DomainError('forbidden', { reason: 'assignments_by_platform_or_reseller' });
  const block = blockInput(request.cidr, '/cidr');
  const cidr = formatBlock(block);
  let serverName: string | null = null;
  if (request.server_name) {
    try {
      serverName = normalizeHostname(request.server_name);
    } catch (e) {
      if (e instanceof NameError) throw validationFailed([{ pointer: '/server_name', code: e.code, detail: e.message }]);
      throw e;
    }
  }
  const target = (await ctx.trx('tenants').where('id', request.tenant_id).first('id', 'type', 'parent_id')) as { id: string; type: string; parent_id: string | null };
  if (target.type === 'platform') throw validationFailed([{ pointer: '/tenant_id', code: 'not_assignable', detail: 'The platform tenant holds the address spaces themselves.' }]);

  let spaceId: string;
  let parentId: string | null = null;
  if (acting.type === 'platform') {
    const space = (await ctx.trx('ip_spaces').whereRaw('cidr >>= ?::cidr', [cidr]).first('id')) as Pick<IpSpaceRow, 'id'> | undefined;
    if (!space) throw validationFailed([{ pointer: '/cidr', code: 'outside_ip_space', detail: `${cidr} lies in none of the provider's address spaces.` }]);
    spaceId = space.id;
  } else {
    if (target.parent_id !== acting.id || target.type !== 'customer') throw new DomainError('forbidden', { reason: 'assignment_target_customer' });
    const parent = (await ctx.trx('ip_assignments').where('tenant_id', acting.id).whereRaw('cidr >>= ?::cidr', [cidr]).orderByRaw('masklen(cidr) desc').first('id', 'space_id')) as
      | { id: string; space_id: string }
      | undefined;
    if (!parent) throw validationFailed([{ pointer: '/cidr', code: 'outside_assignment', detail: `${cidr} lies in none of your own IP assignments.` }]);
    spaceId = parent.space_id;
    parentId = parent.id;
  }
  // Serialises every creation of a block (spaces, assignments, prefixes): the overlap check and the insert see the same rows.
  await lockBlocks(ctx);
  const overlap = (await ctx.trx('ip_assignments')
    .whereRaw('cidr && ?::cidr', [cidr])
    .modify((q) => {
      if (parentId) q.whereNot('id', parentId);
    })
    .first(ctx.trx.raw('cidr::text as cidr'))) as { cidr: string } | undefined;
  if (overlap) throw new DomainError('conflict', { reason: 'ip_block_overlap', cidr, other: overlap.cidr });

  const now = ctx.clock.now();
  const id = newId('ipa');
  await ctx.scoped.insert('ip_assignments', { id, space_id: spaceId, tenant_id: target.id, cidr, server_name: serverName, parent_id: parentId, assigned_by: acting.id, created_at: now });
  // The space's row before any zone's (as PATCH /ip-spaces takes them): no lock-order deadlock.
  if (block.family === 6 && block.prefixLength === 128) await syncSpaceForwardRecords(ctx, config, spaceId, `${cidr} assigned: forward record of its default PTR`);
  await republishSingleAddress(ctx, config, block, 'assigned');
  await recordAudit(ctx.trx, ctx.actor, now, { action: 'ip_assignment.created', targetType: 'ip_assignment', targetId: id, details: { cidr, tenant_id: target.id, server_name: serverName } });
  return getAssignment(ctx.scoped, id);
}

/** Only the tenant that made an assignment (or the platform) takes it back; its PTRs stay, defaults return. */
export async function deleteAssignment(ctx: WriteContext, config: Config, id: string): Promise<void> {
  const a = await getAssignment(ctx.scoped, id);
  if (ctx.actor.acting.type !== 'platform' && a.assignedBy !== ctx.actor.acting.id) throw new DomainError('forbidden', { reason: 'assignments_by_platform_or_reseller' });
  const children = await ctx.trx('ip_assignments').where('parent_id', id).first(ctx.trx.raw('cidr::text as cidr'));
  if (children) throw new DomainError('conflict', { reason: 'assignment_has_children', cidr: formatBlock(a.block) });
  await ctx.trx('ip_assignments').where('id', id).delete();
  if (a.block.family === 6 && a.block.prefixLength === 128) await syncSpaceForwardRecords(ctx, config, a.spaceId, `${formatBlock(a.block)} unassigned: forward record of its default PTR`);
  await republishSingleAddress(ctx, config, a.block, 'unassigned');
  await recordAudit(ctx.trx, ctx.actor, ctx.clock.now(), { action: 'ip_assignment.deleted', targetType: 'ip_assignment', targetId: id, details: { cidr: formatBlock(a.block), tenant_id: a.tenantId } });
}

/**
 * An IPv6 address assigned alone has a default PTR (docs/rdns.md "Default PTRs"), so its
 * assignment changes what the reverse zone serves: a change set touching that one name, which
 * the next build renders (no record of its own changes).
 */
async function republishSingleAddress(ctx: WriteContext, config: Config, block: Block, what: string): Promise<void> {
  if (block.family !== 6 || block.prefixLength !== 128) return;
  const address = { family: 6 as const, value: block.network };
  const zoneRow = await reverseZoneOf(ctx.trx, address, ['provider_reverse']);
  if (!zoneRow) return;
  const owned = ownerScope(ctx, zoneRow.tenant_id);
  await writeZone(owned, config, zoneRow.name, { reach: 'provider_reverse' }, (zone) =>
    requestRebuild(owned, zone, { kind: 'records', comment: `${formatBlock(block)} ${what}: default PTR` }, [ownerOfAddress(address, zoneRow.name)]),
  );
}
