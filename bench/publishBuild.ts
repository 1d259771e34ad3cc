// Time of one publication build in-process (publishZone: lock, change-set list, read, build steps,
// commit), without the nameserver, verification or HTTP around it: a record write through the API
// (ROLES=api, so no worker builds it), then one build, 300 times, in a zone of 1,000 records.
// Less sensitive to a loaded machine than bench/publicationLatency.ts, which waits for `live`.
//   createdb mdns_bench_build
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/mdns_bench_build node --import tsx bench/publishBuild.ts [builds]
//   dropdb mdns_bench_build
import { createDb } from '../src/db/knex.js';
import { systemClock } from '../src/domain/clock.js';
import { publishZone } from '../src/publication/publishZone.js';
import { liftRateLimits, startBenchService } from './lib/benchService.js';

const builds = Number(process.argv[2] ?? 300);
const url = process.env.DATABASE_URL ?? '';
if (!url || /\/(postgres|test)$/.test(url)) throw new Error('DATABASE_URL must name a scratch database');

const service = await startBenchService({ env: { ROLES: 'api' } });
await liftRateLimits(service);
const api = async (method: string, p: string, body?: unknown) => {
  const r = await fetch(`${service.base}/api/v1${p}`, {
    method,
    headers: { authorization: `Bearer ${service.tokens.customers[0]}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${await r.text()}`);
  return r.json() as Promise<any>;
};
const zone = `build-${Date.now().toString(36)}.example`;
const created = await api('POST', '/zones', { name: zone });
await api('POST', `/zones/${zone}/changesets`, {
  changes: Array.from({ length: 1000 }, (_, i) => ({ op: 'create', record: { name: `q${i}`, type: 'A', data: { address: `10.0.${i >> 8}.${i & 255}` } } })),
});
const db = createDb(url);
const deps = {
  db,
  clock: systemClock,
  nameservers: ['ns1.lab-dns.test', 'ns2.lab-dns.test'],
  dnssec: { kek: Buffer.alloc(32), dnskeyTtl: 3600, signingThread: { fromRecords: 5000, heapMb: null } },
};
await publishZone(deps, created.id);

const times: number[] = [];
for (let i = 0; i < builds; i++) {
  await api('POST', `/zones/${zone}/records`, { name: `w${i}`, type: 'A', data: { address: '192.0.2.1' } });
  const t0 = performance.now();
  const outcome = await publishZone(deps, created.id);
  times.push(performance.now() - t0);
  if (outcome.kind !== 'published') throw new Error(`build ${i}: ${JSON.stringify(outcome)}`);
}
times.sort((a, b) => a - b);
const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(2);
console.log(`${new Date().toISOString()} builds ${builds}: p50 ${at(0.5)} ms, p90 ${at(0.9)} ms, p99 ${at(0.99)} ms`);
await db.destroy();
await service.stop();
