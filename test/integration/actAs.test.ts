// Spec "Acting for a customer": every row of the X-Act-As-Customer case table in the sandbox lab,
// over real HTTP against the real service. The lab has a platform, a reseller with customers A and
// B (billing clients 10001 and 10002), and a simulated billing system with 10003 (active,
// unlinked) and 10004 (closed). The tests add a second reseller with a customer of its own and a
// customer directly below the platform.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../helpers/apiClient.js';
import { actAs, created, expectProblem } from '../helpers/assertions.js';
import { startTestService, type TestService } from '../helpers/testService.js';

let lab: TestService;
let platform: ApiClient;
let reseller: ApiClient;
let customerA: ApiClient;
let ids: { platform: string; reseller: string; customerA: string; customerB: string };
/** A second reseller, its customer (linked to billing client "r2-client") and its own token. */
let reseller2: { id: string; customer: string; token: ApiClient };
/** A customer directly below the platform. */
let platformCustomer: string;

/** Ids of every tenant the platform token sees. */
async function allTenants(): Promise<{ id: string; billing_client_id: string | null }[]> {
  const res = await platform.get('/tenants?limit=500');
  expect(res.status).toBe(200);
  expect(res.body.pagination.has_more).toBe(false);
  return res.body.data;
}

/** A fresh token of `tenant` with exactly `scopes`, issued by `issuer` over the API. */
async function issueToken(issuer: ApiClient, tenant: string, scopes: string[]): Promise<ApiClient> {
  const client = await created(await issuer.post(`/tenants/${tenant}/api-clients`, { name: `client ${scopes.join(' ')}` }));
  const token = await created(await issuer.post(`/api-clients/${client.id}/tokens`, { name: 'test token', scopes }));
  expect(token.token).toMatch(/^svc_test_/);
  return lab.as(token.token);
}

beforeAll(async () => {
  lab = await startTestService();
  platform = lab.as(lab.tokens.platform);
  reseller = lab.as(lab.tokens.reseller);
  customerA = lab.as(lab.tokens.customers[0]);
  ids = {
    platform: lab.tokens.tenants.platform,
    reseller: lab.tokens.tenants.reseller,
    customerA: lab.tokens.tenants.customers[0],
    customerB: lab.tokens.tenants.customers[1],
  };
  const r2 = await created(await platform.post('/tenants', { type: 'reseller', name: 'Second Reseller' }));
  const c2 = await created(
    await platform.post('/tenants', { type: 'customer', name: 'Second Reseller Customer', parent_id: r2.id, billing_client_id: 'r2-client' }),
  );
  expect(c2.parent_id).toBe(r2.id);
  reseller2 = { id: r2.id, customer: c2.id, token: await issueToken(platform, r2.id, ['tenant:read', 'tenants:read', 'act_as']) };
  const direct = await created(await platform.post('/tenants', { type: 'customer', name: 'Platform Direct Customer' }));
  expect(direct.parent_id).toBe(ids.platform);
  platformCustomer = direct.id;
});
afterAll(() => lab?.stop());

