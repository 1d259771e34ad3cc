// Tenant administration as a provider's and a reseller's panel use it: creating resellers and
// customers, changing their limits, features, branding and billing link, suspending them,
// issuing and revoking tokens, users behind tokens, the audit trail of all of it, and the stats.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import { ApiClient, type ApiResponse, type RequestOptions } from '../helpers/apiClient.js';
import { startTestService, type TestService } from '../helpers/testService.js';

/** Every write any client of this file sends, to hold the audit log against. */
const writeLog: { method: string; path: string; status: number; requestId: string }[] = [];

class RecordingClient extends ApiClient {
  override async request(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    const res = await super.request(method, path, options);
    if (method !== 'GET') writeLog.push({ method, path, status: res.status, requestId: res.headers.get('x-request-id')! });
    return res;
  }
}

/** What the audit log must say about a successful write: `null` for a write that changed nothing. */
const expectedAudit = new Map<string, { action: string; target: string; apiClientId: string; extra?: Record<string, unknown> } | null>();

function audited(res: ApiResponse, action: string, target: string, apiClientId: string, extra?: Record<string, unknown>) {
  expectedAudit.set(res.headers.get('x-request-id')!, { action, target, apiClientId, extra });
}

function created(res: ApiResponse, what: string) {
  expect(res.status, `${what}: ${res.text}`).toBe(201);
  return res.body;
}

function problem(res: ApiResponse, status: number, code: string) {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  expect(res.body.code).toBe(code);
  return res.body;
}

async function listAllAudit(api: ApiClient, query = '') {
  const res = await api.get(`/audit-log?limit=500${query}`);
  expect(res.status, res.text).toBe(200);
  expect(res.body.pagination.has_more).toBe(false);
  return res.body.data as any[];
}

let lab: TestService;
let clock: ManualClock;
let platform: ApiClient;
let reseller: ApiClient;
let customerA: ApiClient;
const as = (token: string) => new RecordingClient(lab.url, token);
/** The API client behind each lab token. */
const labClient = { platform: '', reseller: '', customerA: '' };
const ids = { platform: '', reseller: '', customerA: '', customerB: '' };

// Objects the story creates and later steps use.
let acmeReseller: string;
let directCustomer: string;
let resellerCustomer: string;
let resellerCustomerClient: string;
let resellerCustomerToken: { id: string; token: string };

beforeAll(async () => {
  clock = new ManualClock('2026-11-22T12:00:00Z');
  lab = await startTestService({ clock });
  platform = as(lab.tokens.platform);
  reseller = as(lab.tokens.reseller);
  customerA = as(lab.tokens.customers[0]);
  ids.platform = lab.tokens.tenants.platform;
  ids.reseller = lab.tokens.tenants.reseller;
  [ids.customerA, ids.customerB] = lab.tokens.tenants.customers;
  labClient.platform = (await platform.get('/me')).body.token.api_client.id;
  labClient.reseller = (await reseller.get('/me')).body.token.api_client.id;
  labClient.customerA = (await customerA.get('/me')).body.token.api_client.id;
});
afterAll(() => lab?.stop());

