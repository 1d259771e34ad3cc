// Spec "Acting for a customer", the auto-link rows, in the production deployment: a live platform
// token naming `billing:<client_id>` that no customer is linked to yet. The billing system is a real
// HTTP server started here; the service reads it through the production adapter.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BillingUnavailableError } from '../../src/billing/billingDirectory.js';
import { HttpBillingDirectory } from '../../src/billing/httpBillingDirectory.js';
import { bootstrapPlatform } from '../../src/services/bootstrapPlatform.js';
import type { ApiClient } from '../helpers/apiClient.js';
import { actAs, created, expectProblem } from '../helpers/assertions.js';
import { startTestService, type TestService } from '../helpers/testService.js';

const BILLING_TOKEN = 'billing-secret';

interface FakeClient {
  id: string;
  name: string;
  email: string | null;
  status: 'active' | 'closed';
}

interface SeenRequest {
  method: string;
  path: string;
  authorization: string | undefined;
}

/**
 * The provider's billing system as far as the service sees it: `GET /clients/{id}`. It records
 * every request. `mode` makes it fail; `gate` holds answers until that many requests wait (or a
 * second passes), so parallel callers are all inside the lookup at once.
 */
class FakeBillingSystem {
  readonly clients = new Map<string, FakeClient | string>();
  readonly requests: SeenRequest[] = [];
  mode: 'ok' | 'error' | 'hang' = 'ok';
  gate: { count: number; waiting: (() => void)[] } | null = null;
  private server: http.Server | null = null;
  private port = 0;

  get url() {
    return `http://127.0.0.1:${this.port}`;
  }

  requestsFor(id: string) {
    return this.requests.filter((r) => r.path === `/clients/${id}`);
  }

  async start(): Promise<void> {
    const server = http.createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Stops listening; start() listens on the same port again. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse) {
    this.requests.push({ method: req.method ?? '', path: req.url ?? '', authorization: req.headers.authorization });
    if (this.gate) {
      const gate = this.gate;
      await new Promise<void>((resolve) => {
        gate.waiting.push(resolve);
        if (gate.waiting.length >= gate.count) gate.waiting.forEach((release) => release());
        setTimeout(resolve, 1000);
      });
    }
    if (this.mode === 'hang') return;
    if (this.mode === 'error') return void res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error');
    const match = /^\/clients\/([^/?]+)$/.exec(req.url ?? '');
    const client = req.method === 'GET' && match ? this.clients.get(decodeURIComponent(match[1]!)) : undefined;
    if (client === undefined) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
    const body = typeof client === 'string' ? client : JSON.stringify(client);
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  }
}

const billing = new FakeBillingSystem();
let svc: TestService;
let platform: ApiClient;
let platformTenant: string;
let platformApiClient: string;

async function allTenants(): Promise<{ id: string; type: string; parent_id: string | null; name: string; billing_client_id: string | null }[]> {
  const res = await platform.get('/tenants?limit=500');
  expect(res.status).toBe(200);
  expect(res.body.pagination.has_more).toBe(false);
  return res.body.data;
}

const tenantsLinkedTo = async (clientId: string) => (await allTenants()).filter((t) => t.billing_client_id === clientId);

/** Audit entries (as the platform sees them) about one tenant. */
async function auditOf(tenantId: string): Promise<any[]> {
  const res = await platform.get(`/audit-log?target=${tenantId}&limit=500`);
  expect(res.status).toBe(200);
  return res.body.data;
}

async function auditCount(action: string): Promise<number> {
  const res = await platform.get(`/audit-log?action=${action}&limit=500`);
  expect(res.status).toBe(200);
  return res.body.data.length;
}

const activeClient = (id: string, name = `Client ${id}`): FakeClient => ({ id, name, email: `billing-${id}@example.com`, status: 'active' });

beforeAll(async () => {
  await billing.start();
  svc = await startTestService({ env: { DEPLOYMENT: 'production' }, billing: new HttpBillingDirectory(billing.url, BILLING_TOKEN) });
  const boot = await bootstrapPlatform(svc.service.services.db, 'production', 'Test Platform', new Date());
  expect(boot.token).toMatch(/^svc_live_/);
  platform = svc.as(boot.token);
  platformTenant = boot.tenantId;
  platformApiClient = boot.apiClientId;
});
afterAll(async () => {
  await svc?.stop();
  await billing.stop();
});
beforeEach(() => {
  billing.mode = 'ok';
  billing.gate = null;
});

