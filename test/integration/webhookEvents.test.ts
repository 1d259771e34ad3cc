// Receivers lose nothing (issue 23, docs/webhooks.md "Polling events", "Pause and redelivery"): a
// client polls GET /events for what its webhooks get, pauses a webhook and resumes it, sends a
// delivery again, and in the lab drives a webhook into the automatic disable. A real receiver in
// this process checks every signature and de-duplicates by Service-Delivery.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../helpers/apiClient.js';
import { deliveriesOf, registerWebhook } from '../helpers/webhookApi.js';
import { startTestService, type TestService } from '../helpers/testService.js';
import { eventually, WebhookReceiver } from '../helpers/webhookReceiver.js';

let lab: TestService;
let platform: ApiClient;
let reseller: ApiClient;
let customerA: ApiClient;
let customerB: ApiClient;
let ids: { platform: string; reseller: string; customers: string[] };
let n = 0;
const zoneName = () => `feed-${Date.now().toString(36)}-${++n}.example`;

beforeAll(async () => {
  lab = await startTestService({ env: { WEBHOOK_POLL_INTERVAL_MS: '50' } });
  platform = lab.as(lab.tokens.platform);
  reseller = lab.as(lab.tokens.reseller);
  customerA = lab.as(lab.tokens.customers[0]!);
  customerB = lab.as(lab.tokens.customers[1]!);
  ids = lab.tokens.tenants as unknown as typeof ids;
});
afterAll(() => lab?.stop());

async function createZone(api: ApiClient, name = zoneName()) {
  const res = await api.post('/zones', { name });
  expect(res.status, res.text).toBe(201);
  return name;
}

/** Every event GET /events lists for `api` after `after`, following the cursor. */
async function poll(api: ApiClient, query: Record<string, string> = {}) {
  const events: any[] = [];
  let cursor: string | null = null;
  do {
    const q = new URLSearchParams({ limit: '2', ...query, ...(cursor ? { cursor } : {}) });
    const res = await api.get(`/events?${q}`);
    expect(res.status, res.text).toBe(200);
    events.push(...res.body.data);
    cursor = res.body.pagination.next_cursor;
  } while (cursor);
  return events;
}

