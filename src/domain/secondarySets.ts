// Secondary sets (docs/catalog-zones.md): a fleet of standard secondaries as a tenant's resource.
// The rules of its fields, pure: the name, the catalog zone's default name, the addresses.
import { canonicalIpv4, canonicalIpv6 } from '../../nameserver/wire/address.js';

export const GROUP_BY = ['none', 'dnssec'] as const;
export type GroupBy = (typeof GROUP_BY)[number];

/** The DNSSEC groups a set may select its zones by (and a catalog lists them in, group_by dnssec). */
export const ZONE_GROUPS = ['signed', 'unsigned'] as const;
export type ZoneGroup = (typeof ZONE_GROUPS)[number];

/**
 * Which zones of its owner's subtree a set carries: all (both null), those of one tenant's
 * subtree within it, those of one DNSSEC group, or both.
 */
export interface SetSelection {
  tenantId: string | null;
  group: ZoneGroup | null;
}

export const ALL_ZONES: SetSelection = { tenantId: null, group: null };

export const MAX_SECONDARIES = 64;
export const DEFAULT_SECONDARY_PORT = 53;

/** A set's name: one DNS label (it names the default catalog zone), lower case. */
export const SET_NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** `.invalid` is reserved (RFC 6761 §6.4): a catalog's default name never collides with a customer's zone, and is never delegated. */
export const defaultCatalogZone = (setName: string): string => `${setName}.catalog.invalid`;

export interface Secondary {
  address: string;
  port: number;
}

/** How a secondary is named in lag readings and publication objects: host:port, [host]:port for IPv6. */
export const secondaryAddress = (s: Secondary): string => (s.address.includes(':') ? `[${s.address}]:${s.port}` : `${s.address}:${s.port}`);

/** The address in its canonical spelling (IPv6 compressed, lower case); null: not a literal IPv4 or IPv6 address. */
export function canonicalAddress(input: string): string | null {
  if (input.includes(':')) return canonicalIpv6(input);
  return canonicalIpv4(input);
}

/** A zone's DNSSEC group. */
const zoneGroup = (signed: boolean): ZoneGroup => (signed ? 'signed' : 'unsigned');

/** The group a member is listed in (RFC 9432 §4.4.2) under `groupBy`. */
export const memberGroup = (groupBy: GroupBy, signed: boolean): string | null => (groupBy === 'dnssec' ? zoneGroup(signed) : null);

/**
 * A zone moving between catalogs (docs/catalog-zones.md "Moving between catalogs"): the new
 * catalog lists it once the old catalog's `coo` has been out this long, time for consumers to
 * have read it (BIND applies a catalog's changes at most every 5 s by default, then transfers).
 */
export const COO_HOLD_S = 15;
/** The old catalog keeps a departed member, with its `coo`, this long: consumers down for less still move the zone rather than drop it. */
export const COO_GRACE_S = 3600;
