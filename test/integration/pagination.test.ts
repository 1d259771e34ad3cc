// Pagination (spec "General conventions" and "Limits"): the list envelope, opaque cursors bound
// to the list and the acting tenant and valid for 24 hours, the Link header, and `limit`
// (default 50, max 500).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, type ApiResponse } from '../helpers/apiClient.js';
import { startTestService, type TestService } from '../helpers/testService.js';

let lab: TestService;
/** A fresh reseller of its own, so the test knows its whole subtree and audit log. */
let reseller: ApiClient;
let resellerId: string;
const HOUR = 60 * 60 * 1000;

beforeAll(async () => {
  // Only the API role: no nightly lab reset may run while the test moves the clock by a day.
  lab = await startTestService({ env: { ROLES: 'api' } });
  const platform = lab.as(lab.tokens.platform);
  const created = await platform.post('/tenants', { type: 'reseller', name: 'Paging Reseller' });
  expect(created.status).toBe(201);
  resellerId = created.body.id;
  const client = await platform.post(`/tenants/${resellerId}/api-clients`, { name: 'paging panel' });
  const token = await platform.post(`/api-clients/${client.body.id}/tokens`, {
    name: 'paging',
    scopes: ['tenants:read', 'tenants:write', 'audit:read', 'act_as'],
  });
  expect(token.status).toBe(201);
  reseller = lab.as(token.body.token);
  // Five customers: the reseller's subtree holds 6 tenants and its audit log 5 entries.
  for (let i = 1; i <= 5; i++) {
    const c = await reseller.post('/tenants', { type: 'customer', name: `Paging Customer ${i}` });
    expect(c.status).toBe(201);
  }
});
afterAll(() => lab?.stop());

const withParam = (path: string, name: string, value: string) => {
  const url = new URL(path, 'http://x');
  url.searchParams.set(name, value);
  return `${url.pathname}${url.search}`;
};

/** Every page of a list, following pagination.next_cursor. */
async function walk(api: ApiClient, path: string): Promise<ApiResponse[]> {
  const pages: ApiResponse[] = [];
  let next: string | null = path;
  while (next) {
    const page = await api.get(next);
    expect(page.status).toBe(200);
    pages.push(page);
    expect(pages.length).toBeLessThan(100);
    next = page.body.pagination.next_cursor ? withParam(path, 'cursor', page.body.pagination.next_cursor) : null;
  }
  return pages;
}

/** The URL of rel="next" in a Link header. */
const nextLink = (res: ApiResponse) => /<([^>]+)>;\s*rel="next"/.exec(res.headers.get('link') ?? '')?.[1] ?? null;

const ids = (pages: ApiResponse[]) => pages.flatMap((p) => p.body.data.map((item: { id: string }) => item.id));

function expectQueryProblem(res: ApiResponse, pointer: string, code?: string) {
  expect(res.status).toBe(422);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  expect(res.body.code).toBe('validation_failed');
  expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
  expect(res.body.errors[0]).toMatchObject({ in: 'query', pointer, ...(code ? { code } : {}) });
}

