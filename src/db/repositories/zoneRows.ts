import type { Delegation } from '../../domain/ip/delegation.js';
// The `zones` table: its row type and the one mapper between row and domain Zone.
import type { Zone, ZoneKind, ZoneStatus } from '../../domain/model/zone.js';
import type { ChangeSetState } from '../../domain/publication.js';
import { secondaryAddress } from '../../domain/secondarySets.js';
import { firstSerial } from '../../domain/soa.js';

export interface ZoneRow {
  id: string;
  tenant_id: string;
  name: string;
  kind: ZoneKind;
  status: ZoneStatus;
  default_ttl: number;
  soa_email: string;
  /** The serial's one home: the published version (zone_versions.serial); null before the first. */
  published_serial: number | string | null;
  dnssec_state: string;
  dnssec_mode: string | null;
  changeset_seq: number;
  record_count: number;
  version: number | string;
  last_changeset_id: string | null;
  created_at: Date;
  /** The serial the name's previous zone last had (migration 20261128060000), else null. */
  serial_floor?: number | string | null;
  updated_at: Date;
  deletion_requested_at: Date | null;
  /** A prefix's reverse zone: its last delegation check (docs/rdns.md). */
  delegation?: Delegation | null;
  /** Joined: state of the newest change set. */
  publication_state: ChangeSetState | null;
  publication_updated_at: Date | null;
  /** Joined: the set secondaries its published version waits on (secondaryLagRows.ts ZONE_LAG_JOIN). */
  secondary_lag?: { host: string; port: number; serial: number | string | null; since: string }[] | null;
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
  serial: r.published_serial === null ? firstSerial(r.created_at, r.serial_floor ?? null) : Number(r.published_serial),
  dnssec: { state: r.dnssec_state, mode: r.dnssec_mode },
  changesetSeq: r.changeset_seq,
  recordCount: r.record_count,
  version: Number(r.version),
  publication: {
    state: r.publication_state,
    changesetId: r.last_changeset_id,
    updatedAt: r.publication_updated_at,
    waitingOn: (r.secondary_lag ?? []).map((l) => ({
      address: secondaryAddress({ address: l.host, port: l.port }),
      serial: l.serial === null ? null : Number(l.serial),
      since: new Date(l.since),
    })),
  },
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  deletionRequestedAt: r.deletion_requested_at,
  delegation: r.delegation ?? null,
});
