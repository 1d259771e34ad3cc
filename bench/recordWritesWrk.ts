// Single-record creates measured with wrk (a C load generator, so the client costs little of the
// two cores): POST /api/v1/zones/{zone}/records over 10 zones and over one zone, at 1, 10 and 50
// connections. The service runs as a child process as `npm start` runs it: all roles, or only
// the API with ROLES=api (publication left to another process).
//   createdb mdns_bench_wrk
//   [ROLES=api] DATABASE_URL=postgres://postgres@127.0.0.1:5432/mdns_bench_wrk node --import tsx bench/recordWritesWrk.ts [seconds]
//   dropdb mdns_bench_wrk
// ONLY_10x10=1 runs only the 10 zones × 10 connections case (the figure issues compare; shorter
// runs make more alternating rounds possible).
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { startBenchService } from './lib/benchService.js';

const seconds = Number(process.argv[2] ?? 10);
const url = process.env.DATABASE_URL ?? '';
if (/\/(postgres|test)$/.test(url)) throw new Error('DATABASE_URL must name a scratch database');
const service = await startBenchService();
const { base, tokens } = service;
const api = async (method: string, p: string, token: string, body?: unknown) => {
  const r = await fetch(`${base}/api/v1${p}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${await r.text()}`);
  return r.json();
};
await api('PATCH', `/tenants/${tokens.tenants.customers[0]}`, tokens.platform, { limits: { api_rate_limit_per_minute: 1_000_000, max_zones: 1000 } });
const zones = Array.from({ length: 10 }, (_, i) => `wrk-${i}-${Date.now().toString(36)}.test`);
for (const name of zones) await api('POST', '/zones', tokens.customers[0], { name });

const wrk = (list: readonly string[], connections: number, duration: number) =>
  execFileSync('wrk', [`-t${Math.min(2, connections)}`, `-c${connections}`, `-d${duration}s`, '--latency', '-s', 'bench/wrk/createRecord.lua', base], {
    env: { ...process.env, ZONES: list.join(','), TOKEN: tokens.customers[0], WRK_THREADS: String(Math.min(2, connections)) },
    encoding: 'utf8',
  });
// Unmeasured: the first seconds of a fresh process are JIT compilation and pool connections.
wrk(zones, 10, 3);

const rows: string[] = [];
const only10x10 = process.env.ONLY_10x10 === '1';
for (const [label, list] of only10x10
  ? ([['10 zones', zones]] as const)
  : ([
      ['10 zones', zones],
      ['one zone', zones.slice(0, 1)],
    ] as const)) {
  for (const connections of only10x10 ? [10] : [1, 10, 50]) {
    const out = wrk(list, connections, seconds);
    const rps = /Requests\/sec:\s+([\d.]+)/.exec(out)?.[1];
    const p50 = /50%\s+([\d.]+\w+)/.exec(out)?.[1];
    const p99 = /99%\s+([\d.]+\w+)/.exec(out)?.[1];
    const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? '0';
    rows.push(`| ${label} | ${connections} | ${Number(rps).toFixed(0)} | ${p50} | ${p99} | ${non2xx} |`);
  }
}
console.log(
  `\n${new Date().toISOString()}, ${os.cpus().length} × ${os.cpus()[0]?.model}, wrk 2 threads, ${seconds} s per run, ROLES=${process.env.ROLES ?? '(all)'}`,
);
console.log('| zones | connections | requests/s | p50 | p99 | non-2xx |\n|---|---|---|---|---|---|');
console.log(rows.join('\n'));
await service.stop();
