// Writes run in one transaction; with an Idempotency-Key the stored response commits with the
// effect (docs/api-conventions.md).
import type { Knex } from 'knex';
import { findStoredResponse, type IdempotencyScope, storeResponse, tryLockIdempotencyKey } from '../db/idempotencyRecords.js';
import { DomainError } from '../domain/errors.js';

export type { IdempotencyScope };

/** A response as stored for replay and as written to the client. */
export interface FinalResponse {
  status: number;
  headers: Record<string, string>;
  body: string | null;
  contentType: string;
}

const DEFAULT_TYPE = 'application/json; charset=utf-8';

/**
 * With a key, the transaction first takes the key's advisory lock (held by another request →
 * 409 idempotency_in_progress), replays a stored response (different request → 422
 * idempotency_key_reused), or runs the handler and stores its response in the same transaction
 * — so the effect and its record commit together or not at all, and a crash leaves neither.
 */
export async function runWrite(
  db: Knex,
  key: IdempotencyScope | null,
  fingerprint: string,
  now: Date,
  run: (trx: Knex.Transaction) => Promise<FinalResponse>,
): Promise<FinalResponse> {
  return db.transaction(async (trx) => {
    if (key) {
      if (!(await tryLockIdempotencyKey(trx, key))) throw new DomainError('idempotency_in_progress');
      const stored = await findStoredResponse(trx, key, now);
      if (stored) {
        if (stored.fingerprint !== fingerprint) throw new DomainError('idempotency_key_reused');
        const { 'content-type': contentType = DEFAULT_TYPE, ...headers } = stored.headers;
        return { status: stored.status, headers: { ...headers, 'Idempotent-Replayed': 'true' }, body: stored.body, contentType };
      }
    }
    const response = await run(trx);
    if (key) {
      response.headers['Idempotent-Replayed'] = 'false';
      await storeResponse(
        trx,
        key,
        { fingerprint, status: response.status, headers: { ...response.headers, 'content-type': response.contentType }, body: response.body },
        now,
      );
    }
    return response;
  });
}
