// Retention (docs/operations.md "Retention"): what the maintenance job deletes as the service's
// clock moves on, seen through the API and the nameserver as users see it, and each build's trim
// of its zone's versions. The maintenance run is the service's own (MaintenanceLoop.runOnce on its
// database and clock), called when the test has moved the clock instead of waiting a minute.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MaintenanceLoop } from '../../src/maintenance.js';
import type { ApiClient } from '../helpers/apiClient.js';
import { queryDns } from '../helpers/dnsQuery.js';
import { smtpServer } from '../helpers/smtpServer.js';
import { startTestService, type TestService } from '../helpers/testService.js';
import { eventually, WebhookReceiver } from '../helpers/webhookReceiver.js';

const DAY = 24 * 3600_000;

let lab: TestService;
let customer: ApiClient;
let maintenance: MaintenanceLoop;
let n = 0;
const zoneName = () => `keep-${Date.now().toString(36)}-${++n}.example`;

let relay: ReturnType<typeof smtpServer>;

beforeAll(async () => {
  // Mail is sent (so that sent mail's retention applies): without SMTP_URL the lab keeps it queued.
  relay = smtpServer({ password: 'secret' });
  const port = await relay.listen();
  lab = await startTestService({
    env: { WEBHOOK_POLL_INTERVAL_MS: '50', SMTP_URL: `smtp://mailer:secret@127.0.0.1:${port}`, MAIL_FROM: 'noreply@dns.example' },
  });
  // The lab's nightly reset would empty the tables this test watches once the clock passes 03:00.
  await lab.service.labReset?.stop();
  customer = lab.as(lab.tokens.customers[0]!);
  maintenance = new MaintenanceLoop(lab.service.services.db, lab.clock, lab.service.logger);
});
afterAll(async () => {
  await lab?.stop();
  await relay?.close();
});

const dnsPort = () => lab.service.nameserver!.server.port;
const db = () => lab.service.services.db;

async function createZone(): Promise<{ name: string; id: string }> {
  const name = zoneName();
  const res = await customer.post('/zones', { name });
  expect(res.status, res.text).toBe(201);
  return { name, id: res.body.id };
}

/** Writes an A record and waits until its change set is committed for the nameservers. */
async function writeRecord(zone: string, label: string, address: string): Promise<{ id: string; changeset: string }> {
  const res = await customer.post(`/zones/${zone}/records`, { type: 'A', name: label, data: { address } });
  expect(res.status, res.text).toBe(201);
  const changeset = res.body.publication.changeset_id as string;
  await eventually(
    async () => {
      const read = await customer.get(`/zones/${zone}/changesets/${changeset}`);
      expect(read.status, read.text).toBe(200);
      return read.body.state !== 'pending' || null;
    },
    10_000,
    'pushed',
  );
  return { id: res.body.id, changeset };
}

const versionCount = async (zoneId: string) => Number(((await db()('zone_versions').where('zone_id', zoneId).count('* as n').first()) as { n: string }).n);

