// API clients, their tokens and the users tokens may be tied to (docs/credentials.md): rows,
// mappers and the statements of src/services/apiCredentials.ts, confined to the acting subtree.
import type { CredentialPolicy } from '../../domain/credentialPolicy.js';
import type { Deployment } from '../../domain/deployment.js';
import { type Page, paginate } from '../paginate.js';
import type { Runner } from '../context.js';
import type { ScopedDb } from '../tenantScope.js';

export interface ApiClient {
  id: string;
  tenantId: string;
  name: string;
  createdAt: Date;
}

export interface ApiToken {
  id: string;
  apiClientId: string;
  tenantId: string;
  userId: string | null;
  name: string;
  deployment: Deployment;
  displayPrefix: string;
  scopes: string[];
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  createdAt: Date;
  /** Its credential policy (docs/credentials.md); null: its scopes alone. */
  policy: CredentialPolicy | null;
}

export interface User {
  id: string;
  tenantId: string;
  email: string;
  permissions: string[];
  createdAt: Date;
}

const clientToDomain = (r: any): ApiClient => ({ id: r.id, tenantId: r.tenant_id, name: r.name, createdAt: r.created_at });
const tokenToDomain = (r: any): ApiToken => ({
  id: r.id,
  apiClientId: r.api_client_id,
  tenantId: r.tenant_id,
  userId: r.user_id,
  name: r.name,
  deployment: r.deployment,
  displayPrefix: r.display_prefix,
  scopes: r.scopes,
  expiresAt: r.expires_at,
  revokedAt: r.revoked_at,
  lastUsedAt: r.last_used_at,
  createdAt: r.created_at,
  policy: r.policy ?? null,
});
const userToDomain = (r: any): User => ({
  id: r.id,
  tenantId: r.tenant_id,
  email: r.email,
  permissions: r.permissions,
  createdAt: r.created_at,
});

const byId = [{ column: 'id', direction: 'asc' as const, field: 'id' }];

const pageOf = <T>(page: Page<Record<string, unknown>>, toDomain: (r: any) => T) => ({ items: page.rows.map(toDomain), next: page.next });

export async function findApiClient(scoped: ScopedDb, id: string): Promise<ApiClient | null> {
  const row = await scoped.from('api_clients').where('id', id).first();
  return row ? clientToDomain(row) : null;
}

export const pageApiClients = async (scoped: ScopedDb, tenantId: string, after: unknown[] | null, limit: number) =>
  pageOf(await paginate(scoped.from('api_clients').where('tenant_id', tenantId).select('*'), byId, after, limit), clientToDomain);

export async function insertApiClient(scoped: ScopedDb, client: { id: string; tenantId: string; name: string; createdAt: Date }): Promise<ApiClient> {
  const [row] = await scoped.insert('api_clients', { id: client.id, tenant_id: client.tenantId, name: client.name, created_at: client.createdAt });
  return clientToDomain(row);
}

export const pageTokens = async (scoped: ScopedDb, apiClientId: string, after: unknown[] | null, limit: number) =>
  pageOf(await paginate(scoped.from('api_tokens').where('api_client_id', apiClientId).select('*'), byId, after, limit), tokenToDomain);

export async function findToken(scoped: ScopedDb, id: string): Promise<ApiToken | null> {
  const row = await scoped.from('api_tokens').where('id', id).first();
  return row ? tokenToDomain(row) : null;
}

/** A token to store: its hash, never the secret. */
export type NewToken = Pick<
  ApiToken,
  'id' | 'apiClientId' | 'tenantId' | 'userId' | 'name' | 'deployment' | 'displayPrefix' | 'scopes' | 'expiresAt' | 'policy' | 'createdAt'
> & {
  tokenHash: string;
};

const tokenColumns = ({ apiClientId, tenantId, userId, tokenHash, displayPrefix, expiresAt, createdAt, policy, ...same }: NewToken) => ({
  ...same,
  api_client_id: apiClientId,
  tenant_id: tenantId,
  user_id: userId,
  token_hash: tokenHash,
  display_prefix: displayPrefix,
  expires_at: expiresAt,
  policy: policy ? JSON.stringify(policy) : null,
  created_at: createdAt,
});

export async function insertToken(scoped: ScopedDb, t: NewToken): Promise<ApiToken> {
  const [row] = await scoped.insert('api_tokens', tokenColumns(t));
  return tokenToDomain(row);
}

export async function markTokenRevoked(scoped: ScopedDb, id: string, now: Date): Promise<ApiToken> {
  const [row] = await scoped.from('api_tokens').where('id', id).update({ revoked_at: now }).returning('*');
  return tokenToDomain(row);
}

export const pageUsers = async (scoped: ScopedDb, tenantId: string, after: unknown[] | null, limit: number) =>
  pageOf(await paginate(scoped.from('users').where('tenant_id', tenantId).select('*'), byId, after, limit), userToDomain);

export const userExists = async (scoped: ScopedDb, tenantId: string, id: string): Promise<boolean> =>
  (await scoped.from('users').where({ id, tenant_id: tenantId }).first('id')) !== undefined;

/** E-mail addresses are unique per tenant, case aside. */
export const userEmailTaken = async (scoped: ScopedDb, tenantId: string, email: string): Promise<boolean> =>
  (await scoped.from('users').where({ tenant_id: tenantId }).whereRaw('lower(email) = lower(?)', [email]).first('id')) !== undefined;

export async function insertUser(
  scoped: ScopedDb,
  user: { id: string; tenantId: string; email: string; permissions: string[]; createdAt: Date },
): Promise<User> {
  const [row] = await scoped.insert('users', {
    id: user.id,
    tenant_id: user.tenantId,
    email: user.email,
    permissions: user.permissions,
    created_at: user.createdAt,
  });
  return userToDomain(row);
}

/**
 * A client and its token outside any acting tenant's scope: the platform's first, before any
 * acting tenant exists, and the sandbox lab's seeded tenants' (src/lab/seed.ts).
 */
export async function insertBootstrapCredentials(
  trx: Runner,
  client: { id: string; tenantId: string; name: string; createdAt: Date },
  token: NewToken,
): Promise<void> {
  await trx('api_clients').insert({ id: client.id, tenant_id: client.tenantId, name: client.name, created_at: client.createdAt });
  await trx('api_tokens').insert(tokenColumns(token));
}

/** Whether the tenant has an unrevoked token of that hash (unscoped: the lab's check of its tokens file). */
export const unrevokedTokenExists = async (db: Runner, tokenHash: string, tenantId: string): Promise<boolean> =>
  (await db('api_tokens').where({ token_hash: tokenHash, tenant_id: tenantId }).whereNull('revoked_at').first('id')) !== undefined;
