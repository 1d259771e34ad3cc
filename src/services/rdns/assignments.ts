// IP assignments (docs/rdns.md "The model"): blocks of the provider's address spaces assigned to
// tenants with the server they belong to. Provider staff assign from a space to any tenant; a
// reseller hands part of its own assignment on to one of its customers. An assignment is seen by
// its tenant and the tenants above it (the tenant scope), and read-only below the one that made it.
import { lockBlocks } from './blocks.js';
import type { Config } from '../../config/index.js';
import type { DbContext } from '../../db/context.js';
import { recordAudit } from '../../db/repositories/auditLog.js';
import {
  insertIpAssignment,
  type AssignmentFilter,
  assigneeTenant,
  assignmentHasChildren,
  deleteAssignmentRow,
  findAssignment,
  overlappingAssignment,
  pageAssignments,
  spaceHolding,
  tenantAssignmentHolding,
} from '../../db/repositories/ipAssignmentRows.js';
import type { IpAssignment } from '../../db/repositories/rdnsRows.js';
import { DomainError, validationFailed } from '../../domain/errors.js';
import { type Block, formatBlock } from '../../domain/ip/address.js';
import { newId } from '../../domain/ids.js';
import { NameError, normalizeHostname } from '../../domain/names.js';
import { requestRebuild } from '../requestRebuild.js';
import { writeZone } from '../zoneWrite.js';
import type { WriteContext } from '../writeContext.js';
import { blockInput } from './addressInput.js';
import { syncSpaceForwardRecords } from './forwardRecords.js';
import { ownerScope, reverseZoneOf } from './reverseZones.js';
import { ownerOfAddress } from '../../domain/ip/defaultPtr.js';

export type { AssignmentFilter };

export const listAssignments = (ctx: DbContext, filter: AssignmentFilter, after: unknown[] | null, limit: number) => pageAssignments(ctx, filter, after, limit);

async function getAssignment(ctx: DbContext, id: string): Promise<IpAssignment> {
  const found = await findAssignment(ctx.scoped, id);
  if (!found) throw new DomainError('not_found', { resource: 'IP assignment' });
  return found;
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
  const target = await assigneeTenant(ctx.db, request.tenant_id);
  if (target.type === 'platform')
    throw validationFailed([{ pointer: '/tenant_id', code: 'not_assignable', detail: 'The platform tenant holds the address spaces themselves.' }]);

  let spaceId: string;
  let parentId: string | null = null;
  if (acting.type === 'platform') {
    const space = await spaceHolding(ctx.db, cidr);
    if (!space) throw validationFailed([{ pointer: '/cidr', code: 'outside_ip_space', detail: `${cidr} lies in none of the provider's address spaces.` }]);
    spaceId = space;
  } else {
    if (target.parent_id !== acting.id || target.type !== 'customer') throw new DomainError('forbidden', { reason: 'assignment_target_customer' });
    const parent = await tenantAssignmentHolding(ctx.db, acting.id, cidr);
    if (!parent) throw validationFailed([{ pointer: '/cidr', code: 'outside_assignment', detail: `${cidr} lies in none of your own IP assignments.` }]);
    spaceId = parent.space_id;
    parentId = parent.id;
  }
  // Serialises every creation of a block (spaces, assignments, prefixes): the overlap check and the insert see the same rows.
  await lockBlocks(ctx);
  const overlap = await overlappingAssignment(ctx.db, cidr, parentId);
  if (overlap) throw new DomainError('conflict', { reason: 'ip_block_overlap', cidr, other: overlap });

  const now = ctx.clock.now();
  const id = newId('ipa');
  await insertIpAssignment(ctx.scoped, {
    id,
    space_id: spaceId,
    tenant_id: target.id,
    cidr,
    server_name: serverName,
    parent_id: parentId,
    assigned_by: acting.id,
    created_at: now,
  });
  // The space's row before any zone's (as PATCH /ip-spaces takes them): no lock-order deadlock.
  if (block.family === 6 && block.prefixLength === 128)
    await syncSpaceForwardRecords(ctx, config, spaceId, `${cidr} assigned: forward record of its default PTR`);
  await republishSingleAddress(ctx, config, block, 'assigned');
  await recordAudit(ctx.db, ctx.actor, now, {
    action: 'ip_assignment.created',
    targetType: 'ip_assignment',
    targetId: id,
    details: { cidr, tenant_id: target.id, server_name: serverName },
  });
  return getAssignment(ctx, id);
}

/** Only the tenant that made an assignment (or the platform) takes it back; its PTRs stay, defaults return. */
export async function deleteAssignment(ctx: WriteContext, config: Config, id: string): Promise<void> {
  const a = await getAssignment(ctx, id);
  if (ctx.actor.acting.type !== 'platform' && a.assignedBy !== ctx.actor.acting.id)
    throw new DomainError('forbidden', { reason: 'assignments_by_platform_or_reseller' });
  if (await assignmentHasChildren(ctx.db, id)) throw new DomainError('conflict', { reason: 'assignment_has_children', cidr: formatBlock(a.block) });
  await deleteAssignmentRow(ctx.db, id);
  if (a.block.family === 6 && a.block.prefixLength === 128)
    await syncSpaceForwardRecords(ctx, config, a.spaceId, `${formatBlock(a.block)} unassigned: forward record of its default PTR`);
  await republishSingleAddress(ctx, config, a.block, 'unassigned');
  await recordAudit(ctx.db, ctx.actor, ctx.clock.now(), {
    action: 'ip_assignment.deleted',
    targetType: 'ip_assignment',
    targetId: id,
    details: { cidr: formatBlock(a.block), tenant_id: a.tenantId },
  });
}

/**
 * An IPv6 address assigned alone has a default PTR (docs/rdns.md "Default PTRs"), so its
 * assignment changes what the reverse zone serves: a change set touching that one name, which
 * the next build renders (no record of its own changes).
 */
async function republishSingleAddress(ctx: WriteContext, config: Config, block: Block, what: string): Promise<void> {
  if (block.family !== 6 || block.prefixLength !== 128) return;
  const address = { family: 6 as const, value: block.network };
  const zoneRow = await reverseZoneOf(ctx.db, address, ['provider_reverse']);
  if (!zoneRow) return;
  const owned = ownerScope(ctx, zoneRow.tenant_id);
  await writeZone(owned, config, zoneRow.name, { reach: 'provider_reverse' }, (zone) =>
    requestRebuild(owned, zone, { kind: 'records', comment: `${formatBlock(block)} ${what}: default PTR` }, [ownerOfAddress(address, zoneRow.name)]),
  );
}