describe('GET /events', () => {
  it('lists the subtree’s events oldest first, each the body a webhook receives; another tenant’s never', async () => {
    const receiver = await new WebhookReceiver().start();
    try {
      await registerWebhook(customerA, receiver, ['zone.changed', 'record.published']);
      const zone = await createZone(customerA);
      const delivered = await eventually(
        () => receiver.events.find((e) => e.body.zone === zone && e.body.type === 'zone.changed'),
        15_000,
        'the webhook’s zone.changed',
      );

      const listed = await eventually(async () => (await poll(customerA)).find((e) => e.id === delivered.body.id), 10_000, 'the event in GET /events');
      // One shape for both: the item is the delivery's body, field for field.
      expect(listed).toEqual(delivered.body);
      expect(listed).toMatchObject({ type: 'zone.changed', change: 'created', zone, tenant: { id: ids.customers[0] } });

      // The reseller (the subtree above) sees it; the other customer does not.
      expect((await poll(reseller)).map((e) => e.id)).toContain(listed.id);
      const ofB = await poll(customerB);
      expect(ofB.map((e) => e.id)).not.toContain(listed.id);
      expect(ofB.every((e) => e.tenant.id === ids.customers[1])).toBe(true);

      // Oldest first, no item twice across pages; `after` continues behind an event.
      const all = await poll(customerA);
      expect(new Set(all.map((e) => e.id)).size).toBe(all.length);
      const times = all.map((e) => Date.parse(e.occurred_at));
      expect([...times].sort((a, b) => a - b)).toEqual(times);
      const later = await createZone(customerA);
      const behind = await eventually(
        async () => {
          const page = await poll(customerA, { after: listed.id });
          return page.some((e) => e.zone === later) ? page : null;
        },
        15_000,
        'the later zone after the first',
      );
      // Exactly what follows it in the whole list (which only ever grows at its end).
      const everything = await poll(customerA);
      const at = everything.findIndex((e) => e.id === listed.id);
      expect(behind.map((e) => e.id)).toEqual(everything.slice(at + 1, at + 1 + behind.length).map((e) => e.id));

      // Filter by type.
      const published = await eventually(
        async () => {
          const page = await poll(customerA, { type: 'record.published' });
          return page.some((e) => e.zone === zone) ? page : null;
        },
        20_000,
        'record.published',
      );
      expect(published.every((e) => e.type === 'record.published')).toBe(true);
    } finally {
      await receiver.stop();
    }
  });

  it('an event committed late is listed before the events of writes that began after it, never behind a position already passed', async () => {
    // A write that began first and commits last: its event's seq is the smaller, its commit later.
    // (Customer B's: the row's key lock on its tenant must not hold up A's zone creation.)
    const slow = new pg.Client({ connectionString: lab.databaseUrl });
    await slow.connect();
    try {
      await slow.query('BEGIN');
      const lateId = `evt_late${Date.now().toString(36)}`;
      await slow.query(
        `INSERT INTO events (id, tenant_id, kind, zone_id, payload, occurred_at) VALUES ($1, $2, 'quota.warning', NULL, '{"quota":"max_zones","threshold_percent":80,"usage":8,"limit":10}', now())`,
        [lateId, ids.customers[1]],
      );
      const zone = await createZone(customerA);
      // Stored and delivered, but not listed while the earlier write runs: a poller that saw it
      // now and continued after it would never see the late one.
      await new Promise((r) => setTimeout(r, 300));
      expect((await poll(reseller)).map((e) => e.zone)).not.toContain(zone);
      await slow.query('COMMIT');
      const listed = await eventually(
        async () => {
          const all = await poll(reseller);
          return all.some((e) => e.zone === zone) ? all : null;
        },
        10_000,
        'listed after the commit',
      );
      const late = listed.findIndex((e) => e.id === lateId);
      expect(late).toBeGreaterThanOrEqual(0);
      expect(late).toBeLessThan(listed.findIndex((e) => e.zone === zone));
    } finally {
      await slow.end();
    }
  });

  it('lists a customer’s PTR writes into the provider’s reverse zones to that customer (as its webhooks get them), staff’s and the other customer’s not', async () => {
    expect((await platform.post('/ip-spaces', { cidr: '198.51.100.0/24', ptr_pattern: 'static.{dashed}.feed.example.' })).status).toBe(201);
    for (const [cidr, tenant] of [
      ['198.51.100.10/32', ids.customers[0]!],
      ['198.51.100.11/32', ids.customers[1]!],
    ] as const) {
      expect((await platform.post('/ips', { cidr, tenant_id: tenant })).status).toBe(201);
    }
    const byStaff = await platform.put('/ptr/198.51.100.20', { target: 'staff.feed.example.' });
    const byA = await customerA.put('/ptr/198.51.100.10', { target: 'www.customer-a.example.' });
    const byB = await customerB.put('/ptr/198.51.100.11', { target: 'www.customer-b.example.' });
    for (const r of [byStaff, byA, byB]) expect(r.status, r.text).toBe(200);
    const changeSets = async (api: ApiClient) => new Set((await poll(api)).map((e) => e.changeset_id));
    const ofA = await eventually(
      async () => {
        const all = await poll(customerA, { type: 'record.published,zone.changed' });
        return all.filter((e) => e.changeset_id === byA.body.changeset_id).length === 2 ? all : null;
      },
      20_000,
      'A’s PTR write: changed and published',
    );
    expect(ofA.find((e) => e.changeset_id === byA.body.changeset_id && e.type === 'zone.changed')).toMatchObject({
      zone: '100.51.198.in-addr.arpa',
      tenant: { id: ids.platform },
      acting_tenant_id: ids.customers[0],
    });
    const seenByA = await changeSets(customerA);
    expect(seenByA.has(byB.body.changeset_id)).toBe(false);
    expect(seenByA.has(byStaff.body.changeset_id)).toBe(false);
    // The reseller sees both customers' writes once each; the platform its own zones' events once.
    const ofReseller = await eventually(
      async () => {
        const all = await poll(reseller);
        return all.some((e) => e.changeset_id === byB.body.changeset_id) ? all : null;
      },
      20_000,
      'B’s PTR write at the reseller',
    );
    expect(ofReseller.filter((e) => e.changeset_id === byA.body.changeset_id && e.type === 'zone.changed')).toHaveLength(1);
    const ofPlatform = await poll(platform, { type: 'zone.changed' });
    expect(ofPlatform.filter((e) => e.changeset_id === byA.body.changeset_id)).toHaveLength(1);
    expect(new Set(ofPlatform.map((e) => e.id)).size).toBe(ofPlatform.length);
  });

  it('refuses an event id it cannot place, also another tenant’s, and a type nobody subscribes to', async () => {
    const zone = await createZone(customerB);
    const ofB = await eventually(async () => (await poll(customerB)).find((e) => e.zone === zone), 10_000, 'B’s event');
    for (const after of [`evt_${'a'.repeat(26)}`, ofB.id]) {
      const res = await customerA.get(`/events?after=${after}`);
      expect(res.status, res.text).toBe(422);
      expect(res.body.errors[0]).toMatchObject({ in: 'query', pointer: '/after', code: 'unknown_event' });
    }
    for (const query of ['after=zone', 'type=webhook.ping', 'type=zone.exploded', 'since=1']) {
      const res = await customerA.get(`/events?${query}`);
      expect(res.status, query).toBe(422);
      expect(res.body.code).toBe('validation_failed');
    }
  });
});