describe('auto-link on first use by a live platform token', () => {
  it('creates one linked customer directly below the platform and proceeds as that customer', async () => {
    billing.clients.set('20001', { id: '20001', name: 'Acme GmbH', email: 'billing@acme.example', status: 'active' });
    expect(await allTenants()).toHaveLength(1);

    const me = await platform.get('/me', actAs('billing:20001'));
    expect(me.status, me.text).toBe(200);
    expect(me.body).toMatchObject({
      type: 'customer',
      name: 'Acme GmbH',
      parent_id: platformTenant,
      billing_client_id: '20001',
      status: 'active',
    });
    expect(me.body.token).toMatchObject({ tenant_id: platformTenant, acting_for_customer: true, deployment: 'production' });
    const customer = me.body.id as string;
    expect(customer).toMatch(/^ten_/);

    const tenants = await allTenants();
    expect(tenants).toHaveLength(2);
    expect(tenants.find((t) => t.id === customer)).toMatchObject({ type: 'customer', parent_id: platformTenant, billing_client_id: '20001' });

    // The billing system was only read, with the configured credentials.
    expect(billing.requestsFor('20001').length).toBeGreaterThanOrEqual(1);
    for (const request of billing.requests) {
      expect(request.method).toBe('GET');
      expect(request.authorization).toBe(`Bearer ${BILLING_TOKEN}`);
    }

    const audit = await auditOf(customer);
    const created = audit.filter((e) => e.action === 'tenant.created');
    const linked = audit.filter((e) => e.action === 'tenant.billing_linked');
    expect(created).toHaveLength(1);
    expect(linked).toHaveLength(1);
    expect(created[0]).toMatchObject({ target: { type: 'tenant', id: customer }, actor: { api_client_id: platformApiClient, tenant_id: platformTenant } });
    expect(created[0].details).toMatchObject({ type: 'customer', parent_id: platformTenant });
    expect(linked[0]).toMatchObject({ target: { type: 'tenant', id: customer }, details: { billing_client_id: '20001' } });
    expect(linked[0].actor.api_client_id).toBe(platformApiClient);
  });

  it('reuses the linked customer on later requests, also for writes done as that customer', async () => {
    const first = await platform.get('/me', actAs('billing:20001'));
    const customer = first.body.id as string;
    const tenantsBefore = await allTenants();
    const createdBefore = await auditCount('tenant.created');

    const again = await platform.get('/me', actAs('billing:20001'));
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(customer);

    const write = await platform.post(`/tenants/${customer}/api-clients`, { name: 'Panel of Acme' }, actAs('billing:20001'));
    const client = await created(write);
    expect(client.tenant_id).toBe(customer);
    const [entry] = await (await platform.get(`/audit-log?target=${client.id}`)).body.data;
    expect(entry).toMatchObject({ tenant_id: customer, on_behalf_of_tenant_id: customer, actor: { api_client_id: platformApiClient } });

    expect((await allTenants()).map((t) => t.id).sort()).toEqual(tenantsBefore.map((t) => t.id).sort());
    expect(await auditCount('tenant.created')).toBe(createdBefore);
    expect((await auditOf(customer)).filter((e) => e.action === 'tenant.billing_linked')).toHaveLength(1);
  });

  it('creates exactly one tenant and one pair of audit entries for 20 parallel first requests', async () => {
    billing.clients.set('20002', activeClient('20002', 'Parallel AG'));
    const createdBefore = await auditCount('tenant.created');
    const linkedBefore = await auditCount('tenant.billing_linked');
    billing.gate = { count: 20, waiting: [] };

    const responses = await Promise.all(Array.from({ length: 20 }, () => platform.get('/me', actAs('billing:20002'))));

    for (const res of responses) expect(res.status, res.text).toBe(200);
    const ids = new Set(responses.map((r) => r.body.id));
    expect(ids.size).toBe(1);
    const [customer] = ids;
    const linked = await tenantsLinkedTo('20002');
    expect(linked).toHaveLength(1);
    expect(linked[0]).toMatchObject({ id: customer, parent_id: platformTenant, type: 'customer', name: 'Parallel AG' });
    expect(await auditCount('tenant.created')).toBe(createdBefore + 1);
    expect(await auditCount('tenant.billing_linked')).toBe(linkedBefore + 1);
    const audit = await auditOf(customer);
    expect(audit.map((e) => e.action).sort()).toEqual(['tenant.billing_linked', 'tenant.created']);
  });
});

