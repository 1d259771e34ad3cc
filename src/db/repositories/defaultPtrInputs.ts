// What a provider reverse zone's default PTRs are rendered from (src/rdns/defaultPtrSource.ts),
// read in the build's transaction.
import type { Transaction } from '../context.js';
import { parseAddress } from '../../domain/ip/address.js';

/**
 * The space's pattern, the owners with a PTR of their own (the whole zone's, whatever names the
 * build reads), the IPv6 addresses assigned alone; null when the space is gone.
 */
export async function readDefaultPtrInputs(
  trx: Transaction,
  zone: { id: string; spaceId: string; block: string },
): Promise<{ block: string; pattern: string; ownPtrOwners: Set<string>; singles: bigint[] } | null> {
  const space = (await trx('ip_spaces').where('id', zone.spaceId).first('ptr_pattern')) as { ptr_pattern: string } | undefined;
  if (!space) return null;
  const own = (await trx('records').where({ zone_id: zone.id, type: 'PTR' }).distinct('name')) as { name: string }[];
  const singles = zone.block.includes(':')
    ? (
        (await trx('ip_assignments').whereRaw('masklen(cidr) = 128 AND cidr <<= ?::cidr', [zone.block]).select(trx.raw('host(cidr) AS ip'))) as { ip: string }[]
      ).map((r) => parseAddress(r.ip).value)
    : [];
  return { block: zone.block, pattern: space.ptr_pattern, ownPtrOwners: new Set(own.map((r) => r.name)), singles };
}
