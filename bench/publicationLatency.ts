// Publication latency: time from a record write's 201 to `live` (every authoritative nameserver
// answered the new serial), over 200 writes, while the embedded nameserver answers dnsperf at
// half of its measured peak. The service runs as `npm start` runs it (all roles, one process),
// with response rate limiting off (DNS_RRL_RATE=0): dnsperf asks from one address, and its
// NXDOMAIN share alone is far above the limit for one zone.
//   createdb mdns_bench_pub
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/mdns_bench_pub node --import tsx bench/publicationLatency.ts [writes]
//   dropdb mdns_bench_pub
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchApi, liftRateLimits, startBenchService } from './lib/benchService.js';

const writes = Number(process.argv[2] ?? 200);
const url = process.env.DATABASE_URL ?? '';
if (!url || /\/(postgres|test)$/.test(url)) throw new Error('DATABASE_URL must name a scratch database');

const service = await startBenchService({ env: { DNS_RRL_RATE: '0' } });
const { base, tokens, dnsPort } = service;
await liftRateLimits(service);
const api = benchApi(base, tokens.customers[0]);
const zone = `latency-${Date.now().toString(36)}.example`;
await api('POST', '/zones', { name: zone });
await api('POST', `/zones/${zone}/changesets`, {
  changes: Array.from({ length: 1000 }, (_, i) => ({ op: 'create', record: { name: `q${i}`, type: 'A', data: { address: `10.0.${i >> 8}.${i & 255}` } } })),
});

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdns-latency-'));
const queries = path.join(dir, 'queries.txt');
fs.writeFileSync(queries, `${Array.from({ length: 20_000 }, (_, i) => (i % 10 === 9 ? `nx${i}.${zone} A` : `q${i % 1000}.${zone} A`)).join('\n')}\n`);
const dnsperfArgs = ['-s', '127.0.0.1', '-p', String(dnsPort), '-d', queries, '-c', '4', '-T', '1', '-q', '200'];
const peakOut = execFileSync('dnsperf', [...dnsperfArgs, '-l', '5'], { encoding: 'utf8' });
const peak = Number(/Queries per second:\s+([\d.]+)/.exec(peakOut)?.[1]);
const rate = Math.floor(peak / 2);

// Half the peak, for longer than the writes take.
const load = spawn('dnsperf', [...dnsperfArgs, '-l', '600', '-Q', String(rate)], { stdio: ['ignore', 'pipe', 'ignore'] });
let loadOut = '';
load.stdout.on('data', (d) => (loadOut += d));
await new Promise((r) => setTimeout(r, 2000));

const serverSide: number[] = [];
const clientSide: number[] = [];
for (let i = 0; i < writes; i++) {
  const record = await api('POST', `/zones/${zone}/records`, { name: `w${i}`, type: 'A', data: { address: '192.0.2.1' } });
  const at201 = Date.now();
  const setPath = `/zones/${zone}/changesets/${record.publication.changeset_id}`;
  for (;;) {
    const set = await api('GET', setPath);
    if (set.state === 'live') {
      clientSide.push(Date.now() - at201);
      serverSide.push(Date.parse(set.live_at) - at201);
      break;
    }
    if (set.state === 'failed') throw new Error(`change set failed: ${JSON.stringify(set.error)}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}
load.kill('SIGINT');
await new Promise((r) => load.on('exit', r));
const achieved = /Queries per second:\s+([\d.]+)/.exec(loadOut)?.[1] ?? '?';
const lost = /Queries lost:\s+(\d+)/.exec(loadOut)?.[1] ?? '?';

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!;
console.log(`\n${new Date().toISOString()}, ${os.cpus().length} × ${os.cpus()[0]?.model}, Node ${process.version}`);
console.log(`nameserver peak ${peak.toFixed(0)} q/s (dnsperf 5 s); load during the writes: target ${rate} q/s, achieved ${achieved} q/s, lost ${lost}`);
console.log('| measured | writes | p50 ms | p99 ms | max ms |\n|---|---|---|---|---|');
console.log(`| 201 → live_at (server's timestamp) | ${writes} | ${pct(serverSide, 50)} | ${pct(serverSide, 99)} | ${Math.max(...serverSide)} |`);
console.log(`| 201 → client sees live (poll every ~2 ms) | ${writes} | ${pct(clientSide, 50)} | ${pct(clientSide, 99)} | ${Math.max(...clientSide)} |`);
fs.rmSync(dir, { recursive: true, force: true });
await service.stop();