describe('pause and resume', () => {
  it('a paused webhook gets nothing; its deliveries wait, events meanwhile included, and all arrive on enable', async () => {
    const receiver = await new WebhookReceiver().start();
    try {
      const hook = await registerWebhook(customerA, receiver, ['zone.changed']);
      const disabled = await customerA.post(`/webhooks/${hook.id}/disable`);
      expect(disabled.status, disabled.text).toBe(200);
      expect(disabled.body).toMatchObject({ state: 'disabled', disabled_reason: 'manual', disabled_at: expect.any(String) });
      // Disabling again changes nothing.
      expect((await customerA.post(`/webhooks/${hook.id}/disable`)).body).toMatchObject({
        state: 'disabled',
        disabled_reason: 'manual',
        disabled_at: disabled.body.disabled_at,
      });

      const zones = [await createZone(customerA), await createZone(customerA)];
      const pending = await eventually(
        async () => {
          const ds = await deliveriesOf(customerA, hook.id);
          return ds.length === 2 ? ds : null;
        },
        10_000,
        'two deliveries queued while paused',
      );
      expect(pending.every((d) => d.state === 'pending' && d.attempts.length === 0)).toBe(true);
      await new Promise((r) => setTimeout(r, 500));
      expect(receiver.requests).toEqual([]);
      // A ping still goes out (to try the receiver), the paused deliveries do not.
      expect((await customerA.post(`/webhooks/${hook.id}/ping`)).status).toBe(202);
      await eventually(() => receiver.ofType('webhook.ping').length === 1, 10_000, 'the ping');
      expect(receiver.ofType('zone.changed')).toEqual([]);

      const enabled = await customerA.post(`/webhooks/${hook.id}/enable`);
      expect(enabled.body).toMatchObject({ state: 'active', disabled_reason: null, disabled_at: null });
      await eventually(() => zones.every((z) => receiver.ofType('zone.changed').some((e) => e.body.zone === z)), 10_000, 'both on enable');
      await eventually(async () => (await deliveriesOf(customerA, hook.id)).every((d) => d.state === 'delivered'), 5000, 'recorded');
      expect(receiver.requests.every((r) => r.verdict === 'ok')).toBe(true);
    } finally {
      await receiver.stop();
    }
  });
});

