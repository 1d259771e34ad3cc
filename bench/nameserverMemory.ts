// Resident memory of a nameserver process and the reload time of a large zone after a
// one-record change, through the real feed (PostgreSQL → NameserverFeed → ZoneStore):
//   (a) 1,000 zones of 100 records, (b) one zone of 1,000,000 records.
// The zones are written straight into published_records (the API caps a zone at 50,000
// records; the nameserver has no such cap). Each scenario runs in its own child process so its
// memory is its own.
//   createdb mdns_bench_mem
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/mdns_bench_mem node --import tsx bench/nameserverMemory.ts [large]
//   dropdb mdns_bench_mem
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { ZoneStore } from '../nameserver/zone/store.js';
import { createDb, migrateToLatest } from '../src/db/knex.js';
import { createLogger } from '../src/observability/logger.js';
import { NameserverFeed } from '../src/publication/nameserverFeed.js';
import { encodeRecord, toStored } from '../src/versionRecords/zoneRecords.js';

const url = process.env.DATABASE_URL ?? '';
if (!url || /\/(postgres|test)$/.test(url)) throw new Error('DATABASE_URL must name a scratch database');
const scenario = process.argv[2];
const SERIAL = 2026112201;

const mib = (n: number) => (n / 1024 / 1024).toFixed(0);
// The system records a build renders (SOA with the serial, the apex NS set), in a version's form.
const NAMESERVERS = ['ns1.bench.example', 'ns2.bench.example'];
const soa = (serial: number) =>
  toStored(
    encodeRecord({
      name: '@',
      type: 'SOA',
      ttl: 3600,
      data: { mname: 'ns1.bench.example', rname: 'hostmaster.bench.example', serial, refresh: 10800, retry: 3600, expire: 1209600, minimum: 300 },
    }),
  );
const system = (serial: number) => [
  soa(serial),
  ...NAMESERVERS.map((nameserver) => toStored(encodeRecord({ name: '@', type: 'NS', ttl: 3600, data: { nameserver } }))),
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
     SELECT 'zon_' || z, 'rec_' || z || '_' || i, 'h' || i, 1, 3600,
            decode('0a' || lpad(to_hex(i / 65536 % 256), 2, '0') || lpad(to_hex(i / 256 % 256), 2, '0') || lpad(to_hex(i % 256), 2, '0'), 'hex')
     FROM generate_series(1, ?) AS z, generate_series(1, ?) AS i`,
    [zones, recordsPerZone - 3],
  );
  await db.destroy();
}

async function measure(label: string, zones: number) {
  const db = createDb(url);
  const store = new ZoneStore();
  globalThis.gc?.();
  const before = process.memoryUsage().rss;
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
  globalThis.gc?.();
  const rss = process.memoryUsage().rss;
  const heap = process.memoryUsage().heapUsed;
  let line = `| ${label} | ${zones} | ${mib(rss)} | ${mib(rss - before)} | ${mib(heap)} | ${(loadMs / 1000).toFixed(1)} |`;

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
  console.log(line);
  await feed.stop();
  await db.destroy();
}

if (scenario === 'child-many') await measure('1,000 zones × 100 records', 1000);
else if (scenario === 'child-large') await measure('1 zone × 1,000,000 records', 1);
else {
  const run = (arg: string) =>
    execFileSync(process.execPath, ['--expose-gc', '--max-old-space-size=8192', '--import', 'tsx', 'bench/nameserverMemory.ts', arg], {
      encoding: 'utf8',
      env: process.env,
    }).trim();
  console.log(`${new Date().toISOString()}, ${os.cpus().length} × ${os.cpus()[0]?.model}, Node ${process.version}`);
  console.log('| zones | zones loaded | RSS MiB | RSS growth MiB | heap used MiB | load s | reload after a one-record change, ms (5 runs) |');
  console.log('|---|---|---|---|---|---|---|');
  if (scenario !== 'large') {
    await seed(1000, 100);
    console.log(run('child-many'));
  }
  await seed(1, 1_000_000);
  console.log(run('child-large'));
}
