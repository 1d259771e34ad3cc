// Webhooks as a panel or billing module uses them (spec "Events"; docs/webhooks.md): a real
// receiver in this process checks every signature and de-duplicates; time-based rules (the retry
// schedule, the 3-day disable, the 24-hour rotation overlap) move the service's injected clock.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import type { ApiClient } from '../helpers/apiClient.js';
import { issueToken } from '../helpers/credentials.js';
import { deliveriesOf, registerWebhook } from '../helpers/webhookApi.js';
import { createDatabase, startTestService, type TestService } from '../helpers/testService.js';
import { smtpServer } from '../helpers/smtpServer.js';
import { eventually, verifySignature, WebhookReceiver } from '../helpers/webhookReceiver.js';

const FAST = { WEBHOOK_POLL_INTERVAL_MS: '50' };
const MIN = 60_000;
const HOUR = 60 * MIN;

let lab: TestService;
let reseller: ApiClient;
let customerA: ApiClient;
let customerB: ApiClient;
let ids: { reseller: string; customers: string[] };
let n = 0;
const zoneName = () => `hook-${Date.now().toString(36)}-${++n}.example`;

beforeAll(async () => {
  lab = await startTestService({ env: FAST });
  reseller = lab.as(lab.tokens.reseller);
  customerA = lab.as(lab.tokens.customers[0]!);
  customerB = lab.as(lab.tokens.customers[1]!);
  ids = lab.tokens.tenants as unknown as { reseller: string; customers: string[] };
});
afterAll(() => lab?.stop());

async function createZone(api: ApiClient, name = zoneName()) {
  const res = await api.post('/zones', { name });
  expect(res.status, res.text).toBe(201);
  return name;
}

describe('registration', () => {
  it('shows the secret once, and validates URL and events', async () => {
    const receiver = await new WebhookReceiver().start();
    try {
      const created = await registerWebhook(reseller, receiver, ['zone.changed']);
      expect(created.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
      expect(created.scope).toBe('subtree');
      const read = await reseller.get(`/webhooks/${created.id}`);
      expect(read.status).toBe(200);
      expect(read.body).not.toHaveProperty('secret');
      expect(read.body).toMatchObject({ id: created.id, url: receiver.url, events: ['zone.changed'], state: 'active', tenant_id: ids.reseller });
      const list = await reseller.get('/webhooks');
      expect(list.body.data.map((w: any) => w.id)).toContain(created.id);
      expect(list.body.data.every((w: any) => !('secret' in w))).toBe(true);

      for (const body of [
        { url: 'ftp://example.com/x', events: ['zone.changed'] },
        { url: 'not a url', events: ['zone.changed'] },
        { url: 'https://user:pw@example.com/x', events: ['zone.changed'] },
        { url: 'https://example.com/x', events: [] },
        { url: 'https://example.com/x', events: ['zone.exploded'] },
        { url: 'https://example.com/x', events: ['webhook.ping'] },
      ]) {
        const res = await reseller.post('/webhooks', body);
        expect(res.status, JSON.stringify(body)).toBe(422);
        expect(res.body.code).toBe('validation_failed');
      }
      const patched = await reseller.patch(`/webhooks/${created.id}`, { events: ['zone.changed', 'quota.warning'], description: 'billing' });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ events: ['zone.changed', 'quota.warning'], description: 'billing' });
      expect((await reseller.delete(`/webhooks/${created.id}`)).status).toBe(204);
      expect((await reseller.get(`/webhooks/${created.id}`)).status).toBe(404);
    } finally {
      await receiver.stop();
    }
  });

  it('needs webhooks:manage', async () => {
    const { token } = await issueToken(lab.as(lab.tokens.platform), ids.customers[0]!, ['zones:read'], 'no webhooks');
    const res = await lab.as(token).get('/webhooks');
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('insufficient_scope');
  });
});

