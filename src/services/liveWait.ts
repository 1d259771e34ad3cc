// Waiting until change sets are live (`Prefer: wait=N` on API writes, docs/api-conventions.md
// "Waiting until live"; later RFC 2136 UPDATE answers): usable by any caller, not only HTTP.
//
// One LISTEN connection per process (opened by the first wait, kept until stop) hears
// `changesets_settled` with a zone id, sent in the statement or transaction that makes a zone's
// change sets `live` or `failed` (src/publication/verifyPublication.ts markLive, publishZone.ts
// markFailed), so an API process learns it from the worker in another thread, process or machine.
// A notification only says "look again": the states are read from change_sets, in one query for
// every waiter of the zone. NOTIFY is lost while the listener reconnects, so every RECHECK_MS all
// waiters are read again (one query for all of them, only while someone waits): a lost
// notification delays an answer by at most that much, never leaves it hanging.
//
// A waiter holds no database connection and no transaction while it waits: only a timer and a
// promise. Reads run on the pool, in this object's async scope (not the request's: a request's
// database deadline and the slow-request watch do not count them against whoever happened to start
// the timer).
import { AsyncResource } from 'node:async_hooks';
import type { Pool } from '../db/context.js';
import { changeSetStates } from '../db/repositories/changeSetStates.js';
import { CHANGESETS_SETTLED_CHANNEL } from '../db/channels.js';
import { NotificationListener } from '../db/notificationListener.js';
import { type ChangeSetState, combinedLiveWaitState, isSettled, type LiveWaitState } from '../domain/publication.js';

export type { LiveWaitState };

/** No wait lasts longer than this, whatever the caller asks (docs/api-conventions.md). */
export const MAX_LIVE_WAIT_MS = 60_000;
/** The safety net for lost notifications: how often every waiter's change sets are read again. */
const RECHECK_MS = 500;

export interface LiveWaitersOptions {
  db: Pool;
  /** For the LISTEN connection (the pool's connections come and go). */
  databaseUrl: string;
  recheckMs?: number;
  /** The listener lost its connection, or a read failed (the next recheck tries again). */
  onError?(err: unknown): void;
}

interface Waiter {
  readonly ids: readonly string[];
  /** The zones of its change sets, once read (a notification names a zone). */
  zones: string[];
  readonly states: Map<string, LiveWaitState>;
  /** Its states were read at least once. */
  read: boolean;
  /** Its time is up, but it answers after its first read (a wait of 0 still reads once). */
  expired: boolean;
  finish(): void;
}

/** What a caller of waitUntilLive needs: `Services` has it. */
export interface LiveWaitDeps {
  liveWaiters: LiveWaiters;
}

/**
 * Waits until every change set in `changeSetIds` is `live` — or one is `failed` or gone (its zone
 * deleted) — and answers that state. At `timeoutMs` (at most MAX_LIVE_WAIT_MS; the states are read
 * at least once, so 0 answers after one read) it answers the state as last read instead
 * (`pending` or `pushed`, at most RECHECK_MS old); so it does at once when `signal` aborts or the
 * service stops (then possibly unread: `pending`). Never rejects: a failed read is retried at the
 * next recheck (past the timeout, the wait answers what it knew). Holds no database connection
 * or transaction while it waits; call it after the write committed.
 */
export function waitUntilLive(deps: LiveWaitDeps, changeSetIds: readonly string[], timeoutMs: number, signal?: AbortSignal): Promise<LiveWaitState> {
  return deps.liveWaiters.wait(changeSetIds, timeoutMs, signal);
}

export class LiveWaiters {
  private readonly waiters = new Set<Waiter>();
  /** Waiters whose zones are not known yet: every read includes them. */
  private readonly unplaced = new Set<Waiter>();
  private readonly byZone = new Map<string, Set<Waiter>>();
  private listener: NotificationListener | null = null;
  private recheck: NodeJS.Timeout | null = null;
  private reading = false;
  private readAll = false;
  private readNew = false;
  private readonly dueZones = new Set<string>();
  private stopped = false;
  /** The scope the reads and the recheck timer run in: the service's, never a request's. */
  private readonly scope = new AsyncResource('LiveWaiters');

  constructor(private readonly options: LiveWaitersOptions) {}

  /** Waiters now (`api_live_waiters` in /metrics). */
  get waiting(): number {
    return this.waiters.size;
  }

