// `Prefer: wait` against polling: how long after sending a record write a client knows it is live
// (docs/api-conventions.md "Waiting until live"). Interleaved, one client: a POST with
// `Prefer: wait=10` (answered live), and a POST without it followed by GETs of the change set every
// ~2 ms until `live` (publicationLatency.ts's loop). Then 10 clients at once with `Prefer: wait`.
// The service runs as `npm start` runs it (all roles, one process).
//   createdb mdns_bench_wait
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/mdns_bench_wait node --import tsx bench/waitUntilLive.ts [writes]
//   dropdb mdns_bench_wait
import os from 'node:os';
import { benchApi, liftRateLimits, startBenchService } from './lib/benchService.js';

const writes = Number(process.argv[2] ?? 100);
const url = process.env.DATABASE_URL ?? '';
if (!url || /\/(postgres|test)$/.test(url)) throw new Error('DATABASE_URL must name a scratch database');

const service = await startBenchService();
await liftRateLimits(service);
const token = service.tokens.customers[0];
const api = benchApi(service.base, token);
const zone = `wait-${Date.now().toString(36)}.example`;
await api('POST', '/zones', { name: zone });

/** A record POST with Prefer: wait=10: ms until the answer, and the state it shows. */
async function waited(name: string): Promise<number> {
  const started = performance.now();
  const r = await fetch(`${service.base}/api/v1/zones/${zone}/records`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', prefer: 'wait=10' },
    body: JSON.stringify({ name, type: 'TXT', data: { text: name } }),
  });
  const body = (await r.json()) as { publication: { state: string } };
  if (r.status !== 201 || body.publication.state !== 'live') throw new Error(`${r.status} ${JSON.stringify(body)}`);
  return performance.now() - started;
}

/** A record POST, then its change set read every ~2 ms: ms until a read shows it live. */
async function polled(name: string): Promise<number> {
  const started = performance.now();
  const record = await api('POST', `/zones/${zone}/records`, { name, type: 'TXT', data: { text: name } });
  for (;;) {
    const set = await api('GET', `/zones/${zone}/changesets/${record.publication.changeset_id}`);
    if (set.state === 'live') return performance.now() - started;
    await new Promise((r) => setTimeout(r, 2));
  }
}

const byWait: number[] = [];
const byPoll: number[] = [];
for (let i = 0; i < writes; i++) {
  byWait.push(await waited(`w${i}`));
  byPoll.push(await polled(`p${i}`));
}
const concurrent = (
  await Promise.all(
    Array.from({ length: 10 }, (_, c) =>
      (async () => {
        const ms: number[] = [];
        for (let i = 0; i < writes / 10; i++) ms.push(await waited(`c${c}-${i}`));
        return ms;
      })(),
    ),
  )
).flat();

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!;
const row = (what: string, xs: number[]) =>
  `| ${what} | ${xs.length} | ${pct(xs, 50).toFixed(0)} | ${pct(xs, 99).toFixed(0)} | ${Math.max(...xs).toFixed(0)} |`;
console.log(`\n${new Date().toISOString()}, ${os.cpus().length} × ${os.cpus()[0]?.model}, Node ${process.version}`);
console.log('| sent → client knows it is live | writes | p50 ms | p99 ms | max ms |\n|---|---|---|---|---|');
console.log(row('POST with `Prefer: wait=10`, one client', byWait));
console.log(row('POST, then GET the change set every ~2 ms, one client', byPoll));
console.log(row('POST with `Prefer: wait=10`, 10 clients at once', concurrent));
await service.stop();
