// Write path of zones: (a) storing a 1000-item change set into a zone that already holds 10,000
// records, (b) single-record creates (POST /zones/{zone}/records) with 1, 10 and 50 concurrent
// clients, all in one zone and spread over 10 zones.
// The service runs as a child process exactly as `npm start` runs it; the load comes from this
// process. DATABASE_URL must name a SCRATCH database (the lab is seeded into it and zones with
// tens of thousands of records are left behind): create it before, drop it after.
//   createdb mdns_bench_cs
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/mdns_bench_cs node --import tsx bench/changeSets.ts [seconds-per-run] [repetitions]
//   dropdb mdns_bench_cs
import os from 'node:os';
import { liftRateLimits, startBenchService } from './lib/benchService.js';

const seconds = Number(process.argv[2] ?? 10);
const repetitions = Number(process.argv[3] ?? 7);

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('Set DATABASE_URL to a scratch database (see the header of this file).');
const dbName = new URL(databaseUrl).pathname.slice(1);
if (['postgres', 'test', 'template0', 'template1', ''].includes(dbName)) throw new Error(`Refusing to seed the lab into "${dbName}": use a scratch database.`);

const service = await startBenchService({ env: { LOG_LEVEL: 'warn' } });
const { base, tokens } = service;
await liftRateLimits(service);

const headers = { authorization: `Bearer ${tokens.customers[0]}`, 'content-type': 'application/json' };
async function call(method: string, url: string, body?: unknown): Promise<{ status: number; body: any; ms: number }> {
  const t = performance.now();
  const r = await fetch(`${base}/api/v1${url}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  const ms = performance.now() - t;
  return { status: r.status, body: text && r.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text, ms };
}
const stamp = Date.now().toString(36);
async function newZone(label: string): Promise<string> {
  const name = `${label}-${stamp}.example`;
  const r = await call('POST', '/zones', { name });
  if (r.status !== 201) throw new Error(`zone ${name}: ${r.status} ${JSON.stringify(r.body)}`);
  return name;
}

/** 1000 creates at distinct names, cycling A / AAAA / TXT. */
const createItems = (prefix: string, from: number, count: number) =>
  Array.from({ length: count }, (_, k) => {
    const i = from + k;
    const name = `${prefix}${i}`;
    const record =
      i % 3 === 0
        ? { type: 'A', name, data: { address: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` } }
        : i % 3 === 1
          ? { type: 'AAAA', name, data: { address: `2001:db8::${i.toString(16)}` } }
          : { type: 'TXT', name, data: { text: `bench record ${i}` } };
    return { op: 'create', record };
  });

const ms = (v: number) => v.toFixed(0);
const quantile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

// (a) ------------------------------------------------------------------------------------------
const big = await newZone('big');
const seeding: number[] = [];
for (let s = 0; s < 10; s++) {
  const r = await call('POST', `/zones/${big}/changesets`, { changes: createItems('seed', s * 1000, 1000) });
  if (r.status !== 201) throw new Error(`seeding: ${r.status} ${JSON.stringify(r.body).slice(0, 500)}`);
  seeding.push(r.ms);
}
const creates: number[] = [];
const deletes: number[] = [];
for (let rep = 0; rep < repetitions; rep++) {
  const r = await call('POST', `/zones/${big}/changesets`, { changes: createItems(`r${rep}x`, 0, 1000) });
  if (r.status !== 201) throw new Error(`1000-item set: ${r.status} ${JSON.stringify(r.body).slice(0, 500)}`);
  creates.push(r.ms);
  // Back to 10,000 records for the next repetition: the same 1000 deleted in one set.
  const ids = (r.body.results as { record_ids: string[] }[]).flatMap((x) => x.record_ids);
  const d = await call('POST', `/zones/${big}/changesets`, { changes: ids.map((id) => ({ op: 'delete', id })) });
  if (d.status !== 201) throw new Error(`delete set: ${d.status}`);
  deletes.push(d.ms);
}
const median = (xs: number[]) =>
  quantile(
    [...xs].sort((a, b) => a - b),
    0.5,
  );
const max = (xs: number[]) => Math.max(...xs);

// (b) ------------------------------------------------------------------------------------------
let counter = 0;
async function writeRun(concurrency: number, zones: string[]) {
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  const end = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, client) => {
      const zone = zones[client % zones.length]!;
      while (performance.now() < end) {
        const i = counter++;
        const r = await call('POST', `/zones/${zone}/records`, {
          type: 'A',
          name: `w${i}`,
          data: { address: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` },
        });
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        latencies.push(r.ms);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const other =
    [...statuses]
      .filter(([s]) => s !== 201)
      .map(([s, n]) => `${n}×${s}`)
      .join(' ') || '0';
  return { rps: (latencies.length / elapsed).toFixed(0), p50: quantile(latencies, 0.5).toFixed(1), p99: quantile(latencies, 0.99).toFixed(1), other };
}

const rows: string[] = [];
await writeRun(4, [await newZone('warm')]); // warm-up
for (const layout of ['one zone', '10 zones'] as const) {
  for (const c of [1, 10, 50]) {
    const zones = layout === 'one zone' ? [await newZone(`one-c${c}`)] : await Promise.all(Array.from({ length: 10 }, (_, z) => newZone(`ten-c${c}-z${z}`)));
    const r = await writeRun(c, zones);
    rows.push(`| ${layout} | ${c} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.other} |`);
  }
}

const load = os
  .loadavg()
  .map((l) => l.toFixed(2))
  .join(' ');
console.log(`\n${new Date().toISOString()}, ${os.cpus().length} × ${os.cpus()[0]?.model}, Node ${process.version}, load average at the end ${load}`);
console.log(`\n(a) POST /zones/{zone}/changesets, 1000 creates (A/AAAA/TXT at distinct names) into a zone of 10,000 records, ${repetitions} repetitions`);
console.log('| set | n | median ms | max ms | all ms |\n|---|---|---|---|---|');
console.log(`| 1000 creates into 10,000 records | ${creates.length} | ${ms(median(creates))} | ${ms(max(creates))} | ${creates.map(ms).join(', ')} |`);
console.log(`| 1000 deletes (the same records) | ${deletes.length} | ${ms(median(deletes))} | ${ms(max(deletes))} | ${deletes.map(ms).join(', ')} |`);
console.log(
  `| seeding: 1000 creates into 0…9,000 records | ${seeding.length} | ${ms(median(seeding))} | ${ms(max(seeding))} | ${seeding.map(ms).join(', ')} |`,
);
console.log(`\n(b) POST /zones/{zone}/records (one A record each), ${seconds} s per run`);
console.log('| zones | concurrent clients | requests/s | p50 ms | p99 ms | non-201 |\n|---|---|---|---|---|---|');
console.log(rows.join('\n'));
await service.stop();