describe('delivery and ownership', () => {
  it('a reseller subtree webhook receives its customers’ events; a customer’s does not see the other customer’s', async () => {
    const subtree = await new WebhookReceiver().start();
    const ofA = await new WebhookReceiver().start();
    const actingForA = await new WebhookReceiver().start();
    try {
      await registerWebhook(reseller, subtree, ['zone.changed', 'record.published']);
      await registerWebhook(customerA, ofA, ['zone.changed']);
      const forA = await registerWebhook(reseller, actingForA, ['zone.changed'], { 'X-Act-As-Customer': ids.customers[0]! });
      expect(forA.scope).toBe('tenant');

      const zoneA = await createZone(customerA);
      const zoneB = await createZone(customerB);
      await eventually(() => subtree.ofType('zone.changed').length >= 2, 15_000, 'both zones at the reseller');
      await eventually(
        () => subtree.ofType('record.published').some((e) => e.body.zone === zoneA) && subtree.ofType('record.published').some((e) => e.body.zone === zoneB),
        20_000,
        'published',
      );
      await eventually(() => ofA.events.length >= 1 && actingForA.events.length >= 1, 15_000, 'A’s receivers');
      // Let the worker go over everything once more before asserting what did not come.
      await new Promise((r) => setTimeout(r, 500));

      const created = subtree.ofType('zone.changed').find((e) => e.body.zone === zoneA)!.body;
      expect(created).toMatchObject({ type: 'zone.changed', tenant: { id: ids.customers[0] }, zone: zoneA, change: 'created' });
      expect(created.id).toMatch(/^evt_[a-z2-7]{26}$/);
      expect(new Date(created.occurred_at).toISOString()).toBe(created.occurred_at);
      const published = subtree.ofType('record.published').find((e) => e.body.zone === zoneB)!.body;
      expect(published).toMatchObject({ tenant: { id: ids.customers[1] }, state: 'live', changeset_id: expect.stringMatching(/^chg_/) });

      for (const r of [ofA, actingForA]) {
        expect(r.events.map((e) => e.body.zone)).toContain(zoneA);
        expect(r.events.map((e) => e.body.zone)).not.toContain(zoneB);
        expect(r.events.every((e) => e.body.tenant.id === ids.customers[0])).toBe(true);
      }
      // Every request verified, none rejected, none twice.
      for (const r of [subtree, ofA, actingForA]) expect(r.requests.every((q) => q.verdict === 'ok')).toBe(true);

      // Visibility of the webhooks themselves: B sees none of A’s; the reseller sees all three.
      const listB = await customerB.get('/webhooks');
      expect(listB.body.data.filter((w: any) => w.tenant_id === ids.customers[0])).toEqual([]);
      expect((await customerB.get(`/webhooks/${forA.id}`)).status).toBe(404);
      const listA = await customerA.get('/webhooks');
      expect(listA.body.data.map((w: any) => w.id)).toContain(forA.id);
      // GET /stats counts the subtree's webhooks (A's first stats in this service: not cached).
      const stats = (await customerA.get('/stats')).body;
      expect(stats.webhooks).toEqual({ active: listA.body.data.length, disabled: 0 });
    } finally {
      await Promise.all([subtree.stop(), ofA.stop(), actingForA.stop()]);
    }
  });

  it('a customer’s webhooks receive the events of its own PTR writes into the provider’s reverse zones, and no other platform event', async () => {
    const platform = lab.as(lab.tokens.platform);
    const ofA = await new WebhookReceiver().start();
    const actingForA = await new WebhookReceiver().start();
    const ofB = await new WebhookReceiver().start();
    const subtree = await new WebhookReceiver().start();
    try {
      const kinds = ['zone.changed', 'record.published'];
      await registerWebhook(customerA, ofA, kinds);
      await registerWebhook(reseller, actingForA, kinds, { 'X-Act-As-Customer': ids.customers[0]! });
      await registerWebhook(customerB, ofB, kinds);
      await registerWebhook(reseller, subtree, kinds);
      // Platform events in the provider's reverse zones: the space's zones made, a PTR staff set.
      const space = await platform.post('/ip-spaces', { cidr: '198.51.100.0/24', ptr_pattern: 'static.{dashed}.hooks.example.' });
      expect(space.status, space.text).toBe(201);
      for (const [cidr, tenant] of [
        ['198.51.100.10/32', ids.customers[0]!],
        ['198.51.100.11/32', ids.customers[1]!],
      ] as const) {
        expect((await platform.post('/ips', { cidr, tenant_id: tenant })).status).toBe(201);
      }
      const byStaff = await platform.put('/ptr/198.51.100.20', { target: 'staff.hooks.example.' });
      expect(byStaff.status, byStaff.text).toBe(200);
      const byA = await customerA.put('/ptr/198.51.100.10', { target: 'www.customer-a.example.' });
      expect(byA.status, byA.text).toBe(200);
      const byB = await customerB.put('/ptr/198.51.100.11', { target: 'www.customer-b.example.' });
      expect(byB.status, byB.text).toBe(200);

      const ofChangeSet = (r: WebhookReceiver, id: string) =>
        r.events
          .filter((e) => e.body.changeset_id === id)
          .map((e) => e.body.type)
          .sort();
      for (const r of [ofA, actingForA, subtree]) {
        await eventually(() => ofChangeSet(r, byA.body.changeset_id).length === 2, 20_000, 'A’s PTR write: changed and published');
      }
      await eventually(() => ofChangeSet(ofB, byB.body.changeset_id).length === 2, 20_000, 'B’s PTR write at B');
      await eventually(() => ofChangeSet(subtree, byB.body.changeset_id).length === 2, 20_000, 'B’s PTR write at the reseller');
      // Let the worker go over everything once more before asserting what did not come.
      await new Promise((r) => setTimeout(r, 1000));

      const changed = ofA.ofType('zone.changed').find((e) => e.body.changeset_id === byA.body.changeset_id)!.body;
      // The event stays the zone's (the platform's), naming the customer that wrote.
      expect(changed).toMatchObject({
        zone: '100.51.198.in-addr.arpa',
        change: 'records',
        tenant: { id: lab.tokens.tenants.platform },
        acting_tenant_id: ids.customers[0],
      });
      // Its record.published names the same customer (kept on the change set); staff's write names none.
      const published = ofA.ofType('record.published').find((e) => e.body.changeset_id === byA.body.changeset_id)!.body;
      expect(published).toMatchObject({
        zone: '100.51.198.in-addr.arpa',
        state: 'live',
        tenant: { id: lab.tokens.tenants.platform },
        acting_tenant_id: ids.customers[0],
      });
      const db = new pg.Client({ connectionString: lab.databaseUrl });
      await db.connect();
      const kept = await db
        .query('SELECT id, acting_tenant_id FROM change_sets WHERE id = ANY($1)', [[byStaff.body.changeset_id, byA.body.changeset_id]])
        .finally(() => db.end());
      expect(Object.fromEntries(kept.rows.map((r) => [r.id, r.acting_tenant_id]))).toEqual({
        [byStaff.body.changeset_id]: null,
        [byA.body.changeset_id]: ids.customers[0],
      });
      for (const r of [ofA, actingForA]) {
        // A's own write only: not B's, not staff's, not the zones' creation.
        expect(new Set(r.events.map((e) => e.body.changeset_id))).toEqual(new Set([byA.body.changeset_id]));
      }
      expect(new Set(ofB.events.map((e) => e.body.changeset_id))).toEqual(new Set([byB.body.changeset_id]));
      expect(subtree.events.some((e) => e.body.changeset_id === byStaff.body.changeset_id)).toBe(false);
      for (const r of [ofA, actingForA, ofB, subtree]) expect(r.requests.every((q) => q.verdict === 'ok')).toBe(true);
    } finally {
      await Promise.all([ofA.stop(), actingForA.stop(), ofB.stop(), subtree.stop()]);
    }
  });

  it('the platform’s subtree webhook gets customers’ events but none of the lab’s parent zones', async () => {
    const receiver = await new WebhookReceiver().start();
    try {
      await registerWebhook(lab.as(lab.tokens.platform), receiver, ['zone.changed', 'record.published']);
      const zone = await createZone(customerA);
      // The zone goes live, then the lab registry delegates it from `example.` (a change set of a lab parent zone, published).
      await eventually(() => receiver.ofType('record.published').some((e) => e.body.zone === zone), 20_000, 'published');
      // The lab parent sync follows the outbox every second; its change set is published soon after.
      await new Promise((r) => setTimeout(r, 2500));
      const zones = new Set(receiver.events.map((e) => e.body.zone));
      expect(zones.has(zone)).toBe(true);
      expect(zones.has('example')).toBe(false);
      expect(zones.has('')).toBe(false);
    } finally {
      await receiver.stop();
    }
  });

  it('signs with both secrets for 24 hours after a rotation, then with the new one only', async () => {
    const receiver = await new WebhookReceiver().start();
    try {
      const hook = await registerWebhook(customerB, receiver, ['zone.changed']);
      const old = hook.secret;
      const rotated = await customerB.post(`/webhooks/${hook.id}/rotate-secret`);
      expect(rotated.status).toBe(200);
      const fresh = rotated.body.secret as string;
      expect(fresh).not.toBe(old);
      expect(Date.parse(rotated.body.previous_secret_expires_at) - lab.clock.now().getTime()).toBe(24 * HOUR);

      // A receiver that knows only the old secret, and one that knows only the new, both accept.
      receiver.secrets = [old];
      await customerB.post(`/webhooks/${hook.id}/ping`);
      await eventually(() => receiver.events.length === 1, 10_000, 'ping with the old secret');
      expect(receiver.events[0]!.signatures).toHaveLength(2);
      receiver.secrets = [fresh];
      await customerB.post(`/webhooks/${hook.id}/ping`);
      await eventually(() => receiver.events.length === 2, 10_000, 'ping with the new secret');

      lab.clock.advance(24 * HOUR + MIN);
      receiver.secrets = [old];
      await customerB.post(`/webhooks/${hook.id}/ping`);
      await eventually(() => receiver.requests.some((r) => r.verdict === 'bad_signature'), 10_000, 'old secret refused');
      receiver.secrets = [fresh];
      // The refusal recorded (its retry due in a minute) before time moves.
      await eventually(
        async () => (await deliveriesOf(customerB, hook.id)).some((d) => d.attempts[0]?.response_status === 401 && d.state === 'pending'),
        5000,
        'refusal recorded',
      );
      lab.clock.advance(MIN);
      await eventually(() => receiver.events.length === 3, 10_000, 'retry accepted with the new secret only');
      expect(receiver.events[2]!.signatures).toHaveLength(1);
      const read = await customerB.get(`/webhooks/${hook.id}`);
      expect(read.body.previous_secret_expires_at).toBeNull();
    } finally {
      await receiver.stop();
    }
  });

  it('a receiver rejects a stale t and a changed body; the service sends a fresh t on every attempt', async () => {
    const receiver = await new WebhookReceiver().start();
    try {
      const hook = await registerWebhook(customerA, receiver, ['zone.changed']);
      await customerA.post(`/webhooks/${hook.id}/ping`);
      const got = await eventually(() => receiver.events[0], 10_000, 'ping');
      const now = Math.floor(Date.now() / 1000);
      expect(Math.abs(got.t - now)).toBeLessThanOrEqual(5);
      const header = `t=${got.t},${got.signatures.map((s) => `v1=${s}`).join(',')}`;
      expect(verifySignature(header, got.raw, receiver.secrets)).toBe('ok');
      expect(verifySignature(header, got.raw, receiver.secrets, got.t + 301)).toBe('stale');
      expect(verifySignature(header, got.raw.replace('webhook.ping', 'webhook.pong'), receiver.secrets)).toBe('bad_signature');
      expect(verifySignature(header, got.raw, ['whsec_other'])).toBe('bad_signature');
    } finally {
      await receiver.stop();
    }
  });
});

