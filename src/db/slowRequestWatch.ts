// A request still unanswered after SLOW_REQUEST_LOG_MS is logged once, at warn, with what would
// explain it: the step it is at and its last statement (inFlight.ts), the connection pool's state,
// the event loop's longest stall, and what the service's own sessions in PostgreSQL wait on and
// who blocks them: without it a request can stall for 20 s with nothing in the log to say why.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Knex } from 'knex';
import pg from 'pg';
import type { InFlightRequests } from './requestActivity.js';

const CHECK_EVERY_MS = 1000;
/** One look into pg_stat_activity per this, however many requests are slow together. */
const SNAPSHOT_EVERY_MS = 5000;
const SNAPSHOT_TIMEOUT_MS = 2000;

interface PoolState {
  used: number;
  free: number;
  pending_acquires: number;
  pending_creates: number;
}

interface TarnPool {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
  numPendingCreates(): number;
}

function poolState(db: Knex): PoolState | null {
  const pool = (db.client as { pool?: TarnPool }).pool;
  if (!pool) return null;
  return { used: pool.numUsed(), free: pool.numFree(), pending_acquires: pool.numPendingAcquires(), pending_creates: pool.numPendingCreates() };
}

/**
 * The service's sessions in its database (application_name managed-dns) that are not idle: what
 * each waits on, for how long, and which sessions block it. On a connection of its own, so that
 * it answers when the pool is what is exhausted.
 */
async function databaseSnapshot(connectionString: string): Promise<unknown[] | string> {
  const client = new pg.Client({
    connectionString,
    application_name: 'managed-dns-watch',
    connectionTimeoutMillis: SNAPSHOT_TIMEOUT_MS,
    query_timeout: SNAPSHOT_TIMEOUT_MS,
  });
  try {
    await client.connect();
    const { rows } = await client.query(
      `SELECT pid, state, wait_event_type, wait_event, pg_blocking_pids(pid) AS blocked_by,
              round(extract(epoch FROM now() - xact_start) * 1000) AS xact_ms,
              round(extract(epoch FROM now() - state_change) * 1000) AS state_ms,
              left(query, 160) AS query
         FROM pg_stat_activity
        WHERE datname = current_database() AND application_name = 'managed-dns' AND state <> 'idle'
        ORDER BY xact_start NULLS LAST`,
    );
    return rows;
  } catch (err) {
    return `no snapshot: ${(err as Error).message}`;
  } finally {
    client.end().catch(() => {});
  }
}

export interface SlowRequestWatchOptions {
  inFlight: InFlightRequests;
  db: Knex;
  connectionString: string;
  thresholdMs: number;
  /** Each slow request once, with what explains it (the service logs it at warn and counts it). */
  report(stage: string, fields: Record<string, unknown>): void;
}

/** Starts the watch; the returned function stops it. */
export function watchSlowRequests({ inFlight, db, connectionString, thresholdMs, report }: SlowRequestWatchOptions): () => void {
  const loop = monitorEventLoopDelay({ resolution: 20 });
  loop.enable();
  let lastSnapshot = -Infinity;
  let checking = false;
  const timer = setInterval(() => {
    if (checking) return;
    const slow = inFlight.unreportedOlderThan(thresholdMs);
    if (!slow.length) return;
    checking = true;
    void (async () => {
      const now = performance.now();
      const takeSnapshot = now - lastSnapshot >= SNAPSHOT_EVERY_MS;
      if (takeSnapshot) lastSnapshot = now;
      const database = takeSnapshot ? await databaseSnapshot(connectionString) : 'see the previous slow request';
      const pool = poolState(db);
      for (const r of slow) {
        r.reported = true;
        report(r.stage, {
          request_id: r.id,
          method: r.method,
          path: r.path,
          elapsed_ms: Math.round(performance.now() - r.startedAt),
          stage: r.stage,
          sql: r.sql,
          sql_ms: r.sqlSince === null ? null : Math.round(performance.now() - r.sqlSince),
          pool,
          in_flight: inFlight.size,
          // The longest the event loop could not run since the previous report (or the start).
          event_loop_longest_stall_ms: Math.round(loop.max / 1e6),
          database,
        });
      }
      loop.reset();
    })().finally(() => (checking = false));
  }, CHECK_EVERY_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
    loop.disable();
  };
}
