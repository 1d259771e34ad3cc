// Authentication reads a token with its client and tenant chain from a one-second cache
// (src/services/tokenCache.ts). What a user relies on: a change made through the API counts for
// the very next request to the same process, and for other API processes within a second.
import pg from 'pg';
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

describe('what empties the cache: identity changes, where they happen, and nothing else', () => {
  /**
   * The token's tenant gets a new rate limit behind the service's back (plain SQL, which empties
   * no cache), then `write` runs through the API; the next request with the token shows the limit
   * it was authenticated with: the old one while its cached record lives, the new one once the
   * cache was emptied. The record lives one second; a round that took longer proves nothing and
   * is run again.
   */
  async function limitSeenAfter(write: () => Promise<void>): Promise<'cached' | 'fresh'> {
    const { tenantId, token } = await customerWithToken();
    const sql = new pg.Client({ connectionString: lab.databaseUrl });
    await sql.connect();
    try {
      for (let round = 1; ; round++) {
        const started = performance.now();
        const before = await lab.as(token).get('/me');
        expect(before.status).toBe(200);
        const old = Number(before.headers.get('ratelimit-limit'));
        await sql.query('UPDATE tenants SET api_rate_limit_per_minute = $1 WHERE id = $2', [old + 1, tenantId]);
        await write();
        const after = await lab.as(token).get('/me');
        if (performance.now() - started < 800) {
          const limit = Number(after.headers.get('ratelimit-limit'));
          expect([old, old + 1]).toContain(limit);
          return limit === old ? 'cached' : 'fresh';
        }
        if (round === 5) throw new Error('five rounds took longer than the cache lifetime');
      }
    } finally {
      await sql.end();
    }
  }

  const customer = () => lab.as(lab.tokens.customers[0]);
  const reseller = () => lab.as(lab.tokens.reseller);
  let zone: string;
  beforeAll(async () => {
    zone = `cache-${process.pid}.test`;
    expect((await customer().post('/zones', { name: zone })).status).toBe(201);
  });

  it('a record write keeps it', async () => {
    expect(
      await limitSeenAfter(async () => {
        const res = await customer().post(`/zones/${zone}/records`, { type: 'TXT', name: `n${++seq}`, data: { text: 'cache' } });
        expect(res.status).toBe(201);
      }),
    ).toBe('cached');
  });

  it('a template write keeps it', async () => {
    expect(
      await limitSeenAfter(async () => {
        const res = await reseller().post('/templates', {
          name: `Cache ${process.pid}-${++seq}`,
          variables: [],
          records: [{ type: 'TXT', name: '@', data: { text: 'cache' } }],
        });
        expect(res.status, res.text).toBe(201);
      }),
    ).toBe('cached');
  });

  it('suspending any tenant empties it', async () => {
    const other = await reseller().post('/tenants', { type: 'customer', name: `Suspended ${process.pid}-${++seq}` });
    expect(other.status).toBe(201);
    expect(
      await limitSeenAfter(async () => {
        expect((await reseller().post(`/tenants/${other.body.id}/suspend`, { reason: 'cache test' })).status).toBe(200);
      }),
    ).toBe('fresh');
  });

  it('a refused identity write keeps it (nothing was committed)', async () => {
    expect(
      await limitSeenAfter(async () => {
        const res = await reseller().patch(
          `/tenants/${lab.tokens.tenants.customers[0]}`,
          { limits: { api_rate_limit_per_minute: 60 } },
          { headers: { 'If-Match': '"stale"' } },
        );
        expect(res.status).toBe(412);
      }),
    ).toBe('cached');
  });
});

// Last in this file: the reset deletes what the tests above created.
describe('the lab reset empties it once committed', () => {
  it('a seed tenant whose settings the reset restores is seen restored at the next request', async () => {
    const token = lab.tokens.customers[0];
    const tenantId = lab.tokens.tenants.customers[0];
    const sql = new pg.Client({ connectionString: lab.databaseUrl });
    await sql.connect();
    try {
      const seeded = Number((await lab.as(token).get('/me')).headers.get('ratelimit-limit'));
      // Behind the service's back, so that this process caches the changed limit.
      await sql.query('UPDATE tenants SET api_rate_limit_per_minute = $1 WHERE id = $2', [seeded + 7, tenantId]);
      for (let round = 1; ; round++) {
        await eventually(
          async () => (Number((await lab.as(token).get('/me')).headers.get('ratelimit-limit')) === seeded + 7 ? true : undefined),
          5000,
          'the changed limit to be read',
        );
        const started = performance.now();
        expect((await lab.as(lab.tokens.platform).post('/lab/reset')).status).toBe(204);
        const after = await lab.as(token).get('/me');
        if (performance.now() - started < 800) {
          expect(Number(after.headers.get('ratelimit-limit'))).toBe(seeded);
          return;
        }
        if (round === 5) throw new Error('five rounds took longer than the cache lifetime');
        await sql.query('UPDATE tenants SET api_rate_limit_per_minute = $1 WHERE id = $2', [seeded + 7, tenantId]);
      }
    } finally {
      await sql.end();
    }
  });
});
