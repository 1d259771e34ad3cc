// The next version of a zone while it is being built: what the steps of the build
// (docs/publication.md) read and fill in, before one statement commits it.
import type { ZoneRecord } from '../../../nameserver/types.js';
import type { RenderZone } from '../../versionRecords/recordSource.js';

/** A stored or served record of the zone's own data, with the record it comes from. */
export interface DraftRecord extends ZoneRecord {
  recordId: string;
}

export interface VersionDraft {
  zone: RenderZone;
  serial: number;
  /** The version this one applies to; null: a whole zone (first build, or rebuilt whole). */
  fromSerial: number | null;
  /** The zone's records served before and from this version on, at the names the build read. */
  records: { removed: DraftRecord[]; added: DraftRecord[]; gone: string[] };
  /** The records the build renders: before (the served version's) and for this version. */
  system: { before: ZoneRecord[]; after: ZoneRecord[]; nameservers: string[] };
  /** Records the sign step adds and removes (NSEC3PARAM, NSEC/NSEC3, RRSIG). */
  signatures: { removed: DraftRecord[]; added: DraftRecord[] };
}

/**
 * The version as an incremental update (RFC 1995 §4: the records removed, then those added), the
 * structure IXFR serves and the sign step takes, as Knot's knot_dnssec_sign_update takes its
 * zone update.
 */
export interface VersionDiff {
  removed: ZoneRecord[];
  added: ZoneRecord[];
}

export function draftDiff(draft: VersionDraft): VersionDiff {
  const { before, after } = draft.system;
  // Keyed, not compared pairwise: a provider reverse zone renders a default PTR per address (a /16 has 65,536).
  const key = (r: ZoneRecord) => `${r.name} ${r.type} ${r.ttl} ${r.rdata.toString('base64')}`;
  const [beforeKeys, afterKeys] = [new Set(before.map(key)), new Set(after.map(key))];
  return {
    removed: [...before.filter((r) => !afterKeys.has(key(r))), ...draft.records.removed, ...draft.signatures.removed],
    added: [...after.filter((r) => !beforeKeys.has(key(r))), ...draft.records.added, ...draft.signatures.added],
  };
}
