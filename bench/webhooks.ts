// Webhooks beside publication (docs/webhooks.md "Delivery"):
// 1. publication latency (a record write's 201 → `live_at`), p50/p99, first with no webhook, then
//    with 10 webhooks subscribed to every event kind: 8 receivers answering at once, one answering
//    after 9 s, one whose port refuses connections;
// 2. delivery throughput: events per second delivered (signed POST, 2xx, recorded) to one fast
//    receiver, from N events put into the outbox at once.
// The service runs as `npm start` runs it (all roles, one process); receivers run in this process.
//   createdb -h 127.0.0.1 -U postgres mdns_bench_webhooks
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/mdns_bench_webhooks node --import tsx bench/webhooks.ts [writes] [events]
//   dropdb -h 127.0.0.1 -U postgres mdns_bench_webhooks
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import pg from 'pg';
import { benchApi, freePort, liftRateLimits, startBenchService } from './lib/benchService.js';

const writes = Number(process.argv[2] ?? 200);
const events = Number(process.argv[3] ?? 5000);
const url = process.env.DATABASE_URL ?? '';
if (!url || /\/(postgres|test)$/.test(url)) throw new Error('DATABASE_URL must name a scratch database');

/** A receiver answering `status` after `delayMs`; counts the deliveries it saw (distinct ids). */
async function receiver(delayMs: number) {
  const seen = new Set<string>();
  let requests = 0;
  const server = http.createServer((req, res) => {
    requests++;
    seen.add(String(req.headers['service-delivery']));
    req.resume();
    req.on('end', () => setTimeout(() => res.writeHead(204).end(), delayMs));
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    seen,
    requests: () => requests,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const service = await startBenchService();
const { base, tokens } = service;
await liftRateLimits(service);
const api = benchApi(base, tokens.customers[0]);
const zone = `webhooks-${Date.now().toString(36)}.example`;
await api('POST', '/zones', { name: zone });

async function latency(label: string): Promise<string> {
  const serverSide: number[] = [];
  for (let i = 0; i < writes; i++) {
    const record = await api('POST', `/zones/${zone}/records`, { name: `${label}${i}`, type: 'A', data: { address: '192.0.2.1' } });
    const at201 = Date.now();
    const setPath = `/zones/${zone}/changesets/${record.publication.changeset_id}`;
    for (;;) {
      const set = await api('GET', setPath);
      if (set.state === 'live') {
        serverSide.push(Date.parse(set.live_at) - at201);
        break;
      }
      if (set.state === 'failed') throw new Error(`change set failed: ${JSON.stringify(set.error)}`);
      await new Promise((r) => setTimeout(r, 2));
    }
  }
  const sorted = [...serverSide].sort((a, b) => a - b);
  const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
  return `| ${label} | ${writes} | ${pct(50)} | ${pct(99)} | ${sorted.at(-1)} |`;
}

const kinds = ['zone.changed', 'record.published', 'record.failed', 'dnssec.state_changed', 'quota.warning'];
const rows: string[] = [];
rows.push(await latency('no-webhooks'));

const fast = await Promise.all(Array.from({ length: 8 }, () => receiver(0)));
const slow = await receiver(9000);
const refusing = `http://127.0.0.1:${await freePort()}/hook`;
const hookIds: string[] = [];
for (const u of [...fast.map((r) => r.url), slow.url, refusing]) hookIds.push((await api('POST', '/webhooks', { url: u, events: kinds })).id);
rows.push(await latency('ten-webhooks'));
// Every write above made two events (zone.changed, record.published) for each webhook.
const expected = 2 * writes;
const deadline = Date.now() + 30_000;
while (fast.some((r) => r.seen.size < expected) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
const fastDelivered = fast.map((r) => r.seen.size);

// Throughput: the webhooks go, one fast receiver remains; N events into the outbox at once.
for (const id of hookIds) await api('DELETE', `/webhooks/${id}`);
const sink = await receiver(0);
await api('POST', '/webhooks', { url: sink.url, events: ['zone.changed'] });
const db = new pg.Client({ connectionString: url });
await db.connect();
const t0 = Date.now();
await db.query(
  `INSERT INTO events (id, tenant_id, kind, zone_id, payload, occurred_at)
   SELECT new_id('evt'), $1, 'zone.changed', NULL, jsonb_build_object('zone', $2::text, 'change', 'records', 'n', n), now()
   FROM generate_series(1, $3) AS n`,
  [tokens.tenants.customers[0], zone, events],
);
while (sink.seen.size < events && Date.now() - t0 < 300_000) await new Promise((r) => setTimeout(r, 20));
const seconds = (Date.now() - t0) / 1000;
// Recorded as delivered, not only received.
let recorded = 0;
for (;;) {
  const r = await db.query(
    `SELECT count(*)::int AS n FROM webhook_deliveries WHERE state = 'delivered' AND kind = 'zone.changed' AND webhook_id = (SELECT id FROM webhooks ORDER BY created_at DESC LIMIT 1)`,
  );
  recorded = r.rows[0].n;
  if (recorded >= events || Date.now() - t0 > 310_000) break;
  await new Promise((r) => setTimeout(r, 20));
}
const recordedSeconds = (Date.now() - t0) / 1000;
await db.end();

console.log(`\n${new Date().toISOString()}, ${os.cpus().length} × ${os.cpus()[0]?.model}, Node ${process.version}`);
console.log('Publication latency, 201 → live_at (server timestamp), sequential writes:');
console.log('| webhooks | writes | p50 ms | p99 ms | max ms |\n|---|---|---|---|---|');
for (const r of rows) console.log(r);
console.log(`fast receivers got ${fastDelivered.join(', ')} of ${expected} deliveries each; the slow one ${slow.seen.size} (9 s per answer, 4 at a time)`);
console.log(
  `Delivery throughput: ${sink.seen.size} of ${events} events received in ${seconds.toFixed(2)} s (${(sink.seen.size / seconds).toFixed(0)}/s), ${recorded} recorded delivered in ${recordedSeconds.toFixed(2)} s (${(recorded / recordedSeconds).toFixed(0)}/s); ${sink.requests()} requests`,
);

await Promise.all([...fast, slow, sink].map((r) => r.close()));
await service.stop();