describe('billing clients that cannot be linked', () => {
  it('answers 404 act_as_unknown for a closed client and creates nothing', async () => {
    billing.clients.set('20009', { id: '20009', name: 'Gone Ltd', email: null, status: 'closed' });
    const before = await allTenants();
    expectProblem(await platform.get('/me', actAs('billing:20009')), 404, 'act_as_unknown');
    expect(billing.requestsFor('20009').length).toBeGreaterThanOrEqual(1);
    expect((await allTenants()).length).toBe(before.length);
    expect(await tenantsLinkedTo('20009')).toEqual([]);
  });

  it('answers 404 act_as_unknown for a client the billing system does not know and creates nothing', async () => {
    const before = await allTenants();
    expectProblem(await platform.get('/me', actAs('billing:29999')), 404, 'act_as_unknown');
    expect(billing.requestsFor('29999').length).toBeGreaterThanOrEqual(1);
    expect((await allTenants()).length).toBe(before.length);
  });

  it('answers 503 service_unavailable while the billing system fails or is down, and links once it is back', async () => {
    billing.clients.set('20020', activeClient('20020', 'Patient KG'));
    const before = await allTenants();

    billing.mode = 'error';
    const failing = await platform.get('/me', actAs('billing:20020'));
    expectProblem(failing, 503, 'service_unavailable');
    expect(billing.requestsFor('20020').length).toBeGreaterThanOrEqual(1);

    billing.mode = 'ok';
    await billing.stop();
    try {
      expectProblem(await platform.get('/me', actAs('billing:20020')), 503, 'service_unavailable');
    } finally {
      await billing.start();
    }
    expect((await allTenants()).length).toBe(before.length);
    expect(await tenantsLinkedTo('20020')).toEqual([]);

    const recovered = await platform.get('/me', actAs('billing:20020'));
    expect(recovered.status, recovered.text).toBe(200);
    expect(recovered.body).toMatchObject({ billing_client_id: '20020', name: 'Patient KG' });
  });
});

describe('tokens tied to a user', () => {
  async function userToken(email: string, permissions: string[]): Promise<{ token: ApiClient; userId: string }> {
    const user = await created(await platform.post(`/tenants/${platformTenant}/users`, { email, permissions }));
    expect(user.permissions).toEqual(permissions);
    const token = await created(
      await platform.post(`/api-clients/${platformApiClient}/tokens`, { name: email, scopes: ['tenant:read', 'act_as'], user_id: user.id }),
    );
    expect(token).toMatchObject({ user_id: user.id });
    expect(token.token).toMatch(/^svc_live_/);
    return { token: svc.as(token.token), userId: user.id };
  }

  it('refuses the auto-link with 403 act_as_not_allowed when the user lacks tenants.billing_link', async () => {
    billing.clients.set('20030', activeClient('20030'));
    const { token } = await userToken('no-link@platform.example', []);
    const before = await allTenants();

    expectProblem(await token.get('/me', actAs('billing:20030')), 403, 'act_as_not_allowed');
    expect((await allTenants()).length).toBe(before.length);
    expect(await tenantsLinkedTo('20030')).toEqual([]);

    // The permission is only needed to link: an already linked client can be acted for.
    const linked = await token.get('/me', actAs('billing:20001'));
    expect(linked.status).toBe(200);
    expect(linked.body.billing_client_id).toBe('20001');
  });

  it('links when the user holds tenants.billing_link, and the audit log names the user', async () => {
    billing.clients.set('20031', activeClient('20031', 'Linked By User SE'));
    const { token, userId } = await userToken('linker@platform.example', ['tenants.billing_link']);

    const me = await token.get('/me', actAs('billing:20031'));
    expect(me.status, me.text).toBe(200);
    expect(me.body).toMatchObject({ type: 'customer', parent_id: platformTenant, billing_client_id: '20031' });
    expect(me.body.token.user).toMatchObject({ id: userId });
    expect(await tenantsLinkedTo('20031')).toHaveLength(1);
    const audit = await auditOf(me.body.id);
    expect(audit.map((e) => e.action).sort()).toEqual(['tenant.billing_linked', 'tenant.created']);
    for (const entry of audit) expect(entry.actor.user_id).toBe(userId);
  });
});

