import { z } from 'zod';
import { credentialPolicySchema } from '../../../domain/credentialPolicy.js';
import { SCOPES } from '../../../domain/scopes.js';
import type { ApiClient, ApiToken, User } from '../../../services/apiCredentials.js';
import { iso, timestamp } from '../common.js';

export const apiClientSchema = z.object({ id: z.string(), tenant_id: z.string(), name: z.string(), created_at: timestamp });
export const presentApiClient = (c: ApiClient) => ({ id: c.id, tenant_id: c.tenantId, name: c.name, created_at: iso(c.createdAt) });

export const tokenSchema = z.object({
  id: z.string(),
  api_client_id: z.string(),
  tenant_id: z.string(),
  user_id: z.string().nullable(),
  name: z.string(),
  deployment: z.enum(['sandbox', 'production']),
  prefix: z.string().describe('The first characters of the token, to tell tokens apart.'),
  scopes: z.array(z.enum(SCOPES)),
  status: z.enum(['active', 'revoked', 'expired']),
  expires_at: timestamp.nullable(),
  revoked_at: timestamp.nullable(),
  last_used_at: timestamp.nullable().describe('Updated at most once a minute.'),
  policy: credentialPolicySchema.nullable().describe('Its credential policy (docs/credentials.md); null: its scopes alone.'),
  created_at: timestamp,
});

export const presentToken = (t: ApiToken, now: Date) => ({
  id: t.id,
  api_client_id: t.apiClientId,
  tenant_id: t.tenantId,
  user_id: t.userId,
  name: t.name,
  deployment: t.deployment,
  prefix: t.displayPrefix,
  scopes: t.scopes,
  status: t.revokedAt ? 'revoked' : t.expiresAt && t.expiresAt <= now ? 'expired' : 'active',
  expires_at: iso(t.expiresAt),
  revoked_at: iso(t.revokedAt),
  last_used_at: iso(t.lastUsedAt),
  policy: t.policy,
  created_at: iso(t.createdAt),
});

export const userSchema = z.object({
  id: z.string(),
  tenant_id: z.string(),
  email: z.string(),
  permissions: z.array(z.string()),
  created_at: timestamp,
});
export const presentUser = (u: User) => ({ id: u.id, tenant_id: u.tenantId, email: u.email, permissions: u.permissions, created_at: iso(u.createdAt) });
