// The statements of IP assignments (docs/rdns.md "The model"): their listing with its search, the
// blocks an assignment is made from, and its overlap and children checks.
import { addressOfReverseName, type Block, formatAddress, formatBlock, reverseNameOfOwner } from '../../domain/ip/address.js';
import type { DbContext, Runner, Transaction } from '../context.js';
import { likeEscape } from '../like.js';
import { paginate } from '../paginate.js';
import type { ScopedDb } from '../tenantScope.js';
import { type IpAssignment, type IpAssignmentRow, ipAssignmentToDomain } from './rdnsRows.js';

const ASSIGNMENT_SORT = [
  { column: 'a.cidr', direction: 'asc' as const, field: 'cidr' },
  { column: 'a.id', direction: 'asc' as const, field: 'id' },
];

export interface AssignmentFilter {
  family?: 4 | 6;
  q?: string;
  within?: Block;
}

/** Addresses whose PTR target (set, not default) matches the ILIKE pattern `like`, from the reverse zones; at most 1000 looked at. */
async function addressesWithTarget(db: Runner, like: string): Promise<string[]> {
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

/** A page of the subtree's assignments; `q` matches the address, the block, the server name or a PTR target set in it. */
export async function pageAssignments(ctx: DbContext, filter: AssignmentFilter, after: unknown[] | null, limit: number) {
  const qb = ctx.scoped.from('ip_assignments', 'a').select('a.*', ctx.db.raw('a.cidr::text as cidr'));
  if (filter.family) qb.whereRaw('family(a.cidr) = ?', [filter.family]);
  if (filter.within) qb.whereRaw('a.cidr <<= ?::cidr', [formatBlock(filter.within)]);
  if (filter.q) {
    const like = `%${likeEscape(filter.q)}%`;
    const targets = await addressesWithTarget(ctx.db, like);
    qb.where((w) => {
      w.whereRaw('host(a.cidr) ilike ?', [like]).orWhereRaw('a.cidr::text ilike ?', [like]).orWhereRaw('a.server_name ilike ?', [like]);
      if (targets.length) w.orWhereRaw('a.cidr >>= any(?::inet[])', [targets]);
    });
  }
  const page = await paginate<IpAssignmentRow & Record<string, unknown>>(qb, ASSIGNMENT_SORT, after, limit);
  return { items: page.rows.map(ipAssignmentToDomain), next: page.next };
}

export async function findAssignment(scoped: ScopedDb, id: string): Promise<IpAssignment | null> {
  const row = (await scoped.from('ip_assignments', 'a').where('a.id', id).first('a.*')) as IpAssignmentRow | undefined;
  return row ? ipAssignmentToDomain(row) : null;
}

/** What an assignment is made to: the tenant's type and parent (it is known to be in the subtree). */
export const assigneeTenant = async (trx: Transaction, id: string) =>
  (await trx('tenants').where('id', id).first('id', 'type', 'parent_id')) as { id: string; type: string; parent_id: string | null };

/** The provider's address space holding the block, or null. */
export const spaceHolding = async (trx: Transaction, cidr: string): Promise<string | null> =>
  ((await trx('ip_spaces').whereRaw('cidr >>= ?::cidr', [cidr]).first('id')) as { id: string } | undefined)?.id ?? null;

/** The tenant's own most specific assignment holding the block, or null. */
export const tenantAssignmentHolding = async (trx: Transaction, tenantId: string, cidr: string) =>
  ((await trx('ip_assignments').where('tenant_id', tenantId).whereRaw('cidr >>= ?::cidr', [cidr]).orderByRaw('masklen(cidr) desc').first('id', 'space_id')) as
    | { id: string; space_id: string }
    | undefined) ?? null;

/** An assignment overlapping the block other than `parentId` (the one it is handed on from), by its cidr; null when none. */
export const overlappingAssignment = async (trx: Transaction, cidr: string, parentId: string | null): Promise<string | null> =>
  (
    (await trx('ip_assignments')
      .whereRaw('cidr && ?::cidr', [cidr])
      .modify((q) => {
        if (parentId) q.whereNot('id', parentId);
      })
      .first(trx.raw('cidr::text as cidr'))) as { cidr: string } | undefined
  )?.cidr ?? null;

export const assignmentHasChildren = async (trx: Transaction, id: string): Promise<boolean> =>
  (await trx('ip_assignments').where('parent_id', id).first(trx.raw('cidr::text as cidr'))) !== undefined;

export const deleteAssignmentRow = async (trx: Transaction, id: string): Promise<void> => {
  await trx('ip_assignments').where('id', id).delete();
};

/** Inserts an assignment after checking that its tenant lies in the subtree. */
export async function insertIpAssignment(scoped: ScopedDb, row: Record<string, unknown>): Promise<void> {
  await scoped.insert('ip_assignments', row);
}