describe('acting by tenant id', () => {
  it('without the header the acting tenant is the token’s own tenant', async () => {
    for (const [client, tenant] of [
      [platform, ids.platform],
      [reseller, ids.reseller],
    ] as const) {
      const res = await client.get('/me');
      expect(res.status).toBe(200);
      expect(res.body.id).toBe(tenant);
      expect(res.body.token).toMatchObject({ tenant_id: tenant, acting_for_customer: false });
    }
  });

  it('lets the reseller token and the platform token act for each lab customer', async () => {
    for (const [client, owner] of [
      [reseller, ids.reseller],
      [platform, ids.platform],
    ] as const) {
      for (const customer of [ids.customerA, ids.customerB]) {
        const res = await client.get('/me', actAs(customer));
        expect(res.status, res.text).toBe(200);
        expect(res.body).toMatchObject({ id: customer, type: 'customer', parent_id: ids.reseller });
        expect(res.body.token).toMatchObject({ tenant_id: owner, acting_for_customer: true });
      }
    }
  });

  it('lets the platform act for its direct customer and for another reseller’s customer', async () => {
    for (const customer of [platformCustomer, reseller2.customer]) {
      const res = await platform.get('/me', actAs(customer));
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ id: customer, type: 'customer' });
    }
  });

  it('evaluates the request exactly as the customer: it sees only the customer’s subtree', async () => {
    const own = await platform.get('/tenants?limit=500');
    expect(own.body.data.map((t: { id: string }) => t.id)).toEqual(expect.arrayContaining([ids.platform, ids.reseller, ids.customerA, ids.customerB]));

    const asA = await platform.get('/tenants?limit=500', actAs(ids.customerA));
    expect(asA.status).toBe(200);
    expect(asA.body.data.map((t: { id: string }) => t.id)).toEqual([ids.customerA]);

    const resellerAsB = await reseller.get('/tenants?limit=500', actAs(ids.customerB));
    expect(resellerAsB.body.data.map((t: { id: string }) => t.id)).toEqual([ids.customerB]);

    // Customer B is visible to the platform itself, but not when acting for customer A.
    expect((await platform.get(`/tenants/${ids.customerB}`)).status).toBe(200);
    expectProblem(await platform.get(`/tenants/${ids.customerB}`, actAs(ids.customerA)), 404, 'not_found');
    expectProblem(await platform.post(`/tenants/${ids.customerB}/api-clients`, { name: 'sneaky' }, actAs(ids.customerA)), 404, 'not_found');
  });

  it('needs the act_as scope: 403 insufficient_scope', async () => {
    const noActAs = await issueToken(reseller, ids.reseller, ['tenant:read', 'tenants:read']);
    const plain = await noActAs.get('/me');
    expect(plain.status).toBe(200);
    expect(plain.body.token.scopes).not.toContain('act_as');
    expectProblem(await noActAs.get('/me', actAs(ids.customerA)), 403, 'insufficient_scope');
    expectProblem(await noActAs.get('/me', actAs('billing:10001')), 403, 'insufficient_scope');

    const platformNoActAs = await issueToken(platform, ids.platform, ['tenant:read']);
    expectProblem(await platformNoActAs.get('/me', actAs(ids.customerA)), 403, 'insufficient_scope');
  });
});

describe('targets that may not be acted for: 403 act_as_not_allowed', () => {
  it('refuses a target outside the token’s subtree', async () => {
    // The second reseller's token and the lab customers are in different subtrees, both ways.
    expectProblem(await reseller.get('/me', actAs(reseller2.customer)), 403, 'act_as_not_allowed');
    expect((await reseller2.token.get('/me', actAs(reseller2.customer))).status).toBe(200);
    expectProblem(await reseller2.token.get('/me', actAs(ids.customerA)), 403, 'act_as_not_allowed');
  });

  it('refuses a target that is not a customer', async () => {
    expectProblem(await platform.get('/me', actAs(ids.reseller)), 403, 'act_as_not_allowed');
    expectProblem(await platform.get('/me', actAs(reseller2.id)), 403, 'act_as_not_allowed');
    expectProblem(await platform.get('/me', actAs(ids.platform)), 403, 'act_as_not_allowed');
    expectProblem(await reseller.get('/me', actAs(ids.reseller)), 403, 'act_as_not_allowed');
  });

  it('refuses a reseller naming a direct customer of the platform', async () => {
    expectProblem(await reseller.get('/me', actAs(platformCustomer)), 403, 'act_as_not_allowed');
  });

  it('refuses a reseller naming another reseller’s customer, by tenant id and by billing client', async () => {
    expectProblem(await reseller.get('/me', actAs(reseller2.customer)), 403, 'act_as_not_allowed');
    expectProblem(await reseller.get('/me', actAs('billing:r2-client')), 403, 'act_as_not_allowed');
    expectProblem(await reseller2.token.get('/me', actAs('billing:10001')), 403, 'act_as_not_allowed');
    // The platform, whose subtree holds it, may.
    const res = await platform.get('/me', actAs('billing:r2-client'));
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(reseller2.customer);
  });

  it('refuses a customer token sending the header, whatever it names', async () => {
    expectProblem(await customerA.get('/me', actAs(ids.customerB)), 403, 'act_as_not_allowed');
    expectProblem(await customerA.get('/me', actAs(ids.customerA)), 403, 'act_as_not_allowed');
    expectProblem(await customerA.get('/me', actAs('billing:10002')), 403, 'act_as_not_allowed');
    // Not even whether a target exists is told to a customer.
    expectProblem(await customerA.get('/me', actAs(`ten_${'a'.repeat(26)}`)), 403, 'act_as_not_allowed');
    expectProblem(await customerA.get('/me', actAs('billing:10003')), 403, 'act_as_not_allowed');
  });
});

