// A catalog zone's records (RFC 9432, version 2; docs/catalog-zones.md): the version property and
// one PTR per member zone under `zones`, with its `group` where the set groups its members, and a
// `coo` where a member moved to another catalog. Pure: the members come in, records go out (the
// SOA and NS are the apex source's, as in every zone).
import { createHash } from 'node:crypto';
import type { ZoneRecord } from '../../nameserver/types.js';
import { encodeBase32Hex } from '../../nameserver/wire/base32hex.js';
import { encodeRecord } from '../versionRecords/zoneRecords.js';

export interface CatalogMember {
  /** The zone's id: its label is made from it, so a zone created again gets a new one. */
  zoneId: string;
  /** Absolute, without the trailing dot. */
  name: string;
  /** The member's `group` property (RFC 9432 §4.4.2); null: none. */
  group: string | null;
  /** The catalog the member moved to (the change-of-ownership property, §4.4.1); null: it stays. */
  movedTo?: string | null;
}

/**
 * The member's unique label (RFC 9432 §4.1): stable for the zone's life, new for a zone created
 * again (a new id), the same on every producer. 10 octets of SHA-256 in lower-case base32hex.
 */
export const memberLabel = (zoneId: string): string => encodeBase32Hex(createHash('sha256').update(zoneId).digest().subarray(0, 10), true);

/** The owner (zone-relative) of a member's PTR. */
export const memberOwner = (zoneId: string): string => `${memberLabel(zoneId)}.zones`;

/** The owner names (zone-relative) a member's records use: what a build of the catalog touches for it. */
export const memberOwners = (zoneId: string): string[] => {
  const owner = memberOwner(zoneId);
  return [owner, `group.${owner}`, `coo.${owner}`];
};

/** The catalog's records other than SOA and NS, zone-relative owners, at `ttl`. */
export function catalogRecords(members: readonly CatalogMember[], ttl: number): ZoneRecord[] {
  const records = [encodeRecord({ name: 'version', type: 'TXT', ttl, data: { text: '2' } })];
  for (const m of members) {
    const owner = memberOwner(m.zoneId);
    records.push(encodeRecord({ name: owner, type: 'PTR', ttl, data: { target: m.name } }));
    if (m.group !== null) records.push(encodeRecord({ name: `group.${owner}`, type: 'TXT', ttl, data: { text: m.group } }));
    if (m.movedTo) records.push(encodeRecord({ name: `coo.${owner}`, type: 'PTR', ttl, data: { target: m.movedTo } }));
  }
  return records;
}
