// The statements of customer-owned prefixes (docs/rdns.md "Prefixes") and of their reverse zones'
// prefix columns.
import type { Delegation } from '../../domain/ip/delegation.js';
import type { Runner, Transaction } from '../context.js';
import { paginate, type SortKey } from '../paginate.js';
import type { ScopedDb } from '../tenantScope.js';

export interface PrefixRow {
  id: string;
  tenant_id: string;
  cidr: string;
  created_at: Date;
}

/** The reverse zones of the prefixes (each prefix's by block), as the scope sees them. */
export const prefixZoneRows = async (scoped: ScopedDb, prefixIds: string[]) =>
  (await scoped.from('zones').whereIn('prefix_id', prefixIds).orderBy('reverse_block').select('name', 'prefix_id', 'reverse_block', 'delegation')) as {
    name: string;
    prefix_id: string;
    reverse_block: string;
    delegation: Delegation | null;
  }[];

/** The prefix of exactly that cidr, as the scope sees it; undefined when none. */
export const prefixByCidr = async (scoped: ScopedDb, cidr: string) =>
  (await scoped.from('prefixes').whereRaw('cidr = ?::cidr', [cidr]).first()) as PrefixRow | undefined;

const SORT: SortKey[] = [{ column: 'p.cidr', direction: 'asc', field: 'cidr' }];

/** A page of the scope's prefixes, IPv4 before IPv6, by address. */
export function pagePrefixRows(scoped: ScopedDb, filter: { family?: 4 | 6; tenantId?: string }, after: unknown[] | null, limit: number) {
  const q = scoped.from('prefixes', 'p').select('p.*');
  if (filter.family) q.whereRaw('family(p.cidr) = ?', [filter.family]);
  if (filter.tenantId) q.where('p.tenant_id', filter.tenantId);
  return paginate<PrefixRow & Record<string, unknown>>(q, SORT, after, limit);
}

/** Whether a zone of that name is still being deleted (its name not free again yet). */
export const zoneNameStillDeleting = async (trx: Transaction, name: string): Promise<boolean> =>
  (await trx('zones').where({ name, status: 'deleting' }).first('id')) !== undefined;

/** A tenant of the scope, by id, with its type; undefined when the scope does not see it. */
export const scopedTenantType = async (scoped: ScopedDb, id: string) =>
  (await scoped.from('tenants').where('id', id).first('id', 'type')) as { id: string; type: string } | undefined;

/** The names of the prefix's reverse zones not being deleted. */
export const reverseZonesOfPrefix = async (db: Runner, prefixId: string) =>
  (await db('zones').where('prefix_id', prefixId).whereNot('status', 'deleting').pluck('name')) as string[];

/** The prefix's row goes; its zones (deleted already, or going) forget it. */
export async function deletePrefixRow(trx: Transaction, prefixId: string): Promise<void> {
  await trx('zones').where('prefix_id', prefixId).update({ prefix_id: null });
  await trx('prefixes').where('id', prefixId).delete();
}

export async function storeZoneDelegation(trx: Transaction, prefixId: string, name: string, delegation: Delegation): Promise<void> {
  await trx('zones')
    .where({ prefix_id: prefixId, name })
    .update({ delegation: JSON.stringify(delegation) });
}

/** Inserts a prefix after checking that its tenant lies in the subtree. */
export async function insertPrefix(
  scoped: ScopedDb,
  row: { id: string; tenant_id: string; cidr: string; attached_by: string; created_at: Date },
): Promise<void> {
  await scoped.insert('prefixes', row);
}

/**
 * Up to `limit` active reverse zones of customer prefixes whose delegation was last checked before
 * `checkedBefore` (an ISO instant) or never, never-checked first.
 */
export async function zonesDueForDelegationCheck(db: Runner, checkedBefore: string, limit: number): Promise<{ id: string; name: string }[]> {
  return (await db('zones')
    .whereNotNull('prefix_id')
    .where('status', 'active')
    .where((q) =>
      q
        .whereNull('delegation')
        .orWhereRaw("delegation->>'checked_at' IS NULL")
        .orWhereRaw("(delegation->>'checked_at')::timestamptz < ?::timestamptz", [checkedBefore]),
    )
    .orderByRaw("delegation->>'checked_at' NULLS FIRST")
    .limit(limit)
    .select('id')
    .select('name')) as { id: string; name: string }[];
}

/** What the delegation check saw of the zone. */
export async function storeDelegationCheck(db: Runner, zoneId: string, delegation: Delegation): Promise<void> {
  await db('zones')
    .where('id', zoneId)
    .update({ delegation: JSON.stringify(delegation) });
}