describe('the list envelope', () => {
  it.each(['/tenants', '/audit-log'])('GET %s answers {data, pagination: {next_cursor, has_more}}', async (path) => {
    const res = await reseller.get(path);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'pagination']);
    expect(Array.isArray(res.body.data)).toBe(true);
    expect(res.body.pagination).toEqual({ next_cursor: null, has_more: false });
    expect(res.headers.get('link')).toBeNull();
  });

  it('walks GET /tenants with limit=2: every tenant of the subtree exactly once, in order', async () => {
    const all = await reseller.get('/tenants?limit=500');
    expect(all.body.data).toHaveLength(6);
    const pages = await walk(reseller, '/tenants?limit=2');
    expect(pages.map((p) => p.body.data.length)).toEqual([2, 2, 2]);
    expect(pages.map((p) => p.body.pagination.has_more)).toEqual([true, true, false]);
    expect(pages.at(-1)!.body.pagination.next_cursor).toBeNull();
    expect(ids(pages)).toEqual(ids([all]));
    expect(new Set(ids(pages)).size).toBe(6);
    expect(ids(pages)).toContain(resellerId);
  });

  it('walks GET /audit-log with limit=2: every entry exactly once, newest first', async () => {
    const all = await reseller.get('/audit-log?limit=500');
    expect(all.body.data).toHaveLength(5);
    expect(all.body.data.map((e: { details: { name: string } }) => e.details.name)).toEqual([5, 4, 3, 2, 1].map((i) => `Paging Customer ${i}`));
    const pages = await walk(reseller, '/audit-log?limit=2');
    expect(pages.map((p) => p.body.data.length)).toEqual([2, 2, 1]);
    expect(ids(pages)).toEqual(ids([all]));
  });

  it('keeps filters across pages', async () => {
    const pages = await walk(reseller, '/tenants?limit=2&type=customer');
    expect(pages.map((p) => p.body.data.length)).toEqual([2, 2, 1]);
    expect(pages.flatMap((p) => p.body.data.map((t: { type: string }) => t.type))).toEqual(Array(5).fill('customer'));
  });

  it('sends a Link header rel="next" that leads to the next page', async () => {
    const first = await reseller.get('/tenants?limit=2');
    const link = nextLink(first);
    expect(link).not.toBeNull();
    expect(link).toMatch(/^\/api\/v1\/tenants\?/);
    const linked = new URL(link!, 'http://x');
    expect(linked.searchParams.get('limit')).toBe('2');
    expect(linked.searchParams.get('cursor')).toBe(first.body.pagination.next_cursor);

    // Following the links alone reaches every tenant, and the last page has no link.
    const seen: string[] = [];
    let page: ApiResponse = first;
    for (;;) {
      seen.push(...page.body.data.map((t: { id: string }) => t.id));
      const next = nextLink(page);
      if (!next) break;
      page = await reseller.get(next);
      expect(page.status).toBe(200);
    }
    expect(page.body.pagination.has_more).toBe(false);
    expect(seen).toEqual(ids([await reseller.get('/tenants?limit=500')]));
  });
});

describe('limit', () => {
  it('defaults to 50 and accepts up to 500', async () => {
    // 50 more customers: 56 tenants and 55 audit entries.
    for (let batch = 0; batch < 5; batch++) {
      const created = await Promise.all(Array.from({ length: 10 }, (_, i) => reseller.post('/tenants', { type: 'customer', name: `Bulk ${batch}-${i}` })));
      expect(created.map((r) => r.status)).toEqual(Array(10).fill(201));
    }
    for (const [path, total] of [
      ['/tenants', 56],
      ['/audit-log', 55],
    ] as const) {
      const byDefault = await reseller.get(path);
      expect(byDefault.body.data).toHaveLength(50);
      expect(byDefault.body.pagination.has_more).toBe(true);
      expect(nextLink(byDefault)).not.toBeNull();
      const rest = await reseller.get(withParam(path, 'cursor', byDefault.body.pagination.next_cursor));
      expect(rest.body.data).toHaveLength(total - 50);
      expect(rest.body.pagination).toEqual({ next_cursor: null, has_more: false });

      const max = await reseller.get(`${path}?limit=500`);
      expect(max.status).toBe(200);
      expect(max.body.data).toHaveLength(total);
      expect(max.body.pagination.has_more).toBe(false);
      expect(ids([max])).toEqual([...ids([byDefault]), ...ids([rest])]);
    }
  });

  it.each([
    ['/tenants', '0'],
    ['/tenants', '501'],
    ['/tenants', 'abc'],
    ['/tenants', '1.5'],
    ['/tenants', '-1'],
    ['/audit-log', '0'],
    ['/audit-log', '501'],
    ['/audit-log', 'abc'],
  ])('GET %s?limit=%s is 422 validation_failed pointing at the query parameter', async (path, limit) => {
    expectQueryProblem(await reseller.get(`${path}?limit=${limit}`), '/limit');
  });
});