describe('tokens that never auto-link', () => {
  it('answers 404 act_as_unknown to a live reseller token naming an unlinked client, without asking billing', async () => {
    billing.clients.set('20040', activeClient('20040'));
    const reseller = await created(await platform.post('/tenants', { type: 'reseller', name: 'Live Reseller' }));
    const client = await created(await platform.post(`/tenants/${reseller.id}/api-clients`, { name: 'Reseller panel' }));
    const issued = await created(await platform.post(`/api-clients/${client.id}/tokens`, { name: 'reseller', scopes: ['tenant:read', 'act_as'] }));
    expect(issued.token).toMatch(/^svc_live_/);
    const token = svc.as(issued.token);
    expect((await token.get('/me')).body).toMatchObject({ id: reseller.id, type: 'reseller' });
    const before = await allTenants();

    expectProblem(await token.get('/me', actAs('billing:20040')), 404, 'act_as_unknown');
    expect(billing.requestsFor('20040')).toEqual([]);
    expect((await allTenants()).length).toBe(before.length);
    // A client linked to the platform's direct customer is outside the reseller's subtree.
    expectProblem(await token.get('/me', actAs('billing:20001')), 403, 'act_as_not_allowed');
  });

  it('rejects a sandbox token against production with 401 and never reaches billing', async () => {
    billing.clients.set('20050', activeClient('20050'));
    const sandboxToken = `svc_test_${'A'.repeat(43)}`;
    const res = await svc.as(sandboxToken).get('/me', actAs('billing:20050'));
    expectProblem(res, 401, 'unauthenticated');
    expect(billing.requestsFor('20050')).toEqual([]);
    expect(await tenantsLinkedTo('20050')).toEqual([]);
  });
});

describe('HttpBillingDirectory against the billing system', () => {
  it('reads a client with the bearer token, null for an unknown one', async () => {
    billing.clients.set('30001', { id: '30001', name: 'Direct', email: null, status: 'active' });
    const directory = new HttpBillingDirectory(`${billing.url}/`, BILLING_TOKEN);
    expect(await directory.findClient('30001')).toEqual({ id: '30001', name: 'Direct', email: null, status: 'active' });
    expect(billing.requestsFor('30001').at(-1)).toEqual({ method: 'GET', path: '/clients/30001', authorization: `Bearer ${BILLING_TOKEN}` });
    expect(await directory.findClient('30404')).toBeNull();
  });

  it('throws BillingUnavailableError for bad JSON, a bad shape, errors, timeouts and an unreachable system', async () => {
    const directory = new HttpBillingDirectory(billing.url, BILLING_TOKEN, 300);
    billing.clients.set('30002', '{"id": "30002", "name": ');
    await expect(directory.findClient('30002')).rejects.toBeInstanceOf(BillingUnavailableError);
    billing.clients.set('30003', JSON.stringify({ id: '30003', name: 'No status' }));
    await expect(directory.findClient('30003')).rejects.toBeInstanceOf(BillingUnavailableError);
    billing.mode = 'error';
    await expect(directory.findClient('30001')).rejects.toBeInstanceOf(BillingUnavailableError);
    billing.mode = 'hang';
    await expect(directory.findClient('30001')).rejects.toBeInstanceOf(BillingUnavailableError);
    billing.mode = 'ok';
    const nowhere = new HttpBillingDirectory('http://127.0.0.1:1', BILLING_TOKEN, 1000);
    await expect(nowhere.findClient('30001')).rejects.toBeInstanceOf(BillingUnavailableError);
  });
});
