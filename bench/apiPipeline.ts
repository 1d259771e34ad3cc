// Throughput and latency of the authenticated request pipeline: GET /api/v1/me as the lab
// reseller, with and without X-Act-As-Customer, at 1, 10 and 50 concurrent clients.
// The service runs as a child process exactly as `npm start` runs it (DATABASE_URL passed
// through when set — use a scratch database, the lab is seeded into it — else the embedded
// PostgreSQL); the load comes from this process.
//   node --import tsx bench/apiPipeline.ts [seconds-per-run]
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const seconds = Number(process.argv[2] ?? 10);
const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'mdns-bench-'));
const port = await freePort();
const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
  env: { ...process.env, DATA_DIR: dataDir, HTTP_PORT: String(port), EMBEDDED_PG_PORT: String(await freePort()), LOG_LEVEL: 'info' },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const base = `http://127.0.0.1:${port}`;
for (let i = 0; ; i++) {
  if (await fetch(`${base}/healthz`).then((r) => r.ok, () => false)) break;
  if (i > 600) throw new Error('service did not become healthy');
  await new Promise((r) => setTimeout(r, 200));
}
const tokens = JSON.parse(await fs.readFile(path.join(dataDir, 'lab-tokens.json'), 'utf8'));
// Lift the limits so the benchmark measures the pipeline, not the 429 path.
for (const id of [tokens.tenants.reseller, ...tokens.tenants.customers]) {
  const r = await fetch(`${base}/api/v1/tenants/${id}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${tokens.platform}`, 'content-type': 'application/json' },
    body: JSON.stringify({ limits: { api_rate_limit_per_minute: 1_000_000 } }),
  });
  if (r.status !== 200) throw new Error(`raising limits failed: ${r.status}`);
}

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
console.log(`\nGET /api/v1/me, ${seconds} s per run, ${os.cpus().length} × ${os.cpus()[0]?.model}, database: ${process.env.DATABASE_URL ? 'DATABASE_URL' : 'embedded'}`);
console.log('| request | concurrent clients | requests/s | p50 ms | p99 ms | non-200 |\n|---|---|---|---|---|---|');
console.log(rows.join('\n'));
child.kill('SIGTERM');
await new Promise((r) => child.on('exit', r));
await fs.rm(dataDir, { recursive: true, force: true });
