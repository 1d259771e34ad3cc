// The IP space of /stats (spec "Stats object": "IP space with PTR counts"; for the platform
// `ip.ipv6`: "IPv6 networks, prefixes and addresses handed out per source, IPv6 PTRs; no address
// percentages"). Per family: the assignments and prefixes of the acting subtree, the IPv4
// addresses they hold, and the PTRs set in them (defaults are not counted: they are rendered).
import type { Pool } from '../db/context.js';
import { type Block, blockSize, blockWithin, formatBlock, parseBlock } from '../domain/ip/address.js';
import type { StatsContributor } from './stats.js';

interface BlockRow {
  cidr: string;
  parent_id?: string | null;
}

export const ipStats = (db: Pool): StatsContributor => ({
  name: 'ip',
  async collect(scoped, acting) {
    const parsed = (rows: BlockRow[]) => rows.map((r) => ({ ...r, block: parseBlock(r.cidr) }));
    const assignments = parsed((await db('ip_assignments').whereIn('tenant_id', scoped.subtreeIds()).select('cidr', 'parent_id')) as BlockRow[]);
    const prefixes = parsed((await db('prefixes').whereIn('tenant_id', scoped.subtreeIds()).select('cidr')) as BlockRow[]);
    const ptrs = await setPtrsIn(db, [...assignments, ...prefixes].map((r) => r.block));
    const family = (f: 4 | 6) => {
      const own = assignments.filter((a) => a.block.family === f);
      return {
        assignments: own.length,
        prefixes: prefixes.filter((p) => p.block.family === f).length,
        ...(f === 4 ? { addresses: Number(own.reduce((n, a) => n + blockSize(a.block), 0n)) } : {}),
        ptrs: ptrs[f],
      };
    };
    const section: Record<string, unknown> = { ipv4: family(4), ipv6: family(6) };
    if (acting.type === 'platform') {
      const v6 = assignments.filter((a) => a.block.family === 6);
      const spaces = parsed((await db('ip_spaces').select('cidr')) as BlockRow[]);
      section.ipv6 = {
        ...(section.ipv6 as object),
        networks: spaces.filter((s) => s.block.family === 6).length,
        handed_out: { provider: v6.filter((a) => !a.parent_id).length, reseller: v6.filter((a) => a.parent_id).length },
      };
    }
    return section;
  },
});

/**
 * PTR records set in `blocks`, counted by the database: every PTR of a reverse zone inside a
 * block, and in a zone holding a block (a provider /24 and an assigned /29, a provider /48 and a
 * /64) those whose owner lies inside the block (ownersWithin). Only owners that are one whole
 * address's (the zone's depth of numeric or nibble labels) count, each record once however many
 * blocks hold it; zones being deleted are no longer served and do not count.
 */
async function setPtrsIn(db: Pool, blocks: Block[]): Promise<Record<4 | 6, number>> {
  const counts = { 4: 0, 6: 0 } as Record<4 | 6, number>;
  if (blocks.length === 0) return counts;
  const cidrs = blocks.map(formatBlock);
  const holding = (await db('zones')
    .whereIn('kind', ['reverse', 'provider_reverse'])
    .whereNot('status', 'deleting')
    .whereRaw('reverse_block >> any(?::cidr[])', [cidrs])
    .select('id', db.raw('reverse_block::text AS block'))) as { id: string; block: string }[];
  const partial = holding.flatMap((z) => {
    const zone = parseBlock(z.block);
    return blocks.filter((b) => blockWithin(b, zone) && b.prefixLength > zone.prefixLength).map((b) => ({ zoneId: z.id, ...ownersWithin(zone, b) }));
  });
  const rows = (await db('records as r')
    .join('zones as z', 'z.id', 'r.zone_id')
    .whereIn('z.kind', ['reverse', 'provider_reverse'])
    .whereNot('z.status', 'deleting')
    .where('r.type', 'PTR')
    .whereRaw(WHOLE_ADDRESS_OWNER)
    .where((q) => {
      q.whereRaw('z.reverse_block <<= any(?::cidr[])', [cidrs]);
      for (const p of partial) q.orWhere((w) => w.where('z.id', p.zoneId).where((n) => n.whereIn('r.name', p.names).orWhereRaw('r.name like any(?::text[])', [p.suffixes])));
    })
    .groupByRaw('family(z.reverse_block)')
    .select(db.raw('family(z.reverse_block) AS family'), db.raw('count(DISTINCT r.id)::int AS n'))) as { family: 4 | 6; n: number }[];
  for (const row of rows) counts[row.family] = row.n;
  return counts;
}

/**
 * The owner of a whole address in its reverse zone: as many labels as the zone leaves of the
 * address (IPv4 octets below the zone's, one below an RFC 2317 zone's /24; IPv6 nibbles).
 */
const WHOLE_ADDRESS_OWNER = `r.name ~ CASE WHEN family(z.reverse_block) = 4
  THEN '^[0-9]{1,3}(\\.[0-9]{1,3}){' || ((24 - least(masklen(z.reverse_block), 24)) / 8) || '}$'
  ELSE '^[0-9a-f](\\.[0-9a-f]){' || ((124 - masklen(z.reverse_block)) / 4) || '}$' END`;

/**
 * The owners (relative to the zone) of the addresses of `block`, inside `zone`: the block cut on
 * label boundaries (octets, nibbles; at most 128 or 8 parts), each part's labels below the zone's
 * as an exact owner (a whole address) or a suffix every owner of the part ends with.
 */
function ownersWithin(zone: Block, block: Block): { names: string[]; suffixes: string[] } {
  const step = block.family === 4 ? 8 : 4;
  const width = block.family === 4 ? 32 : 128;
  // An RFC 2317 zone's owners are labels below its /24.
  const zoneLabels = block.family === 4 ? Math.min(zone.prefixLength, 24) : zone.prefixLength;
  const aligned = Math.ceil(block.prefixLength / step) * step;
  const names: string[] = [];
  const suffixes: string[] = [];
  for (let i = 0n; i < 1n << BigInt(aligned - block.prefixLength); i++) {
    const network = block.network + (i << BigInt(width - aligned));
    const labels: string[] = [];
    for (let at = zoneLabels; at < aligned; at += step) labels.unshift(String(Number((network >> BigInt(width - at - step)) & ((1n << BigInt(step)) - 1n)).toString(block.family === 4 ? 10 : 16)));
    const owner = labels.join('.');
    if (aligned === width) names.push(owner);
    else suffixes.push(`%.${owner}`);
  }
  return { names, suffixes };
}
