// API clients, their tokens, and the users tokens may be tied to.
import type { DbContext } from '../db/context.js';
import { recordAudit } from '../db/repositories/auditLog.js';
import {
  type ApiClient,
  type ApiToken,
  findApiClient,
  findToken,
  insertApiClient,
  insertToken,
  insertUser,
  markTokenRevoked,
  pageApiClients,
  pageTokens,
  pageUsers,
  type User,
  userEmailTaken,
  userExists,
} from '../db/repositories/apiCredentialRows.js';
import type { Deployment } from '../config/index.js';
import { type CredentialPolicyInput, normalizeCredentialPolicy } from '../domain/credentialPolicy.js';
import { DomainError, notFound, validationFailed } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import { missingScopes, type Scope } from '../domain/scopes.js';
import { displayPrefix, generateToken, hashToken } from '../domain/tokens.js';
import { assertPolicyWithinActor } from './credentialPolicy.js';
import { getTenant } from './tenantAdmin.js';
import type { WriteContext } from './writeContext.js';

export type { ApiClient, ApiToken, User };

export async function getApiClient(ctx: DbContext, id: string): Promise<ApiClient> {
  const client = await findApiClient(ctx.scoped, id);
  if (!client) throw notFound('API client');
  return client;
}

export async function listApiClients(ctx: DbContext, tenantId: string, after: unknown[] | null, limit: number) {
  await getTenant(ctx, tenantId);
  return pageApiClients(ctx.scoped, tenantId, after, limit);
}

export async function createApiClient(ctx: WriteContext, tenantId: string, name: string): Promise<ApiClient> {
  await getTenant(ctx, tenantId);
  const now = ctx.clock.now();
  const client = await insertApiClient(ctx.scoped, { id: newId('cli'), tenantId, name, createdAt: now });
  await recordAudit(ctx.db, ctx.actor, now, {
    action: 'api_client.created',
    targetType: 'api_client',
    targetId: client.id,
    details: { name, tenant_id: tenantId },
  });
  return client;
}

export async function listTokens(ctx: DbContext, apiClientId: string, after: unknown[] | null, limit: number) {
  await getApiClient(ctx, apiClientId);
  return pageTokens(ctx.scoped, apiClientId, after, limit);
}

export async function getToken(ctx: DbContext, id: string): Promise<ApiToken> {
  const token = await findToken(ctx.scoped, id);
  if (!token) throw notFound('token');
  return token;
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
  const client = await getApiClient(ctx, apiClientId);
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
    if (!(await userExists(ctx.scoped, client.tenantId, input.user_id)))
      throw validationFailed([{ pointer: '/user_id', code: 'unknown_user', detail: "No such user in the API client's tenant." }]);
  }
  if (input.expires_at && input.expires_at <= ctx.clock.now()) {
    throw validationFailed([{ pointer: '/expires_at', code: 'in_the_past', detail: 'The expiry lies in the past.' }]);
  }
  const policy = input.policy ? normalizeCredentialPolicy(input.policy, ctx.clock.now()) : null;
  assertPolicyWithinActor(ctx.actor, policy);
  const secret = generateToken(deployment);
  const now = ctx.clock.now();
  const token = await insertToken(ctx.scoped, {
    id: newId('tok'),
    apiClientId: client.id,
    tenantId: client.tenantId,
    userId: input.user_id ?? null,
    name: input.name,
    deployment,
    tokenHash: hashToken(secret),
    displayPrefix: displayPrefix(secret),
    scopes: [...new Set(input.scopes)],
    expiresAt: input.expires_at ?? null,
    policy,
    createdAt: now,
  });
  await recordAudit(ctx.db, ctx.actor, now, {
    action: 'token.created',
    targetType: 'token',
    targetId: token.id,
    details: { api_client_id: client.id, scopes: token.scopes, ...(policy ? { policy } : {}) },
  });
  return { token, secret };
}

export async function revokeToken(ctx: WriteContext, id: string): Promise<ApiToken> {
  const current = await getToken(ctx, id);
  if (current.revokedAt) return current;
  ctx.identityChanged();
  const now = ctx.clock.now();
  const token = await markTokenRevoked(ctx.scoped, id, now);
  await recordAudit(ctx.db, ctx.actor, now, { action: 'token.revoked', targetType: 'token', targetId: id });
  return token;
}

export async function listUsers(ctx: DbContext, tenantId: string, after: unknown[] | null, limit: number) {
  await getTenant(ctx, tenantId);
  return pageUsers(ctx.scoped, tenantId, after, limit);
}

export async function createUser(ctx: WriteContext, tenantId: string, email: string, permissions: string[]): Promise<User> {
  await getTenant(ctx, tenantId);
  if (await userEmailTaken(ctx.scoped, tenantId, email)) throw new DomainError('conflict', { reason: 'user_exists', email });
  const now = ctx.clock.now();
  const user = await insertUser(ctx.scoped, { id: newId('usr'), tenantId, email, permissions, createdAt: now });
  await recordAudit(ctx.db, ctx.actor, now, { action: 'user.created', targetType: 'user', targetId: user.id, details: { email, permissions } });
  return user;
}
