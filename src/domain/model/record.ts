import type { ChangeSetState } from '../publication.js';

/** The stored part of a record: what a change set plans and a write stores. */
export interface RecordData {
  id: string;
  /** Zone-relative owner; '@' is the apex. */
  name: string;
  type: string;
  /** null: the zone's default_ttl applies. */
  ttl: number | null;
  data: Record<string, unknown>;
  /** RDATA in presentation format. */
  content: string;
  comment: string | null;
  /** SOA and apex NS: read-only to users. */
  system: boolean;
  /**
   * The id of the object that keeps this record (a dynamic DNS host, an address space); absent or
   * null: the tenant's own. Only that object's writes may change it (docs/records.md).
   */
  managedBy?: string | null;
}

/** The fields a record has under the same names in the domain, its stored row and the API's body. */
export type RecordCore = Pick<RecordData, 'id' | 'name' | 'type' | 'ttl' | 'data' | 'content' | 'comment'>;

/**
 * Those fields alone, in the order the API shows them. Callers complete the object with
 * `Object.assign(recordCore(r), {…})`, not `{ ...recordCore(r), … }`: V8 copies a spread that is
 * then given more properties slowly, about 14 µs a record against under 0.5 µs, on every read.
 */
export const recordCore = (r: RecordCore): RecordCore => ({
  id: r.id,
  name: r.name,
  type: r.type,
  ttl: r.ttl,
  data: r.data,
  content: r.content,
  comment: r.comment,
});

/** A record of a zone as read (stored by src/db/repositories/recordRows.ts). */
export interface DnsRecord extends RecordData {
  zoneId: string;
  /** Counts the writes of the record; its ETag (rowEtag). */
  version: number;
  /** Publication progress of its last change set: not part of the ETag. */
  publication: { state: ChangeSetState; changesetId: string };
  createdAt: Date;
  updatedAt: Date;
}
