// Rate limits (spec "Limits"): per API client and, when acting for a customer, also per customer,
// by the tenant limit api_rate_limit_per_minute; RateLimit-* headers on every response; 429
// rate_limited with Retry-After; one count shared by every API process of the deployment.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import { ApiClient, type ApiResponse } from '../helpers/apiClient.js';
import { issueToken } from '../helpers/credentials.js';
import { startTestService, type TestService } from '../helpers/testService.js';

const MINUTE = 60_000;
// The clock starts on a minute boundary, so the tests know where each window begins.
const clock = new ManualClock(new Date(Math.floor(Date.now() / MINUTE) * MINUTE));

let lab: TestService;
beforeAll(async () => {
  lab = await startTestService({ clock, env: { ROLES: 'api' } });
});
afterAll(() => lab?.stop());

/** Moves the clock to 10 seconds into the next one-minute window: 50 seconds remain. */
function startNextWindow() {
  clock.set(new Date((Math.floor(clock.now().getTime() / MINUTE) + 1) * MINUTE + 10_000));
}

let seq = 0;
const unique = (label: string) => `${label} ${process.pid}-${++seq}`;

/** A new customer below the reseller, its limit lowered by its parent (the reseller). */
async function customerWithLimit(perMinute: number): Promise<string> {
  const reseller = lab.as(lab.tokens.reseller);
  const created = await reseller.post('/tenants', { type: 'customer', name: unique('Rate limited customer') });
  expect(created.status).toBe(201);
  const patched = await reseller.patch(`/tenants/${created.body.id}`, { limits: { api_rate_limit_per_minute: perMinute } });
  expect(patched.status).toBe(200);
  expect(patched.body.limits.api_rate_limit_per_minute).toBe(perMinute);
  return created.body.id as string;
}

/** A new API client of `tenantId` and a token for it, made through the API by the reseller. */
const clientToken = async (tenantId: string, scopes: string[] = ['tenant:read', 'tenants:read']) =>
  (await issueToken(lab.as(lab.tokens.reseller), tenantId, scopes, unique('client'))).token;

const limitHeaders = (res: ApiResponse) => ({
  limit: res.headers.get('ratelimit-limit'),
  remaining: res.headers.get('ratelimit-remaining'),
  reset: res.headers.get('ratelimit-reset'),
});

function expectRateLimited(res: ApiResponse, retryAfter: number) {
  expect(res.status).toBe(429);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  expect(res.body).toMatchObject({ code: 'rate_limited', status: 429, title: 'Rate limit exceeded' });
  expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
  expect(res.headers.get('retry-after')).toBe(String(retryAfter));
  expect(res.headers.get('ratelimit-remaining')).toBe('0');
}

describe('rate-limit headers', () => {
  it('are on every response of an authenticated client, problems included, and every request counts', async () => {
    startNextWindow();
    const customer = lab.as(lab.tokens.customers[0]);
    const narrow = await clientToken(lab.tokens.tenants.customers[1], ['tenant:read']);
    const own = `/tenants/${lab.tokens.tenants.customers[0]}`;
    const responses = [await customer.get(own)]; // 200
    responses.push(
      await customer.get(own, { headers: { 'If-None-Match': responses[0]!.headers.get('etag')! } }), // 304
      await customer.get('/tenants/ten_doesnotexist'), // 404 problem
      await customer.get('/tenants?limit=0'), // 422 problem
      await customer.get('/me', { headers: { 'X-Act-As-Customer': lab.tokens.tenants.customers[1] } }), // 403 problem
      await customer.post(`${own}/api-clients`, { name: unique('counted') }), // 201
      await customer.post('/tenants', { type: 'customer', name: 'not allowed' }), // 422 from inside the write
    );
    expect(responses.map((r) => r.status)).toEqual([200, 304, 404, 422, 403, 201, 422]);
    // The lab customer's default limit is 300 a minute; each request takes one, whatever its outcome.
    expect(responses.map(limitHeaders)).toEqual(
      [299, 298, 297, 296, 295, 294, 293].map((remaining) => ({ limit: '300', remaining: String(remaining), reset: '50' })),
    );

    // A token without the scope still counts against its client before the 403.
    const denied = await lab.as(narrow).get('/tenants');
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('insufficient_scope');
    expect(limitHeaders(denied)).toEqual({ limit: '300', remaining: '299', reset: '50' });

    clock.advance(15_000);
    const later = await customer.get('/me');
    expect(limitHeaders(later)).toEqual({ limit: '300', remaining: '292', reset: '35' });
  });
});