describe('unknown and malformed targets', () => {
  it('answers 404 act_as_unknown for a well-formed tenant id that does not exist', async () => {
    const missing = `ten_${'a'.repeat(26)}`;
    expectProblem(await platform.get('/me', actAs(missing)), 404, 'act_as_unknown');
    expectProblem(await reseller.get('/me', actAs(missing)), 404, 'act_as_unknown');
  });

  it('answers 422 validation_failed for a malformed header, pointing at the header', async () => {
    for (const value of ['customer-a', 'TEN_ABC', 'ten_', 'billing:', 'billing:-1', `${ids.customerA},${ids.customerB}`, 'tenant:10001']) {
      const res = await reseller.get('/me', actAs(value));
      expectProblem(res, 422, 'validation_failed');
      expect(res.body.errors[0]).toMatchObject({ in: 'header', pointer: '/X-Act-As-Customer' });
    }
  });
});

describe('acting by billing client in the sandbox', () => {
  it('acts for the customer linked to the billing client, for reseller and platform tokens', async () => {
    for (const client of [reseller, platform]) {
      for (const [billing, tenant] of [
        ['10001', ids.customerA],
        ['10002', ids.customerB],
      ] as const) {
        const res = await client.get('/me', actAs(`billing:${billing}`));
        expect(res.status, res.text).toBe(200);
        expect(res.body).toMatchObject({ id: tenant, billing_client_id: billing });
        expect(res.body.token.acting_for_customer).toBe(true);
      }
    }
  });

  it('never auto-links with a sandbox token: unlinked, closed and unknown clients are 404 and create nothing', async () => {
    // The simulated billing system does know 10003 (active) and 10004 (closed).
    const billing = await platform.get('/lab/billing-clients');
    expect(billing.status).toBe(200);
    expect(billing.body.data).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: '10003', status: 'active' }), expect.objectContaining({ id: '10004', status: 'closed' })]),
    );
    const before = await allTenants();

    for (const target of ['billing:10003', 'billing:10004', 'billing:99999', 'billing:no-such-client']) {
      expectProblem(await platform.get('/me', actAs(target)), 404, 'act_as_unknown');
      expectProblem(await platform.post(`/tenants`, { type: 'customer', name: 'via act-as' }, actAs(target)), 404, 'act_as_unknown');
    }

    const after = await allTenants();
    expect(after.map((t) => t.id).sort()).toEqual(before.map((t) => t.id).sort());
    expect(after.filter((t) => t.billing_client_id === '10003' || t.billing_client_id === '10004')).toEqual([]);
    const audit = await platform.get('/audit-log?action=tenant.billing_linked&limit=500');
    expect(audit.body.data.map((e: any) => e.details.billing_client_id)).not.toContain('10003');
  });

  it('answers 404 to a reseller token naming an unlinked client', async () => {
    expectProblem(await reseller.get('/me', actAs('billing:10003')), 404, 'act_as_unknown');
    expect((await allTenants()).some((t) => t.billing_client_id === '10003')).toBe(false);
  });
});

describe('the audit log of a write done while acting', () => {
  it('records the API client and the customer acted for', async () => {
    const me = await platform.get('/me');
    const platformClient = me.body.token.api_client.id as string;

    const res = await platform.post(`/tenants/${ids.customerA}/api-clients`, { name: 'Created while acting' }, actAs(ids.customerA));
    const client = await created(res);
    expect(client.tenant_id).toBe(ids.customerA);

    const log = await platform.get(`/audit-log?action=api_client.created&target=${client.id}`);
    expect(log.status).toBe(200);
    expect(log.body.data).toHaveLength(1);
    expect(log.body.data[0]).toMatchObject({
      action: 'api_client.created',
      target: { type: 'api_client', id: client.id },
      tenant_id: ids.customerA,
      actor: { api_client_id: platformClient, token_id: me.body.token.id, tenant_id: ids.platform },
      on_behalf_of_tenant_id: ids.customerA,
      request_id: res.headers.get('x-request-id'),
    });

    // The customer sees in its own audit log what was done for it, and by which API client.
    const own = await customerA.get(`/audit-log?target=${client.id}`);
    expect(own.status).toBe(200);
    expect(own.body.data).toHaveLength(1);
    expect(own.body.data[0]).toMatchObject({ actor: { api_client_id: platformClient }, on_behalf_of_tenant_id: ids.customerA });

    // The same write without the header is the platform's own: nobody acted for.
    const plain = await created(await platform.post(`/tenants/${ids.customerA}/api-clients`, { name: 'Created directly' }));
    const plainLog = await platform.get(`/audit-log?target=${plain.id}`);
    expect(plainLog.body.data[0]).toMatchObject({ tenant_id: ids.platform, on_behalf_of_tenant_id: null });
  });
});