describe('creating tenants', () => {
  it('lets the platform create a reseller and a direct customer below itself', async () => {
    const res = await platform.post('/tenants', { type: 'reseller', name: 'Acme Hosting Reseller', support_email: 'help@acme.example' });
    const acme = created(res, 'reseller');
    expect(acme).toMatchObject({ type: 'reseller', name: 'Acme Hosting Reseller', parent_id: ids.platform, status: 'active', suspended_at: null });
    expect(acme.id).toMatch(/^ten_/);
    expect(res.headers.get('location')).toBe(`/api/v1/tenants/${acme.id}`);
    expect(res.headers.get('etag')).toMatch(/^"/);
    acmeReseller = acme.id;
    audited(res, 'tenant.created', acme.id, labClient.platform);

    const direct = await platform.post('/tenants', { type: 'customer', name: 'Direct Shop Ltd' });
    expect(created(direct, 'direct customer')).toMatchObject({ type: 'customer', parent_id: ids.platform, billing_client_id: null });
    directCustomer = direct.body.id;
    audited(direct, 'tenant.created', directCustomer, labClient.platform);

    const fetched = await platform.get(`/tenants/${acmeReseller}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(acme);
  });

  it('lets a reseller create customers, and only customers, below itself', async () => {
    const res = await reseller.post('/tenants', { type: 'customer', name: 'Bakery Müller', limits: { max_zones: 3 } });
    const bakery = created(res, 'customer');
    expect(bakery).toMatchObject({ type: 'customer', parent_id: ids.reseller, limits: { max_zones: 3 } });
    resellerCustomer = bakery.id;
    audited(res, 'tenant.created', bakery.id, labClient.reseller);

    const list = await reseller.get('/tenants?type=customer');
    expect(list.body.data.map((t: { id: string }) => t.id)).toContain(resellerCustomer);

    const sub = problem(await reseller.post('/tenants', { type: 'reseller', name: 'Sub-reseller' }), 422, 'validation_failed');
    expect(sub.errors).toEqual([expect.objectContaining({ pointer: '/type' })]);
    // Another parent than itself only inside its subtree: the platform's customer is not there.
    problem(await reseller.post('/tenants', { type: 'customer', name: 'Sneaky', parent_id: directCustomer }), 404, 'not_found');
    // A customer has no children.
    const below = problem(await reseller.post('/tenants', { type: 'customer', name: 'Nested', parent_id: ids.customerA }), 422, 'validation_failed');
    expect(below.errors[0].pointer).toBe('/type');
  });

  it('does not let a customer create tenants', async () => {
    for (const type of ['customer', 'reseller']) {
      const body = problem(await customerA.post('/tenants', { type, name: 'Customer of a customer' }), 422, 'validation_failed');
      expect(body.errors).toEqual([expect.objectContaining({ pointer: '/type' })]);
    }
    expect((await customerA.get('/tenants')).body.data.map((t: { id: string }) => t.id)).toEqual([ids.customerA]);
  });
});

describe('changing tenants', () => {
  it('does not let a tenant change or suspend itself', async () => {
    const cases: [ApiClient, string, Record<string, string>?][] = [
      [platform, ids.platform],
      [reseller, ids.reseller],
      [customerA, ids.customerA],
      [reseller, ids.customerA, { 'X-Act-As-Customer': ids.customerA }],
    ];
    for (const [api, id, headers] of cases) {
      const before = (await platform.get(`/tenants/${id}`)).body;
      problem(await api.patch(`/tenants/${id}`, { limits: { max_zones: 999_999 } }, { headers }), 403, 'forbidden');
      problem(await api.post(`/tenants/${id}/suspend`, {}, { headers }), 403, 'forbidden');
      problem(await api.post(`/tenants/${id}/unsuspend`, undefined, { headers }), 403, 'forbidden');
      expect((await platform.get(`/tenants/${id}`)).body).toEqual(before);
    }
  });

  it('lets the parent change limits, features, branding and support e-mail', async () => {
    const res = await reseller.patch(`/tenants/${resellerCustomer}`, {
      limits: { max_zones: 25, api_rate_limit_per_minute: 120 },
      features: ['dnssec', 'rdns'],
      branding: { display_name: 'Bakery DNS', primary_color: '#aa3300', support_url: 'https://help.bakery.example' },
      support_email: 'dns@bakery.example',
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      limits: { max_zones: 25, api_rate_limit_per_minute: 120 },
      features: ['dnssec', 'rdns'],
      branding: { display_name: 'Bakery DNS', primary_color: '#aa3300', support_url: 'https://help.bakery.example' },
      support_email: 'dns@bakery.example',
      name: 'Bakery Müller',
    });
    audited(res, 'tenant.updated', resellerCustomer, labClient.reseller);

    // Only the fields sent change.
    const renamed = await reseller.patch(`/tenants/${resellerCustomer}`, { name: 'Bakery Müller & Sons' });
    expect(renamed.body).toMatchObject({ name: 'Bakery Müller & Sons', limits: { max_zones: 25 }, features: ['dnssec', 'rdns'] });
    audited(renamed, 'tenant.updated', resellerCustomer, labClient.reseller);

    // If-Match guards against a concurrent change.
    const etag = (await reseller.get(`/tenants/${resellerCustomer}`)).headers.get('etag')!;
    problem(await reseller.patch(`/tenants/${resellerCustomer}`, { name: 'Stale' }, { headers: { 'If-Match': '"stale"' } }), 412, 'precondition_failed');
    const guarded = await reseller.patch(`/tenants/${resellerCustomer}`, { name: 'Bakery Müller' }, { headers: { 'If-Match': etag } });
    expect(guarded.status).toBe(200);
    audited(guarded, 'tenant.updated', resellerCustomer, labClient.reseller);

    const invalid = problem(await reseller.patch(`/tenants/${resellerCustomer}`, { branding: { primary_color: 'red' } }), 422, 'validation_failed');
    expect(invalid.errors[0].pointer).toBe('/branding/primary_color');
  });

  it('links a billing client to one tenant only', async () => {
    const res = await platform.patch(`/tenants/${directCustomer}`, { billing_client_id: '10003' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.billing_client_id).toBe('10003');
    audited(res, 'tenant.billing_linked', directCustomer, labClient.platform);

    const taken = problem(await reseller.patch(`/tenants/${resellerCustomer}`, { billing_client_id: '10003' }), 422, 'validation_failed');
    expect(taken.errors).toEqual([expect.objectContaining({ pointer: '/billing_client_id' })]);
    const takenOnCreate = problem(
      await platform.post('/tenants', { type: 'customer', name: 'Copy of A', billing_client_id: '10001' }),
      422,
      'validation_failed',
    );
    expect(takenOnCreate.errors[0].pointer).toBe('/billing_client_id');
    expect((await reseller.get(`/tenants/${resellerCustomer}`)).body.billing_client_id).toBeNull();

    // The link works for acting: billing:10003 now names the direct customer.
    const me = await platform.get('/me', { headers: { 'X-Act-As-Customer': 'billing:10003' } });
    expect(me.body.id).toBe(directCustomer);
  });
});

describe('API clients and tokens', () => {
  it('issues a token whose secret is shown once and never again', async () => {
    const client = await reseller.post(`/tenants/${resellerCustomer}/api-clients`, { name: 'Bakery panel' });
    expect(created(client, 'client')).toMatchObject({ tenant_id: resellerCustomer, name: 'Bakery panel' });
    resellerCustomerClient = client.body.id;
    audited(client, 'api_client.created', resellerCustomerClient, labClient.reseller);

    const res = await reseller.post(`/api-clients/${resellerCustomerClient}/tokens`, { name: 'panel', scopes: ['tenant:read', 'tenants:read'] });
    const token = created(res, 'token');
    expect(token.token).toMatch(/^svc_test_[A-Za-z0-9_-]{40,}$/);
    expect(token).toMatchObject({ api_client_id: resellerCustomerClient, tenant_id: resellerCustomer, status: 'active', deployment: 'sandbox' });
    expect(token.token.startsWith(token.prefix)).toBe(true);
    expect(token.prefix.length).toBeLessThan(token.token.length - 20);
    resellerCustomerToken = { id: token.id, token: token.token };
    audited(res, 'token.created', token.id, labClient.reseller);

    const list = await reseller.get(`/api-clients/${resellerCustomerClient}/tokens`);
    expect(list.body.data).toEqual([expect.objectContaining({ id: token.id, prefix: token.prefix })]);
    expect(list.body.data[0]).not.toHaveProperty('token');
    expect(list.text).not.toContain(token.token);
    const one = await reseller.get(`/tokens/${token.id}`);
    expect(one.body).not.toHaveProperty('token');
    expect(one.text).not.toContain(token.token);

    const me = await as(token.token).get('/me');
    expect(me.body).toMatchObject({ id: resellerCustomer, type: 'customer', token: { id: token.id, prefix: token.prefix, user: null } });
    // The tenant's own rate limit applies to its clients.
    expect(me.headers.get('ratelimit-limit')).toBe('120');
  });

  it('gives a token exactly its scopes, and no token more than its creator holds', async () => {
    const bakery = as(resellerCustomerToken.token);
    expect((await bakery.get('/tenants')).status).toBe(200);
    problem(await bakery.post('/tenants', { type: 'customer', name: 'x' }), 403, 'insufficient_scope');
    problem(await bakery.get('/audit-log'), 403, 'insufficient_scope');

    const narrow = await reseller.post(`/api-clients/${resellerCustomerClient}/tokens`, { name: 'me only', scopes: ['tenant:read'] });
    audited(narrow, 'token.created', narrow.body.id, labClient.reseller);
    const meOnly = as(created(narrow, 'narrow token').token);
    expect((await meOnly.get('/me')).status).toBe(200);
    expect((await meOnly.get('/stats')).status).toBe(200);
    const denied = problem(await meOnly.get('/tenants'), 403, 'insufficient_scope');
    expect(denied.detail).toContain('tenants:read');

    // A token that may administer tokens but holds no zone scopes cannot mint one that does.
    const admin = await reseller.post(`/api-clients/${resellerCustomerClient}/tokens`, { name: 'admin', scopes: ['tenants:read', 'tenants:write'] });
    audited(admin, 'token.created', admin.body.id, labClient.reseller);
    const adminApi = as(created(admin, 'admin token').token);
    const wider = problem(
      await adminApi.post(`/api-clients/${resellerCustomerClient}/tokens`, { name: 'escalate', scopes: ['tenants:read', 'zones:read', 'act_as'] }),
      422,
      'validation_failed',
    );
    expect(wider.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/scopes/1', '/scopes/2']);
    const within = await adminApi.post(`/api-clients/${resellerCustomerClient}/tokens`, { name: 'subset', scopes: ['tenants:read'] });
    expect(created(within, 'subset').scopes).toEqual(['tenants:read']);
    audited(within, 'token.created', within.body.id, admin.body.api_client_id);
  });

  it('makes a revoked token answer 401, and an expired one too', async () => {
    const res = await reseller.delete(`/tokens/${resellerCustomerToken.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: resellerCustomerToken.id, status: 'revoked', revoked_at: clock.now().toISOString() });
    audited(res, 'token.revoked', resellerCustomerToken.id, labClient.reseller);
    problem(await as(resellerCustomerToken.token).get('/me'), 401, 'unauthenticated');
    const again = await reseller.delete(`/tokens/${resellerCustomerToken.id}`);
    expect(again.body.revoked_at).toBe(res.body.revoked_at);
    expectedAudit.set(again.headers.get('x-request-id')!, null);

    const inAnHour = new Date(clock.now().getTime() + 3_600_000).toISOString();
    const expiring = await reseller.post(`/api-clients/${resellerCustomerClient}/tokens`, {
      name: 'short-lived',
      scopes: ['tenant:read'],
      expires_at: inAnHour,
    });
    audited(expiring, 'token.created', expiring.body.id, labClient.reseller);
    const shortLived = as(created(expiring, 'expiring').token);
    expect((await shortLived.get('/me')).status).toBe(200);
    clock.advance(3_600_000);
    problem(await shortLived.get('/me'), 401, 'unauthenticated');
    expect((await reseller.get(`/tokens/${expiring.body.id}`)).body.status).toBe('expired');

    const past = problem(
      await reseller.post(`/api-clients/${resellerCustomerClient}/tokens`, { name: 'past', scopes: ['tenant:read'], expires_at: '2020-01-01T00:00:00Z' }),
      422,
      'validation_failed',
    );
    expect(past.errors[0].pointer).toBe('/expires_at');
  });

  it('ties tokens to users, who then show in GET /me', async () => {
    const res = await reseller.post(`/tenants/${resellerCustomer}/users`, { email: 'Anna@Bakery.example', permissions: ['tenants.billing_link'] });
    const anna = created(res, 'user');
    expect(anna).toMatchObject({ tenant_id: resellerCustomer, email: 'Anna@Bakery.example', permissions: ['tenants.billing_link'] });
    audited(res, 'user.created', anna.id, labClient.reseller);
    problem(await reseller.post(`/tenants/${resellerCustomer}/users`, { email: 'anna@bakery.example' }), 409, 'conflict');
    expect((await reseller.get(`/tenants/${resellerCustomer}/users`)).body.data.map((u: { id: string }) => u.id)).toEqual([anna.id]);

    const tied = await reseller.post(`/api-clients/${resellerCustomerClient}/tokens`, {
      name: "Anna's",
      scopes: ['tenant:read', 'tenants:write'],
      user_id: anna.id,
    });
    expect(created(tied, 'user token').user_id).toBe(anna.id);
    audited(tied, 'token.created', tied.body.id, labClient.reseller);
    const me = await as(tied.body.token).get('/me');
    expect(me.body.token.user).toEqual({ id: anna.id, email: 'Anna@Bakery.example', permissions: ['tenants.billing_link'] });

    // Writes through a user's token name the user in the audit log.
    const byAnna = await as(tied.body.token).post(`/tenants/${resellerCustomer}/api-clients`, { name: "Anna's scripts" });
    audited(byAnna, 'api_client.created', created(byAnna, 'client by Anna').id, resellerCustomerClient, { user_id: anna.id });

    // A user of another tenant cannot be tied to this client's tokens.
    const other = await reseller.post(`/tenants/${ids.customerA}/users`, { email: 'ops@a.example' });
    audited(other, 'user.created', created(other, 'user of A').id, labClient.reseller);
    const foreign = problem(
      await reseller.post(`/api-clients/${resellerCustomerClient}/tokens`, { name: 'x', scopes: ['tenant:read'], user_id: other.body.id }),
      422,
      'validation_failed',
    );
    expect(foreign.errors[0].pointer).toBe('/user_id');

    // Acting for the customer, the reseller's write is the customer's, naming both.
    const acted = await reseller.post(
      `/tenants/${resellerCustomer}/users`,
      { email: 'ben@bakery.example' },
      { headers: { 'X-Act-As-Customer': resellerCustomer } },
    );
    audited(acted, 'user.created', created(acted, 'acted user').id, labClient.reseller, {
      tenant_id: resellerCustomer,
      on_behalf_of_tenant_id: resellerCustomer,
    });
  });
});

describe('suspension', () => {
  it('blocks a suspended customer everywhere but GET /me, and lifting it restores access', async () => {
    const tokenRes = await reseller.post(`/api-clients/${resellerCustomerClient}/tokens`, { name: 'panel 2', scopes: ['tenant:read', 'tenants:read'] });
    audited(tokenRes, 'token.created', tokenRes.body.id, labClient.reseller);
    const bakery = as(created(tokenRes, 'token').token);

    const res = await reseller.post(`/tenants/${resellerCustomer}/suspend`, { reason: 'Invoice 2026-11 unpaid' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ status: 'suspended', suspended_at: clock.now().toISOString(), suspension_reason: 'Invoice 2026-11 unpaid' });
    audited(res, 'tenant.suspended', resellerCustomer, labClient.reseller);
    const again = await reseller.post(`/tenants/${resellerCustomer}/suspend`, { reason: 'twice' });
    expect(again.body.suspension_reason).toBe('Invoice 2026-11 unpaid');
    expectedAudit.set(again.headers.get('x-request-id')!, null);

    problem(await bakery.get('/tenants'), 403, 'tenant_suspended');
    problem(await bakery.get('/stats'), 403, 'tenant_suspended');
    problem(await bakery.get(`/tenants/${resellerCustomer}`), 403, 'tenant_suspended');
    problem(await reseller.get('/tenants', { headers: { 'X-Act-As-Customer': resellerCustomer } }), 403, 'tenant_suspended');
    const me = await bakery.get('/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: resellerCustomer, status: 'suspended', suspension_reason: 'Invoice 2026-11 unpaid' });
    // The reseller itself is not affected.
    expect((await reseller.get('/tenants')).status).toBe(200);

    const lifted = await reseller.post(`/tenants/${resellerCustomer}/unsuspend`);
    expect(lifted.body).toMatchObject({ status: 'active', suspended_at: null, suspension_reason: null });
    audited(lifted, 'tenant.unsuspended', resellerCustomer, labClient.reseller);
    expect((await bakery.get('/tenants')).status).toBe(200);
    expect((await bakery.get('/me')).body.status).toBe('active');
  });

  it('blocks a suspended reseller, its customers, and acting for them', async () => {
    const res = await platform.post(`/tenants/${ids.reseller}/suspend`, { reason: 'contract ended' });
    expect(res.status).toBe(200);
    audited(res, 'tenant.suspended', ids.reseller, labClient.platform);

    problem(await reseller.get('/tenants'), 403, 'tenant_suspended');
    problem(await customerA.get('/tenants'), 403, 'tenant_suspended');
    problem(await platform.get('/tenants', { headers: { 'X-Act-As-Customer': ids.customerA } }), 403, 'tenant_suspended');
    problem(await reseller.get('/tenants', { headers: { 'X-Act-As-Customer': ids.customerB } }), 403, 'tenant_suspended');
    // Customer A's own state is untouched; its effective state shows in GET /me.
    expect((await platform.get(`/tenants/${ids.customerA}`)).body.status).toBe('active');
    expect((await customerA.get('/me')).body.status).toBe('suspended');
    expect((await reseller.get('/me')).body.status).toBe('suspended');
    // The platform and the rest of its tree carry on.
    expect((await platform.get('/tenants')).status).toBe(200);
    expect((await platform.get('/me', { headers: { 'X-Act-As-Customer': directCustomer } })).status).toBe(200);

    const lifted = await platform.post(`/tenants/${ids.reseller}/unsuspend`);
    audited(lifted, 'tenant.unsuspended', ids.reseller, labClient.platform);
    expect((await reseller.get('/tenants')).status).toBe(200);
    expect((await customerA.get('/tenants')).status).toBe(200);
    expect((await platform.get('/tenants', { headers: { 'X-Act-As-Customer': ids.customerA } })).status).toBe(200);
    expect((await customerA.get('/me')).body.status).toBe('active');
  });
});

describe('audit log', () => {
  const listAll = listAllAudit;

  it('filters by time, actor, action and target', async () => {
    clock.advance(60_000);
    const t1 = clock.now().toISOString();
    const first = await reseller.post(`/tenants/${resellerCustomer}/api-clients`, { name: 'filter one' });
    clock.advance(60_000);
    const t2 = clock.now().toISOString();
    const second = await platform.post(`/tenants/${resellerCustomer}/api-clients`, { name: 'filter two' });
    clock.advance(60_000);
    const t3 = clock.now().toISOString();
    const third = await reseller.patch(`/tenants/${resellerCustomer}`, { name: 'Bakery (filters)' });
    for (const r of [first, second, third]) expect(r.status).toBeLessThan(300);
    audited(first, 'api_client.created', first.body.id, labClient.reseller);
    audited(second, 'api_client.created', second.body.id, labClient.platform);
    audited(third, 'tenant.updated', resellerCustomer, labClient.reseller);
    // The lab registry writes as the platform too (the lab's parents move on as the test's clock
    // does: DS placed, delegations synced); those entries are not this test's requests.
    const requestIds = (entries: any[]) => entries.filter((e) => e.actor?.api_client_id !== 'lab-registry').map((e) => e.request_id);
    const rid = (r: ApiResponse) => r.headers.get('x-request-id');

    expect(requestIds(await listAll(platform, `&since=${t2}`))).toEqual([rid(third), rid(second)]);
    expect(requestIds(await listAll(platform, `&since=${t1}&until=${t3}`))).toEqual([rid(second), rid(first)]);
    expect(requestIds(await listAll(platform, `&since=${t1}&until=${t2}`))).toEqual([rid(first)]);

    const byReseller = await listAll(platform, `&actor=${labClient.reseller}&since=${t1}`);
    expect(requestIds(byReseller)).toEqual([rid(third), rid(first)]);
    const byResellerAllTime = await listAll(platform, `&actor=${labClient.reseller}`);
    expect(byResellerAllTime.length).toBeGreaterThan(10);
    expect(byResellerAllTime.every((e) => e.actor.api_client_id === labClient.reseller)).toBe(true);
    const resellerTokenId = (await reseller.get('/me')).body.token.id;
    expect(requestIds(await listAll(platform, `&actor=${resellerTokenId}&since=${t1}`))).toEqual([rid(third), rid(first)]);

    const users = (await reseller.get(`/tenants/${resellerCustomer}/users`)).body.data;
    const annaId = users.find((u: { email: string }) => u.email === 'Anna@Bakery.example').id;
    const byAnna = await listAll(platform, `&actor=${annaId}`);
    expect(byAnna.map((e) => e.action)).toEqual(['api_client.created']);

    const suspensions = await listAll(platform, '&action=tenant.suspended&action=tenant.unsuspended');
    expect(suspensions.map((e) => e.action).sort()).toEqual(['tenant.suspended', 'tenant.suspended', 'tenant.unsuspended', 'tenant.unsuspended']);
    const comma = await listAll(platform, '&action=tenant.suspended,tenant.unsuspended');
    expect(comma).toEqual(suspensions);

    const onBakery = await listAll(platform, `&target=${resellerCustomer}`);
    expect(onBakery.length).toBeGreaterThan(5);
    expect(onBakery.every((e) => e.target.id === resellerCustomer)).toBe(true);
    expect(requestIds(await listAll(platform, `&target=${first.body.id}`))).toEqual([rid(first)]);

    problem(await platform.get('/audit-log?since=yesterday'), 422, 'validation_failed');
  });

  it('shows each tenant only its own subtree’s entries, and requires audit:read', async () => {
    const resellerEntries = await listAll(reseller);
    const resellerSubtree = (await reseller.get('/tenants?limit=500')).body.data.map((t: { id: string }) => t.id);
    expect(resellerEntries.length).toBeGreaterThan(0);
    expect(resellerEntries.every((e) => resellerSubtree.includes(e.tenant_id))).toBe(true);
    // The platform's own writes (tenant.created of the reseller's sibling) are not the reseller's.
    expect(resellerEntries.some((e) => e.target.id === acmeReseller)).toBe(false);

    const withoutAudit = await reseller.post(`/api-clients/${labClient.reseller}/tokens`, { name: 'no audit', scopes: ['tenant:read', 'tenants:read'] });
    audited(withoutAudit, 'token.created', withoutAudit.body.id, labClient.reseller);
    const denied = problem(await as(created(withoutAudit, 'token').token).get('/audit-log'), 403, 'insufficient_scope');
    expect(denied.detail).toContain('audit:read');
  });
});

describe('stats', () => {
  it('counts the acting subtree for the platform, a reseller and a customer', async () => {
    clock.advance(61_000);
    const count = async (api: ApiClient, type: string) => (await api.get(`/tenants?type=${type}&limit=500`)).body.data.length;
    const platformStats = (await platform.get('/stats')).body;
    expect(platformStats).toMatchObject({
      scope: 'platform',
      tenant_id: ids.platform,
      generated_at: clock.now().toISOString(),
      tenants: { resellers: await count(platform, 'reseller'), customers: await count(platform, 'customer'), suspended: 0 },
    });
    expect(platformStats.tenants.resellers).toBe(2);

    const resellerStats = (await reseller.get('/stats')).body;
    expect(resellerStats).toMatchObject({ scope: 'reseller', tenant_id: ids.reseller, tenants: { resellers: 0, customers: 3, suspended: 0 } });
    const customerStats = (await customerA.get('/stats')).body;
    expect(customerStats).toMatchObject({ scope: 'customer', tenant_id: ids.customerA, tenants: { resellers: 0, customers: 0, suspended: 0 } });

    // Tokens of the reseller's subtree: its lab token, customer A's and B's, and the bakery's.
    const tokensOf = async (tenant: string) => {
      let active = 0;
      let revoked = 0;
      const clients = (await reseller.get(`/tenants/${tenant}/api-clients?limit=500`)).body.data;
      for (const c of clients) {
        for (const t of (await reseller.get(`/api-clients/${c.id}/tokens?limit=500`)).body.data) {
          if (t.status === 'revoked') revoked++;
          if (t.status === 'active') active++;
        }
      }
      return { active, revoked, clients: clients.length };
    };
    const totals = { active: 0, revoked: 0, api_clients: 0 };
    for (const t of [ids.reseller, ids.customerA, ids.customerB, resellerCustomer]) {
      const c = await tokensOf(t);
      totals.active += c.active;
      totals.revoked += c.revoked;
      totals.api_clients += c.clients;
    }
    expect(resellerStats.api_tokens).toEqual(totals);
    expect(totals.revoked).toBe(1);
    // The bakery's expired token counts as neither (nor in its usage).
    const bakery = await tokensOf(resellerCustomer);
    const usage = (await reseller.get('/me', { headers: { 'X-Act-As-Customer': resellerCustomer } })).body.usage;
    expect(usage).toMatchObject({ active_tokens: bakery.active, api_clients: bakery.clients });
    expect(customerStats.api_tokens).toMatchObject({ active: 1, revoked: 0, api_clients: 1 });
  });

  it('caches the figures for about a minute', async () => {
    const before = (await reseller.get('/stats')).body;
    const res = await reseller.post('/tenants', { type: 'customer', name: 'Late Customer' });
    audited(res, 'tenant.created', created(res, 'late').id, labClient.reseller);
    const suspendRes = await reseller.post(`/tenants/${res.body.id}/suspend`, {});
    audited(suspendRes, 'tenant.suspended', res.body.id, labClient.reseller);

    clock.advance(30_000);
    expect((await reseller.get('/stats')).body).toEqual(before);
    clock.advance(31_000);
    const after = (await reseller.get('/stats')).body;
    expect(after.generated_at).toBe(clock.now().toISOString());
    expect(after.tenants).toEqual({ ...before.tenants, customers: before.tenants.customers + 1, suspended: before.tenants.suspended + 1 });
  });
});

describe('the audit trail of this story', () => {
  it('records every write of this story with action, target, API client and request id', async () => {
    const entries = await listAllAudit(platform);
    const failures: string[] = [];
    for (const w of writeLog) {
      const mine = entries.filter((e) => e.request_id === w.requestId);
      const what = `${w.method} ${w.path} → ${w.status}`;
      if (w.status >= 300) {
        if (mine.length) failures.push(`${what} failed but left ${mine.map((e) => e.action).join(', ')}`);
        continue;
      }
      if (!expectedAudit.has(w.requestId)) {
        failures.push(`${what} succeeded but the test says nothing about its audit entry`);
        continue;
      }
      const expected = expectedAudit.get(w.requestId);
      if (expected === null) {
        if (mine.length) failures.push(`${what} changed nothing but left ${mine.map((e) => e.action).join(', ')}`);
        continue;
      }
      const entry = mine.find((e) => e.action === expected!.action && e.target.id === expected!.target);
      if (!entry) {
        failures.push(
          `${what}: no ${expected!.action} of ${expected!.target} (found ${mine.map((e) => `${e.action} ${e.target.id}`).join(', ') || 'nothing'})`,
        );
        continue;
      }
      if (entry.actor.api_client_id !== expected!.apiClientId) failures.push(`${what}: api_client_id ${entry.actor.api_client_id}`);
      for (const [key, value] of Object.entries(expected!.extra ?? {})) {
        const actual = key === 'user_id' ? entry.actor.user_id : entry[key];
        if (actual !== value) failures.push(`${what}: ${key} is ${actual}, expected ${value}`);
      }
    }
    expect(failures).toEqual([]);
    expect(expectedAudit.size).toBeGreaterThan(20);
    // Entries carry their timestamps and are newest first.
    const seqTimes = entries.map((e) => Date.parse(e.occurred_at));
    expect([...seqTimes].sort((a, b) => b - a)).toEqual(seqTimes);
  });
});
