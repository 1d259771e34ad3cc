// Rows of the provider's address spaces and IP assignments (migration 20261125000400), mapped to
// the domain's blocks: PostgreSQL's cidr text is parsed once here.
import { type Block, parseBlock } from '../../domain/ip/address.js';

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
