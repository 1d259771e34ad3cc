// The IP space of /stats (spec "Stats object": "IP space with PTR counts"; for the platform
// `ip.ipv6`: "IPv6 networks, prefixes and addresses handed out per source, IPv6 PTRs; no address
// percentages"). Per family: the assignments and prefixes of the acting subtree, the IPv4
// addresses they hold, and the PTRs set in them (defaults are not counted: they are rendered).
import type { Pool } from '../db/context.js';
import {
  type IpBlockRow,
  ipSpaceBlocks,
  ptrCountsByFamily,
  reverseZonesHolding,
  subtreeAssignmentBlocks,
  subtreePrefixBlocks,
} from '../db/repositories/ipStatsCounts.js';
import { type Block, blockSize, blockWithin, formatBlock, parseBlock } from '../domain/ip/address.js';
import type { StatsContributor } from './stats.js';

export const ipStats = (db: Pool): StatsContributor => ({
  name: 'ip',
  async collect(ctx, acting) {
    const parsed = (rows: IpBlockRow[]) => rows.map((r) => ({ ...r, block: parseBlock(r.cidr) }));
    const assignments = parsed(await subtreeAssignmentBlocks(db, ctx.scoped));
    const prefixes = parsed(await subtreePrefixBlocks(db, ctx.scoped));
    const ptrs = await setPtrsIn(
      db,
      [...assignments, ...prefixes].map((r) => r.block),
    );
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
      const spaces = parsed(await ipSpaceBlocks(db));
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
 * /64) those whose owner lies inside the block (ownersWithin).
 */
async function setPtrsIn(db: Pool, blocks: Block[]): Promise<Record<4 | 6, number>> {
  const counts = { 4: 0, 6: 0 } as Record<4 | 6, number>;
  if (blocks.length === 0) return counts;
  const cidrs = blocks.map(formatBlock);
  const holding = await reverseZonesHolding(db, cidrs);
  const partial = holding.flatMap((z) => {
    const zone = parseBlock(z.block);
    return blocks.filter((b) => blockWithin(b, zone) && b.prefixLength > zone.prefixLength).map((b) => ({ zoneId: z.id, ...ownersWithin(zone, b) }));
  });
  for (const row of await ptrCountsByFamily(db, cidrs, partial)) counts[row.family] = row.n;
  return counts;
}

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
    for (let at = zoneLabels; at < aligned; at += step)
      labels.unshift(String(Number((network >> BigInt(width - at - step)) & ((1n << BigInt(step)) - 1n)).toString(block.family === 4 ? 10 : 16)));
    const owner = labels.join('.');
    if (aligned === width) names.push(owner);
    else suffixes.push(`%.${owner}`);
  }
  return { names, suffixes };
}
