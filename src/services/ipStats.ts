// The IP space of /stats (spec "Stats object": "IP space with PTR counts"; for the platform
// `ip.ipv6`: "IPv6 networks, prefixes and addresses handed out per source, IPv6 PTRs; no address
// percentages"). Per family: the assignments and prefixes of the acting subtree, the IPv4
// addresses they hold, and the PTRs set in them (defaults are not counted: they are rendered).
import type { Knex } from 'knex';
import { addressOfReverseName, type Block, blockContains, blockSize, formatBlock, parseBlock, reverseNameOfOwner } from '../domain/ip/address.js';
import type { StatsContributor } from './stats.js';

interface BlockRow {
  cidr: string;
  parent_id?: string | null;
}

export const ipStats = (db: Knex): StatsContributor => ({
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

/** PTR records set in `blocks`: in the reverse zones that overlap them, at addresses inside them. */
async function setPtrsIn(db: Knex, blocks: Block[]): Promise<Record<4 | 6, number>> {
  const counts = { 4: 0, 6: 0 } as Record<4 | 6, number>;
  if (blocks.length === 0) return counts;
  const rows = (await db('records as r')
    .join('zones as z', 'z.id', 'r.zone_id')
    .whereIn('z.kind', ['reverse', 'provider_reverse'])
    .where('r.type', 'PTR')
    .whereRaw('z.reverse_block && any(?::cidr[])', [blocks.map(formatBlock)])
    .select('r.name', 'z.name as zone')) as { name: string; zone: string }[];
  const seen = new Set<string>();
  for (const row of rows) {
    const address = addressOfReverseName(reverseNameOfOwner(row.name, row.zone));
    const key = `${row.zone} ${row.name}`;
    if (!address || seen.has(key) || !blocks.some((b) => blockContains(b, address))) continue;
    seen.add(key);
    counts[address.family]++;
  }
  return counts;
}
