import type { ChangeSetState } from '../../domain/publication.js';
import { initialSerial } from '../../domain/soa.js';

export interface ZoneRow {
  id: string;
  tenant_id: string;
  name: string;
  kind: 'forward' | 'reverse';
  status: 'activating' | 'active' | 'deleting';
  default_ttl: number;
  soa_email: string;
  /** The serial's one home: the published version (zone_versions.serial); null before the first. */
  published_serial: number | string | null;
  dnssec_state: string;
  dnssec_mode: string | null;
  changeset_seq: number;
  record_count: number;
  last_changeset_id: string | null;
  created_at: Date;
  updated_at: Date;
  deletion_requested_at: Date | null;
  /** Joined: state of the newest change set. */
  publication_state: ChangeSetState | null;
  publication_updated_at: Date | null;
}

export interface Zone {
  id: string;
  tenantId: string;
  name: string;
  kind: 'forward' | 'reverse';
  status: ZoneRow['status'];
  defaultTtl: number;
  soaEmail: string;
  serial: number;
  dnssec: { state: string; mode: string | null };
  changesetSeq: number;
  recordCount: number;
  publication: { state: ChangeSetState | null; changesetId: string | null; updatedAt: Date | null };
  createdAt: Date;
  updatedAt: Date;
  deletionRequestedAt: Date | null;
}

export const zoneToDomain = (r: ZoneRow): Zone => ({
  id: r.id,
  tenantId: r.tenant_id,
  name: r.name,
  kind: r.kind,
  status: r.status,
  defaultTtl: r.default_ttl,
  soaEmail: r.soa_email,
  // Before its first version a zone shows the serial that version will take.
  serial: r.published_serial === null ? initialSerial(r.created_at) : Number(r.published_serial),
  dnssec: { state: r.dnssec_state, mode: r.dnssec_mode },
  changesetSeq: r.changeset_seq,
  recordCount: r.record_count,
  publication: { state: r.publication_state, changesetId: r.last_changeset_id, updatedAt: r.publication_updated_at },
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  deletionRequestedAt: r.deletion_requested_at,
});

export interface RecordRow {
  id: string;
  zone_id: string;
  tenant_id: string;
  name: string;
  name_sort: string;
  type: string;
  ttl: number | null;
  data: Record<string, unknown>;
  content: string;
  comment: string | null;
  system: boolean;
  last_changeset_id: string;
  created_at: Date;
  updated_at: Date;
  /** Joined: state of the record's last change set. */
  publication_state: ChangeSetState;
}

export interface DnsRecord {
  id: string;
  zoneId: string;
  name: string;
  type: string;
  ttl: number | null;
  data: Record<string, unknown>;
  content: string;
  comment: string | null;
  system: boolean;
  publication: { state: ChangeSetState; changesetId: string };
  createdAt: Date;
  updatedAt: Date;
}

export const recordToDomain = (r: RecordRow): DnsRecord => ({
  id: r.id,
  zoneId: r.zone_id,
  name: r.name,
  type: r.type,
  ttl: r.ttl,
  data: r.data,
  content: r.content,
  comment: r.comment,
  system: r.system,
  publication: { state: r.publication_state, changesetId: r.last_changeset_id },
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** The apex sorts first (spec list order: by name, apex first, then type, then content). */
export const nameSortKey = (name: string) => (name === '@' ? '' : name);

export interface ChangeSetRow {
  id: string;
  zone_id: string;
  tenant_id: string;
  seq: number;
  state: ChangeSetState;
  error: { code: string; detail?: string } | null;
  kind: string;
  comment: string | null;
  item_count: number;
  summary: Record<string, number>;
  results: unknown[];
  api_client_id: string | null;
  request_id: string | null;
  touched_names: string[] | null;
  /** The published version (SOA serial) that carried it. */
  serial: number | string | null;
  pushed_at: Date | null;
  live_at: Date | null;
  created_at: Date;
  updated_at: Date;
}