describe('rate-limit headers where no route answers', () => {
  /** A request to any path, as sent (ApiClient only reaches /api/v1 paths with JSON bodies). */
  async function send(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<ApiResponse> {
    const res = await fetch(`${lab.url}${path}`, { method, headers, body });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text, text };
  }

  it('400, 404, 405, 413 and 415 of an authenticated client carry its count', async () => {
    startNextWindow();
    const auth = { authorization: `Bearer ${lab.tokens.customers[0]}` };
    const json = { ...auth, 'content-type': 'application/json' };
    const own = `/api/v1/tenants/${lab.tokens.tenants.customers[0]}`;
    const responses = [
      await send('POST', `${own}/api-clients`, json, '{"name": '), // 400 malformed JSON
      await send('POST', '/api/v1/tenants', json, `[${'['.repeat(100)}${']'.repeat(100)}]`), // 400 nesting_too_deep
      await send('GET', '/api/v1/no-such-thing', auth), // 404 unknown path
      await send('DELETE', '/api/v1/me', auth), // 405
      await send('POST', `${own}/api-clients`, json, JSON.stringify({ name: 'x'.repeat(3 * 1024 * 1024) })), // 413
      await send('POST', `${own}/api-clients`, { ...auth, 'content-type': 'text/plain' }, 'name=x'), // 415
    ];
    expect(responses.map((r) => r.status)).toEqual([400, 400, 404, 405, 413, 415]);
    expect(responses.map(limitHeaders)).toEqual(
      [299, 298, 297, 296, 295, 294].map((remaining) => ({ limit: '300', remaining: String(remaining), reset: '50' })),
    );
  });

  it('requests without a valid token count against their source address: 401 and 404 carry it, 429 past the limit', async () => {
    startNextWindow();
    const anonymous = new ApiClient(lab.url, null);
    const unknownToken = new ApiClient(lab.url, 'svc_test_neverIssued000000000000000000000000000');
    const first = await anonymous.get('/me');
    expect(first.status).toBe(401);
    expect(limitHeaders(first)).toEqual({ limit: '60', remaining: '59', reset: '50' });
    const second = await unknownToken.get('/zones');
    expect(second.status).toBe(401);
    expect(limitHeaders(second)).toEqual({ limit: '60', remaining: '58', reset: '50' });
    // An unknown path stays 404 without a token, and is counted like any other request.
    const unknownPath = await send('GET', '/api/v1/no-such-thing');
    expect(unknownPath.status).toBe(404);
    expect(limitHeaders(unknownPath)).toEqual({ limit: '60', remaining: '57', reset: '50' });

    const rest = [];
    for (let i = 0; i < 57; i++) rest.push(await anonymous.get('/me'));
    expect(rest.every((r) => r.status === 401)).toBe(true);
    expect(limitHeaders(rest.at(-1)!).remaining).toBe('0');
    expectRateLimited(await unknownToken.get('/me'), 50);
    // A client with a valid token from the same address counts in its own bucket.
    const customer = await lab.as(lab.tokens.customers[1]).get('/me');
    expect(customer.status).toBe(200);
    expect(customer.headers.get('ratelimit-limit')).toBe('300');

    startNextWindow();
    const nextWindow = await anonymous.get('/me');
    expect(nextWindow.status).toBe(401);
    expect(limitHeaders(nextWindow)).toEqual({ limit: '60', remaining: '59', reset: '50' });
  });

  it('paths outside the API carry none', async () => {
    const res = await send('GET', '/healthz');
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-limit')).toBeNull();
  });
});

