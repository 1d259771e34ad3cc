// Dynamic DNS updates (issue 14's figures): 10 clients, each a router updating its own host with
// a new IPv4 address every time through GET /nic/update (Basic auth, as ddclient sends it).
// Phase 1, flat out for --seconds: updates accepted (`good`) per second, then the time until every
// change set of the run is `live`. Phase 2, as long: each client follows every `good` with UDP
// queries to the nameserver every 2 ms until the answer holds the new address, then updates
// again: the time from `good` to the nameserver answering it. Such a closed loop updates each zone
// again as soon as its last version is answered, so its builds are spaced by the publication's
// minimum build interval (100 ms per zone). Phase 3, as long: the same, each client pausing
// --pause ms (default 150) after the answer, like a router whose zone was not just built.
// The service runs as `npm start` runs it (all roles, one process, the lab); with
// --nameserver-process as the documented split on one machine (ROLES=api,worker in one process,
// ROLES=nameserver in another, same database). The per-host limit
// (DYNDNS_HOST_UPDATES_PER_MINUTE, default 20) is lifted: a router in a real deployment updates a
// few times an hour; this measures the update path, not the `abuse` answer.
//
//   createdb mdns_bench_dyndns
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/mdns_bench_dyndns node --import tsx bench/dyndns.ts [--seconds 20] [--clients 10] [--zones 10] [--pause 150] [--nameserver-process]
//   dropdb mdns_bench_dyndns
import os from 'node:os';
import { parseArgs } from 'node:util';
import { benchApi, liftRateLimits, startBenchService } from './lib/benchService.js';
import { createDyndnsHosts, nicUpdatePhase, percentile } from './lib/dyndnsLoad.js';
import { topProcessesNamed, treeCpuSeconds } from './lib/procCpu.js';

const { values: opts } = parseArgs({
  options: {
    seconds: { type: 'string', default: '20' },
    clients: { type: 'string', default: '10' },
    zones: { type: 'string', default: '10' },
    'nameserver-process': { type: 'boolean', default: false },
    pause: { type: 'string', default: '150' },
  },
});
const seconds = Number(opts.seconds);
const clients = Number(opts.clients);
// Routers of different customers are in different zones (default: one zone per client); writes
// to one zone are serialised on its row lock, so --zones 1 measures one customer's many routers.
const zoneCount = Math.min(Number(opts.zones), clients);
const url = process.env.DATABASE_URL ?? '';
if (!url || /\/(postgres|test)$/.test(url)) throw new Error('DATABASE_URL must name a scratch database');

const split = opts['nameserver-process'];
const service = await startBenchService({
  env: { DYNDNS_HOST_UPDATES_PER_MINUTE: '1000000' },
  nodeArgs: process.env.BENCH_SERVICE_NODE_ARGS?.split(' ').filter(Boolean),
  secondProcess: split ? 'nameserver' : undefined,
});
try {
  await liftRateLimits(service);
  const { base, tokens, dnsPort } = service;
  const api = benchApi(base, tokens.customers[0]);
  const stamp = Date.now().toString(36);
  const zones = Array.from({ length: zoneCount }, (_, i) => `dyndns-${stamp}-${i}.example`);
  for (const zone of zones) await api('POST', '/zones', { name: zone });
  for (const zone of zones) while ((await api('GET', `/zones/${zone}`)).status !== 'active') await new Promise((r) => setTimeout(r, 100));
  const hosts = await createDyndnsHosts(api, zones, clients);
  const other = new Map<string, number>();
  /** Each client updates its own host until the deadline; `follow`: see nicUpdatePhase. */
  const phase = async (until: number, follow: boolean, pauseMs = 0) => {
    const run = await nicUpdatePhase({ base, dnsPort, hosts, until, follow, pauseMs });
    for (const [text, count] of run.other) other.set(text, (other.get(text) ?? 0) + count);
    return run;
  };
  // CPU seconds of the service, of PostgreSQL (every backend) and of this client during phase 1.
  const postgres = topProcessesNamed('postgres');
  const cpu = () => ({ service: treeCpuSeconds(service.pids), postgres: treeCpuSeconds(postgres), client: process.cpuUsage() });
  const cpuBefore = cpu();
  const started = performance.now();
  const { accepted } = await phase(started + seconds * 1000, false);
  const ran = (performance.now() - started) / 1000;
  const cpuAfter = cpu();
  const perUpdate = (s: number) => `${((s * 1000) / Math.max(1, accepted.length)).toFixed(2)} ms`;
  const clientCpu = (cpuAfter.client.user + cpuAfter.client.system - cpuBefore.client.user - cpuBefore.client.system) / 1e6;
  // Every change set of the run reaches live (every configured nameserver answered its serial).
  const drainStart = performance.now();
  for (const zone of zones) {
    for (;;) {
      const pending = await api('GET', `/zones/${zone}/changesets?state=pending&state=pushed&limit=1`);
      const failed = await api('GET', `/zones/${zone}/changesets?state=failed&limit=1`);
      if (failed.data.length) throw new Error(`a change set failed: ${JSON.stringify(failed.data[0])}`);
      if (pending.data.length === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const drained = (performance.now() - drainStart) / 1000;
  // Then the same clients, each following every good to the nameserver before its next update.
  const { latencies } = await phase(performance.now() + seconds * 1000, true);
  const pause = Number(opts.pause);
  const paused = (await phase(performance.now() + seconds * 1000, true, pause)).latencies;
  console.log(
    `\n${new Date().toISOString()}, nproc ${os.cpus().length}, ${os.cpus()[0]?.model}, Node ${process.version}; ${clients} clients over ${zoneCount} zone(s), ${seconds} s; ${split ? 'two processes: ROLES=api,worker and ROLES=nameserver' : 'one process, all roles'}`,
  );
  console.log('| what | figure | target |');
  console.log('|---|---|---|');
  console.log(
    `| updates accepted (good), per second while the clients ran | ${(accepted.length / ran).toFixed(0)} /s (${accepted.length} in ${ran.toFixed(1)} s) | ≥ 300 /s |`,
  );
  console.log(
    `| after the run, until every change set is live | ${drained.toFixed(2)} s; ${(accepted.length / (ran + drained)).toFixed(0)} /s run + drain | each live |`,
  );
  const spread = (xs: number[]) =>
    `${percentile(xs, 50).toFixed(0)} / ${percentile(xs, 90).toFixed(0)} / ${percentile(xs, 99).toFixed(0)} / ${Math.max(...xs).toFixed(0)} ms`;
  console.log(
    `| good → the nameserver answers the new address (phase 2, next update at once, ${latencies.length} updates) p50 / p90 / p99 / max | ${spread(latencies)} | p50 < 100 ms |`,
  );
  console.log(
    `| same, each client pausing ${pause} ms after the answer (phase 3, ${paused.length} updates) p50 / p90 / p99 / max | ${spread(paused)} | p50 < 100 ms |`,
  );
  console.log(
    `| CPU per accepted update in phase 1: service / PostgreSQL / this client (% of ${os.cpus().length} cores) | ${perUpdate(cpuAfter.service - cpuBefore.service)} / ${perUpdate(cpuAfter.postgres - cpuBefore.postgres)} / ${perUpdate(clientCpu)} ` +
      `(${[cpuAfter.service - cpuBefore.service, cpuAfter.postgres - cpuBefore.postgres, clientCpu].map((c) => ((100 * c) / ran / os.cpus().length).toFixed(0)).join(' / ')} %) | – |`,
  );
  if (other.size) console.log(`other answers: ${JSON.stringify(Object.fromEntries(other))}`);
} finally {
  await service.stop();
}
