// The reads of the PTR endpoints (docs/rdns.md "PTR endpoints"): the reverse zones, assignments
// and prefixes holding addresses, the PTRs stored for them, what their defaults are made of, and
// the forward records that confirm a PTR.
import type { DbContext, Runner } from '../context.js';
import type { ReverseZoneRow } from './rdnsRows.js';

/** The live reverse zones holding any of the addresses. */
export const reverseZonesHolding = async (db: Runner, addresses: string[]) =>
  (await db('zones')
    .whereIn('kind', ['provider_reverse', 'reverse'])
    .whereNot('status', 'deleting')
    .whereRaw('reverse_block >>= any(?::inet[])', [addresses])
    .select('id', 'name', 'kind', 'tenant_id', 'ip_space_id', 'prefix_id', db.raw('reverse_block::text as reverse_block'))) as ReverseZoneRow[];

/** The subtree's assignments holding any of the addresses. */
export const scopedAssignmentsHolding = async (ctx: DbContext, addresses: string[]) =>
  (await ctx.scoped.from('ip_assignments', 'a').whereRaw('a.cidr >>= any(?::inet[])', [addresses]).select('a.id', ctx.db.raw('a.cidr::text as cidr'))) as {
    id: string;
    cidr: string;
  }[];

/** Which of the prefixes are the subtree's. */
export const subtreePrefixIds = async (ctx: DbContext, prefixIds: string[]) =>
  (await ctx.db('prefixes').whereIn('id', prefixIds).whereIn('tenant_id', ctx.scoped.subtreeIds()).pluck('id')) as string[];

/** The PTRs stored at those owner names of those zones, oldest first. */
export const storedPtrs = async (db: Runner, zoneIds: string[], owners: string[]) =>
  (await db('records')
    .whereIn('zone_id', zoneIds)
    .andWhere('type', 'PTR')
    .whereRaw('name = any(?::text[])', [owners])
    .orderBy('id')
    .select('zone_id', 'name', 'data')) as { zone_id: string; name: string; data: { target: string } }[];

export const spacePtrPatterns = async (db: Runner, spaceIds: string[]) =>
  (await db('ip_spaces').whereIn('id', spaceIds).select('id', 'ptr_pattern')) as { id: string; ptr_pattern: string }[];

/** Which of the /128 blocks are assigned, as addresses. */
export const assignedSingles = async (db: Runner, cidrs: string[]) =>
  ((await db('ip_assignments').whereRaw('cidr = any(?::cidr[])', [cidrs]).select(db.raw('host(cidr) as ip'))) as { ip: string }[]).map((r) => r.ip);

/** The PTRs stored in live reverse zones overlapping the block, by owner and zone name. */
export const ptrOwnersWithin = async (db: Runner, cidr: string) =>
  (await db('records as r')
    .join('zones as z', 'z.id', 'r.zone_id')
    .whereIn('z.kind', ['provider_reverse', 'reverse'])
    .whereNot('z.status', 'deleting')
    .andWhere('r.type', 'PTR')
    .whereRaw('z.reverse_block && ?::cidr', [cidr])
    .select('r.name', 'z.name as zone')) as { name: string; zone: string }[];

/** The addresses assigned alone (/128) inside the block. */
export const singleAssignmentsWithin = async (db: Runner, cidr: string) =>
  ((await db('ip_assignments').whereRaw('masklen(cidr) = 128 and cidr <<= ?::cidr', [cidr]).select(db.raw('host(cidr) as ip'))) as { ip: string }[]).map(
    (r) => r.ip,
  );

/** Whether one block of the subtree's (an assignment, else a prefix) or, `anySpace`, an address space holds the block. */
export async function blockHeld(ctx: DbContext, cidr: string, anySpace: boolean): Promise<boolean> {
  if (await ctx.scoped.from('ip_assignments', 'a').whereRaw('a.cidr >>= ?::cidr', [cidr]).first('a.id')) return true;
  if (await ctx.db('prefixes').whereRaw('cidr >>= ?::cidr', [cidr]).whereIn('tenant_id', ctx.scoped.subtreeIds()).first('id')) return true;
  return anySpace && (await ctx.db('ip_spaces').whereRaw('cidr >>= ?::cidr', [cidr]).first('id')) !== undefined;
}

/** The A and AAAA records of the live forward zones of those names, by owner's full name. */
export const forwardAddressRecords = async (db: Runner, zoneNames: string[]) =>
  (await db('records as r')
    .join('zones as z', 'z.id', 'r.zone_id')
    .where('z.kind', 'forward')
    .whereNot('z.status', 'deleting')
    .whereRaw('z.name = any(?::text[])', [zoneNames])
    .whereIn('r.type', ['A', 'AAAA'])
    .select(db.raw(`CASE WHEN r.name = '@' THEN z.name ELSE r.name || '.' || z.name END AS fqdn`), db.raw(`r.data->>'address' AS address`))) as {
    fqdn: string;
    address: string;
  }[];
