// Resident memory of a nameserver process and the reload time of a large zone after a
// one-record change, through the real feed (PostgreSQL → NameserverFeed → ZoneStore):
//   (a) 1,000 zones of 100 records, (b) one zone of 1,000,000 records.
// The zones are written straight into published_records (the API caps a zone at 50,000
// records; the nameserver has no such cap). Each scenario runs in its own child process so its
// memory is its own. After (b), the peers side by side: Knot and NSD load the same zone (the same
// SOA, NS and A records, as a zone file), and each with the SOA and NS alone, so the cost per
// record can be read off (bench/lib/referenceServers.ts starts them as the comparison does).
//   createdb mdns_bench_mem
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/mdns_bench_mem node --import tsx bench/nameserverMemory.ts [large]
//   dropdb mdns_bench_mem
// The peers alone, no database (knotd and nsd on the PATH):
//   node --import tsx bench/nameserverMemory.ts peers
import { execFileSync } from 'node:child_process';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { presentRdata } from '../nameserver/wire/rdata.js';
import { typeName } from '../nameserver/wire/rrTypes.js';
import { ZoneStore } from '../nameserver/zone/store.js';
import { createDb, migrateToLatest } from '../src/db/knex.js';
import { createLogger } from '../src/observability/logger.js';
import { NameserverFeed } from '../src/publication/nameserverFeed.js';
import { encodeRecord, fromStored, toStored } from '../src/versionRecords/zoneRecords.js';
import { addressOf } from './lib/dnsBenchZone.js';
import { dig } from './lib/dnsTools.js';
import { collectAll, memoryOnceLoaded, type ProcessMemory, processMemory, SETTLE_MS } from './lib/procMemory.js';
import { type ServerProcess, startKnot, startNsd } from './lib/referenceServers.js';

const SCENARIOS = [undefined, 'large', 'peers', 'child-many', 'child-large'];
const scenario = process.argv[2];
if (!SCENARIOS.includes(scenario)) throw new Error('usage: bench/nameserverMemory.ts [large | peers]');
const url = process.env.DATABASE_URL ?? '';
if (scenario !== 'peers' && (!url || /\/(postgres|test)$/.test(url))) throw new Error('DATABASE_URL must name a scratch database');
const SERIAL = 2026112201;
const LARGE_ZONE_RECORDS = 1_000_000;
const ORIGIN = 'z1.bench.example';

const mib = (n: number) => (n / 1024 / 1024).toFixed(0);
// The system records a build renders (SOA with the serial, the apex NS set), in a version's form.
const NAMESERVERS = ['ns1.bench.example', 'ns2.bench.example'];
const TTL = 3600;
const soa = (serial: number) =>
  toStored(
    encodeRecord({
      name: '@',
      type: 'SOA',
      ttl: TTL,
      data: { mname: 'ns1.bench.example', rname: 'hostmaster.bench.example', serial, refresh: 10800, retry: 3600, expire: 1209600, minimum: 300 },
    }),
  );
const system = (serial: number) => [
  soa(serial),
  ...NAMESERVERS.map((nameserver) => toStored(encodeRecord({ name: '@', type: 'NS', ttl: TTL, data: { nameserver } }))),
];

async function seed(zones: number, recordsPerZone: number) {
  const db = createDb(url);
  await migrateToLatest(db);
  await db.raw('TRUNCATE tenants CASCADE');
  await db('tenants').insert({ id: 'ten_bench', type: 'platform', name: 'bench', path: ['ten_bench'], api_rate_limit_per_minute: 1000, max_zones: 1_000_000 });
  await db.raw(
    `INSERT INTO zones (id, tenant_id, name, kind, status, default_ttl, soa_email, published_serial, created_at, updated_at)
     SELECT 'zon_' || i, 'ten_bench', 'z' || i || '.bench.example', 'forward', 'active', 3600, 'hostmaster@bench.example', ?, now(), now()
     FROM generate_series(1, ?) AS i`,
    [SERIAL, zones],
  );
  await db.raw(
    `INSERT INTO zone_versions (zone_id, serial, from_serial, removed, added, system, nameservers, created_at)
     SELECT 'zon_' || z, ?, NULL, '[]', '[]', ?::jsonb, ?::text[], now() FROM generate_series(1, ?) AS z`,
    [SERIAL, JSON.stringify(system(SERIAL)), NAMESERVERS, zones],
  );
  // A records in wire form (RFC 1035 §3.4.1: four octets).
  await db.raw(
    `INSERT INTO published_records (zone_id, record_id, name, type, ttl, rdata)
     SELECT 'zon_' || z, 'rec_' || z || '_' || i, 'h' || i, 1, ?,
            decode('0a' || lpad(to_hex(i / 65536 % 256), 2, '0') || lpad(to_hex(i / 256 % 256), 2, '0') || lpad(to_hex(i % 256), 2, '0'), 'hex')
     FROM generate_series(1, ?) AS z, generate_series(1, ?) AS i`,
    [TTL, zones, recordsPerZone - system(SERIAL).length],
  );
  await db.destroy();
}

