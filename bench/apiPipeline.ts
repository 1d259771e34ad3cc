// Throughput and latency of the authenticated request pipeline: GET /api/v1/me as the lab
// reseller, with and without X-Act-As-Customer, at 1, 10 and 50 concurrent clients.
// The service runs as a child process exactly as `npm start` runs it (DATABASE_URL passed
// through when set — use a scratch database, the lab is seeded into it — else the embedded
// PostgreSQL); the load comes from this process.
//   node --import tsx bench/apiPipeline.ts [seconds-per-run]
import os from 'node:os';
import { liftRateLimits, startBenchService } from './lib/benchService.js';

const seconds = Number(process.argv[2] ?? 10);
const service = await startBenchService();
const { base, tokens } = service;
await liftRateLimits(service);

async function run(concurrency: number, headers: Record<string, string>) {
  const latencies: number[] = [];
  let errors = 0;
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        const r = await fetch(`${base}/api/v1/me`, { headers });
        await r.arrayBuffer();
        if (r.status !== 200) errors++;
        latencies.push(performance.now() - t);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!.toFixed(1);
  return { rps: (latencies.length / seconds).toFixed(0), p50: q(0.5), p99: q(0.99), errors };
}

const rows: string[] = [];
for (const [label, headers] of [
  ['own tenant', { authorization: `Bearer ${tokens.reseller}` }],
  ['acting for a customer', { authorization: `Bearer ${tokens.reseller}`, 'x-act-as-customer': tokens.tenants.customers[0] }],
] as const) {
  await run(4, headers); // warm-up
  for (const c of [1, 10, 50]) {
    const r = await run(c, headers);
    rows.push(`| ${label} | ${c} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.errors} |`);
  }
}
console.log(
  `\nGET /api/v1/me, ${seconds} s per run, ${os.cpus().length} × ${os.cpus()[0]?.model}, database: ${process.env.DATABASE_URL ? 'DATABASE_URL' : 'embedded'}`,
);
console.log('| request | concurrent clients | requests/s | p50 ms | p99 ms | non-200 |\n|---|---|---|---|---|---|');
console.log(rows.join('\n'));
await service.stop();
