// One bound on all of a request's database work (docs/operations.md "When PostgreSQL stops
// answering"). Each wait has its own bound (pool 5 s, statement 5 s), but a request waits many
// times — a zone DELETE queued behind writers, statement after statement, answered after 45.5 s.
// The API runs each request inside a deadline; the pg client reads it here for every
// pool wait and statement of that request, wherever in the code they happen. PostgreSQL 17's
// transaction_timeout would do this on the server, but the service supports older servers and
// workers' transactions (a large zone's build) must not share the request bound.
import { AsyncLocalStorage } from 'node:async_hooks';

const deadlines = new AsyncLocalStorage<{ at: number }>();

/** Runs `work` with its database work bounded to `ms` from now (performance.now based). */
export function withDatabaseDeadline<T>(ms: number, work: () => Promise<T>): Promise<T> {
  return deadlines.run({ at: performance.now() + ms }, work);
}

/**
 * Moves the current bound `ms` later: the time a request spent reading its body is the client's
 * (HTTP_REQUEST_TIMEOUT_MS bounds it), not its database time.
 */
export function extendDatabaseDeadline(ms: number): void {
  const deadline = deadlines.getStore();
  if (deadline) deadline.at += ms;
}

/** Milliseconds left of the current request's bound; null outside a request (workers, tools). */
export function databaseTimeLeftMs(): number | null {
  const deadline = deadlines.getStore();
  return deadline === undefined ? null : deadline.at - performance.now();
}

/** What a request past its bound gets: the code the API answers 503 for (src/api/app.ts). */
export function databaseDeadlineError(): Error {
  return Object.assign(new Error("the request's database time is over (DB_REQUEST_TIMEOUT_MS)"), { code: 'ETIMEDOUT' });
}
