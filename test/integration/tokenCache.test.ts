// Authentication reads a token with its client and tenant chain from a one-second cache
// (src/services/tokenCache.ts). What a user relies on: a change made through the API counts for
// the very next request to the same process, and for other API processes within a second.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../helpers/apiClient.js';
import { expectProblem } from '../helpers/assertions.js';
import { issueToken } from '../helpers/credentials.js';
import { eventually } from '../helpers/dnsQuery.js';
import { startTestService, type TestService } from '../helpers/testService.js';

let lab: TestService;
let second: TestService;
beforeAll(async () => {
  lab = await startTestService({ env: { ROLES: 'api' } });
  second = await startTestService({ databaseUrl: lab.databaseUrl, clock: lab.clock, env: { ROLES: 'api' } });
});
afterAll(async () => {
  await second?.stop();
  await lab?.stop();
});

let seq = 0;
/** A new customer of the reseller with an API client and a token. */
async function customerWithToken(): Promise<{ tenantId: string; tokenId: string; token: string }> {
  const reseller = lab.as(lab.tokens.reseller);
  const tenant = await reseller.post('/tenants', { type: 'customer', name: `Cached ${process.pid}-${++seq}` });
  expect(tenant.status).toBe(201);
  const { id, token } = await issueToken(reseller, tenant.body.id, ['tenant:read', 'zones:read'], 'panel');
  return { tenantId: tenant.body.id, tokenId: id, token };
}

describe('a change through this process counts for its next request', () => {
  it('a revoked token is refused at once, though it was used a moment before', async () => {
    const { tokenId, token } = await customerWithToken();
    expect((await lab.as(token).get('/me')).status).toBe(200);
    expect((await lab.as(lab.tokens.reseller).delete(`/tokens/${tokenId}`)).status).toBe(200);
    expectProblem(await lab.as(token).get('/me'), 401, 'unauthenticated');
  });

  it('a suspended tenant is refused at once, and admitted again at once when unsuspended', async () => {
    const { tenantId, token } = await customerWithToken();
    expect((await lab.as(token).get('/zones')).status).toBe(200);
    expect((await lab.as(lab.tokens.reseller).post(`/tenants/${tenantId}/suspend`, { reason: 'unpaid' })).status).toBe(200);
    expectProblem(await lab.as(token).get('/zones'), 403, 'tenant_suspended');
    expect((await lab.as(lab.tokens.reseller).post(`/tenants/${tenantId}/unsuspend`, {})).status).toBe(200);
    expect((await lab.as(token).get('/zones')).status).toBe(200);
  });

  it('a changed rate limit applies to the next request', async () => {
    const { tenantId, token } = await customerWithToken();
    const before = await lab.as(token).get('/me');
    expect(before.headers.get('ratelimit-limit')).toBe('300');
    expect((await lab.as(lab.tokens.reseller).patch(`/tenants/${tenantId}`, { limits: { api_rate_limit_per_minute: 2 } })).status).toBe(200);
    // The second request of this window is the last one the new limit allows.
    const after = await lab.as(token).get('/me');
    expect(after.status).toBe(200);
    expect([after.headers.get('ratelimit-limit'), after.headers.get('ratelimit-remaining')]).toEqual(['2', '0']);
    expectProblem(await lab.as(token).get('/me'), 429, 'rate_limited');
  });
});

describe('another API process', () => {
  it('refuses a token revoked elsewhere within a second', async () => {
    const { tokenId, token } = await customerWithToken();
    const elsewhere = new ApiClient(second.url, token);
    expect((await elsewhere.get('/me')).status).toBe(200);
    expect((await lab.as(lab.tokens.reseller).delete(`/tokens/${tokenId}`)).status).toBe(200);
    const revokedAt = Date.now();
    await eventually(async () => ((await elsewhere.get('/me')).status === 401 ? true : undefined), 5000, 'the other process to refuse the token');
    // One second of cache, plus the time the requests take on a loaded test machine.
    expect(Date.now() - revokedAt).toBeLessThan(2000);
  });
});
