// The IP space figures of /stats (src/services/ipStats.ts): the blocks of the acting subtree and
// the PTRs set in them, counted by the database.
import type { Pool } from '../context.js';
import type { ScopedDb } from '../tenantScope.js';

export interface IpBlockRow {
  cidr: string;
  parent_id?: string | null;
}

/** The subtree's IP assignments (with the assignment they were cut from, if any). */
export const subtreeAssignmentBlocks = async (db: Pool, scoped: ScopedDb): Promise<IpBlockRow[]> =>
  (await db('ip_assignments').whereIn('tenant_id', scoped.subtreeIds()).select('cidr', 'parent_id')) as IpBlockRow[];

/** The subtree's customer prefixes. */
export const subtreePrefixBlocks = async (db: Pool, scoped: ScopedDb): Promise<IpBlockRow[]> =>
  (await db('prefixes').whereIn('tenant_id', scoped.subtreeIds()).select('cidr')) as IpBlockRow[];

/** The provider's IP spaces. */
export const ipSpaceBlocks = async (db: Pool): Promise<IpBlockRow[]> => (await db('ip_spaces').select('cidr')) as IpBlockRow[];

/** Reverse zones (not being deleted) whose block holds one of `cidrs`, with their block. */
export const reverseZonesHolding = async (db: Pool, cidrs: string[]): Promise<{ id: string; block: string }[]> =>
  (await db('zones')
    .whereIn('kind', ['reverse', 'provider_reverse'])
    .whereNot('status', 'deleting')
    .whereRaw('reverse_block >> any(?::cidr[])', [cidrs])
    .select('id', db.raw('reverse_block::text AS block'))) as { id: string; block: string }[];

/**
 * The owner of a whole address in its reverse zone: as many labels as the zone leaves of the
 * address (IPv4 octets below the zone's, one below an RFC 2317 zone's /24; IPv6 nibbles).
 */
const WHOLE_ADDRESS_OWNER = `r.name ~ CASE WHEN family(z.reverse_block) = 4
  THEN '^[0-9]{1,3}(\\.[0-9]{1,3}){' || ((24 - least(masklen(z.reverse_block), 24)) / 8) || '}$'
  ELSE '^[0-9a-f](\\.[0-9a-f]){' || ((124 - masklen(z.reverse_block)) / 4) || '}$' END`;

/**
 * PTRs by address family: every PTR of a reverse zone inside one of `cidrs`, and in the zones of
 * `partial` those at its exact owners or below its suffixes. Only owners that are one whole
 * address's (the zone's depth of numeric or nibble labels) count, each record once however many
 * blocks hold it; zones being deleted are no longer served and do not count.
 */
export const ptrCountsByFamily = async (
  db: Pool,
  cidrs: string[],
  partial: { zoneId: string; names: string[]; suffixes: string[] }[],
): Promise<{ family: 4 | 6; n: number }[]> =>
  (await db('records as r')
    .join('zones as z', 'z.id', 'r.zone_id')
    .whereIn('z.kind', ['reverse', 'provider_reverse'])
    .whereNot('z.status', 'deleting')
    .where('r.type', 'PTR')
    .whereRaw(WHOLE_ADDRESS_OWNER)
    .where((q) => {
      q.whereRaw('z.reverse_block <<= any(?::cidr[])', [cidrs]);
      for (const p of partial)
        q.orWhere((w) => w.where('z.id', p.zoneId).where((n) => n.whereIn('r.name', p.names).orWhereRaw('r.name like any(?::text[])', [p.suffixes])));
    })
    .groupByRaw('family(z.reverse_block)')
    .select(db.raw('family(z.reverse_block) AS family'), db.raw('count(DISTINCT r.id)::int AS n'))) as { family: 4 | 6; n: number }[];
