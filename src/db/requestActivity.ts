// What each API request in flight is doing right now, for the slow-request watch
// (slowRequestWatch.ts): a request that stays unanswered must say where it waits — before its body
// was read, for a pooled connection, on a statement, on its COMMIT — without a debugger on a
// production process. Code deep in the request (the pg client) marks it through AsyncLocalStorage,
// as the request's database deadline is read (src/db/requestDeadline.ts).
import { AsyncLocalStorage } from 'node:async_hooks';

export interface InFlightRequest {
  readonly id: string;
  readonly method: string;
  readonly path: string;
  /** performance.now() at arrival. */
  readonly startedAt: number;
  /** The pipeline's step: received, identified, body_read, pool_wait, statement. */
  stage: string;
  /** The statement running or last run, its first characters, and since when (performance.now). */
  sql: string | null;
  sqlSince: number | null;
  /** Whether the watch has logged this request already. */
  reported: boolean;
  /** Time spent in waits the client asked for (`Prefer: wait`), which make no request slow. */
  waitedMs: number;
  /** performance.now() when such a wait began; null outside one. */
  waitingSince: number | null;
}

const current = new AsyncLocalStorage<InFlightRequest>();

export class InFlightRequests {
  private readonly live = new Set<InFlightRequest>();

  async run<T>(request: Pick<InFlightRequest, 'id' | 'method' | 'path'>, work: () => Promise<T>): Promise<T> {
    const entry: InFlightRequest = {
      ...request,
      startedAt: performance.now(),
      stage: 'received',
      sql: null,
      sqlSince: null,
      reported: false,
      waitedMs: 0,
      waitingSince: null,
    };
    this.live.add(entry);
    try {
      return await current.run(entry, work);
    } finally {
      this.live.delete(entry);
    }
  }

  /** Requests in flight for at least `ms` (not counting waits the client asked for), not yet reported. */
  unreportedOlderThan(ms: number): InFlightRequest[] {
    const before = performance.now() - ms;
    return [...this.live].filter((r) => !r.reported && r.waitingSince === null && r.startedAt + r.waitedMs <= before);
  }

  get size(): number {
    return this.live.size;
  }
}

/** Marks the current request's step (nothing outside a request). */
export function markStage(stage: string): void {
  const request = current.getStore();
  if (request) request.stage = stage;
}

/**
 * Runs a wait the client asked for (`Prefer: wait`) as the current request's stage `stage`: the
 * slow-request watch does not count it (a request asked to wait 60 s is not slow for it).
 */
export async function clientWait<T>(stage: string, wait: () => Promise<T>): Promise<T> {
  const request = current.getStore();
  if (!request) return wait();
  request.stage = stage;
  request.waitingSince = performance.now();
  try {
    return await wait();
  } finally {
    request.waitedMs += performance.now() - request.waitingSince;
    request.waitingSince = null;
  }
}

const SQL_SHOWN = 160;

/** The statement the current request now runs; `null` when it came back. */
export function noteStatement(sql: string | null): void {
  const request = current.getStore();
  if (!request) return;
  if (sql === null) {
    request.stage = 'statement_done';
    return;
  }
  request.stage = 'statement';
  request.sql = sql.length > SQL_SHOWN ? `${sql.slice(0, SQL_SHOWN)}…` : sql;
  request.sqlSince = performance.now();
}