describe('retention', () => {
  it('events and their delivery log go after 30 days unless a delivery is pending, sent mail after 30, change sets after 90, the audit log after 400; records stay', async () => {
    const ok = await new WebhookReceiver().start();
    const down = await new WebhookReceiver().start();
    down.status = 503;
    try {
      // One kind each, so that each event has one delivery: an event with a pending delivery keeps
      // all of its deliveries.
      const registered = [];
      for (const [receiver, kind] of [
        [ok, 'zone.changed'],
        [down, 'record.published'],
      ] as const) {
        const res = await customer.post('/webhooks', { url: receiver.url, events: [kind] });
        expect(res.status, res.text).toBe(201);
        receiver.secrets = [res.body.secret];
        registered.push(res.body.id as string);
      }
      const [okHook, downHook] = registered as [string, string];
      const zone = await createZone();
      const record = await writeRecord(zone.name, 'www', '192.0.2.10');
      const last = await writeRecord(zone.name, 'last', '192.0.2.11');
      const deliveries = async (hook: string) =>
        (await customer.get(`/webhooks/${hook}/deliveries`)).body.data as { id: string; state: string; type: string; attempts: unknown[] }[];
      await eventually(
        async () => {
          const ds = await deliveries(okHook);
          return ds.length >= 2 && ds.every((d) => d.state === 'delivered') ? ds : null;
        },
        15_000,
        'delivered',
      );
      const pending = await eventually(
        async () => {
          const ds = await deliveries(downHook);
          return ds.length >= 1 && ds.every((d) => d.state === 'pending' && d.attempts.length === 1) ? ds : null;
        },
        15_000,
        'refused and pending',
      );
      expect((await customer.get(`/audit-log?target=${zone.id}`)).body.data.length).toBeGreaterThan(0);

      // 31 days on: the failing webhook is disabled (its deliveries stay pending) and mails support.
      lab.clock.advance(31 * DAY);
      await eventually(async () => (await customer.get(`/webhooks/${downHook}`)).body.state === 'disabled', 15_000, 'disabled');
      const mail = await eventually(
        async () => ((await customer.get('/lab/mails')).body.data as { id: string; body: string }[]).find((m) => m.body.includes(downHook)),
        10_000,
        'mail',
      );
      await eventually(() => relay.sessions.some((s) => s.data?.includes(downHook)) || null, 10_000, 'mail sent');
      await maintenance.runOnce();
      expect(await deliveries(okHook)).toEqual([]);
      const kept = await deliveries(downHook);
      expect(kept.map((d) => d.id)).toEqual(expect.arrayContaining(pending.map((d) => d.id)));
      expect(kept.every((d) => d.state === 'pending')).toBe(true);
      expect((await customer.get(`/zones/${zone.name}/changesets/${record.changeset}`)).status).toBe(200);
      expect(((await customer.get('/lab/mails')).body.data as { id: string }[]).map((m) => m.id)).toContain(mail.id);

      // 62 days: the mail, sent 31 days ago, is gone from the outbox.
      lab.clock.advance(31 * DAY);
      await maintenance.runOnce();
      expect(((await customer.get('/lab/mails')).body.data as { id: string }[]).map((m) => m.id)).not.toContain(mail.id);

      // 91 days: the change sets are gone but the zone's newest (its publication summary); the
      // records, their publication state, the zone and its answers stay.
      lab.clock.advance(29 * DAY);
      await maintenance.runOnce();
      expect((await customer.get(`/zones/${zone.name}/changesets/${record.changeset}`)).status).toBe(404);
      expect(((await customer.get(`/zones/${zone.name}/changesets`)).body.data as { id: string }[]).map((c) => c.id)).toEqual([last.changeset]);
      const www = await customer.get(`/zones/${zone.name}/records/${record.id}`);
      expect(www.status, www.text).toBe(200);
      expect(www.body.publication).toMatchObject({ state: 'live', changeset_id: record.changeset });
      expect(((await customer.get(`/zones/${zone.name}/records`)).body.data as { id: string }[]).map((r) => r.id)).toContain(record.id);
      expect((await customer.get(`/zones/${zone.name}`)).body.publication).toMatchObject({ state: 'live', changeset_id: last.changeset });
      const answer = await queryDns(dnsPort(), `www.${zone.name}`, 'A');
      expect(answer.answers.map((a) => a.address)).toContain('192.0.2.10');
      expect((await customer.get(`/audit-log?target=${zone.id}`)).body.data.length).toBeGreaterThan(0);

      // The events the pending deliveries kept are still delivered once the webhook is enabled.
      down.status = 200;
      expect((await customer.post(`/webhooks/${downHook}/enable`)).status).toBe(200);
      await eventually(async () => (await deliveries(downHook)).every((d) => d.state === 'delivered') || null, 15_000, 'kept events delivered');
      expect(down.ofType('record.published').length).toBeGreaterThanOrEqual(kept.length);

      // 401 days: the audit log's entries of that zone are gone too.
      lab.clock.advance(310 * DAY);
      await maintenance.runOnce();
      expect((await customer.get(`/audit-log?target=${zone.id}`)).body.data).toEqual([]);
    } finally {
      await ok.stop();
      await down.stop();
    }
  }, 90_000);

  it('a build keeps its zone’s versions of the last day and at least the last 100, and trims the rest', async () => {
    const busy = await createZone();
    const quiet = await createZone();
    await writeRecord(quiet.name, 'a', '192.0.2.1');
    for (let i = 0; i < 105; i++) {
      lab.clock.advance(1000);
      await writeRecord(busy.name, `h${i}`, `198.51.100.${i + 1}`);
    }
    const before = await versionCount(busy.id);
    expect(before).toBeGreaterThanOrEqual(106);
    const quietBefore = await versionCount(quiet.id);

    // Within the day nothing goes; a day later the next build trims what is beyond the last 100.
    await writeRecord(busy.name, 'within', '192.0.2.2');
    expect(await versionCount(busy.id)).toBe(before + 1);
    lab.clock.advance(DAY + 1000);
    await writeRecord(busy.name, 'later', '192.0.2.3');
    await writeRecord(quiet.name, 'b', '192.0.2.4');
    expect(await versionCount(busy.id)).toBe(101);
    expect(await versionCount(quiet.id)).toBe(quietBefore + 1);
    const kept = (await db()('zone_versions').where('zone_id', busy.id).orderBy('created_at', 'desc').select('created_at')) as { created_at: Date }[];
    // The newest kept: the one just built, the one within the day, then h104 back to h6.
    expect(kept[0]!.created_at.getTime()).toBe(lab.clock.now().getTime());
    expect(Math.min(...kept.map((k) => k.created_at.getTime()))).toBeGreaterThan(lab.clock.now().getTime() - DAY - 100_000);
    const answer = await eventually(
      async () => {
        const r = await queryDns(dnsPort(), `later.${busy.name}`, 'A');
        return r.answers.length ? r : null;
      },
      10_000,
      'answered',
    );
    expect(answer.answers.map((a) => a.address)).toEqual(['192.0.2.3']);
    expect((await queryDns(dnsPort(), `h0.${busy.name}`, 'A')).answers.map((a) => a.address)).toEqual(['198.51.100.1']);
  }, 120_000);
});
