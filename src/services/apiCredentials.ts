// API clients, their tokens, and the users tokens may be tied to.
import { recordAudit } from '../db/repositories/auditLog.js';
import { paginate } from '../db/paginate.js';
import type { ScopedDb } from '../db/tenantScope.js';
import type { Deployment } from '../config/index.js';
import { type CredentialPolicy, type CredentialPolicyInput, normalizeCredentialPolicy } from '../domain/credentialPolicy.js';
import { DomainError, notFound, validationFailed } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import { missingScopes, type Scope } from '../domain/scopes.js';
import { displayPrefix, generateToken, hashToken } from '../domain/tokens.js';
import { assertPolicyWithinActor } from './credentialPolicy.js';
import { getTenant } from './tenantAdmin.js';
import type { WriteContext } from './writeContext.js';

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

export async function getApiClient(scoped: ScopedDb, id: string): Promise<ApiClient> {
  const row = await scoped.from('api_clients').where('id', id).first();
  if (!row) throw notFound('API client');
  return clientToDomain(row);
}

export async function listApiClients(scoped: ScopedDb, tenantId: string, after: unknown[] | null, limit: number) {
  await getTenant(scoped, tenantId);
  const page = await paginate(scoped.from('api_clients').where('tenant_id', tenantId).select('*'), byId, after, limit);
  return { items: page.rows.map(clientToDomain), next: page.next };
}

export async function createApiClient(ctx: WriteContext, tenantId: string, name: string): Promise<ApiClient> {
  await getTenant(ctx.scoped, tenantId);
  const now = ctx.clock.now();
  const [row] = await ctx.scoped.insert('api_clients', { id: newId('cli'), tenant_id: tenantId, name, created_at: now });
  await recordAudit(ctx.trx, ctx.actor, now, { action: 'api_client.created', targetType: 'api_client', targetId: row.id, details: { name, tenant_id: tenantId } });
  return clientToDomain(row);
}

export async function listTokens(scoped: ScopedDb, apiClientId: string, after: unknown[] | null, limit: number) {
  await getApiClient(scoped, apiClientId);
  const page = await paginate(scoped.from('api_tokens').where('api_client_id', apiClientId).select('*'), byId, after, limit);
  return { items: page.rows.map(tokenToDomain), next: page.next };
}

export async function getToken(scoped: ScopedDb, id: string): Promise<ApiToken> {
  const row = await scoped.from('api_tokens').where('id', id).first();
  if (!row) throw notFound('token');
  return tokenToDomain(row);
}

export interface TokenInput {
  name: string;
  scopes: Scope[];
  expires_at?: Date | null;
  user_id?: string | null;
  policy?: CredentialPolicyInput | null;
}

/**
 * Issues a token. The secret is returned once and only its hash is stored. A token can never
 * grant more than the token that created it (no escalation through minting): neither a scope it
 * lacks nor more than its own credential policy allows.
 */
export async function createToken(
  ctx: WriteContext,
  deployment: Deployment,
  apiClientId: string,
  input: TokenInput,
): Promise<{ token: ApiToken; secret: string }> {
  const client = await getApiClient(ctx.scoped, apiClientId);
  const beyond = missingScopes(ctx.actor.token.scopes, input.scopes);
  if (beyond.length) {
    throw validationFailed(
      beyond.map((s) => ({
        pointer: `/scopes/${input.scopes.indexOf(s)}`,
        index: input.scopes.indexOf(s),
        code: 'scope_not_held',
        detail: `The calling token does not hold "${s}", so it cannot grant it.`,
      })),
    );
  }
  if (input.user_id) {
    const user = await ctx.scoped.from('users').where({ id: input.user_id, tenant_id: client.tenantId }).first('id');
    if (!user) throw validationFailed([{ pointer: '/user_id', code: 'unknown_user', detail: "No such user in the API client's tenant." }]);
  }
  if (input.expires_at && input.expires_at <= ctx.clock.now()) {
    throw validationFailed([{ pointer: '/expires_at', code: 'in_the_past', detail: 'The expiry lies in the past.' }]);
  }
  const policy = input.policy ? normalizeCredentialPolicy(input.policy, ctx.clock.now()) : null;
  assertPolicyWithinActor(ctx.actor, policy);
  const secret = generateToken(deployment);
  const now = ctx.clock.now();
  const [row] = await ctx.scoped.insert('api_tokens', {
    id: newId('tok'),
    api_client_id: client.id,
    tenant_id: client.tenantId,
    user_id: input.user_id ?? null,
    name: input.name,
    deployment,
    token_hash: hashToken(secret),
    display_prefix: displayPrefix(secret),
    scopes: [...new Set(input.scopes)],
    expires_at: input.expires_at ?? null,
    policy: policy ? JSON.stringify(policy) : null,
    created_at: now,
  });
  await recordAudit(ctx.trx, ctx.actor, now, {
    action: 'token.created',
    targetType: 'token',
    targetId: row.id,
    details: { api_client_id: client.id, scopes: row.scopes, ...(policy ? { policy } : {}) },
  });
  return { token: tokenToDomain(row), secret };
}

export async function revokeToken(ctx: WriteContext, id: string): Promise<ApiToken> {
  const current = await getToken(ctx.scoped, id);
  if (current.revokedAt) return current;
  ctx.identityChanged();
  const now = ctx.clock.now();
  const [row] = await ctx.scoped.from('api_tokens').where('id', id).update({ revoked_at: now }).returning('*');
  await recordAudit(ctx.trx, ctx.actor, now, { action: 'token.revoked', targetType: 'token', targetId: id });
  return tokenToDomain(row);
}

export async function listUsers(scoped: ScopedDb, tenantId: string, after: unknown[] | null, limit: number) {
  await getTenant(scoped, tenantId);
  const page = await paginate(scoped.from('users').where('tenant_id', tenantId).select('*'), byId, after, limit);
  return { items: page.rows.map(userToDomain), next: page.next };
}

export async function createUser(ctx: WriteContext, tenantId: string, email: string, permissions: string[]): Promise<User> {
  await getTenant(ctx.scoped, tenantId);
  const taken = await ctx.scoped.from('users').where({ tenant_id: tenantId }).whereRaw('lower(email) = lower(?)', [email]).first('id');
  if (taken) throw new DomainError('conflict', { reason: 'user_exists', email });
  const now = ctx.clock.now();
  const [row] = await ctx.scoped.insert('users', { id: newId('usr'), tenant_id: tenantId, email, permissions, created_at: now });
  await recordAudit(ctx.trx, ctx.actor, now, { action: 'user.created', targetType: 'user', targetId: row.id, details: { email, permissions } });
  return userToDomain(row);
}
