// The `zones` table: its row type and the one mapper between row and domain Zone.
import type { Zone, ZoneKind, ZoneStatus } from '../../domain/model/zone.js';
import type { ChangeSetState } from '../../domain/publication.js';

export interface ZoneRow {
  id: string;
  tenant_id: string;
  name: string;
  kind: ZoneKind;
  status: ZoneStatus;
  default_ttl: number;
  soa_email: string;
  serial: number | string;
  dnssec_state: string;
  dnssec_mode: string | null;
  changeset_seq: number;
  record_count: number;
  version: number | string;
  last_changeset_id: string | null;
  created_at: Date;
  updated_at: Date;
  deletion_requested_at: Date | null;
  /** Joined: state of the newest change set. */
  publication_state: ChangeSetState | null;
  publication_updated_at: Date | null;
}

export const zoneToDomain = (r: ZoneRow): Zone => ({
  id: r.id,
  tenantId: r.tenant_id,
  name: r.name,
  kind: r.kind,
  status: r.status,
  defaultTtl: r.default_ttl,
  soaEmail: r.soa_email,
  serial: Number(r.serial),
  dnssec: { state: r.dnssec_state, mode: r.dnssec_mode },
  changesetSeq: r.changeset_seq,
  recordCount: r.record_count,
  version: Number(r.version),
  publication: { state: r.publication_state, changesetId: r.last_changeset_id, updatedAt: r.publication_updated_at },
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  deletionRequestedAt: r.deletion_requested_at,
});
