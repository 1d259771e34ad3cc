// Idempotency-Key (spec "Limits" and "Errors"): the first response is stored and replayed for
// 24 hours per API client + acting tenant + key; a different request with the same key is 422
// idempotency_key_reused; a retry while the first still runs is 409 idempotency_in_progress.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, type ApiResponse } from '../helpers/apiClient.js';
import { startTestService, type TestService } from '../helpers/testService.js';

let lab: TestService;
// Only the API role: no nightly lab reset may run while the test moves the clock by a day.
beforeAll(async () => {
  lab = await startTestService({ env: { ROLES: 'api' } });
});
afterAll(() => lab?.stop());

const HOUR = 60 * 60 * 1000;
let seq = 0;
const unique = (label: string) => `${label} ${process.pid}-${++seq}`;
const key = (label: string) => `idem-${label}-${++seq}`;

/** Tenants of the platform's subtree with exactly this name (what a user would look up). */
async function tenantsNamed(name: string): Promise<{ id: string; name: string }[]> {
  const res = await lab.as(lab.tokens.platform).get(`/tenants?q=${encodeURIComponent(name)}&limit=500`);
  expect(res.status).toBe(200);
  return res.body.data.filter((t: { name: string }) => t.name === name);
}

/** A new API client of `tenantId` and a token for it, made through the API with `parentToken`. */
async function newClientToken(parentToken: string, tenantId: string, scopes: string[]): Promise<string> {
  const api = lab.as(parentToken);
  const client = await api.post(`/tenants/${tenantId}/api-clients`, { name: unique('client') });
  expect(client.status).toBe(201);
  const token = await api.post(`/api-clients/${client.body.id}/tokens`, { name: 'idempotency test', scopes });
  expect(token.status).toBe(201);
  return token.body.token as string;
}

const withKey = (k: string, extra: Record<string, string> = {}) => ({ headers: { 'Idempotency-Key': k, ...extra } });

