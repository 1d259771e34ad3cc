// Publication latency of signed zones: time from a one-record write's 201 to `live` (every
// authoritative nameserver answered the new serial) in two DNSSEC-signed zones of different sizes,
// writes alternating between them in the same run (one write to each in turn), so both see the
// same machine. Each zone is loaded through the API in change sets of 1000 A records (size − writes
// of them: each write adds one, so the zone holds `size` after the last), then DNSSEC
// is enabled (POST …/dnssec/enable; NSEC3, algorithm 13, the lab's automatic mode) and the bench
// waits until GET …/dnssec says `active` (the state machine moves on by itself; the lab's DNSKEY
// and DS TTLs are 10 s), or, after --active-timeout seconds, at least until the keys are
// published (then the zone is served signed and every build signs it; the state is reported).
//
//   createdb mdns_bench_signpub
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/mdns_bench_signpub node --import tsx bench/signedPublication.ts [--sizes 1000,100000] [--writes 50] [--unsigned]
//   dropdb mdns_bench_signpub
//
// --load-by-import loads the zones with zone-file imports (mode merge, under 1 MiB each) instead
// of change sets of 1000 records: the same records in a few change sets, minutes quicker at
// 100,000 records. --only-signing-writes skips the one-record publication writes (only the write probe around
// `enable` runs: a short iteration on the issue's second figure). --trace-slow MS prints every
// probe write slower than MS with its wall-clock times, and samples what the database's backends
// wait for (pg_stat_activity, every 20 ms) during those writes; with
// BENCH_SERVICE_NODE_ARGS="--import ./bench/lib/loopTrace.mjs" the service prints its event-loop
// stalls and garbage collections on the same clock.
//
// The API caps a zone at 100,000 records (MAX_RECORDS_PER_ZONE, src/domain/records/ttl.ts).
// --api-process runs the API alone in one process and the worker and nameserver roles in a second
// (a split deployment; the default is one process with its roles' thread, as `npm start` runs it).
// --unsigned measures the same zones without enabling DNSSEC (the baseline). No query load runs
// meanwhile (unlike bench/publicationLatency.ts). The service runs as `npm start` runs it.
// Before enabling, and while each zone is signed whole after `enable`, a probe PATCHes one TXT
// record of the zone every 100 ms and reports the write latency of both periods (the issue: API
// writes to a zone keep their usual latency while it is signed whole).
import os from 'node:os';
import { parseArgs } from 'node:util';
import { liftRateLimits, startBenchService } from './lib/benchService.js';

const { values: opts } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1000,100000' },
    writes: { type: 'string', default: '50' },
    unsigned: { type: 'boolean', default: false },
    'active-timeout': { type: 'string', default: '120' },
    'only-signing-writes': { type: 'boolean', default: false },
    'trace-slow': { type: 'string' },
    'load-by-import': { type: 'boolean', default: false },
    'api-process': { type: 'boolean', default: false },
  },
});
const sizes = opts.sizes.split(',').map(Number);
const onlySigningWrites = opts['only-signing-writes'];
const writes = onlySigningWrites ? 0 : Number(opts.writes);
const traceSlowMs = opts['trace-slow'] === undefined ? null : Number(opts['trace-slow']);
const url = process.env.DATABASE_URL ?? '';
if (!url || /\/(postgres|test)$/.test(url)) throw new Error('DATABASE_URL must name a scratch database');

