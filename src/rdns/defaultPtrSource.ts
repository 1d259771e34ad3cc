// A provider reverse zone's default PTRs (docs/rdns.md "Default PTRs"): rendered from its address
// space's pattern for every address without a PTR of its own — each IPv4 address of the block,
// each IPv6 address assigned alone (/128) — never stored, so that the nameserver serves (and the
// signer signs) exactly what the build rendered. The pattern itself is src/domain/ip/defaultPtr.ts,
// shared with the PTR reads so the two cannot disagree.
import { readDefaultPtrInputs } from '../db/repositories/defaultPtrInputs.js';
import { type Address, blockSize, parseBlock } from '../domain/ip/address.js';
import { ownerOfAddress, renderDefaultPtr } from '../domain/ip/defaultPtr.js';
import type { RecordSource } from '../versionRecords/recordSource.js';
import { encodeRecord } from '../versionRecords/zoneRecords.js';

/** What a reverse zone's defaults are rendered from. */
export interface DefaultPtrInputs {
  /** The block the zone covers (cidr text). */
  block: string;
  pattern: string;
  /** Owners (relative) holding a PTR of the zone's own: no default there. */
  ownPtrOwners: Set<string>;
  /** IPv6 addresses assigned alone (/128), the only IPv6 addresses with a default. */
  singles: bigint[];
}

export const defaultPtrSource: RecordSource<DefaultPtrInputs> = {
  name: 'defaultPtr',
  appliesTo: (zone) => zone.kind === 'provider_reverse' && zone.ip_space_id !== null && zone.reverse_block !== null,
  read: (trx, zone) => readDefaultPtrInputs(trx, { id: zone.id, spaceId: zone.ip_space_id!, block: zone.reverse_block! }),
  render: ({ zone }, d) => {
    const block = parseBlock(d.block);
    const addresses: Address[] =
      block.family === 4
        ? Array.from({ length: Number(blockSize(block)) }, (_, i) => ({ family: 4 as const, value: block.network + BigInt(i) }))
        : d.singles.map((value) => ({ family: 6 as const, value }));
    return addresses.flatMap((a) => {
      const owner = ownerOfAddress(a, zone.name);
      if (d.ownPtrOwners.has(owner)) return [];
      return [encodeRecord({ name: owner, type: 'PTR', ttl: zone.defaultTtl, data: { target: renderDefaultPtr(d.pattern, a) } })];
    });
  },
};
