// Credentials made through the API, as a panel would: an API client of a tenant and a token for it.
import { expect } from 'vitest';
import type { ApiClient } from './apiClient.js';

/**
 * A new API client of `tenantId` and a token for it, made by `admin` (a tenant above it, or the
 * tenant itself); `more`: further fields of the token (a credential `policy`, `expires_at`).
 */
export async function issueToken(
  admin: ApiClient,
  tenantId: string,
  scopes: readonly string[],
  name = 'test client',
  more: Record<string, unknown> = {},
): Promise<{ id: string; token: string }> {
  const client = await admin.post(`/tenants/${tenantId}/api-clients`, { name });
  expect(client.status, client.text).toBe(201);
  const token = await admin.post(`/api-clients/${client.body.id}/tokens`, { name, scopes, ...more });
  expect(token.status, token.text).toBe(201);
  return { id: token.body.id, token: token.body.token };
}