describe('retries', () => {
  it('follows 1 min, 5 min, 30 min, 2 h, 6 h, 12 h, 24 h, then gives up; after 3 days of failures the webhook is disabled and the support contact mailed', async () => {
    const receiver = await new WebhookReceiver().start();
    receiver.status = 503;
    try {
      const hook = await registerWebhook(reseller, receiver, ['zone.changed']);
      const zone = await createZone(customerA);
      const start = lab.clock.now().getTime();
      const delays = [MIN, 5 * MIN, 30 * MIN, 2 * HOUR, 6 * HOUR, 12 * HOUR, 24 * HOUR];
      const deliveryOf = async () => (await deliveriesOf(reseller, hook.id)).find((d) => d.type === 'zone.changed');
      let elapsed = 0;
      for (let attempt = 1; attempt <= 8; attempt++) {
        const d = await eventually(
          async () => {
            const x = await deliveryOf();
            return x && x.attempts.length === attempt ? x : null;
          },
          10_000,
          `attempt ${attempt}`,
        );
        const last = d.attempts[attempt - 1];
        expect(last).toMatchObject({ attempt, outcome: 'http_error', response_status: 503 });
        if (attempt < 8) {
          expect(Date.parse(last.next_attempt_at) - Date.parse(last.attempted_at)).toBe(delays[attempt - 1]);
          expect(d.state).toBe('pending');
          // Not a moment early: a second before the next attempt nothing happens.
          lab.clock.advance(delays[attempt - 1]! - 1000);
          await new Promise((r) => setTimeout(r, 300));
          expect((await deliveryOf()).attempts).toHaveLength(attempt);
          lab.clock.advance(1000);
          elapsed += delays[attempt - 1]!;
        } else {
          expect(last.next_attempt_at).toBeNull();
          expect(d.state, JSON.stringify(await deliveriesOf(reseller, hook.id))).toBe('failed');
        }
      }
      expect(elapsed).toBe(delays.reduce((a, b) => a + b, 0));
      expect(receiver.requests).toHaveLength(8);
      expect(new Set(receiver.requests.map((r) => r.deliveryId)).size).toBe(1);
      const metrics = await (await fetch(`${lab.url}/metrics`)).text();
      expect(Number(/^webhook_attempts_total\{outcome="http_error"\} (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(8);
      expect(new Set(receiver.requests.map((r) => r.t)).size).toBeGreaterThan(1);

      // Still active after 44.6 hours; disabled once the first failure is 3 days old.
      expect((await reseller.get(`/webhooks/${hook.id}`)).body).toMatchObject({ state: 'active', failing_since: new Date(start).toISOString() });
      lab.clock.set(new Date(start + 72 * HOUR - MIN));
      await new Promise((r) => setTimeout(r, 300));
      expect((await reseller.get(`/webhooks/${hook.id}`)).body.state).toBe('active');
      lab.clock.advance(MIN);
      const disabled = await eventually(
        async () => {
          const w = (await reseller.get(`/webhooks/${hook.id}`)).body;
          return w.state === 'disabled' ? w : null;
        },
        10_000,
        'disabled',
      );
      expect(disabled).toMatchObject({ disabled_reason: 'failing_deliveries', disabled_at: expect.any(String) });
      const mails = (await reseller.get('/lab/mails')).body.data;
      const mail = mails.find((m: any) => m.body.includes(hook.id));
      expect(mail).toMatchObject({ to: 'support@reseller.lab.example', tenant_id: ids.reseller });
      expect(mail.subject).toContain('disabled');
      expect((await lab.as(lab.tokens.platform).get('/lab/mails')).body.data.filter((m: any) => m.body.includes(hook.id))).toHaveLength(1);
      // The customers see no mail about the reseller’s webhook.
      expect((await customerA.get('/lab/mails')).body.data.find((m: any) => m.id === mail.id)).toBeUndefined();

      // Disabled: new events are not delivered; a ping still is (to try the receiver), then enable.
      receiver.status = 200;
      const later = await createZone(customerA);
      await reseller.post(`/webhooks/${hook.id}/ping`);
      await eventually(() => receiver.ofType('webhook.ping').length === 1, 10_000, 'ping to a disabled webhook');
      await new Promise((r) => setTimeout(r, 300));
      expect(receiver.ofType('zone.changed').map((e) => e.body.zone)).not.toContain(later);
      const enabled = await reseller.post(`/webhooks/${hook.id}/enable`);
      expect(enabled.body).toMatchObject({ state: 'active', disabled_at: null, failing_since: null });
      const again = await createZone(customerA);
      await eventually(() => receiver.ofType('zone.changed').some((e) => e.body.zone === again), 10_000, 'delivered after enable');
      expect(zone).toBeTruthy();
    } finally {
      await receiver.stop();
    }
  });

  it('a receiver that is down and comes back receives everything, each delivery once', async () => {
    const receiver = await new WebhookReceiver().start();
    const port = receiver.port;
    try {
      const hook = await registerWebhook(customerB, receiver, ['zone.changed']);
      await receiver.stop();
      const zones = [await createZone(customerB), await createZone(customerB), await createZone(customerB)];
      await eventually(
        async () => {
          const ds = await deliveriesOf(customerB, hook.id);
          return ds.length === 3 && ds.every((d) => d.attempts.length >= 1 && d.attempts[0].outcome === 'connection_failed') ? ds : null;
        },
        10_000,
        'first attempts refused',
      );
      await receiver.start(port);
      lab.clock.advance(MIN);
      await eventually(() => zones.every((z) => receiver.events.some((e) => e.body.zone === z)), 10_000, 'all three');
      // The receiver answered; the service records the outcome right after.
      await eventually(async () => (await deliveriesOf(customerB, hook.id)).every((d) => d.state === 'delivered'), 5000, 'recorded as delivered');
      expect(receiver.requests.filter((r) => r.verdict === 'duplicate')).toEqual([]);
      expect((await customerB.get(`/webhooks/${hook.id}`)).body.failing_since).toBeNull();
    } finally {
      await receiver.stop();
    }
  });
});

describe('a slow receiver', () => {
  it('holds only its own webhook’s slots: another tenant’s deliveries go on at once', async () => {
    const slow = await new WebhookReceiver().start();
    const fast = await new WebhookReceiver().start();
    // Far longer than the fast delivery takes even on a loaded CI machine (seen: 4.8 s with 3 s here):
    // a fast delivery held behind the slow webhook's attempts would arrive only after one answered.
    slow.delayMs = 8000;
    try {
      const slowHook = await registerWebhook(customerA, slow, ['zone.changed']);
      await registerWebhook(customerB, fast, ['zone.changed']);
      // Three times the slow webhook's share of slots (4), all due at once.
      for (let i = 0; i < 12; i++) expect((await customerA.post(`/webhooks/${slowHook.id}/ping`)).status).toBe(202);
      await eventually(() => slow.requests.length >= 4, 5000, 'the slow receiver busy');
      const started = Date.now();
      const zone = await createZone(customerB);
      await eventually(() => fast.events.some((e) => e.body.zone === zone), slow.delayMs, 'the fast receiver');
      expect(Date.now() - started).toBeLessThan(slow.delayMs);
      // The slow webhook never had more than its share in flight.
      expect(slow.requests.length).toBeLessThanOrEqual(4);
    } finally {
      await Promise.all([slow.stop(), fast.stop()]);
    }
  });
});

describe('several processes and restarts', () => {
  it('events stored while no worker runs are delivered after a restart; two workers never send one attempt twice', async () => {
    const database = await createDatabase();
    const clock = new ManualClock();
    // One deployment: every process shares the key that seals the signing secrets.
    const shared = { ...FAST, DNSSEC_KEY_ENCRYPTION_KEY: '6b'.repeat(32) };
    const receiver = await new WebhookReceiver().start();
    let apiOnly: TestService | null = null;
    const workers: TestService[] = [];
    try {
      // The "killed" service: its worker never ran; what it stored is in the database only.
      apiOnly = await startTestService({ databaseUrl: database.url, clock, env: { ...shared, ROLES: 'api,nameserver' } });
      const api = apiOnly.as(apiOnly.tokens.reseller);
      const hook = await api.post('/webhooks', { url: receiver.url, events: ['zone.changed'] });
      receiver.secrets = [hook.body.secret];
      for (let i = 0; i < 20; i++) expect((await api.post(`/webhooks/${hook.body.id}/ping`)).status).toBe(202);
      expect((await api.post('/zones', { name: zoneName() })).status).toBe(201);
      await new Promise((r) => setTimeout(r, 300));
      expect(receiver.requests).toEqual([]);
      await apiOnly.service.stop();
      apiOnly = null;

      // Two worker processes on the same database.
      // One slot per webhook (a line of 6 leased at a time) and a receiver that takes a moment: both workers get their share.
      receiver.delayMs = 30;
      for (let i = 0; i < 2; i++)
        workers.push(
          await startTestService({
            databaseUrl: database.url,
            clock,
            env: { ...shared, ROLES: 'worker', WEBHOOK_CONCURRENCY: '2', WEBHOOK_PER_WEBHOOK_CONCURRENCY: '1' },
          }),
        );
      await eventually(() => receiver.events.length === 21, 15_000, '21 deliveries');
      await new Promise((r) => setTimeout(r, 500));
      expect(receiver.requests).toHaveLength(21);
      expect(new Set(receiver.requests.map((r) => r.deliveryId)).size).toBe(21);
      const attempts = workers.map((w) => w.service.webhooks!.attempts);
      expect(
        attempts.every((a) => a > 0),
        `attempts per worker: ${attempts}`,
      ).toBe(true);
      expect(attempts[0]! + attempts[1]!).toBe(21);
    } finally {
      for (const w of workers) await w.service.stop();
      if (apiOnly) await apiOnly.service.stop();
      await receiver.stop();
      await database.drop();
    }
  });
});

describe('quota.warning', () => {
  it('fires once when the zones reach 80 % and once at 100 % of max_zones', async () => {
    const receiver = await new WebhookReceiver().start();
    try {
      const platform = lab.as(lab.tokens.platform);
      const tenant = await platform.post('/tenants', { type: 'customer', name: 'Quota GmbH', limits: { max_zones: 5 } });
      expect(tenant.status, tenant.text).toBe(201);
      const acting = platform.with({ 'X-Act-As-Customer': tenant.body.id });
      await registerWebhook(acting, receiver, ['quota.warning']);
      for (let i = 0; i < 5; i++) await createZone(acting);
      expect((await acting.post('/zones', { name: zoneName() })).body.code).toBe('quota_exceeded');
      await eventually(() => receiver.events.length === 2, 10_000, 'two warnings');
      await new Promise((r) => setTimeout(r, 300));
      // Up to four deliveries of one webhook run at once (docs/webhooks.md): the two may arrive in either order.
      const bodies = receiver.events.map((e) => e.body).sort((a, b) => a.threshold_percent - b.threshold_percent);
      expect(bodies).toEqual([
        expect.objectContaining({ type: 'quota.warning', tenant: { id: tenant.body.id }, quota: 'max_zones', threshold_percent: 80, usage: 4, limit: 5 }),
        expect.objectContaining({ type: 'quota.warning', tenant: { id: tenant.body.id }, quota: 'max_zones', threshold_percent: 100, usage: 5, limit: 5 }),
      ]);
    } finally {
      await receiver.stop();
    }
  });
});

describe('URLs in production', () => {
  it('registration wants https and a public host; the sandbox’s http and loopback are refused', async () => {
    const prod = await startTestService({ env: { DEPLOYMENT: 'production', ROLES: 'api' } });
    try {
      // The operator's way to the first live token (as in labReset.test.ts).
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/cli/admin.ts', 'create-platform', 'Production Platform'], {
        env: { ...process.env, DATABASE_URL: prod.databaseUrl, DEPLOYMENT: 'production', DNSSEC_KEY_ENCRYPTION_KEY: '5a'.repeat(32), LOG_LEVEL: 'silent' },
      });
      const live = prod.as(JSON.parse(stdout).token);
      for (const url of [
        'http://hooks.example.com/in',
        'https://127.0.0.1/in',
        'https://[::1]/in',
        'https://169.254.169.254/latest',
        'https://10.1.2.3/in',
        'https://localhost/in',
        'https://intranet/in',
      ]) {
        const res = await live.post('/webhooks', { url, events: ['zone.changed'] });
        expect(res.status, url).toBe(422);
        expect(res.body.errors[0]).toMatchObject({ pointer: '/url', code: 'invalid_url' });
      }
      expect((await live.get('/webhooks')).body.data).toEqual([]);
      const ok = await live.post('/webhooks', { url: 'https://hooks.example.com/in', events: ['zone.changed'] });
      expect(ok.status, ok.text).toBe(201);
    } finally {
      await prod.stop();
    }
  });
});

describe('mail in production', () => {
  it('a worker hands queued mail to SMTP_URL and marks it sent; a refusal is retried later', async () => {
    const relay = smtpServer({ password: 'secret', rejectTo: 'nobody@' });
    const port = await relay.listen();
    const prod = await startTestService({
      env: { ...FAST, DEPLOYMENT: 'production', SMTP_URL: `smtp://mailer:secret@127.0.0.1:${port}`, MAIL_FROM: 'noreply@dns.example', ROLES: 'worker' },
    });
    const db = new pg.Client({ connectionString: prod.databaseUrl });
    await db.connect();
    try {
      const now = prod.clock.now();
      for (const [id, to] of [
        ['msg_good', 'support@reseller.example'],
        ['msg_bad', 'nobody@reseller.example'],
      ]) {
        await db.query(
          `INSERT INTO mail_outbox (id, to_address, subject, body, created_at, next_attempt_at) VALUES ($1, $2, 'Webhook disabled', 'Body', $3, $3)`,
          [id, to, now],
        );
      }
      const rows = await eventually(
        async () => {
          const r = (await db.query(`SELECT id, sent_at, attempts, last_error FROM mail_outbox ORDER BY id`)).rows;
          return r.every((m) => m.attempts >= 1) ? r : null;
        },
        10_000,
        'both mails tried',
      );
      expect(rows[0]).toMatchObject({ id: 'msg_bad', sent_at: null, attempts: 1, last_error: expect.stringContaining('550') });
      expect(rows[1]).toMatchObject({ id: 'msg_good', sent_at: now, attempts: 1, last_error: null });
      const sent = relay.sessions.filter((s) => s.data);
      expect(sent).toHaveLength(1);
      expect(sent[0]!.commands).toContain('RCPT TO:<support@reseller.example>');
      expect(sent[0]!.data).toContain('From: noreply@dns.example');
    } finally {
      await db.end();
      await prod.stop();
      await relay.close();
    }
  });
});

describe('the lab', () => {
  it('the nightly reset removes webhooks, their deliveries and the mail outbox', async () => {
    const platform = lab.as(lab.tokens.platform);
    const hook = await customerA.post('/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['zone.changed'] });
    expect(hook.status).toBe(201);
    expect((await platform.post('/lab/reset')).status).toBe(204);
    expect((await platform.get('/webhooks')).body.data).toEqual([]);
    expect((await platform.get('/lab/mails')).body.data).toEqual([]);
    expect((await customerA.get(`/webhooks/${hook.body.id}`)).status).toBe(404);
  });
});