describe('429 rate_limited', () => {
  it('refuses a client over its tenant limit until the window resets; other clients are unaffected', async () => {
    const tenant = await customerWithLimit(3);
    const token = await clientToken(tenant);
    const sibling = await clientToken(tenant);
    const api = lab.as(token);

    startNextWindow();
    const allowed = [await api.get('/me'), await api.get('/me'), await api.get('/me')];
    expect(allowed.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(allowed.map(limitHeaders)).toEqual([2, 1, 0].map((remaining) => ({ limit: '3', remaining: String(remaining), reset: '50' })));

    const refused = await api.get('/me');
    expectRateLimited(refused, 50);
    expect(refused.headers.get('ratelimit-limit')).toBe('3');
    expect(refused.body.detail).toContain('50 seconds');

    // Another API client of the same tenant has its own count.
    const other = await lab.as(sibling).get('/me');
    expect(other.status).toBe(200);
    expect(other.headers.get('ratelimit-remaining')).toBe('2');

    clock.advance(30_000);
    expectRateLimited(await api.get('/me'), 20);

    clock.advance(20_000); // the next window begins
    const again = await api.get('/me');
    expect(again.status).toBe(200);
    expect(limitHeaders(again)).toEqual({ limit: '3', remaining: '2', reset: '60' });
  });

  it('localises the 429 problem', async () => {
    const tenant = await customerWithLimit(1);
    const api = lab.as(await clientToken(tenant)).with({ 'Accept-Language': 'de' });
    startNextWindow();
    expect((await api.get('/me')).status).toBe(200);
    const refused = await api.get('/me');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-language')).toBe('de');
    expect(refused.body).toMatchObject({ code: 'rate_limited', title: 'Anfragelimit überschritten' });
    expect(refused.body.detail).toContain('50 Sekunden');
  });

  it("applies the customer's limit when a reseller acts for it, while the reseller's own requests pass", async () => {
    const customer = await customerWithLimit(3);
    const reseller = lab.as(lab.tokens.reseller);
    const acting = reseller.with({ 'X-Act-As-Customer': customer });

    startNextWindow();
    const allowed = [await acting.get('/me'), await acting.get('/me'), await acting.get('/me')];
    expect(allowed.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(allowed[0]!.body.id).toBe(customer);
    // The headers show the tighter of the two counts: the customer's.
    expect(allowed.map(limitHeaders)).toEqual([2, 1, 0].map((remaining) => ({ limit: '3', remaining: String(remaining), reset: '50' })));

    expectRateLimited(await acting.get('/me'), 50);

    // The reseller itself is far from its own limit.
    const own = await reseller.get('/me');
    expect(own.status).toBe(200);
    expect(own.body.id).toBe(lab.tokens.tenants.reseller);
    expect(own.headers.get('ratelimit-limit')).toBe('1200');
    expect(Number(own.headers.get('ratelimit-remaining'))).toBeGreaterThan(1000);
    // … and may still act for its other customers.
    const otherCustomer = await reseller.get('/me', { headers: { 'X-Act-As-Customer': lab.tokens.tenants.customers[0] } });
    expect(otherCustomer.status).toBe(200);

    // The customer's count is per customer: another API client acting for it is refused as well.
    const platformActing = await lab.as(lab.tokens.platform).get('/me', { headers: { 'X-Act-As-Customer': customer } });
    expectRateLimited(platformActing, 50);

    clock.advance(MINUTE);
    expect((await acting.get('/me')).status).toBe(200);
  });
});

describe('counting in blocks', () => {
  it('far below the limit, a client still sees exact RateLimit-Remaining, and the shared window counts every request', async () => {
    const tenant = await customerWithLimit(300);
    const token = await clientToken(tenant);
    const api = new ApiClient(lab.url, token);
    startNextWindow();
    const remaining: string[] = [];
    for (let i = 0; i < 40; i++) remaining.push((await api.get('/me')).headers.get('ratelimit-remaining')!);
    expect(remaining).toEqual(Array.from({ length: 40 }, (_, i) => String(299 - i)));
    const clientId = (await api.get('/me')).body.token.api_client.id as string;
    const window = await lab.service.services
      .db('rate_limit_windows')
      .where({ bucket: `client:${clientId}` })
      .orderBy('window_start', 'desc')
      .first('count');
    expect(window.count).toBeGreaterThanOrEqual(41);
  });
});

describe('several API processes sharing one database', () => {
  let second: TestService;
  beforeAll(async () => {
    second = await startTestService({ databaseUrl: lab.databaseUrl, clock, env: { ROLES: 'api' } });
  });
  afterAll(() => second?.stop());

  it('count every request of a client in one shared window', async () => {
    expect(second.url).not.toBe(lab.url);
    // The second process serves the same deployment: the first process's lab tokens work there.
    expect((await new ApiClient(second.url, lab.tokens.reseller).get('/me')).status).toBe(200);

    const tenant = await customerWithLimit(6);
    const token = await clientToken(tenant);
    const processes = [new ApiClient(lab.url, token), new ApiClient(second.url, token)];

    startNextWindow();
    const answers: ApiResponse[] = [];
    for (let i = 0; i < 6; i++) answers.push(await processes[i % 2]!.get('/me'));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(answers.map((r) => r.headers.get('ratelimit-remaining'))).toEqual(['5', '4', '3', '2', '1', '0']);

    // Over the limit on both processes, whichever counted last.
    expectRateLimited(await processes[0]!.get('/me'), 50);
    expectRateLimited(await processes[1]!.get('/me'), 50);
  });

  it('lose no count under parallel requests to both processes', async () => {
    const tenant = await customerWithLimit(10);
    const token = await clientToken(tenant);
    const processes = [new ApiClient(lab.url, token), new ApiClient(second.url, token)];

    startNextWindow();
    const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => processes[i % 2]!.get('/me')));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(14);
    // Each allowed request saw a different remaining count: 9 … 0, each exactly once.
    const remaining = answers.filter((r) => r.status === 200).map((r) => Number(r.headers.get('ratelimit-remaining')));
    expect(remaining.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('never admit more than the limit when both count in blocks, and strand at most a few', async () => {
    const tenant = await customerWithLimit(200);
    const token = await clientToken(tenant);
    const processes = [new ApiClient(lab.url, token), new ApiClient(second.url, token)];

    startNextWindow();
    const answers: ApiResponse[] = [];
    for (let round = 0; round < 25; round++) {
      answers.push(...(await Promise.all(Array.from({ length: 10 }, (_, i) => processes[i % 2]!.get('/me')))));
    }
    const allowed = answers.filter((r) => r.status === 200);
    expect(answers.filter((r) => r.status !== 200).every((r) => r.status === 429)).toBe(true);
    expect(allowed.length).toBeLessThanOrEqual(200);
    // Numbers a process took but did not use before the other reached the limit: a block is at
    // most 1/16 of what was left when taken (docs/api-conventions.md).
    expect(allowed.length).toBeGreaterThanOrEqual(200 - 200 / 16);
    const remaining = allowed.map((r) => Number(r.headers.get('ratelimit-remaining')));
    expect(new Set(remaining).size).toBe(remaining.length);
  });
});