const log = (msg: string) => process.stderr.write(`[signedPublication ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const service = await startBenchService({
  env: { DNSSEC_CHECK_INTERVAL_MS: '200' },
  nodeArgs: process.env.BENCH_SERVICE_NODE_ARGS?.split(' ').filter(Boolean),
  secondProcess: opts['api-process'] ? 'worker,nameserver' : undefined,
});
try {
  const { base, tokens } = service;
  await liftRateLimits(service);
  // A build of a large signed zone holds the service's event loop for seconds; a kept-alive socket
  // the server closes right after can reset a GET sent on it, which is then sent again (and a GET
  // answered 503, counted).
  const api = async (method: string, p: string, body?: unknown, retries = 5): Promise<any> => {
    const send = () =>
      fetch(`${base}/api/v1${p}`, {
        method,
        headers: { authorization: `Bearer ${tokens.customers[0]}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const r = await send().catch((e) => {
      if (method !== 'GET') throw e;
      log(`GET ${p}: ${(e as Error).message} (${(e as Error).cause}); sent again`);
      return send();
    });
    // Only reads are sent again after a 503: a change set answered 503 "nothing was stored" had been
    // stored (seen 2026-11-25: sent again, it failed as duplicates; bench/RESULTS.md, issue 12).
    if (r.status === 503 && method === 'GET' && retries > 0) {
      unavailable++;
      log(`${method} ${p}: 503 ${await r.text()}; sent again`);
      await sleep(1000);
      return api(method, p, body, retries - 1);
    }
    if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${await r.text()}`);
    return r.json() as Promise<any>;
  };
  let unavailable = 0;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  /** Polls a change set until `live`; returns [201 → live_at (server), 201 → seen live (client)] in ms. */
  async function untilLive(zone: string, changesetId: string, at201: number): Promise<[number, number]> {
    for (;;) {
      const set = await api('GET', `/zones/${zone}/changesets/${changesetId}`);
      if (set.state === 'live') return [Date.parse(set.live_at) - at201, Date.now() - at201];
      if (set.state === 'failed') throw new Error(`change set failed: ${JSON.stringify(set.error)}`);
      await sleep(2);
    }
  }

  const stamp = Date.now().toString(36);
  const zones: { size: number; name: string; state: string; enableMs: number; loadMs: number }[] = [];
  for (const size of sizes) {
    const name = `signpub-${size}-${stamp}.example`;
    await api('POST', '/zones', { name });
    const loadStart = Date.now();
    let last = '';
    // The writes add one record each: the zone holds `size` records after the last.
    const initial = size - Math.max(writes, 1); // room for the probe's record
    const perImport = 30_000;
    for (let from = 0; opts['load-by-import'] && from < initial; from += perImport) {
      const lines = [`$ORIGIN ${name}.`];
      for (let i = from; i < Math.min(initial, from + perImport); i++) lines.push(`q${i} A 10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
      last = (await api('POST', `/zones/${name}/import`, { zonefile: `${lines.join('\n')}\n`, mode: 'merge' })).changeset.id;
      // The scratch database has no autovacuum here: without statistics the commit's deferred CNAME
      // check plans a scan of the zone per record, and the next 30,000-record import times out.
      await analyzeRecords(url);
    }
    for (let from = 0; !opts['load-by-import'] && from < initial; from += 1000) {
      const changes = Array.from({ length: Math.min(1000, initial - from) }, (_, k) => {
        const i = from + k;
        return { op: 'create', record: { name: `q${i}`, type: 'A', data: { address: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` } } };
      });
      last = (await api('POST', `/zones/${name}/changesets`, { changes })).id;
    }
    await untilLive(name, last, Date.now());
    const loadMs = Date.now() - loadStart;
    log(`${name}: ${initial} records loaded and live in ${(loadMs / 1000).toFixed(1)} s`);
    zones.push({ size, name, state: 'off', enableMs: 0, loadMs });
  }
  /**
   * Writes to a zone while `running()` holds, one every 100 ms: a PATCH of one TXT record's text
   * (the zone keeps its size), each timed from request to 2xx. The latency of API writes to a zone.
   */
  async function writeProbe(zone: string, running: () => boolean): Promise<{ times: number[]; failed: string[] }> {
    const probe = await api('POST', `/zones/${zone}/records`, { name: 'probe', type: 'TXT', data: { text: 'probe 0' } });
    const times: number[] = [];
    const failed: string[] = [];
    for (let i = 1; running(); i++) {
      const start = performance.now();
      const startedAt = Date.now();
      // A failed write is counted and reported, not retried.
      await api('PATCH', `/zones/${zone}/records/${probe.id}`, { data: { text: `probe ${i}` } }).then(
        () => times.push(performance.now() - start),
        (e: Error) => failed.push(e.message.slice(0, 120)),
      );
      if (traceSlowMs !== null && performance.now() - start >= traceSlowMs) slowWrites.push({ from: startedAt, to: Date.now() });
      await sleep(100);
    }
    await api('DELETE', `/zones/${zone}/records/${probe.id}`);
    return { times, failed };
  }
  const slowWrites: { from: number; to: number }[] = [];
  const activity = traceSlowMs === null ? null : sampleActivity(url);
  const probes = new Map<string, { idle: Awaited<ReturnType<typeof writeProbe>>; signing: Awaited<ReturnType<typeof writeProbe>> }>();

  // DNSSEC on, one zone after the other, once all are loaded; a write probe measures the zone's
  // write latency for 5 s before, and then while the zone is signed whole (until it leaves `signing`).
  for (const zone of zones) {
    const { name } = zone;
    let state = 'off';
    let enableMs = 0;
    if (!opts.unsigned) {
      const idleUntil = Date.now() + 5000;
      const idle = await writeProbe(name, () => Date.now() < idleUntil);
      const enableStart = Date.now();
      state = (await api('POST', `/zones/${name}/dnssec/enable`, {})).state;
      let signingWhole = true;
      const during = writeProbe(name, () => signingWhole);
      const deadline = Date.now() + Number(opts['active-timeout']) * 1000;
      while (state !== 'active' && Date.now() < deadline) {
        await sleep(250);
        state = (await api('GET', `/zones/${name}/dnssec`)).state;
        if (state !== 'signing') signingWhole = false;
      }
      signingWhole = false;
      probes.set(name, { idle, signing: await during });
      if (state === 'signing' || state === 'off') throw new Error(`${name}: DNSSEC still ${state} after ${opts['active-timeout']} s`);
      enableMs = Date.now() - enableStart;
      log(`${name}: DNSSEC ${state} after ${(enableMs / 1000).toFixed(1)} s`);
    }
    Object.assign(zone, { state, enableMs });
  }

  if (activity) reportSlowWrites(slowWrites, await activity.stop());

  // One write to each zone in turn, each waited out to `live` before the next.
  if (unavailable > 0) log(`${unavailable} GETs answered 503 while loading and enabling (sent again)`);
  const server = new Map<string, number[]>(zones.map((z) => [z.name, []]));
  const client = new Map<string, number[]>(zones.map((z) => [z.name, []]));
  for (let i = 0; i < writes; i++) {
    for (const z of zones) {
      const record = await api('POST', `/zones/${z.name}/records`, { name: `w${i}`, type: 'A', data: { address: '192.0.2.1' } });
      const [s, c] = await untilLive(z.name, record.publication.changeset_id, Date.now());
      server.get(z.name)!.push(s);
      client.get(z.name)!.push(c);
    }
  }
  const finalStates = await Promise.all(zones.map(async (z) => (opts.unsigned ? 'off' : (await api('GET', `/zones/${z.name}/dnssec`)).state)));

  const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!;
  console.log(
    `\n${new Date().toISOString()}, nproc ${os.cpus().length}, ${os.cpus()[0]?.model}, Node ${process.version}; ${opts.unsigned ? 'unsigned' : 'signed (NSEC3, algorithm 13)'}; ${writes} writes per zone, alternating; ${unavailable} GETs answered 503 and were sent again`,
  );
  if (!onlySigningWrites)
    console.log(
      '| zone records | DNSSEC state (before / after the writes) | load, s | enable → state, s | 201 → live_at p50 ms | p99 ms | max ms | 201 → client sees live p50 ms | p99 ms |',
    );
  if (!onlySigningWrites) console.log('|---|---|---|---|---|---|---|---|---|');
  if (!onlySigningWrites)
    zones.forEach((z, k) => {
      const s = server.get(z.name)!;
      const c = client.get(z.name)!;
      console.log(
        `| ${z.size.toLocaleString('en-US')} | ${z.state} / ${finalStates[k]} | ${(z.loadMs / 1000).toFixed(1)} | ${(z.enableMs / 1000).toFixed(1)} | ${pct(s, 50)} | ${pct(s, 99)} | ${Math.max(...s)} | ${pct(c, 50)} | ${pct(c, 99)} |`,
      );
    });
  if (probes.size > 0) {
    const ms = (xs: number[]) => (xs.length === 0 ? '–' : `${pct(xs, 50).toFixed(0)} / ${pct(xs, 99).toFixed(0)} / ${Math.max(...xs).toFixed(0)}`);
    console.log(
      '\n| zone records | API write (PATCH) 2xx latency, idle: n ok, failed, p50 / p99 / max ms | while signed whole (enable → keys_published): n ok, failed, p50 / p99 / max ms |',
    );
    console.log('|---|---|---|');
    for (const z of zones) {
      const p = probes.get(z.name)!;
      console.log(
        `| ${z.size.toLocaleString('en-US')} | ${p.idle.times.length}, ${p.idle.failed.length}, ${ms(p.idle.times)} | ${p.signing.times.length}, ${p.signing.failed.length}, ${ms(p.signing.times)} |`,
      );
      for (const f of [...p.idle.failed, ...p.signing.failed]) console.log(`  failed: ${f}`);
    }
  }
} finally {
  await service.stop();
}

interface ActivitySample {
  at: number;
  rows: {
    pid: number;
    backend_type: string;
    state: string | null;
    wait_event_type: string | null;
    wait_event: string | null;
    blockers: number[] | null;
    query: string;
  }[];
}

/** pg_stat_activity every 20 ms, from a connection of its own, until stop(). */
function sampleActivity(databaseUrl: string): { stop(): Promise<ActivitySample[]> } {
  const samples: ActivitySample[] = [];
  let running = true;
  const done = (async () => {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    while (running) {
      const { rows } = await client.query(
        // Waiters with the backends they wait for; a blocker idle in its transaction shows its last statement.
        `SELECT pid, backend_type, state, wait_event_type, wait_event, pg_blocking_pids(pid) AS blockers, left(regexp_replace(query, '\\s+', ' ', 'g'), 90) AS query FROM pg_stat_activity a
         WHERE pid <> pg_backend_pid() AND (state = 'active' OR (backend_type <> 'client backend' AND wait_event_type IS DISTINCT FROM 'Activity')
           OR pid IN (SELECT unnest(pg_blocking_pids(b.pid)) FROM pg_stat_activity b))`,
      );
      samples.push({ at: Date.now(), rows });
      await new Promise((r) => setTimeout(r, 20));
    }
    await client.end();
  })();
  return {
    stop: async () => {
      running = false;
      await done;
      return samples;
    },
  };
}

/** Each slow probe write with what the database's backends were doing meanwhile. */
function reportSlowWrites(slow: { from: number; to: number }[], samples: ActivitySample[]): void {
  const hms = (t: number) => new Date(t).toISOString().slice(11, 23);
  for (const w of slow) {
    console.log(`\nslow write ${w.to - w.from} ms ${hms(w.from)}–${hms(w.to)}`);
    for (const s of samples.filter((x) => x.at >= w.from && x.at <= w.to)) {
      for (const r of s.rows)
        console.log(
          `  ${hms(s.at)} ${r.pid} ${r.backend_type} ${r.state ?? ''} ${r.wait_event_type ?? '-'}:${r.wait_event ?? '-'}${r.blockers?.length ? ` (waits for ${r.blockers.join(',')})` : ''} ${r.query}`,
        );
    }
  }
}

async function analyzeRecords(databaseUrl: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('ANALYZE records');
  await client.end();
}
