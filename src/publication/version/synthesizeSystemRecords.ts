// Build step 2: the records the service manages, rendered for this version: the SOA with the
// version's serial (RFC 1035 §3.3.13; MNAME the first configured nameserver) and the apex NS set
// from the NAMESERVERS configuration. They are not stored anywhere else: a change of NAMESERVERS
// reaches every zone with its next build. A provider reverse zone also gets its default PTRs
// here (docs/rdns.md "Default PTRs"): rendered from its address space's pattern, never stored,
// so that the nameserver serves (and the signer signs) exactly what the build stored.
import { type Address, blockSize, parseBlock } from '../../domain/ip/address.js';
import { ownerOfAddress, renderDefaultPtr } from '../../domain/ip/defaultPtr.js';
import { systemRecords } from '../../domain/soa.js';
import { encodeRecord, type WireRecord } from '../zoneRecords.js';
import type { VersionDraft } from './versionDraft.js';


/** What a provider reverse zone's defaults are rendered from (publishZone reads it with the zone). */
export interface DefaultPtrInputs {
  /** The block the zone covers (cidr text). */
  block: string;
  pattern: string;
  /** Owners (relative) holding a PTR of the zone's own: no default there. */
  ownPtrOwners: Set<string>;
  /** IPv6 addresses assigned alone (/128), the only IPv6 addresses with a default. */
  singles: bigint[];
}

export function synthesizeSystemRecords(
  zone: VersionDraft['zone'],
  serial: number,
  nameservers: readonly string[],
  before: WireRecord[],
  defaults: DefaultPtrInputs | null = null,
): VersionDraft['system'] {
  // The apex RRsets take the zone's default TTL, as a record without a TTL of its own does.
  const after = systemRecords(nameservers, zone.soaEmail, serial).map((r) => encodeRecord({ ...r, ttl: zone.defaultTtl }));
  if (defaults) after.push(...defaultPtrs(zone, defaults));
  return { before, after, nameservers: [...nameservers] };
}

function defaultPtrs(zone: VersionDraft['zone'], d: DefaultPtrInputs): WireRecord[] {
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
}
