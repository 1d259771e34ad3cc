// The `records` table: its row type and the one mapper between rows and domain records, used by
// every read and by the write seam's statements.
import { type DnsRecord, type RecordData, recordCore } from '../../domain/model/record.js';
import type { ChangeSetState } from '../../domain/publication.js';
import type { Runner } from '../context.js';

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
  managed_by: string | null;
  version: number | string;
  last_changeset_id: string;
  created_at: Date;
  updated_at: Date;
  /** Joined: state of the record's last change set. */
  publication_state: ChangeSetState;
}

/** The apex sorts first (spec list order: by name, apex first, then type, then content). */
export const nameSortKey = (name: string) => (name === '@' ? '' : name);

export const recordToDomain = (r: RecordRow): DnsRecord =>
  Object.assign(recordCore(r), {
    zoneId: r.zone_id,
    // Stored records are the tenant's own; the SOA and apex NS are rendered (services/systemRecords.ts).
    system: false,
    managedBy: r.managed_by,
    version: Number(r.version),
    publication: { state: r.publication_state, changesetId: r.last_changeset_id },
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  });

/** The columns a write stores from a record's data (the statement adds zone, owner and times). */
export const recordDataToRow = (r: RecordData) =>
  Object.assign(recordCore(r), {
    name_sort: nameSortKey(r.name),
    managed_by: r.managedBy ?? null,
  });

/** A record just stored from its data, as a read would return it (no second query). */
export const storedRecord = (
  zoneId: string,
  r: RecordData,
  stored: { version: number; changeSet: { id: string; state: ChangeSetState }; at: Date; createdAt?: Date },
): DnsRecord => ({
  ...r,
  zoneId,
  version: stored.version,
  publication: { state: stored.changeSet.state, changesetId: stored.changeSet.id },
  createdAt: stored.createdAt ?? stored.at,
  updatedAt: stored.at,
});

/** A zone's stored records under the given names (relative, '@' for the apex), as an RFC 2136 update reads them. */
export const recordsNamed = (db: Runner, zoneId: string, names: string[]): Promise<Pick<RecordRow, 'name' | 'type' | 'ttl' | 'data'>[]> =>
  db('records').where('zone_id', zoneId).whereRaw('name = any(?::text[])', [names]).select('name', 'type', 'ttl', 'data');
