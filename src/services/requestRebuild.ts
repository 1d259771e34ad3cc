// "Build this zone again" as a write of the seam: a change set with no record of its own, for a
// zone whose served records change without a stored record changing — its keys or signing policy
// (DNSSEC), its rendered default PTRs (address spaces and assignments), its creation as a reverse
// zone of a space, its deletion. The change set is the outbox the publication worker reads, so the
// rebuild commits or rolls back with the write that asked for it, and its row is what the API
// shows (kind, comment, results). The zone is the one writeZone locked: no lock is taken here.
//
// Beside writeZone (src/services/zoneWrite.ts) rather than in it: it appends through
// changeSets.ts, which itself writes through writeZone.
import type { ChangeSet } from '../domain/model/changeSet.js';
import type { Zone } from '../domain/model/zone.js';
import { appendChangeSet } from './changeSets.js';
import type { WriteContext } from './writeContext.js';

/** Why the zone is built again: what its change set says to the user. */
export type RebuildReason =
  /** Keys published or retired, signing on or off: `results: [{ dnssec: step }]`. */
  | { kind: 'dnssec'; step: string }
  /** Rendered records of the zone changed (default PTRs): a records change set with no items. */
  | { kind: 'records'; comment: string }
  /** A zone created with no records of its own (a reverse zone of an address space). */
  | { kind: 'zone_create'; comment: string }
  /** The zone is withdrawn; `zoneColumns` are set on its row in the same statement. */
  | { kind: 'zone_delete'; zoneColumns: Record<string, unknown> };

const NOTHING_CHANGED = { created: 0, updated: 0, deleted: 0 };

/**
 * Queues a build of `zone` (locked by writeZone in this transaction). `names`: the owner names
 * (relative) whose rendered records change, for an incremental build; null: the whole zone.
 */
export function requestRebuild(ctx: WriteContext, zone: Zone, reason: RebuildReason, names: string[] | null): Promise<ChangeSet> {
  const touched = names === null ? {} : { touchedNames: names };
  switch (reason.kind) {
    case 'dnssec':
      return appendChangeSet(ctx, zone, { kind: 'dnssec', itemCount: 0, summary: { ...NOTHING_CHANGED }, results: [{ dnssec: reason.step }], ...touched });
    case 'records':
      return appendChangeSet(ctx, zone, { kind: 'records', comment: reason.comment, itemCount: 0, summary: { ...NOTHING_CHANGED }, results: [], ...touched });
    case 'zone_create':
      return appendChangeSet(ctx, zone, { kind: 'zone_create', comment: reason.comment, itemCount: 0, summary: {}, results: [], ...touched });
    case 'zone_delete':
      return appendChangeSet(ctx, zone, {
        kind: 'zone_delete',
        itemCount: 0,
        summary: { ...NOTHING_CHANGED },
        results: [],
        zoneColumns: reason.zoneColumns,
        ...touched,
      });
  }
}
