// The recent history of one zone, for IXFR (RFC 1995): the diffs applied since the zone was last
// loaded whole, oldest first, each starting where the previous one ended. Bounded in count and in
// bytes; what falls off the old end can no longer be sent incrementally and the secondary asking
// for it gets AXFR instead (RFC 1995 §2 allows a server to answer IXFR with a full transfer).
import type { ZoneDiff, ZoneRecord } from '../types.js';

export interface JournalLimits {
  /** Most diffs kept per zone. */
  maxDiffs: number;
  /** Most bytes kept per zone, counted as the records' uncompressed wire size. */
  maxBytes: number;
}

export const DEFAULT_JOURNAL_LIMITS: JournalLimits = { maxDiffs: 100, maxBytes: 1024 * 1024 };

/** A record's size on the wire without compression: owner, type, class, TTL, RDLENGTH, RDATA. */
function wireSize(record: ZoneRecord): number {
  return record.name.length + 2 + 10 + record.rdata.length;
}

function diffSize(diff: ZoneDiff): number {
  let bytes = 0;
  for (const r of diff.removed) bytes += wireSize(r);
  for (const r of diff.added) bytes += wireSize(r);
  return bytes;
}

export class ZoneJournal {
  private readonly diffs: { diff: ZoneDiff; bytes: number }[] = [];
  private bytes = 0;

  constructor(private readonly limits: JournalLimits) {}

  /** Records a diff that was just applied; it continues the previous one. */
  append(diff: ZoneDiff): void {
    const entry = {
      diff: Object.freeze({ ...diff, removed: Object.freeze([...diff.removed]) as ZoneRecord[], added: Object.freeze([...diff.added]) as ZoneRecord[] }),
      bytes: diffSize(diff),
    };
    this.diffs.push(entry);
    this.bytes += entry.bytes;
    while (this.diffs.length > this.limits.maxDiffs || this.bytes > this.limits.maxBytes) this.bytes -= this.diffs.shift()!.bytes;
  }

  /**
   * The consecutive diffs leading from `serial` to the newest, or null when the journal does not
   * reach back to it (or holds it twice, after serial wrap-around: which one the secondary has
   * cannot be told).
   */
  since(serial: number): ZoneDiff[] | null {
    let start = -1;
    for (let i = 0; i < this.diffs.length; i++) {
      if (this.diffs[i]!.diff.fromSerial !== serial) continue;
      if (start >= 0) return null;
      start = i;
    }
    return start < 0 ? null : this.diffs.slice(start).map((e) => e.diff);
  }

  get length(): number {
    return this.diffs.length;
  }
}
