// The sandbox lab's nightly reset (spec: "Sandbox data is reset every night; tokens survive the
// reset"), driven by an injected clock; who may change the lab's simulations; and that a
// production deployment has no lab at all.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allRoutes } from '../../src/api/resources/index.js';
import { ManualClock } from '../../src/domain/clock.js';
import type { ApiClient, ApiResponse } from '../helpers/apiClient.js';
import { startTestService, type TestService } from '../helpers/testService.js';

const created = (res: ApiResponse) => {
  expect(res.status, res.text).toBe(201);
  return res.body;
};

describe('the nightly reset at LAB_RESET_TIME', () => {
  let lab: TestService;
  let clock: ManualClock;
  let platform: ApiClient;
  let reseller: ApiClient;
  let customerA: ApiClient;
  let seedIds: string[];
  /** The seed as the platform sees it, without the fields a reset may move on. */
  let seedTenants: Record<string, unknown>[];
  let seedBilling: unknown;

  const tenantsNow = async () => (await platform.get('/tenants?limit=500')).body.data.map(({ updated_at: _u, ...t }: Record<string, unknown>) => t);
  const tick = () => lab.service.labReset!.tick();

  beforeAll(async () => {
    clock = new ManualClock('2026-11-22T02:58:00Z');
    lab = await startTestService({ env: { LAB_RESET_TIME: '03:00' }, clock });
    // The test drives the checks with tick(); the once-a-minute timer must not race it.
    lab.service.labReset!.stop();
    platform = lab.as(lab.tokens.platform);
    reseller = lab.as(lab.tokens.reseller);
    customerA = lab.as(lab.tokens.customers[0]);
    const { tenants } = lab.tokens;
    seedIds = [tenants.platform, tenants.reseller, ...tenants.customers];
    seedTenants = await tenantsNow();
    seedBilling = (await platform.get('/lab/billing-clients')).body;
  });
  afterAll(() => lab?.stop());

  it('tells when the lab resets', async () => {
    const res = await reseller.get('/lab');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ reset_time_utc: '03:00', last_scheduled_reset: '2026-11-21T03:00:00.000Z' });
    expect(seedTenants.map((t) => t.id).sort()).toEqual([...seedIds].sort());
    expect(seedTenants.every((t) => t.status === 'active')).toBe(true);
  });

  it('restores the seed once the reset time has passed, and tokens survive', async () => {
    const [customerAId, customerBId] = lab.tokens.tenants.customers;
    // A day in the lab: new tenants with their own token, changed seed tenants, users, billing.
    const nightOwl = created(await platform.post('/tenants', { type: 'reseller', name: 'Night Owl Reseller' }));
    const temp = created(await reseller.post('/tenants', { type: 'customer', name: 'Temporary Customer' }));
    const tempClient = created(await reseller.post(`/tenants/${temp.id}/api-clients`, { name: 'temp panel' }));
    const tempToken = created(await reseller.post(`/api-clients/${tempClient.id}/tokens`, { name: 'temp', scopes: ['tenant:read'] })).token;
    expect((await platform.patch(`/tenants/${customerAId}`, { name: 'Renamed A', limits: { max_zones: 1 }, features: [], branding: {} })).status).toBe(200);
    expect((await platform.patch(`/tenants/${lab.tokens.tenants.reseller}`, { support_email: null, billing_client_id: '10003' })).status).toBe(200);
    expect((await reseller.post(`/tenants/${customerBId}/suspend`, { reason: 'testing suspension' })).status).toBe(200);
    created(await reseller.post(`/tenants/${customerAId}/users`, { email: 'temp-user@a.example' }));
    created(await platform.post(`/tenants/${lab.tokens.tenants.reseller}/users`, { email: 'ops@reseller.example' }));
    expect((await platform.put('/lab/billing-clients/10003', { name: 'Renamed Prospect', status: 'closed' })).status).toBe(200);
    expect((await platform.put('/lab/billing-clients/20001', { name: 'New Client', email: 'new@example.test', status: 'active' })).status).toBe(200);
    // Tokens customers issue for their own seeded API client survive, with or without a user.
    const labClientA = (await customerA.get('/me')).body.token.api_client.id;
    const kept = created(await customerA.post(`/api-clients/${labClientA}/tokens`, { name: 'CI pipeline', scopes: ['tenant:read', 'tenants:read'] }));
    const dev = created(await customerA.post(`/tenants/${customerAId}/users`, { email: 'dev@a.example', permissions: [] }));
    const keptWithUser = created(await customerA.post(`/api-clients/${labClientA}/tokens`, { name: "dev's", scopes: ['tenant:read'], user_id: dev.id }));
    // A seeded customer's secondary set: it goes with its catalog zone (the set first: it references the zone).
    const set = created(await customerA.post('/secondary-sets', { name: 'nightly', secondaries: [{ address: '192.0.2.53' }] }));
    const changed = await tenantsNow();

    clock.set('2026-11-22T02:59:59Z');
    expect(await tick()).toBe(false);
    expect(await tenantsNow()).toEqual(changed);

    clock.set('2026-11-22T03:00:30Z');
    expect(await tick()).toBe(true);

    expect(await tenantsNow()).toEqual(seedTenants);
    expect((await platform.get(`/tenants/${nightOwl.id}`)).status).toBe(404);
    expect((await platform.get('/lab/billing-clients')).body).toEqual(seedBilling);
    expect((await platform.get(`/tenants/${customerAId}/users`)).body.data.map((u: { email: string }) => u.email)).toEqual(['dev@a.example']);
    expect((await platform.get(`/tenants/${lab.tokens.tenants.reseller}/users`)).body.data).toEqual([]);
    expect((await platform.get('/audit-log')).body.data).toEqual([]);
    expect((await reseller.get('/lab')).body.last_scheduled_reset).toBe('2026-11-22T03:00:00.000Z');
    expect((await customerA.get(`/secondary-sets/${set.id}`)).status).toBe(404);

    for (const token of [lab.tokens.platform, lab.tokens.reseller, ...lab.tokens.customers]) {
      expect((await lab.as(token).get('/tenants')).status).toBe(200);
    }
    const keptMe = await lab.as(kept.token).get('/me');
    expect(keptMe.status).toBe(200);
    expect(keptMe.body.id).toBe(customerAId);
    const keptUserMe = await lab.as(keptWithUser.token).get('/me');
    expect(keptUserMe.status).toBe(200);
    expect(keptUserMe.body.token.user).toMatchObject({ id: dev.id, email: 'dev@a.example' });
    // A tenant made in the lab goes with its tokens.
    expect((await lab.as(tempToken).get('/me')).status).toBe(401);
  });

  it('resets once a night, and again the next night', async () => {
    clock.set('2026-11-22T03:10:00Z');
    expect(await tick()).toBe(false);
    const evening = created(await reseller.post('/tenants', { type: 'customer', name: 'Evening Customer' }));
    clock.set('2026-11-23T02:59:00Z');
    expect(await tick()).toBe(false);
    expect((await platform.get(`/tenants/${evening.id}`)).status).toBe(200);

    clock.set('2026-11-23T03:00:00Z');
    expect(await tick()).toBe(true);
    expect((await platform.get(`/tenants/${evening.id}`)).status).toBe(404);
    expect(await tenantsNow()).toEqual(seedTenants);
    expect(await tick()).toBe(false);
  });

  it('catches up on a missed night in one reset', async () => {
    created(await reseller.post('/tenants', { type: 'customer', name: 'Weekend Customer' }));
    clock.set('2026-11-26T11:00:00Z');
    expect(await tick()).toBe(true);
    expect(await tick()).toBe(false);
    expect(await tenantsNow()).toEqual(seedTenants);
  });
});

