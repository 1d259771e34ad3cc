// TSIG keys of tenants (docs/credentials.md): the row and its mapper. The secret stays sealed in
// the row (AES-256-GCM under the key-encryption key); the domain object never carries it.
import type { CredentialPolicy } from '../../domain/credentialPolicy.js';
import type { TsigAlgorithm } from '../../domain/tsigKeys.js';
import { TSIG_KEYS_CHANNEL } from '../channels.js';
import type { Runner, Transaction } from '../context.js';
import { countRows } from '../count.js';
import { paginate } from '../paginate.js';
import { PREPARED } from '../preparedStatements.js';
import type { ScopedDb } from '../tenantScope.js';
import { chainFromJson } from './identityStore.js';
import type { Tenant } from './tenantRows.js';

export interface TsigKeyRow {
  id: string;
  tenant_id: string;
  name: string;
  algorithm: TsigAlgorithm;
  /** Sealed: src/db/sealedSecrets.ts sealSecret. */
  secret: Buffer;
  policy: CredentialPolicy | null;
  created_at: Date;
  updated_at: Date;
  rotated_at: Date | null;
}

export interface TsigKey {
  id: string;
  tenantId: string;
  /** The key's DNS name: lower case, A-labels, no trailing dot; unique in the deployment. */
  name: string;
  algorithm: TsigAlgorithm;
  policy: CredentialPolicy | null;
  createdAt: Date;
  updatedAt: Date;
  rotatedAt: Date | null;
}

/** The columns a read selects: never the secret, which only the nameservers' list decrypts. */
const TSIG_KEY_COLUMNS = ['id', 'tenant_id', 'name', 'algorithm', 'policy', 'created_at', 'updated_at', 'rotated_at'] as const;

const tsigKeyToDomain = (r: Omit<TsigKeyRow, 'secret'>): TsigKey => ({
  id: r.id,
  tenantId: r.tenant_id,
  name: r.name,
  algorithm: r.algorithm,
  policy: r.policy ?? null,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  rotatedAt: r.rotated_at,
});

/**
 * Every tenant's key with its sealed secret, by name. Unscoped like the publication's reads of
 * every zone: the nameservers serve every tenant, and find a key by its name alone.
 */
export const allTsigKeyRows = (db: Runner): Promise<TsigKeyRow[]> => db<TsigKeyRow>('tsig_keys').select('*').orderBy('name');

const byId = [{ column: 'id', direction: 'asc' as const, field: 'id' }];

const keysOf = (scoped: ScopedDb) => scoped.from('tsig_keys').select(...TSIG_KEY_COLUMNS);

export async function pageTsigKeys(scoped: ScopedDb, after: unknown[] | null, limit: number) {
  const page = await paginate<TsigKeyRow & Record<string, unknown>>(keysOf(scoped), byId, after, limit);
  return { items: page.rows.map(tsigKeyToDomain), next: page.next };
}

export async function findTsigKey(scoped: ScopedDb, id: string): Promise<TsigKey | null> {
  const row = (await keysOf(scoped).where('id', id).first()) as TsigKeyRow | undefined;
  return row ? tsigKeyToDomain(row) : null;
}

export const countTenantTsigKeys = (db: Runner, tenantId: string): Promise<number> => countRows(db('tsig_keys').where('tenant_id', tenantId));

/** Tells the nameserver processes, on commit, that the key list changed. */
export const notifyTsigKeysChanged = async (trx: Transaction, id: string): Promise<void> => {
  await trx.raw('SELECT pg_notify(?, ?)', [TSIG_KEYS_CHANNEL, id]);
};

/** The new key, or null when its name is taken (names are unique in the deployment). */
export async function insertTsigKey(trx: Transaction, row: Omit<TsigKeyRow, 'rotated_at'>): Promise<TsigKey | null> {
  const [inserted] = (await trx('tsig_keys')
    .insert({ ...row, policy: row.policy ? JSON.stringify(row.policy) : null })
    .onConflict('name')
    .ignore()
    .returning(TSIG_KEY_COLUMNS as unknown as string[])) as TsigKeyRow[];
  return inserted ? tsigKeyToDomain(inserted) : null;
}

/** Changes columns of a key of the subtree; null when it is gone. */
export async function updateTsigKeyRow(
  scoped: ScopedDb,
  id: string,
  columns: Partial<Pick<TsigKeyRow, 'secret' | 'policy' | 'rotated_at'>>,
  now: Date,
): Promise<TsigKey | null> {
  const set = { ...columns, ...('policy' in columns ? { policy: columns.policy ? JSON.stringify(columns.policy) : null } : {}), updated_at: now };
  const [row] = (await scoped
    .from('tsig_keys')
    .where('id', id)
    .update(set)
    .returning(TSIG_KEY_COLUMNS as unknown as string[])) as TsigKeyRow[];
  return row ? tsigKeyToDomain(row) : null;
}

export async function deleteTsigKeyRow(scoped: ScopedDb, id: string): Promise<void> {
  await scoped.from('tsig_keys').where('id', id).delete();
}

/** A tenant's key as an RFC 2136 update signs with it: its policy and its tenant's chain (root first), in one round trip. */
export async function tsigKeyWithChain(
  db: Runner,
  id: string,
): Promise<{ id: string; name: string; tenantId: string; policy: CredentialPolicy | null; chain: Tenant[] } | null> {
  const row = (await db('tsig_keys as k')
    .select('k.id', 'k.name', 'k.tenant_id', 'k.policy')
    .select(db.raw('(SELECT jsonb_agg(to_jsonb(a.*)) FROM tenants t JOIN tenants a ON a.id = ANY (t.path) WHERE t.id = k.tenant_id) AS chain'))
    .where('k.id', id)
    .first()
    .options(PREPARED)) as
    | { id: string; name: string; tenant_id: string; policy: CredentialPolicy | null; chain: Record<string, unknown>[] | null }
    | undefined;
  if (!row) return null;
  return { id: row.id, name: row.name, tenantId: row.tenant_id, policy: row.policy ?? null, chain: chainFromJson(row.tenant_id, row.chain) };
}