describe('cursors', () => {
  it('rejects a tampered or made-up cursor', async () => {
    const first = await reseller.get('/tenants?limit=2');
    const cursor: string = first.body.pagination.next_cursor;
    const [data, sig] = cursor.split('.') as [string, string];

    // Change the position inside the payload and keep the signature.
    const payload = JSON.parse(Buffer.from(data, 'base64url').toString('utf8'));
    payload.v = ['ten_'];
    const moved = `${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${sig}`;
    // Flip one character of the signature.
    const flipped = `${data}.${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`;

    for (const bad of [moved, flipped, `${cursor}.x`, 'abc', data]) {
      const res = await reseller.get(withParam('/tenants?limit=2', 'cursor', bad));
      expectQueryProblem(res, '/cursor', 'invalid_cursor');
    }
    // The genuine cursor still works.
    expect((await reseller.get(withParam('/tenants?limit=2', 'cursor', cursor))).status).toBe(200);
  });

  it('rejects a cursor of customer A presented by customer B, and one of another list', async () => {
    const [customerA, customerB] = lab.tokens.tenants.customers;
    const a = lab.as(lab.tokens.customers[0]);
    const b = lab.as(lab.tokens.customers[1]);
    // Two entries in customer A's audit log and in customer B's.
    for (const [api, tenant] of [
      [a, customerA],
      [a, customerA],
      [b, customerB],
      [b, customerB],
    ] as const) {
      expect((await api.post(`/tenants/${tenant}/api-clients`, { name: 'cursor owner' })).status).toBe(201);
    }
    const pageA = await a.get('/audit-log?limit=1');
    const cursorA: string = pageA.body.pagination.next_cursor;
    expect(cursorA).toEqual(expect.any(String));
    expect((await a.get(withParam('/audit-log?limit=1', 'cursor', cursorA))).status).toBe(200);

    expectQueryProblem(await b.get(withParam('/audit-log?limit=1', 'cursor', cursorA)), '/cursor', 'invalid_cursor');
    // The same customer, another list.
    expectQueryProblem(await a.get(withParam('/tenants?limit=1', 'cursor', cursorA)), '/cursor', 'invalid_cursor');

    // A list of one tenant's API clients is another list than the next tenant's.
    const resellerToken = lab.as(lab.tokens.reseller);
    const clientsA = await resellerToken.get(`/tenants/${customerA}/api-clients?limit=1`);
    expect(clientsA.body.pagination.has_more).toBe(true);
    const clientsCursor = clientsA.body.pagination.next_cursor as string;
    expectQueryProblem(await resellerToken.get(withParam(`/tenants/${customerB}/api-clients?limit=1`, 'cursor', clientsCursor)), '/cursor', 'invalid_cursor');

    // The reseller's cursor is not valid while it acts for one of its customers.
    const resellerPage = await reseller.get('/tenants?limit=2');
    const firstCustomer = ids([await reseller.get('/tenants?type=customer&limit=1')])[0]!;
    const acting = await reseller.get(withParam('/tenants?limit=2', 'cursor', resellerPage.body.pagination.next_cursor), {
      headers: { 'X-Act-As-Customer': firstCustomer },
    });
    expectQueryProblem(acting, '/cursor', 'invalid_cursor');
  });

  it('is honoured by every API process sharing the database', async () => {
    const second = await startTestService({ databaseUrl: lab.databaseUrl, clock: lab.clock, env: { ROLES: 'api' } });
    try {
      const elsewhere = new ApiClient(second.url, reseller.token);
      const first = await reseller.get('/tenants?limit=2');
      const next = withParam('/tenants?limit=2', 'cursor', first.body.pagination.next_cursor);
      const here = await reseller.get(next);
      const there = await elsewhere.get(next);
      expect(there.status).toBe(200);
      expect(there.body).toEqual(here.body);
    } finally {
      await second.stop();
    }
  });

  it('expires after 24 hours', async () => {
    const first = await reseller.get('/tenants?limit=2');
    const next = withParam('/tenants?limit=2', 'cursor', first.body.pagination.next_cursor);

    lab.clock.advance(24 * HOUR - 60_000);
    const stillValid = await reseller.get(next);
    expect(stillValid.status).toBe(200);
    expect(stillValid.body.data[0].id).not.toBe(first.body.data[0].id);

    lab.clock.advance(2 * 60_000);
    const expired = await reseller.get(next);
    expectQueryProblem(expired, '/cursor', 'expired_cursor');
    expect(expired.body.errors.map((e: { code: string }) => e.code)).toContain('expired_cursor');

    // Starting again without a cursor works, and its cursors are fresh.
    const restart = await reseller.get('/tenants?limit=2');
    expect(restart.status).toBe(200);
    expect((await reseller.get(withParam('/tenants?limit=2', 'cursor', restart.body.pagination.next_cursor))).status).toBe(200);
  });
});

describe('query parameters', () => {
  it.each(['/tenants?colour=blue', '/audit-log?limit=2&colour=blue', '/me?colour=blue'])('rejects an unknown one: GET %s is 422', async (path) => {
    const res = await lab.as(lab.tokens.reseller).get(path);
    expectQueryProblem(res, '/colour', 'unknown_field');
  });
});