/** What a child measuring ours prints, as one JSON line. */
interface ChildResult {
  row: string;
  before: ProcessMemory;
  after: ProcessMemory;
  loadSeconds: number;
}

async function measure(label: string, zones: number) {
  const db = createDb(url);
  const store = new ZoneStore();
  globalThis.gc?.();
  const before = processMemory('self')!;
  const loaded = new Map<string, number | null>();
  const waiters: (() => void)[] = [];
  const feed = new NameserverFeed({
    db,
    databaseUrl: url,
    store,
    logger: createLogger('warn'),
    onLoaded: (_id, origin, serial) => {
      loaded.set(origin, serial);
      waiters.splice(0).forEach((w) => w());
    },
    pollMs: 3_600_000,
  });
  const t0 = performance.now();
  await feed.start();
  const loadMs = performance.now() - t0;
  // Taken as for the peers, once the load has settled, after a collection that returns the load's
  // garbage to the system (without one, V8 keeps it until its next major collection).
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  collectAll();
  const after = processMemory('self')!;
  const heap = process.memoryUsage().heapUsed;
  let line = `| ${label} | ${zones} | ${mib(after.rss)} | ${mib(after.pss)} | ${mib(after.rss - before.rss)} | ${mib(heap)} | ${(loadMs / 1000).toFixed(1)} |`;

  if (zones === 1) {
    // A one-record change as the build writes it: old SOA out; new SOA and one A in.
    const times: number[] = [];
    for (let k = 1; k <= 5; k++) {
      const from = SERIAL + k - 1;
      const to = SERIAL + k;
      const origin = 'z1.bench.example';
      const reached = new Promise<void>((resolve) => {
        const check = () => (loaded.get(origin) === to ? resolve() : waiters.push(check));
        waiters.push(check);
      });
      const started = performance.now();
      await db.transaction(async (trx) => {
        await trx('zone_versions').insert({
          zone_id: 'zon_1',
          serial: to,
          from_serial: from,
          removed: JSON.stringify([soa(from)]),
          added: JSON.stringify([soa(to), toStored(encodeRecord({ name: `new${k}`, type: 'A', ttl: 3600, data: { address: '192.0.2.1' } }))]),
          system: JSON.stringify(system(to)),
          nameservers: NAMESERVERS,
          created_at: new Date(),
        });
        // What the publisher stores beside the version: the served records.
        await trx('published_records').insert({
          zone_id: 'zon_1',
          record_id: `rec_new_${k}`,
          name: `new${k}`,
          type: 1,
          ttl: 3600,
          rdata: Buffer.from([192, 0, 2, 1]),
        });
        await trx('zones').where('id', 'zon_1').update({ published_serial: to });
        await trx.raw(`SELECT pg_notify('zone_published', 'zon_1')`);
      });
      await reached;
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    line += ` ${times.map((t) => t.toFixed(1)).join(', ')} |`;
  } else line += ' – |';
  const result: ChildResult = { row: line, before, after, loadSeconds: loadMs / 1000 };
  console.log(JSON.stringify(result));
  await feed.stop();
  await db.destroy();
}

// --- the peers ---------------------------------------------------------------------------------

/** One row of the side-by-side table. */
interface SideBySideRow {
  server: string;
  records: number;
  processes: number;
  rss: number;
  pss: number;
  peakRss: number | null;
  loadSeconds: number | null;
  /** The row of the same server with the smallest zone, for the cost per record. */
  baseline?: SideBySideRow;
}

/**
 * The zone ours loads from PostgreSQL, as a zone file: the version's system records (presented from
 * the same wire form) and `hosts` A records h1 … h<hosts> with the addresses the seed computes.
 */
async function writeZoneFile(file: string, hosts: number): Promise<number> {
  const out = await fsp.open(file, 'w');
  const system = systemRecords().map((r) => `@\t${r.ttl}\tIN\t${typeName(r.type)}\t${presentRdata(typeName(r.type), r.rdata)}`);
  await out.write(`$ORIGIN ${ORIGIN}.\n${system.join('\n')}\n`);
  const CHUNK = 100_000;
  for (let first = 1; first <= hosts; first += CHUNK) {
    const lines: string[] = [];
    for (let i = first; i < first + CHUNK && i <= hosts; i++) lines.push(`h${i}\t${TTL}\tIN\tA\t${addressOf(i)}\n`);
    await out.write(lines.join(''));
  }
  await out.close();
  return system.length + hosts;
}

const systemRecords = () => system(SERIAL).map(fromStored);

/** Knot and NSD, each with the SOA and NS alone, then with the whole zone. */
async function measurePeers(hosts: number): Promise<{ rows: SideBySideRow[]; notes: string[] }> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'mdns-bench-mem-'));
  const rows: SideBySideRow[] = [];
  const notes: string[] = [];
  try {
    const zones = path.join(dir, 'zones');
    await fsp.mkdir(zones);
    const smallFile = path.join(zones, 'small.zone');
    const largeFile = path.join(zones, 'large.zone');
    const zone = [
      { file: smallFile, records: await writeZoneFile(smallFile, 0), probe: ORIGIN, type: 'SOA', expect: ` ${SERIAL} ` },
      { file: largeFile, records: await writeZoneFile(largeFile, hosts), probe: `h${hosts}.${ORIGIN}`, type: 'A', expect: ` ${addressOf(hosts)} ` },
    ];
    const peers = [
      { id: 'knot', start: startKnot },
      { id: 'nsd', start: startNsd },
    ];
    for (const peer of peers) {
      let baseline: SideBySideRow | undefined;
      for (const { file, records, probe, type, expect } of zone) {
        const started = performance.now();
        const server = await peer.start(path.join(dir, `${peer.id}-${records}`), ORIGIN, file);
        try {
          const { memory, loadSeconds } = await memoryOnceLoaded(server, started, probe, type, (answer) => answer.some((line) => `${line} `.includes(expect)));
          const row: SideBySideRow = {
            server: server.label,
            records,
            processes: memory.processes,
            rss: memory.largestRss,
            pss: memory.pss,
            peakRss: memory.largestPeakRss,
            loadSeconds,
            baseline,
          };
          rows.push(row);
          baseline ??= row;
          if (records === zone[0]!.records) notes.push(`${server.label}: ${server.version}; ${server.config.join(' ')}`);
          if (memory.processes > 1)
            notes.push(
              `${server.label}, ${records.toLocaleString('en')} records, per process (the first started by the bench): ${memory.members.map((m) => `RSS ${mib(m.rss)} / PSS ${mib(m.pss)} MiB`).join(', ')}`,
            );
        } finally {
          await server.stop();
        }
      }
    }
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
  return { rows, notes };
}

