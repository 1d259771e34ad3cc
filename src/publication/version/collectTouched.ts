// Build step 1: the zone's own records at the names the unpublished change sets touched (the
// whole zone when one of them touched everything), compared with what the nameservers serve.
// Each stored record is encoded here, once; what is served is compared in wire form.
import type { StoredRecord } from '../../db/repositories/versionStore.js';
import { encodeRecord, sameWire } from '../../versionRecords/zoneRecords.js';
import type { DraftRecord, VersionDraft } from './versionDraft.js';

export class BuildError extends Error {}

export function collectTouched(stored: StoredRecord[], served: DraftRecord[]): VersionDraft['records'] {
  const current: DraftRecord[] = stored.map((r) => {
    try {
      return { recordId: r.recordId, ...encodeRecord(r) };
    } catch (err) {
      // A record the nameservers could not serve fails the build here, not in every nameserver.
      throw new BuildError(`${r.name} ${r.type}: ${(err as Error).message}`);
    }
  });
  const servedById = new Map(served.map((r) => [r.recordId, r]));
  const currentIds = new Set(current.map((r) => r.recordId));
  const added = current.filter((r) => {
    const before = servedById.get(r.recordId);
    return !before || !sameWire(before, r);
  });
  const addedIds = new Set(added.map((r) => r.recordId));
  const removed = served.filter((r) => !currentIds.has(r.recordId) || addedIds.has(r.recordId));
  return { removed, added, gone: removed.filter((r) => !addedIds.has(r.recordId)).map((r) => r.recordId) };
}
