import type { Knex } from 'knex';
import { tryAdvisoryLock } from './lockOrder.js';

const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export interface StoredResponse {
  fingerprint: string;
  status: number;
  headers: Record<string, string>;
  body: string | null;
}

export interface IdempotencyScope {
  apiClientId: string;
  tenantId: string;
  key: string;
}

/**
 * Takes the transaction-scoped advisory lock of the key. False means another request with the
 * same key holds it right now. The lock ends with the transaction, so a crash leaves nothing
 * behind to clean up.
 */
export async function tryLockIdempotencyKey(trx: Knex.Transaction, s: IdempotencyScope): Promise<boolean> {
  return tryAdvisoryLock(trx, 'idempotency_key', `idem|${s.apiClientId}|${s.tenantId}|${s.key}`);
}

export async function findStoredResponse(trx: Knex.Transaction, s: IdempotencyScope, now: Date): Promise<StoredResponse | null> {
  const row = await trx('idempotency_records')
    .where({ api_client_id: s.apiClientId, tenant_id: s.tenantId, key: s.key })
    .andWhere('expires_at', '>', now)
    .first();
  return row ? { fingerprint: row.fingerprint, status: row.status, headers: row.headers, body: row.body } : null;
}

export async function storeResponse(trx: Knex.Transaction, s: IdempotencyScope, response: StoredResponse, now: Date) {
  await trx('idempotency_records')
    .insert({
      api_client_id: s.apiClientId,
      tenant_id: s.tenantId,
      key: s.key,
      fingerprint: response.fingerprint,
      status: response.status,
      headers: JSON.stringify(response.headers),
      body: response.body,
      created_at: now,
      expires_at: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
    })
    // An expired record of the same key is replaced.
    .onConflict(['api_client_id', 'tenant_id', 'key'])
    .merge();
}

export async function deleteExpiredIdempotencyRecords(db: Knex, now: Date): Promise<number> {
  return db('idempotency_records').where('expires_at', '<=', now).delete();
}