describe('changing the lab', () => {
  let lab: TestService;
  beforeAll(async () => {
    lab = await startTestService({ clock: new ManualClock('2026-11-22T12:00:00Z') });
  });
  afterAll(() => lab?.stop());

  it('takes the lab platform token; everyone else gets 403 forbidden and changes nothing', async () => {
    const platform = lab.as(lab.tokens.platform);
    const before = (await platform.get('/lab/billing-clients')).body;
    const others: [string, ApiClient][] = [
      ['reseller', lab.as(lab.tokens.reseller)],
      ['customer A', lab.as(lab.tokens.customers[0])],
      ['platform acting as customer A', platform.with({ 'X-Act-As-Customer': lab.tokens.tenants.customers[0] })],
    ];
    for (const [who, api] of others) {
      const put = await api.put('/lab/billing-clients/10003', { name: 'Hijacked', status: 'closed' });
      expect(put.status, who).toBe(403);
      expect(put.body.code, who).toBe('forbidden');
      const reset = await api.post('/lab/reset');
      expect(reset.status, who).toBe(403);
      expect(reset.body.code, who).toBe('forbidden');
      expect((await api.get('/lab')).status, who).toBe(200);
    }
    expect((await platform.get('/lab/billing-clients')).body).toEqual(before);

    const put = await platform.put('/lab/billing-clients/10003', { name: 'Prospect C, renamed', email: null, status: 'closed' });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ id: '10003', name: 'Prospect C, renamed', email: null, status: 'closed' });
    created(await platform.post('/tenants', { type: 'customer', name: 'Before the manual reset' }));
    expect((await platform.post('/lab/reset')).status).toBe(204);
    expect((await platform.get('/lab/billing-clients')).body).toEqual(before);
    expect((await platform.get('/tenants')).body.data).toHaveLength(4);
    expect((await lab.as(lab.tokens.customers[1]).get('/me')).status).toBe(200);
  });

  it('shows each token only the billing clients of its own subtree', async () => {
    const ids = async (token: string) => (await lab.as(token).get('/lab/billing-clients')).body.data.map((c: { id: string }) => c.id);
    expect(await ids(lab.tokens.platform)).toEqual(['10001', '10002', '10003', '10004']);
    expect(await ids(lab.tokens.reseller)).toEqual(['10001', '10002']);
    expect(await ids(lab.tokens.customers[0])).toEqual(['10001']);
    expect(await ids(lab.tokens.customers[1])).toEqual(['10002']);
  });
});