describe('Idempotency-Key', () => {
  it('stores the first response and replays status, body, Location and ETag with Idempotent-Replayed: true', async () => {
    const platform = lab.as(lab.tokens.platform);
    const name = unique('Replay GmbH');
    const k = key('replay');
    const first = await platform.post('/tenants', { type: 'customer', name }, withKey(k));
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBe('false');
    expect(first.headers.get('location')).toBe(`/api/v1/tenants/${first.body.id}`);
    expect(first.headers.get('etag')).toMatch(/^"[^"]+"$/);

    // The same body with its fields in another order and other spacing is the same request.
    const reordered = await platform.request('POST', '/tenants', {
      rawBody: `{ "name" : ${JSON.stringify(name)},\n  "type": "customer" }`,
      headers: { 'content-type': 'application/json', 'Idempotency-Key': k },
    });
    expect(reordered.status).toBe(201);
    expect(reordered.headers.get('idempotent-replayed')).toBe('true');
    expect(reordered.body.id).toBe(first.body.id);

    // The tenant changes afterwards; the replay is still the stored first response.
    const renamed = await platform.patch(`/tenants/${first.body.id}`, { name: `${name} renamed` });
    expect(renamed.status).toBe(200);

    const again = await platform.post('/tenants', { type: 'customer', name }, withKey(k));
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    // A fresh request id and rate-limit reading, though: the replay is a new request.
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(Number(again.headers.get('ratelimit-remaining'))).toBeLessThan(Number(first.headers.get('ratelimit-remaining')));

    expect(await tenantsNamed(name)).toHaveLength(0);
    expect(await tenantsNamed(`${name} renamed`)).toHaveLength(1);
  });

  it('replays a PATCH as well', async () => {
    const platform = lab.as(lab.tokens.platform);
    const created = await platform.post('/tenants', { type: 'customer', name: unique('Patch replay') });
    const k = key('patch');
    const first = await platform.patch(`/tenants/${created.body.id}`, { name: unique('Patched once') }, withKey(k));
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBe('false');
    const again = await platform.patch(`/tenants/${created.body.id}`, { name: first.body.name }, withKey(k));
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));

    // One update, one audit entry.
    const audit = await platform.get(`/audit-log?target=${created.body.id}&action=tenant.updated`);
    expect(audit.status).toBe(200);
    expect(audit.body.data).toHaveLength(1);
  });

  it('scopes the key per API client: the same key from another client of the same tenant is independent', async () => {
    const otherReseller = await newClientToken(lab.tokens.platform, lab.tokens.tenants.reseller, ['tenants:read', 'tenants:write']);
    const name = unique('Per client');
    const k = key('per-client');
    const a = await lab.as(lab.tokens.reseller).post('/tenants', { type: 'customer', name }, withKey(k));
    const b = await lab.as(otherReseller).post('/tenants', { type: 'customer', name }, withKey(k));
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(a.headers.get('idempotent-replayed')).toBe('false');
    expect(b.headers.get('idempotent-replayed')).toBe('false');
    expect(b.body.id).not.toBe(a.body.id);
    expect(await tenantsNamed(name)).toHaveLength(2);

    // Each client still gets its own replay.
    const a2 = await lab.as(lab.tokens.reseller).post('/tenants', { type: 'customer', name }, withKey(k));
    const b2 = await lab.as(otherReseller).post('/tenants', { type: 'customer', name }, withKey(k));
    expect([a2.headers.get('idempotent-replayed'), a2.body.id]).toEqual(['true', a.body.id]);
    expect([b2.headers.get('idempotent-replayed'), b2.body.id]).toEqual(['true', b.body.id]);
  });

  it('scopes the key per acting tenant: the same client acting for another customer is independent', async () => {
    const reseller = lab.as(lab.tokens.reseller);
    const [customerA, customerB] = lab.tokens.tenants.customers;
    const k = key('per-tenant');
    const body = { name: unique('acting client') };

    // The same request, once as the reseller itself and once acting for customer A.
    const own = await reseller.post(`/tenants/${customerA}/api-clients`, body, withKey(k));
    const actingA = await reseller.post(`/tenants/${customerA}/api-clients`, body, withKey(k, { 'X-Act-As-Customer': customerA }));
    expect(own.status).toBe(201);
    expect(actingA.status).toBe(201);
    expect(actingA.headers.get('idempotent-replayed')).toBe('false');
    expect(actingA.body.id).not.toBe(own.body.id);

    // Acting for customer B, the key is unused, so a different request with it is no reuse.
    const actingB = await reseller.post(`/tenants/${customerB}/api-clients`, body, withKey(k, { 'X-Act-As-Customer': customerB }));
    expect(actingB.status).toBe(201);
    expect(actingB.headers.get('idempotent-replayed')).toBe('false');
    expect(actingB.body.tenant_id).toBe(customerB);

    // Back acting for A with the same key: A's stored response.
    const replayA = await reseller.post(`/tenants/${customerA}/api-clients`, body, withKey(k, { 'X-Act-As-Customer': customerA }));
    expect(replayA.headers.get('idempotent-replayed')).toBe('true');
    expect(replayA.body.id).toBe(actingA.body.id);

    const clients = await reseller.get(`/tenants/${customerA}/api-clients?limit=500`);
    expect(clients.body.data.filter((c: { name: string }) => c.name === body.name)).toHaveLength(2);
  });

  it('answers 422 idempotency_key_reused for a different body with the same key and creates nothing', async () => {
    const platform = lab.as(lab.tokens.platform);
    const k = key('reused');
    const name = unique('Original');
    const first = await platform.post('/tenants', { type: 'customer', name }, withKey(k));
    expect(first.status).toBe(201);

    const otherName = unique('Different');
    const reused = await platform.post('/tenants', { type: 'customer', name: otherName }, withKey(k));
    expect(reused.status).toBe(422);
    expect(reused.headers.get('content-type')).toContain('application/problem+json');
    expect(reused.body).toMatchObject({ code: 'idempotency_key_reused', status: 422 });
    expect(reused.body.request_id).toBe(reused.headers.get('x-request-id'));
    expect(reused.headers.get('idempotent-replayed')).toBeNull();
    expect(await tenantsNamed(otherName)).toHaveLength(0);

    // The same key on another operation is a different request too.
    const elsewhere = await platform.patch(`/tenants/${first.body.id}`, { name }, withKey(k));
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body.code).toBe('idempotency_key_reused');

    // The stored response is untouched by the refusals.
    const replay = await platform.post('/tenants', { type: 'customer', name }, withKey(k));
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.id).toBe(first.body.id);
  });

  it('creates exactly one tenant from 50 parallel identical POSTs with one key', async () => {
    const platform = lab.as(lab.tokens.platform);
    const name = unique('Parallel');
    const k = key('parallel');
    const responses = await Promise.all(Array.from({ length: 50 }, () => platform.post('/tenants', { type: 'customer', name }, withKey(k))));
    const statuses = responses.map((r) => r.status);
    expect(
      statuses.every((s) => s === 201 || s === 409),
      `statuses: ${statuses.join(',')}`,
    ).toBe(true);
    for (const r of responses.filter((r) => r.status === 409)) expect(r.body.code).toBe('idempotency_in_progress');

    const created = responses.filter((r) => r.status === 201);
    const originals = created.filter((r) => r.headers.get('idempotent-replayed') === 'false');
    expect(originals).toHaveLength(1);
    for (const r of created) {
      expect(r.body.id).toBe(originals[0]!.body.id);
      expect(r.headers.get('etag')).toBe(originals[0]!.headers.get('etag'));
    }

    const named = await tenantsNamed(name);
    expect(named).toHaveLength(1);
    expect(named[0]!.id).toBe(originals[0]!.body.id);

    // Once the dust settles, the key replays.
    const later = await platform.post('/tenants', { type: 'customer', name }, withKey(k));
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBe('true');
    expect(later.body.id).toBe(named[0]!.id);
  });

  it('answers 409 idempotency_in_progress to a retry while the first request still runs', async () => {
    const platform = lab.as(lab.tokens.platform);
    const tenant = await platform.post('/tenants', { type: 'customer', name: unique('Blocked') });
    expect(tenant.status).toBe(201);
    const newName = unique('Unblocked');
    const k = key('in-progress');

    // Hold the tenant's row lock: PATCH /tenants/{id} reads it FOR UPDATE and has to wait.
    const holder = new pg.Client({ connectionString: lab.databaseUrl });
    await holder.connect();
    let first: Promise<ApiResponse> | null = null;
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT id FROM tenants WHERE id = $1 FOR UPDATE', [tenant.body.id]);
      first = platform.patch(`/tenants/${tenant.body.id}`, { name: newName }, withKey(k));
      await waitForLockWaiter(lab.databaseUrl);

      const retry = await platform.patch(`/tenants/${tenant.body.id}`, { name: newName }, withKey(k));
      expect(retry.status).toBe(409);
      expect(retry.headers.get('content-type')).toContain('application/problem+json');
      expect(retry.body).toMatchObject({ code: 'idempotency_in_progress', status: 409 });
      expect(retry.body.request_id).toBe(retry.headers.get('x-request-id'));

      await holder.query('COMMIT');
    } finally {
      await holder.query('ROLLBACK').catch(() => {});
      await holder.end();
    }

    const done = await first!;
    expect(done.status).toBe(200);
    expect(done.headers.get('idempotent-replayed')).toBe('false');
    expect(done.body.name).toBe(newName);

    // The refused retry stored nothing; the next retry replays the first response.
    const replay = await platform.patch(`/tenants/${tenant.body.id}`, { name: newName }, withKey(k));
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(done.body);
  });

  it('holds across API processes sharing the database', async () => {
    const second = await startTestService({ databaseUrl: lab.databaseUrl, clock: lab.clock, env: { ROLES: 'api' } });
    try {
      const processes = [lab.as(lab.tokens.platform), new ApiClient(second.url, lab.tokens.platform)];
      const name = unique('Two processes');
      const k = key('processes');
      const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => processes[i % 2]!.post('/tenants', { type: 'customer', name }, withKey(k))));
      expect(responses.every((r) => r.status === 201 || (r.status === 409 && r.body.code === 'idempotency_in_progress'))).toBe(true);
      expect(responses.filter((r) => r.headers.get('idempotent-replayed') === 'false')).toHaveLength(1);
      const named = await tenantsNamed(name);
      expect(named).toHaveLength(1);
      // Stored by one process, replayed by either.
      for (const api of processes) {
        const replay = await api.post('/tenants', { type: 'customer', name }, withKey(k));
        expect(replay.status).toBe(201);
        expect(replay.headers.get('idempotent-replayed')).toBe('true');
        expect(replay.body.id).toBe(named[0]!.id);
      }
    } finally {
      await second.stop();
    }
  });

  it('rejects a key longer than 255 characters with 422 pointing at the header, and accepts 255', async () => {
    const platform = lab.as(lab.tokens.platform);
    const name = unique('Long key');
    const tooLong = await platform.post('/tenants', { type: 'customer', name }, withKey('k'.repeat(256)));
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.code).toBe('validation_failed');
    expect(tooLong.body.errors[0]).toMatchObject({ in: 'header', pointer: '/Idempotency-Key' });
    expect(await tenantsNamed(name)).toHaveLength(0);

    const longest = 'k'.repeat(250) + String(++seq).padStart(5, '0');
    const ok = await platform.post('/tenants', { type: 'customer', name }, withKey(longest));
    expect(ok.status).toBe(201);
    const replay = await platform.post('/tenants', { type: 'customer', name }, withKey(longest));
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await tenantsNamed(name)).toHaveLength(1);
  });

  describe('a refusal is the stored answer too: a retry loop always gets the same one', () => {
    /** The same refusal, told again: same status, code and errors; a fresh request id. */
    function expectReplayedRefusal(first: ApiResponse, again: ApiResponse) {
      expect(again.status).toBe(first.status);
      expect(again.headers.get('content-type')).toContain('application/problem+json');
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body.code).toBe(first.body.code);
      expect(again.body.errors).toEqual(first.body.errors);
      expect(again.body.request_id).toBe(again.headers.get('x-request-id'));
      expect(again.body.request_id).not.toBe(first.body.request_id);
    }

    it('422 from validating the body: replayed for the same body; another body is idempotency_key_reused', async () => {
      const reseller = lab.as(lab.tokens.reseller);
      const name = unique('Corrected');
      const k = key('invalid');
      const invalid = await reseller.post('/tenants', { type: 'customer', name, limits: { max_zones: -1 } }, withKey(k));
      expect(invalid.status).toBe(422);
      expect(invalid.body.code).toBe('validation_failed');
      expect(invalid.body.errors[0].pointer).toBe('/limits/max_zones');
      expect(invalid.headers.get('idempotent-replayed')).toBe('false');

      expectReplayedRefusal(invalid, await reseller.post('/tenants', { type: 'customer', name, limits: { max_zones: -1 } }, withKey(k)));
      const corrected = await reseller.post('/tenants', { type: 'customer', name }, withKey(k));
      expect(corrected.status).toBe(422);
      expect(corrected.body.code).toBe('idempotency_key_reused');
      expect(await tenantsNamed(name)).toHaveLength(0);

      // A corrected request is a new request: a new key.
      expect((await reseller.post('/tenants', { type: 'customer', name }, withKey(key('corrected')))).status).toBe(201);
      expect(await tenantsNamed(name)).toHaveLength(1);
    });

    it('422 from inside the write transaction: stored although the transaction rolled back', async () => {
      const reseller = lab.as(lab.tokens.reseller);
      const name = unique('Refused');
      const k = key('refused');
      // A reseller cannot create resellers: the service refuses after it began writing.
      const refused = await reseller.post('/tenants', { type: 'reseller', name }, withKey(k));
      expect(refused.status).toBe(422);
      expect(refused.body.errors[0].pointer).toBe('/type');
      expect(refused.headers.get('idempotent-replayed')).toBe('false');
      expectReplayedRefusal(refused, await reseller.post('/tenants', { type: 'reseller', name }, withKey(k)));
      expect((await reseller.post('/tenants', { type: 'customer', name }, withKey(k))).body.code).toBe('idempotency_key_reused');
      expect(await tenantsNamed(name)).toHaveLength(0);
    });

    it('409 quota_exceeded stays the answer after the quota was raised; a new key then creates the zone', async () => {
      const reseller = lab.as(lab.tokens.reseller);
      const tenant = await reseller.post('/tenants', { type: 'customer', name: unique('Quota'), limits: { max_zones: 1 } });
      expect(tenant.status).toBe(201);
      const customer = lab.as(await newClientToken(lab.tokens.reseller, tenant.body.id, ['zones:read', 'zones:write']));
      expect((await customer.post('/zones', { name: `first-${process.pid}-${seq}.test` })).status).toBe(201);
      const zone = { name: `second-${process.pid}-${++seq}.test` };
      const k = key('quota');
      const full = await customer.post('/zones', zone, withKey(k));
      expect(full.status).toBe(409);
      expect(full.body.code).toBe('quota_exceeded');
      expect(full.headers.get('idempotent-replayed')).toBe('false');

      expect((await reseller.patch(`/tenants/${tenant.body.id}`, { limits: { max_zones: 2 } })).status).toBe(200);
      expectReplayedRefusal(full, await customer.post('/zones', zone, withKey(k)));
      expect((await customer.get('/zones')).body.pagination.total).toBe(1);

      // Told in the language of the request that receives it: the problem, not its text, is stored.
      const german = await customer.post('/zones', zone, withKey(k, { 'Accept-Language': 'de' }));
      expectReplayedRefusal(full, german);
      expect(german.headers.get('content-language')).toBe('de');
      expect(german.body.title).not.toBe(full.body.title);

      expect((await customer.post('/zones', zone, withKey(key('quota-new')))).status).toBe(201);
    });

    it('50 parallel requests with one key get one answer: one refusal, the others replays or in progress', async () => {
      const reseller = lab.as(lab.tokens.reseller);
      const name = unique('Parallel refusal');
      const k = key('parallel-refusal');
      const responses = await Promise.all(Array.from({ length: 50 }, () => reseller.post('/tenants', { type: 'reseller', name }, withKey(k))));
      const codes = responses.map((r) => r.body.code);
      expect(
        codes.every((c) => c === 'validation_failed' || c === 'idempotency_in_progress'),
        codes.join(','),
      ).toBe(true);
      const refusals = responses.filter((r) => r.body.code === 'validation_failed');
      expect(refusals.filter((r) => r.headers.get('idempotent-replayed') === 'false')).toHaveLength(1);
      for (const r of refusals) expect(r.body.errors).toEqual(refusals[0]!.body.errors);
      const later = await reseller.post('/tenants', { type: 'reseller', name }, withKey(k));
      expect([later.status, later.body.code, later.headers.get('idempotent-replayed')]).toEqual([422, 'validation_failed', 'true']);
    });

    it('refusals of the gate before the write are not stored: suspended, then unsuspended, the same key succeeds', async () => {
      const reseller = lab.as(lab.tokens.reseller);
      const tenant = await reseller.post('/tenants', { type: 'customer', name: unique('Suspended for a while') });
      const customer = lab.as(await newClientToken(lab.tokens.reseller, tenant.body.id, ['zones:read', 'zones:write']));
      expect((await reseller.post(`/tenants/${tenant.body.id}/suspend`, { reason: 'unpaid' })).status).toBe(200);
      const zone = { name: `gate-${process.pid}-${++seq}.test` };
      const k = key('gate');
      const suspended = await customer.post('/zones', zone, withKey(k));
      expect([suspended.status, suspended.body.code]).toEqual([403, 'tenant_suspended']);
      expect(suspended.headers.get('idempotent-replayed')).toBeNull();
      expect((await reseller.post(`/tenants/${tenant.body.id}/unsuspend`, {})).status).toBe(200);
      const created = await customer.post('/zones', zone, withKey(k));
      expect(created.status).toBe(201);
      expect(created.headers.get('idempotent-replayed')).toBe('false');
    });
  });

  describe('Idempotent-Replayed on the responses the spec lists it on, with or without a key', () => {
    it('201 of POST /zones, POST /zones/{zone}/records and an applied import say false without a key', async () => {
      const customer = lab.as(lab.tokens.customers[0]);
      const zone = `replayed-${process.pid}-${++seq}.test`;
      const created = await customer.post('/zones', { name: zone });
      expect(created.status).toBe(201);
      expect(created.headers.get('idempotent-replayed')).toBe('false');
      const record = await customer.post(`/zones/${zone}/records`, { type: 'TXT', name: 'a', data: { text: 'x' } });
      expect(record.status).toBe(201);
      expect(record.headers.get('idempotent-replayed')).toBe('false');
      const imported = await customer.post(`/zones/${zone}/import`, { mode: 'merge', zonefile: `b 300 IN TXT "y"\n` });
      expect(imported.status, imported.text).toBe(201);
      expect(imported.headers.get('idempotent-replayed')).toBe('false');
      // A dry run (200) and a read are not among them.
      const dryRun = await customer.post(`/zones/${zone}/import`, { mode: 'merge', dry_run: true, zonefile: `c 300 IN TXT "z"\n` });
      expect(dryRun.status).toBe(200);
      expect(dryRun.headers.get('idempotent-replayed')).toBeNull();
      expect((await customer.get(`/zones/${zone}`)).headers.get('idempotent-replayed')).toBeNull();
    });
  });

  it('replays for 24 hours; afterwards the key is fresh again', async () => {
    const platform = lab.as(lab.tokens.platform);
    const name = unique('Day long');
    const k = key('day');
    const first = await platform.post('/tenants', { type: 'customer', name }, withKey(k));
    expect(first.status).toBe(201);

    lab.clock.advance(24 * HOUR - 60_000);
    const withinDay = await platform.post('/tenants', { type: 'customer', name }, withKey(k));
    expect(withinDay.headers.get('idempotent-replayed')).toBe('true');
    expect(withinDay.body.id).toBe(first.body.id);

    lab.clock.advance(2 * 60_000);
    const nextDay = await platform.post('/tenants', { type: 'customer', name }, withKey(k));
    expect(nextDay.status).toBe(201);
    expect(nextDay.headers.get('idempotent-replayed')).toBe('false');
    expect(nextDay.body.id).not.toBe(first.body.id);
    expect(await tenantsNamed(name)).toHaveLength(2);

    // The new response is the one stored now.
    const replay = await platform.post('/tenants', { type: 'customer', name }, withKey(k));
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.id).toBe(nextDay.body.id);
  });
});

/** Waits until a session of this database waits for a tenant row lock (the blocked PATCH). */
async function waitForLockWaiter(databaseUrl: string, timeoutMs = 10_000): Promise<void> {
  // Its own connection: inside a transaction pg_stat_activity would be a frozen snapshot.
  const watcher = new pg.Client({ connectionString: databaseUrl });
  await watcher.connect();
  try {
    await pollForLockWaiter(watcher, timeoutMs);
  } finally {
    await watcher.end();
  }
}

async function pollForLockWaiter(client: pg.Client, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await client.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'
          AND query ILIKE '%from "tenants"%for % update%'`,
    );
    if (r.rows[0].n > 0) return;
    if (Date.now() > deadline) throw new Error('the request never waited for the row lock');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
