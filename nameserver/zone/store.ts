// The zones this nameserver serves: the current snapshot per origin, each replaced in one step (a
// Map assignment), so a query sees either the old version of a zone or the new one, never a mix.
// Each zone also keeps a short journal of the diffs applied to it, for IXFR.
import type { ZoneDiff } from '../types.js';
import { DEFAULT_JOURNAL_LIMITS, type JournalLimits, ZoneJournal } from './journal.js';
import { parentName } from '../wire/name.js';
import { applyZoneDiffSteps, ZoneError, type ZoneSnapshot } from './snapshot.js';
import { finish } from './steps.js';

export interface ZoneStoreOptions {
  /** Per-zone IXFR journal bounds; default: the last 100 diffs, at most 1 MiB of records. */
  journal?: Partial<JournalLimits>;
}

export class ZoneStore {
  private readonly zones = new Map<string, ZoneSnapshot>();
  private readonly journals = new Map<string, ZoneJournal>();
  private readonly journalLimits: JournalLimits;
  private changes = 0;

  constructor(options: ZoneStoreOptions = {}) {
    this.journalLimits = { ...DEFAULT_JOURNAL_LIMITS, ...options.journal };
  }

  /**
   * Grows by one with every change to any zone. A response cache keeps the generation an entry was
   * made at and drops the entry when the store's generation differs (or compares snapshot identity,
   * `find(name)`, for per-zone invalidation).
   */
  get generation(): number {
    return this.changes;
  }

  get(origin: string): ZoneSnapshot | undefined {
    return this.zones.get(origin);
  }

  /**
   * Serves `snapshot` for its origin from now on. The journal starts over: how a snapshot built
   * from scratch differs from the one it replaces is not known, so older serials get AXFR.
   */
  set(snapshot: ZoneSnapshot, history: readonly ZoneDiff[] = []): void {
    this.zones.set(snapshot.origin, snapshot);
    const journal = new ZoneJournal(this.journalLimits);
    // Diffs known to lead to this snapshot (oldest first), e.g. a process that loads a zone whole
    // after a restart can still answer IXFR from the published history.
    const usable = history.length && history[history.length - 1]!.toSerial === snapshot.serial ? history : [];
    for (const diff of usable) journal.append(diff);
    this.journals.set(snapshot.origin, journal);
    this.changes++;
  }

  remove(origin: string): boolean {
    this.journals.delete(origin);
    const removed = this.zones.delete(origin);
    if (removed) this.changes++;
    return removed;
  }

  /**
   * The snapshot of the closest enclosing zone of `name` (lower case): with "example.com" and
   * "sub.example.com" both served, "www.sub.example.com" belongs to the latter.
   */
  find(name: string): ZoneSnapshot | undefined {
    if (this.zones.size === 0) return undefined;
    for (let at = name; ; at = parentName(at)) {
      const zone = this.zones.get(at);
      if (zone) return zone;
      if (at === '') return undefined;
    }
  }

  origins(): string[] {
    return [...this.zones.keys()];
  }

  /**
   * Applies one diff to the zone at `origin` (see applyZoneDiff), serves the result and journals
   * the diff. Throws ZoneError when the zone is not served or the diff does not fit; the zone then
   * stays as it was, and the caller loads it whole.
   */
  applyDiff(origin: string, diff: ZoneDiff): ZoneSnapshot {
    return this.installDiff(origin, diff, finish(this.nextOf(origin, diff)));
  }

  /**
   * What applyDiff serves after `diff`, made in steps while the zone keeps answering as it is
   * (nameserver/zone/steps.ts); installDiff then serves it. Throws as applyDiff does.
   */
  *nextOf(origin: string, diff: ZoneDiff): Generator<void, ZoneSnapshot> {
    const current = this.zones.get(origin);
    if (!current) throw new ZoneError(`zone "${origin}" is not served`);
    return yield* applyZoneDiffSteps(current, diff);
  }

  /** Serves `next`, made by nextOf from the zone as it is still served, and journals the diff. */
  installDiff(origin: string, diff: ZoneDiff, next: ZoneSnapshot): ZoneSnapshot {
    if (this.zones.get(origin)?.serial !== diff.fromSerial) throw new ZoneError(`zone "${origin}" changed while the diff to ${diff.toSerial} was applied`);
    this.zones.set(origin, next);
    this.journalOf(origin).append(diff);
    this.changes++;
    return next;
  }

  /**
   * The diffs that take a secondary from `serial` to the served version, oldest first ([] when it
   * is up to date), or null when the journal does not reach back that far: answer with AXFR.
   */
  diffsSince(origin: string, serial: number): ZoneDiff[] | null {
    const current = this.zones.get(origin);
    if (!current) return null;
    if (serial === current.serial) return [];
    return this.journalOf(origin).since(serial);
  }

  private journalOf(origin: string): ZoneJournal {
    let journal = this.journals.get(origin);
    if (!journal) this.journals.set(origin, (journal = new ZoneJournal(this.journalLimits)));
    return journal;
  }
}
