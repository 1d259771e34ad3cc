// A transaction that PostgreSQL chose as a deadlock victim (40P01) or could not serialise (40001)
// did nothing: its caller may run it again from the start (PostgreSQL's manual, "Serialization
// Failure Handling"). This is the one place that does so, for the request pipeline and the workers.
// Safe because nothing leaves a transaction before it commits: events, NOTIFY and mail are rows
// or transactional, and effects after commit are registered per attempt by the caller.
import type { Knex } from 'knex';

const RETRYABLE_SQLSTATES: Readonly<Record<string, string>> = {
  '40P01': 'deadlock_detected',
  '40001': 'serialization_failure',
};

/** Attempts in all (the first and the retries). */
const TRANSACTION_ATTEMPTS = 4;
const BASE_BACKOFF_MS = 10;

/** The retryable reason of a failure (deadlock_detected, serialization_failure), or null. */
export function retryableReason(err: unknown): string | null {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? (RETRYABLE_SQLSTATES[code] ?? null) : null;
}

export interface RetryOptions {
  /** Before each retry (counted by the caller: the API's /metrics, a worker's log). */
  onRetry?: (reason: string, attempt: number) => void;
  attempts?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `run` in a transaction of `db`, again from the start (a new transaction) when PostgreSQL
 * aborted it as a deadlock victim or a serialization failure; at most `attempts` times, with a
 * jittered exponential pause between (10–20 ms, 20–40 ms, …) so that the transactions that met
 * do not meet again in step. `run` must not keep state between attempts.
 */
export async function transactionWithRetry<T>(db: Knex, run: (trx: Knex.Transaction, attempt: number) => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const attempts = options.attempts ?? TRANSACTION_ATTEMPTS;
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction((trx) => run(trx, attempt));
    } catch (err) {
      const reason = retryableReason(err);
      if (reason === null || attempt >= attempts) throw err;
      options.onRetry?.(reason, attempt);
      const backoff = BASE_BACKOFF_MS * 2 ** (attempt - 1);
      await sleep(backoff + Math.random() * backoff);
    }
  }
}

/**
 * Runs `effect` once the transaction `trx` belongs to has committed (never if it rolls back): for
 * the rare effect outside the database that code deep in a transaction must cause. A failure of
 * the effect goes to `onError`.
 */
export function afterCommitOf(trx: Knex.Transaction, effect: () => Promise<void>, onError: (err: unknown) => void): void {
  let root = trx as Knex.Transaction & { parentTransaction?: Knex.Transaction };
  while (root.parentTransaction) root = root.parentTransaction as typeof root;
  root.executionPromise.then(
    () => effect().catch(onError),
    () => {},
  );
}
