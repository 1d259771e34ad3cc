// The newcomer's story from the foundation issue: the lab's reseller token, acting for each
// customer, problems in English and German, rate-limit headers, idempotent replays, docs,
// health and metrics.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/testService.js';

let lab: TestService;
beforeAll(async () => {
  lab = await startTestService();
});
afterAll(() => lab?.stop());

describe('the lab', () => {
  it('answers GET /me for the reseller token with the reseller tenant', async () => {
    const res = await lab.as(lab.tokens.reseller).get('/me');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: lab.tokens.tenants.reseller, type: 'reseller', status: 'active' });
    expect(res.body.token.tenant_id).toBe(lab.tokens.tenants.reseller);
    expect(res.body.token.acting_for_customer).toBe(false);
    expect(res.headers.get('etag')).toMatch(/^"[^"]+"$/);
  });

  it('lets the reseller act for each of its customers', async () => {
    for (const customer of lab.tokens.tenants.customers) {
      const res = await lab.as(lab.tokens.reseller).get('/me', { headers: { 'X-Act-As-Customer': customer } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: customer, type: 'customer' });
      expect(res.body.token).toMatchObject({ tenant_id: lab.tokens.tenants.reseller, acting_for_customer: true });
    }
  });

  it('writes problems in English by default and in German on request', async () => {
    const en = await lab.as('svc_test_unknown').get('/me');
    expect(en.status).toBe(401);
    expect(en.headers.get('content-type')).toContain('application/problem+json');
    expect(en.headers.get('content-language')).toBe('en');
    expect(en.body).toMatchObject({ code: 'unauthenticated', status: 401, title: 'Authentication required' });
    expect(en.body.request_id).toBe(en.headers.get('x-request-id'));

    const de = await lab.as('svc_test_unknown').get('/me', { headers: { 'Accept-Language': 'de-DE,de;q=0.9,en;q=0.5' } });
    expect(de.headers.get('content-language')).toBe('de');
    expect(de.body).toMatchObject({ code: 'unauthenticated', title: 'Authentifizierung erforderlich' });
  });

  it('sends rate-limit headers on every authenticated response', async () => {
    const first = await lab.as(lab.tokens.customers[0]).get('/me');
    const second = await lab.as(lab.tokens.customers[0]).get('/me');
    expect(Number(first.headers.get('ratelimit-limit'))).toBe(300);
    expect(Number(second.headers.get('ratelimit-remaining'))).toBe(Number(first.headers.get('ratelimit-remaining')) - 1);
    expect(Number(second.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    const problem = await lab.as(lab.tokens.customers[0]).get('/me', { headers: { 'X-Act-As-Customer': lab.tokens.tenants.customers[1] } });
    expect(problem.status).toBe(403);
    expect(problem.headers.get('ratelimit-limit')).toBe('300');
  });

  it('replays a POST sent twice with the same Idempotency-Key', async () => {
    const platform = lab.as(lab.tokens.platform);
    const headers = { 'Idempotency-Key': 'story-create-customer' };
    const first = await platform.post('/tenants', { type: 'customer', name: 'Story GmbH' }, { headers });
    const again = await platform.post('/tenants', { type: 'customer', name: 'Story GmbH' }, { headers });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBe('false');
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const list = await platform.get('/tenants', { headers: {} });
    expect(list.body.data.filter((t: { name: string }) => t.name === 'Story GmbH')).toHaveLength(1);
  });

  it('serves /docs, /healthz and /metrics', async () => {
    const anon = lab.as(null as unknown as string);
    const docs = await anon.get('/docs');
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toContain('text/html');
    expect(docs.text).toContain('/api/v1/openapi.json');
    expect(docs.text).not.toMatch(/(src|href)="https?:/i);
    const health = await anon.get('/healthz');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'ok', checks: { database: 'ok' } });
    const metrics = await anon.get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.text).toMatch(/http_requests_total\{method="GET",route="\/me",status="200"\} \d+/);
  });
});