function printSideBySide(rows: SideBySideRow[], notes: string[]): void {
  console.log('');
  console.log(
    "| server | records | processes | RSS MiB | PSS MiB | peak RSS MiB | load s | RSS over the same server's smallest zone (ours: before loading), bytes per record |",
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const perRecord = r.baseline && r.records > r.baseline.records ? ((r.rss - r.baseline.rss) / (r.records - r.baseline.records)).toFixed(0) : '–';
    console.log(
      `| ${r.server} | ${r.records.toLocaleString('en')} | ${r.processes} | ${mib(r.rss)} | ${mib(r.pss)} | ${r.peakRss === null ? '–' : mib(r.peakRss)} | ${r.loadSeconds === null ? '–' : r.loadSeconds.toFixed(1)} | ${perRecord} |`,
    );
  }
  console.log('');
  console.log(
    `RSS and peak RSS (VmRSS, VmHWM from /proc/<pid>/status) are those of the largest process; PSS (smaps_rollup) is summed over the process tree: NSD runs as three processes forked from one another (the one started, xfrd, and one server process: server-count 1), whose RSS overlap (pages shared since a fork), so only PSS adds up. Knot is one process with threads. The peers' load s: from start until the last name answers (the start helpers wait 0.3 s before the first query); their figures are taken ${SETTLE_MS / 1000} s after that answer.${
      rows.some((r) => r.server.startsWith('ours'))
        ? " Ours: the feed's process, before loading (Node, modules, PostgreSQL client) and after, with its load s the feed's start (PostgreSQL → snapshot)."
        : ''
    }`,
  );
  for (const note of notes) console.log(`- ${note}`);
}

if (scenario === 'child-many') await measure('1,000 zones × 100 records', 1000);
else if (scenario === 'child-large') await measure(`1 zone × ${LARGE_ZONE_RECORDS.toLocaleString('en')} records`, 1);
else {
  const run = (arg: string): ChildResult => {
    const stdout = execFileSync(process.execPath, ['--expose-gc', '--max-old-space-size=8192', '--import', 'tsx', 'bench/nameserverMemory.ts', arg], {
      encoding: 'utf8',
      env: process.env,
    });
    const line = stdout
      .split('\n')
      .filter((l) => l.startsWith('{"row"'))
      .at(-1);
    if (!line) throw new Error(`the child printed no result:\n${stdout}`);
    return JSON.parse(line) as ChildResult;
  };
  console.log(`${new Date().toISOString()}, ${os.cpus().length} × ${os.cpus()[0]?.model}, Node ${process.version}`);
  const sideBySide: SideBySideRow[] = [];
  if (scenario !== 'peers') {
    console.log('| zones | zones loaded | RSS MiB | PSS MiB | RSS growth MiB | heap used MiB | load s | reload after a one-record change, ms (5 runs) |');
    console.log('|---|---|---|---|---|---|---|---|');
    if (scenario !== 'large') {
      await seed(1000, 100);
      console.log(run('child-many').row);
    }
    await seed(1, LARGE_ZONE_RECORDS);
    const ours = run('child-large');
    console.log(ours.row);
    const empty: SideBySideRow = { server: 'ours, before loading', records: 0, processes: 1, ...ours.before, peakRss: null, loadSeconds: null };
    sideBySide.push(empty, { server: 'ours', records: LARGE_ZONE_RECORDS, processes: 1, ...ours.after, loadSeconds: ours.loadSeconds, baseline: empty });
  }
  const peers = await measurePeers(LARGE_ZONE_RECORDS - system(SERIAL).length);
  printSideBySide([...sideBySide, ...peers.rows], peers.notes);
}