  wait(changeSetIds: readonly string[], timeoutMs: number, signal?: AbortSignal): Promise<LiveWaitState> {
    const ids = [...new Set(changeSetIds)];
    return new Promise((resolve) => {
      const states = new Map<string, LiveWaitState>();
      let timer: NodeJS.Timeout | undefined;
      const waiter: Waiter = {
        ids,
        zones: [],
        states,
        read: false,
        expired: false,
        finish: () => {
          if (!this.waiters.delete(waiter)) return;
          clearTimeout(timer);
          signal?.removeEventListener('abort', waiter.finish);
          this.unplace(waiter);
          if (!this.waiters.size) this.stopRecheck();
          resolve(combinedLiveWaitState(ids.map((id) => states.get(id))));
        },
      };
      this.waiters.add(waiter);
      this.unplaced.add(waiter);
      // Registered before its first read: a notification that arrives during that read makes
      // another read follow it.
      const expire = () => {
        if (waiter.read) waiter.finish();
        else waiter.expired = true;
      };
      timer = setTimeout(expire, Math.min(Math.max(timeoutMs, 0), MAX_LIVE_WAIT_MS));
      signal?.addEventListener('abort', waiter.finish, { once: true });
      if (this.stopped || signal?.aborted) return waiter.finish();
      this.scope.runInAsyncScope(() => {
        this.startListening();
        this.startRecheck();
        this.readSoon('new');
      });
    });
  }

  /** Ends every wait now (each answers the state it last read), and stops listening. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const waiter of [...this.waiters]) waiter.finish();
    this.stopRecheck();
    await this.listener?.stop();
  }

  private startListening(): void {
    if (this.listener) return;
    this.listener = new NotificationListener({
      url: this.options.databaseUrl,
      channels: [CHANGESETS_SETTLED_CHANNEL],
      onNotification: (_channel, zoneId) => {
        // Waiters whose first read is still out may be of this zone too (readSoon reads them).
        if (this.byZone.has(zoneId) || this.unplaced.size) this.scope.runInAsyncScope(() => this.readSoon({ zoneId }));
      },
      // Whatever happened while nobody listened is read now.
      onConnected: () => this.scope.runInAsyncScope(() => this.readSoon('all')),
      onError: (err) => this.options.onError?.(err),
    });
    void this.listener.start();
  }

  private startRecheck(): void {
    if (this.recheck) return;
    this.recheck = setInterval(() => this.readSoon('all'), this.options.recheckMs ?? RECHECK_MS);
    this.recheck.unref();
  }

  private stopRecheck(): void {
    if (this.recheck) clearInterval(this.recheck);
    this.recheck = null;
  }

  /**
   * Reads the states of the waiters not read yet, and of one zone's waiters (`new`: no more; `all`:
   * every waiter) — now, or after the read running, together with whatever else came due.
   */
  private readSoon(which: 'new' | 'all' | { zoneId: string }): void {
    if (which === 'all') this.readAll = true;
    else if (which === 'new') this.readNew = true;
    else this.dueZones.add(which.zoneId);
    if (this.reading) return;
    this.reading = true;
    void this.readLoop().finally(() => (this.reading = false));
  }

  private async readLoop(): Promise<void> {
    while (this.readAll || this.readNew || this.dueZones.size) {
      const due = new Set<Waiter>(this.unplaced);
      if (this.readAll) for (const w of this.waiters) due.add(w);
      else for (const zone of this.dueZones) for (const w of this.byZone.get(zone) ?? []) due.add(w);
      this.readAll = false;
      this.readNew = false;
      this.dueZones.clear();
      if (!due.size) continue;
      let rows: { id: string; zone_id: string; state: ChangeSetState }[];
      try {
        const ids = [...new Set([...due].flatMap((w) => w.ids))];
        rows = await changeSetStates(this.options.db, ids);
      } catch (err) {
        // The next recheck reads again; a wait whose time is up answers what it knows.
        this.options.onError?.(err);
        for (const waiter of due) if (waiter.expired) waiter.finish();
        return;
      }
      const found = new Map(rows.map((r) => [r.id, r]));
      for (const waiter of due) {
        if (!this.waiters.has(waiter)) continue;
        for (const id of waiter.ids) waiter.states.set(id, found.get(id)?.state ?? 'gone');
        waiter.read = true;
        if (waiter.expired || isSettled(combinedLiveWaitState(waiter.ids.map((id) => waiter.states.get(id))))) {
          waiter.finish();
          continue;
        }
        if (this.unplaced.delete(waiter)) this.place(waiter, [...new Set(waiter.ids.map((id) => found.get(id)!.zone_id))]);
      }
    }
  }

  private place(waiter: Waiter, zones: string[]): void {
    waiter.zones = zones;
    for (const zone of zones) {
      let set = this.byZone.get(zone);
      if (!set) this.byZone.set(zone, (set = new Set()));
      set.add(waiter);
    }
  }

  private unplace(waiter: Waiter): void {
    this.unplaced.delete(waiter);
    for (const zone of waiter.zones) {
      const set = this.byZone.get(zone);
      set?.delete(waiter);
      if (set && !set.size) this.byZone.delete(zone);
    }
  }
}
