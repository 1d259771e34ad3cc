// Writes run in one transaction; with an Idempotency-Key the stored response commits with the
// effect, and a refusal is stored as well (docs/api-conventions.md).
import { type DbContext, inSavepoint, type TransactionContext } from '../db/context.js';
import { type RetryOptions, retryableReason, transactionWithRetry } from '../db/transaction.js';
import { findStoredResponse, type IdempotencyScope, type StoredResponse, storeResponse, tryLockIdempotencyKey } from '../db/idempotencyRecords.js';
import { DomainError, type ErrorCode, errorCatalogue, type FieldError } from '../domain/errors.js';

export type { IdempotencyScope };
export { retryableReason };

/** A response as stored for replay and as written to the client. */
export interface FinalResponse {
  status: number;
  headers: Record<string, string>;
  body: string | null;
  contentType: string;
}

/** Registers what to do once the write has committed; dropped if it rolls back. */
export type AfterCommit = (effect: () => void) => void;

const DEFAULT_TYPE = 'application/json; charset=utf-8';
// Stored refusals keep the problem's parts, not its text: a replay is written anew in the
// language and with the request id of the request that receives it.
const PROBLEM_TYPE = 'application/problem+json';
export const REPLAYED = 'Idempotent-Replayed';

/**
 * Refusals that are the answer to the request itself and therefore stored under its key, so that
 * a retry gets the same answer (spec: the first response is stored): every 4xx the write or the
 * validation of its input gives. Not stored: the key's own refusals (in progress, reused), rate
 * limits (429: they pass by themselves) and 5xx (the request may well succeed when retried).
 */
function isStoredRefusal(err: unknown): err is DomainError {
  if (!(err instanceof DomainError)) return false;
  const { status } = errorCatalogue[err.code];
  return status >= 400 && status < 500 && status !== 429 && err.code !== 'idempotency_in_progress' && err.code !== 'idempotency_key_reused';
}

function withReplayedHeader(err: DomainError, replayed: boolean): DomainError {
  return new DomainError(err.code, err.params, err.errors, { ...err.headers, [REPLAYED]: String(replayed) });
}

function refusalRecord(err: DomainError, fingerprint: string): StoredResponse {
  return {
    fingerprint,
    status: errorCatalogue[err.code].status,
    headers: { ...err.headers, 'content-type': PROBLEM_TYPE },
    body: JSON.stringify({ code: err.code, params: err.params, errors: err.errors }),
  };
}

function replay(stored: StoredResponse): FinalResponse {
  const { 'content-type': contentType = DEFAULT_TYPE, ...headers } = stored.headers;
  if (contentType === PROBLEM_TYPE) {
    const { code, params, errors } = JSON.parse(stored.body!) as { code: ErrorCode; params: Record<string, string | number>; errors: FieldError[] };
    throw new DomainError(code, params, errors, { ...headers, [REPLAYED]: 'true' });
  }
  return { status: stored.status, headers: { ...headers, [REPLAYED]: 'true' }, body: stored.body, contentType };
}

/**
 * Runs a write in one transaction of `pool`'s runner and, after it committed, the effects `run`
 * registered. `run` gets the transaction confined like `pool` (the acting tenant's subtree, a
 * credential's zones): the caller never opens a transaction itself.
 *
 * With a key, the transaction first takes the key's advisory lock (held by another request →
 * 409 idempotency_in_progress) and replays a stored response or refusal (different request → 422
 * idempotency_key_reused). Otherwise `run` works inside a savepoint: its response is stored with
 * its effect, and both commit or neither does; a refusal (isStoredRefusal) rolls back to the
 * savepoint — the effect is gone — and is stored in its own statement while the lock is still
 * held, so no second request with the key can run in between: one effect, one answer.
 *
 * A transaction PostgreSQL aborted as a deadlock victim or a serialization failure runs again
 * whole (src/db/transaction.ts): `run` starts over in a new transaction, with the effects of the
 * failed attempt dropped; the client sees one answer.
 */
export async function runWrite(
  pool: DbContext,
  key: IdempotencyScope | null,
  fingerprint: string,
  now: Date,
  run: (tx: TransactionContext, afterCommit: AfterCommit) => Promise<FinalResponse>,
  retry: RetryOptions = {},
): Promise<FinalResponse> {
  let effects: (() => void)[] = [];
  const afterCommit: AfterCommit = (effect) => effects.push(effect);
  const outcome = await transactionWithRetry(
    pool.db,
    async (trx): Promise<FinalResponse | DomainError> => {
      effects = [];
      const tx: TransactionContext = { db: trx, scoped: pool.scoped.within(trx) };
      if (!key) return run(tx, afterCommit);
      if (!(await tryLockIdempotencyKey(trx, key))) throw new DomainError('idempotency_in_progress');
      const stored = await findStoredResponse(trx, key, now);
      if (stored) {
        if (stored.fingerprint !== fingerprint) throw new DomainError('idempotency_key_reused');
        return replay(stored);
      }
      try {
        const response = await inSavepoint(tx, (savepoint) => run(savepoint, afterCommit));
        response.headers[REPLAYED] = 'false';
        await storeResponse(
          trx,
          key,
          { fingerprint, status: response.status, headers: { ...response.headers, 'content-type': response.contentType }, body: response.body },
          now,
        );
        return response;
      } catch (err) {
        if (!isStoredRefusal(err)) throw err;
        effects = [];
        await storeResponse(trx, key, refusalRecord(err, fingerprint), now);
        return withReplayedHeader(err, false);
      }
    },
    retry,
  );
  if (outcome instanceof DomainError) throw outcome;
  for (const effect of effects) effect();
  return outcome;
}
