import type { Delegation } from '../ip/delegation.js';
import type { ChangeSetState } from '../publication.js';

/**
 * docs/rdns.md "Reverse zones and the zone kinds": 'reverse' a customer-owned prefix's reverse zone;
 * 'provider_reverse' a reverse zone of the provider's address space (written through /ptr only);
 * 'lab_parent' the sandbox lab's root, TLD and arpa zones (docs/lab.md); 'catalog' a secondary
 * set's catalog zone, rendered from its members (docs/catalog-zones.md). The last three are hidden
 * from the zone API.
 */
export type ZoneKind = 'forward' | 'reverse' | 'provider_reverse' | 'lab_parent' | 'catalog';
export const HIDDEN_ZONE_KINDS: readonly ZoneKind[] = ['provider_reverse', 'lab_parent', 'catalog'];
/** The kinds of zone a catalog lists (docs/catalog-zones.md): every served zone of a tenant. */
export const CATALOG_MEMBER_KINDS: readonly ZoneKind[] = ['forward', 'reverse', 'provider_reverse'];
export type ZoneStatus = 'activating' | 'active' | 'deleting';

/** A hosted zone as the rules see it (stored by src/db/repositories/zoneRows.ts). */
export interface Zone {
  id: string;
  tenantId: string;
  name: string;
  kind: ZoneKind;
  status: ZoneStatus;
  defaultTtl: number;
  soaEmail: string;
  serial: number;
  dnssec: { state: string; mode: string | null };
  changesetSeq: number;
  recordCount: number;
  /** Counts the writes of the zone (every change set and settings change); its ETag (rowEtag). */
  version: number;
  /** Publication progress: not part of the ETag. */
  publication: {
    state: ChangeSetState | null;
    changesetId: string | null;
    updatedAt: Date | null;
    /** The secondary sets' secondaries that do not serve the published serial yet (docs/catalog-zones.md). */
    waitingOn: { address: string; serial: number | null; since: Date }[];
  };
  createdAt: Date;
  updatedAt: Date;
  deletionRequestedAt: Date | null;
  /** A prefix's reverse zone: what its last delegation check saw (docs/rdns.md); null for other zones. */
  delegation: Delegation | null;
}