describe('a production deployment', () => {
  let prod: TestService;
  let liveToken: string;
  beforeAll(async () => {
    prod = await startTestService({ env: { DEPLOYMENT: 'production' } });
    // The operator's way to the first live token.
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/cli/admin.ts', 'create-platform', 'Production Platform'], {
      env: { ...process.env, DATABASE_URL: prod.databaseUrl, DEPLOYMENT: 'production', DNSSEC_KEY_ENCRYPTION_KEY: '5a'.repeat(32), LOG_LEVEL: 'silent' },
    });
    liveToken = JSON.parse(stdout).token;
  });
  afterAll(() => prod?.stop());

  it('has no lab: every /api/v1/lab path answers 404 problem, with or without a token', async () => {
    expect(prod.tokens).toBeUndefined();
    expect(liveToken).toMatch(/^svc_live_/);
    const live = prod.as(liveToken);
    expect((await live.get('/me')).status).toBe(200);

    const labRoutes = allRoutes.filter((r) => r.labOnly);
    expect(labRoutes.length).toBeGreaterThan(0);
    const paths = labRoutes.map((r) => [r.method.toUpperCase(), `/api/v1${r.path.replace(/\{\w+\}/g, '10001')}`] as const);
    paths.push(['GET', '/api/v1/lab/anything'], ['DELETE', '/api/v1/lab']);
    for (const [method, path] of paths) {
      for (const api of [live, prod.as(null as unknown as string)]) {
        const res = await api.request(method, path, method === 'PUT' ? { body: { name: 'x', status: 'active' } } : {});
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.headers.get('content-type')).toContain('application/problem+json');
        expect(res.body.code).toBe('not_found');
      }
    }
    const openapi = await live.get('/api/v1/openapi.json');
    expect(Object.keys(openapi.body.paths)).toContain('/me');
    expect(Object.keys(openapi.body.paths).filter((p) => p.startsWith('/lab'))).toEqual([]);
  });
});