describe('redelivery', () => {
  it('sends a delivered event again, signed, under the same delivery id; refused while the webhook is disabled', async () => {
    const receiver = await new WebhookReceiver().start();
    try {
      const hook = await registerWebhook(customerB, receiver, ['zone.changed']);
      const zone = await createZone(customerB);
      const first = await eventually(() => receiver.events.find((e) => e.body.zone === zone), 10_000, 'first delivery');
      const delivery = await eventually(
        async () => (await deliveriesOf(customerB, hook.id)).find((d) => d.id === first.deliveryId && d.state === 'delivered'),
        5000,
        'delivered',
      );

      const res = await customerB.post(`/webhooks/${hook.id}/deliveries/${delivery.id}/redeliver`);
      expect(res.status, res.text).toBe(202);
      expect(res.body).toMatchObject({ id: delivery.id, event_id: first.body.id, state: 'pending', completed_at: null });
      // The receiver verified the signature and recognised the delivery it already has.
      await eventually(() => receiver.requests.filter((r) => r.deliveryId === delivery.id).length === 2, 10_000, 'the redelivery');
      expect(receiver.requests.filter((r) => r.deliveryId === delivery.id).map((r) => r.verdict)).toEqual(['ok', 'duplicate']);
      const after = await eventually(
        async () => (await deliveriesOf(customerB, hook.id)).find((d) => d.id === delivery.id && d.state === 'delivered' && d.attempts.length === 2),
        5000,
        'recorded',
      );
      expect(after.attempts.map((a: any) => a.outcome)).toEqual(['success', 'success']);

      // A failed redelivery is one attempt: the delivery is failed again, nothing is retried.
      receiver.status = 500;
      await customerB.post(`/webhooks/${hook.id}/deliveries/${delivery.id}/redeliver`);
      const failed = await eventually(
        async () => (await deliveriesOf(customerB, hook.id)).find((d) => d.id === delivery.id && d.attempts.length === 3),
        10_000,
        'third attempt',
      );
      expect(failed).toMatchObject({ state: 'failed', next_attempt_at: null });
      expect(failed.attempts[2]).toMatchObject({ outcome: 'http_error', response_status: 500, next_attempt_at: null });
      receiver.status = 200;

      // Someone else's delivery, or none, is not found; a paused webhook refuses.
      expect((await customerA.post(`/webhooks/${hook.id}/deliveries/${delivery.id}/redeliver`)).status).toBe(404);
      const none = await customerB.post(`/webhooks/${hook.id}/deliveries/dlv_${'a'.repeat(26)}/redeliver`);
      expect(none.status).toBe(404);
      expect(none.body.code).toBe('not_found');
      await customerB.post(`/webhooks/${hook.id}/disable`);
      const refused = await customerB.post(`/webhooks/${hook.id}/deliveries/${delivery.id}/redeliver`);
      expect(refused.status, refused.text).toBe(409);
      expect(refused.body).toMatchObject({ code: 'conflict' });
      expect(refused.body.detail).toContain('enable');
      expect((await deliveriesOf(customerB, hook.id)).find((d) => d.id === delivery.id).state).toBe('failed');
    } finally {
      await receiver.stop();
    }
  });
});

describe('the lab', () => {
  it('drives a webhook into the automatic disable: reason failing_deliveries, the support contact mailed, no events queued', async () => {
    const receiver = await new WebhookReceiver().start();
    try {
      const hook = await registerWebhook(reseller, receiver, ['zone.changed']);
      expect((await reseller.post(`/lab/webhooks/${hook.id}/fail`)).status).toBe(403);
      const res = await platform.post(`/lab/webhooks/${hook.id}/fail`);
      expect(res.status, res.text).toBe(200);
      const threeDaysAgo = new Date(lab.clock.now().getTime() - 3 * 86_400_000).toISOString();
      expect(res.body).toMatchObject({
        state: 'disabled',
        disabled_reason: 'failing_deliveries',
        failing_since: threeDaysAgo,
        disabled_at: lab.clock.now().toISOString(),
      });
      expect((await reseller.get(`/webhooks/${hook.id}`)).body).toMatchObject({ state: 'disabled', disabled_reason: 'failing_deliveries' });
      const mail = (await reseller.get('/lab/mails')).body.data.find((m: any) => m.body.includes(hook.id));
      expect(mail).toMatchObject({ to: 'support@reseller.lab.example', tenant_id: ids.reseller });
      expect(mail.subject).toBe(`Webhook ${hook.id} disabled after 3 days of failed deliveries`);
      expect((await platform.post(`/lab/webhooks/${hook.id}/fail`)).status).toBe(409);

      // Unlike a pause, the automatic disable queues no new events.
      await createZone(customerA);
      await new Promise((r) => setTimeout(r, 500));
      expect(await deliveriesOf(reseller, hook.id)).toEqual([]);
      expect(receiver.requests).toEqual([]);
    } finally {
      await receiver.stop();
    }
  });
});
