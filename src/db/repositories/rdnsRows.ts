// Rows of the provider's address spaces and IP assignments (migration 20261125000400), mapped to
// the domain's blocks: PostgreSQL's cidr text is parsed once here.
import { type Address, type Block, formatAddress, formatBlock, parseBlock } from '../../domain/ip/address.js';
import type { ZoneKind } from '../../domain/model/zone.js';
import type { Runner } from '../context.js';

export interface IpSpaceRow {
  id: string;
  cidr: string;
  ptr_pattern: string;
  dnssec: boolean;
  forward_zone_id: string | null;
  /** Joined by the reads (ipSpaces.ts spacesQuery). */
  forward_zone_name?: string | null;
  created_at: Date;
}

export interface IpSpace {
  id: string;
  block: Block;
  ptrPattern: string;
  /** Its reverse zones are signed (docs/rdns.md "DNSSEC of the provider's reverse zones"). */
  dnssec: boolean;
  /** The zone keeping the forward records of its default names (docs/rdns.md "Forward records of default PTRs"). */
  forwardZone: { id: string; name: string } | null;
  createdAt: Date;
}

export const ipSpaceToDomain = (r: IpSpaceRow): IpSpace => ({
  id: r.id,
  block: parseBlock(r.cidr),
  ptrPattern: r.ptr_pattern,
  dnssec: r.dnssec,
  forwardZone: r.forward_zone_id && r.forward_zone_name ? { id: r.forward_zone_id, name: r.forward_zone_name } : null,
  createdAt: r.created_at,
});

export interface IpAssignmentRow {
  id: string;
  space_id: string;
  tenant_id: string;
  cidr: string;
  server_name: string | null;
  parent_id: string | null;
  assigned_by: string;
  created_at: Date;
}

export interface IpAssignment {
  id: string;
  spaceId: string;
  tenantId: string;
  block: Block;
  serverName: string | null;
  parentId: string | null;
  assignedBy: string;
  createdAt: Date;
}

export const ipAssignmentToDomain = (r: IpAssignmentRow): IpAssignment => ({
  id: r.id,
  spaceId: r.space_id,
  tenantId: r.tenant_id,
  block: parseBlock(r.cidr),
  serverName: r.server_name,
  parentId: r.parent_id,
  assignedBy: r.assigned_by,
  createdAt: r.created_at,
});

export interface ReverseZoneRow {
  id: string;
  name: string;
  kind: ZoneKind;
  tenant_id: string;
  ip_space_id: string | null;
  prefix_id: string | null;
  reverse_block: string;
}

/** The most specific reverse zone holding the address (an RFC 2317 zone before its /24's). */
export async function reverseZoneOf(db: Runner, a: Address, kinds: ZoneKind[] = ['provider_reverse', 'reverse']): Promise<ReverseZoneRow | undefined> {
  return (await db('zones')
    .whereIn('kind', kinds)
    .whereNot('status', 'deleting')
    .whereRaw('reverse_block >>= ?::inet', [formatAddress(a)])
    .orderByRaw('masklen(reverse_block) desc')
    .first('id', 'name', 'kind', 'tenant_id', 'ip_space_id', 'prefix_id', db.raw('reverse_block::text as reverse_block'))) as ReverseZoneRow | undefined;
}

export type BlockTable = 'ip_spaces' | 'ip_assignments' | 'prefixes';

/** The first block of `tables` (in that order) overlapping `block`, or null. */
export async function overlappingBlock(db: Runner, block: Block, tables: readonly BlockTable[]): Promise<{ table: BlockTable; cidr: string } | null> {
  for (const table of tables) {
    const other = (await db(table)
      .whereRaw('cidr && ?::cidr', [formatBlock(block)])
      .first('cidr')) as { cidr: string } | undefined;
    if (other) return { table, cidr: String(other.cidr) };
  }
  return null;
}
