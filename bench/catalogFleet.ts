// A fleet of standard secondaries following one secondary set's catalog zone (RFC 9432; issue 26,
// docs/catalog-zones.md): Knot 3.2, PowerDNS 4.7 (gpgsql) and BIND 9.18 as the test helpers start
// them (test/helpers/{knot,pdns,bind}.ts), the service as `npm start` runs it (all roles, one
// process). Three parts, each runnable alone:
//
//   create  [--zones 60] [--concurrency 1]
//     POST /zones, then each consumer's SOA of the new zone polled (UDP, every 25 ms) until it
//     answers authoritatively: 201 → answered, per consumer and for all three, p50/p99/max.
//   change  [--records 100000] [--changes 15] [--pdns-axfr]
//     One zone of `records` records (zone-file imports of 30,000), served by all three; then a
//     one-record PATCH, `changes` times: 200 → each consumer answers the new address. The octets
//     of one change's transfer: kdig IXFR from the previous serial and kdig AXFR against our
//     nameserver, and what Knot and BIND logged for their own transfer. PowerDNS asks for IXFR
//     only with the member's IXFR metadata at 1: the bench sets it (pdnsutil set-meta) unless
//     --pdns-axfr.
//   members [--members 10000] [--concurrency 8]
//     `members` zones made through the API (POST /zones, `concurrency` at once) before the set
//     exists, then the set: the catalog's AXFR; one more zone and the catalog's IXFR from the
//     previous serial (records and octets, kdig); then Knot started as the only consumer and
//     timed until every member is transferred (its log) and answered (SOA of each, verified).
//
// DATABASE_URL names the PostgreSQL server (any database on it): the bench makes its scratch
// database and PowerDNS's next to it and drops both at the end; it never uses `postgres` or `test`.
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node --import tsx bench/catalogFleet.ts create --zones 60
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startBindCatalogConsumer } from '../test/helpers/bind.js';
import { queryDns } from '../test/helpers/dnsQuery.js';
import { type KnotSecondary, startKnotCatalogConsumer } from '../test/helpers/knot.js';
import { type PdnsSecondary, startPdnsCatalogConsumer } from '../test/helpers/pdns.js';
import { portOutsideEphemeralRange } from '../test/helpers/reservedPort.js';
import { type BenchService, benchApi, liftRateLimits, startBenchService } from './lib/benchService.js';

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    zones: { type: 'string', default: '60' },
    concurrency: { type: 'string' },
    records: { type: 'string', default: '100000' },
    changes: { type: 'string', default: '15' },
    'pdns-axfr': { type: 'boolean', default: false },
    members: { type: 'string', default: '10000' },
  },
});
const part = positionals[0];
if (!part || !['create', 'change', 'members'].includes(part)) throw new Error('usage: catalogFleet.ts create|change|members [options] (see the header)');

const serverUrl = process.env.DATABASE_URL;
if (!serverUrl) throw new Error('Set DATABASE_URL to the PostgreSQL server (any database; scratch databases are made next to it).');
const suffix = randomBytes(4).toString('hex');
const scratch = `mdns_bench_catalog_${suffix}`;
const pdnsDatabase = `mdns_bench_catalog_pdns_${suffix}`;
const scratchUrl = new URL(serverUrl);
scratchUrl.pathname = `/${scratch}`;

const log = (msg: string) => process.stderr.write(`[catalogFleet ${new Date().toISOString().slice(11, 23)}] ${msg}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function admin(statement: string, url = serverUrl!): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(statement);
  } finally {
    await c.end();
  }
}

/** Nearest rank. */
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.max(0, Math.ceil((p / 100) * xs.length) - 1))]!;
const row = (label: string, xs: number[]) =>
  `| ${label} | ${xs.length} | ${pct(xs, 50).toFixed(0)} | ${pct(xs, 99).toFixed(0)} | ${Math.max(...xs).toFixed(0)} |`;

interface Consumer {
  name: 'Knot' | 'PowerDNS' | 'BIND';
  port: number;
  handle: KnotSecondary;
}

/** kdig's summary of a transfer or query: octets received, messages, records. */
interface KdigStats {
  bytes: number;
  messages: number;
  records: number;
  /** The records, when asked for (`keep`). */
  text: string;
}

function kdig(port: number, args: string[], keep = false): Promise<KdigStats> {
  return new Promise((resolve, reject) => {
    execFile('kdig', ['@127.0.0.1', '-p', String(port), '+stats', ...args], { maxBuffer: 1 << 30, timeout: 120_000 }, (err, stdout) => {
      if (err) return reject(err);
      // kdig 3.2: ";; Received 356 B" and ";; Received 338 B (1 messages, 7 records)" for transfers.
      const received = /;; Received (\d+) B(?: \((\d+) messages?, (\d+) records?\))?/.exec(stdout);
      if (!received) return reject(new Error(`kdig ${args.join(' ')}: no statistics in\n${stdout.slice(0, 2000)}`));
      resolve({
        bytes: Number(received[1]),
        messages: Number(received[2] ?? 1),
        records: Number(received[3] ?? 0),
        text: keep ? stdout : '',
      });
    });
  });
}

/** Authoritative NOERROR SOA from the consumer: its serial; null otherwise (REFUSED, no answer yet). */
async function servedSerial(port: number, zone: string): Promise<number | null> {
  try {
    const r = await queryDns(port, zone, 'SOA', { timeoutMs: 500 });
    const soa = r.answers.find((a) => a.type === 6);
    return r.rcode === 0 && r.aa && soa ? Number(soa.serial) : null;
  } catch {
    return null;
  }
}

/** Polls `probe` every `everyMs` until true; the ms since `from` when it was. */
async function until(probe: () => Promise<boolean>, from: number, timeoutMs: number, what: string, everyMs = 25): Promise<number> {
  for (;;) {
    if (await probe()) return performance.now() - from;
    if (performance.now() - from > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

async function withService<T>(run: (s: BenchService, api: ReturnType<typeof benchApi>) => Promise<T>): Promise<T> {
  await admin(`CREATE DATABASE ${scratch}`);
  let service: BenchService | null = null;
  try {
    service = await startBenchService({ env: { DATABASE_URL: scratchUrl.toString(), LOG_LEVEL: 'warn' } });
    await liftRateLimits(service);
    const platform = benchApi(service.base, service.tokens.platform);
    // The customer's zones count against its reseller's max_zones too (10,000 by default).
    for (const id of [service.tokens.tenants.reseller, service.tokens.tenants.customers[0]])
      await platform('PATCH', `/tenants/${id}`, { limits: { max_zones: 1_000_000 } });
    return await run(service, benchApi(service.base, service.tokens.customers[0]));
  } finally {
    await service?.stop();
    await admin(`DROP DATABASE IF EXISTS ${scratch} WITH (FORCE)`);
  }
}

/** The set (its secondaries on the consumers' ports, all 127.0.0.1), then the consumers: named must be configured after the set exists (docs/catalog-zones.md). */
async function startFleet(service: BenchService, api: ReturnType<typeof benchApi>, which: Consumer['name'][]) {
  const ports = new Map<Consumer['name'], number>();
  for (const name of which) ports.set(name, await portOutsideEphemeralRange());
  const set = await api('POST', '/secondary-sets', {
    name: 'fleet',
    secondaries: [...ports.values()].map((port) => ({ address: '127.0.0.1', port })),
  });
  const catalog: string = set.catalog_zone;
  const consumers: Consumer[] = [];
  let pdns: PdnsSecondary | null = null;
  const close = async () => {
    for (const c of consumers) await c.handle.close().catch(() => {});
  };
  try {
    for (const [name, p] of ports) {
      const common = { port: async () => p, primaryPort: service.dnsPort, catalog };
      if (name === 'Knot') consumers.push({ name, port: p, handle: await startKnotCatalogConsumer({ ...common, groups: [] }) });
      if (name === 'PowerDNS') {
        pdns = await startPdnsCatalogConsumer({ ...common, database: { adminUrl: serverUrl!, name: pdnsDatabase } });
        consumers.push({ name, port: p, handle: pdns });
      }
      if (name === 'BIND') consumers.push({ name, port: p, handle: await startBindCatalogConsumer(common) });
    }
  } catch (e) {
    await close();
    throw e;
  }
  // Each consumer has transferred the catalog (empty of members or not) before anything is timed.
  const published = await catalogSerial(service.dnsPort, catalog);
  try {
    for (const c of consumers)
      await until(async () => (await catalogSerialAt(c, catalog)) >= published, performance.now(), 60_000, `${c.name} to hold the catalog`, 100);
  } catch (e) {
    for (const c of consumers) log(`${c.name}'s log:\n${c.handle.log().slice(-3000)}`);
    await close();
    throw e;
  }
  return { set, catalog, consumers, pdns: pdns as PdnsSecondary | null, close };
}

/** The catalog's serial a consumer holds: Knot 3.2 gave no authoritative SOA of a catalog it interprets (seen here), so its log says. */
async function catalogSerialAt(c: Consumer, catalog: string): Promise<number> {
  if (c.name !== 'Knot') return (await servedSerial(c.port, catalog)) ?? -1;
  const stored = [...c.handle.log().matchAll(new RegExp(`\\[${catalog.replaceAll('.', '\\.')}\\.\\] zone stored to journal, serial (\\d+)`, 'g'))];
  return Math.max(-1, ...stored.map((m) => Number(m[1])));
}

/** The catalog's serial on our nameserver (answered to 127.0.0.1, the set's secondaries' address). */
async function catalogSerial(dnsPort: number, catalog: string): Promise<number> {
  for (let i = 0; ; i++) {
    const serial = await servedSerial(dnsPort, catalog);
    if (serial !== null) return serial;
    if (i > 600) throw new Error(`our nameserver does not answer ${catalog}`);
    await sleep(100);
  }
}

function header(what: string) {
  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  console.log(`\n## ${what}\n${new Date().toISOString()}, ${os.cpus().length} × ${os.cpus()[0]?.model}, Node ${process.version}, load average ${load}`);
}

// --- create: API create → answered by every consumer ---------------------------------------------

async function partCreate() {
  const zones = Number(opts.zones);
  const concurrency = Number(opts.concurrency ?? 1);
  await withService(async (service, api) => {
    const fleet = await startFleet(service, api, ['Knot', 'PowerDNS', 'BIND']);
    try {
      const stamp = Date.now().toString(36);
      // One untimed zone first (JIT, connections, each consumer's first member).
      await createAndWait(`warm-${stamp}.example`);
      const times = new Map<string, number[]>([...fleet.consumers.map((c) => [c.name, []] as [string, number[]]), ['all three', []]]);
      let next = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < zones) {
            const i = next++;
            const got = await createAndWait(`c${i}-${stamp}.example`);
            for (const [name, ms] of Object.entries(got)) times.get(name)!.push(ms);
          }
        }),
      );
      header(`create → answered by every consumer: ${zones} zones, ${concurrency} at a time`);
      console.log('| consumer | zones | p50 ms | p99 ms | max ms |\n|---|---|---|---|---|');
      for (const [name, xs] of times) console.log(row(name, xs));
    } finally {
      await fleet.close();
    }

    /** POST /zones (one A record in it), then every consumer polled until it answers the zone's SOA. */
    async function createAndWait(zone: string): Promise<Record<string, number>> {
      await api('POST', '/zones', { name: zone, records: [{ name: 'www', type: 'A', data: { address: '192.0.2.1' } }] });
      const at201 = performance.now();
      const got: Record<string, number> = {};
      await Promise.all(
        fleet.consumers.map(async (c) => {
          got[c.name] = await until(async () => (await servedSerial(c.port, zone)) !== null, at201, 60_000, `${c.name} to serve ${zone}`);
        }),
      );
      got['all three'] = Math.max(...Object.values(got));
      return got;
    }
  });
}

// --- change: one record in a 100,000-record zone ------------------------------------------------

async function partChange() {
  const records = Number(opts.records);
  const changes = Number(opts.changes);
  await withService(async (service, api) => {
    const fleet = await startFleet(service, api, ['Knot', 'PowerDNS', 'BIND']);
    try {
      const zone = `big-${Date.now().toString(36)}.example`;
      await api('POST', '/zones', { name: zone });
      const probe = await api('POST', `/zones/${zone}/records`, { name: 'probe', type: 'A', data: { address: '198.51.100.0' } });
      for (const c of fleet.consumers)
        await until(async () => (await servedSerial(c.port, zone)) !== null, performance.now(), 60_000, `${c.name} to serve ${zone}`);
      if (fleet.pdns && !opts['pdns-axfr']) await fleet.pdns.pdnsutil('set-meta', zone, 'IXFR', '1');

      const loadStart = performance.now();
      const perImport = 30_000;
      let lastImport = '';
      for (let from = 0; from < records - 1; from += perImport) {
        const lines = [`$ORIGIN ${zone}.`];
        for (let i = from; i < Math.min(records - 1, from + perImport); i++) lines.push(`q${i} A 10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
        lastImport = (await api('POST', `/zones/${zone}/import`, { zonefile: `${lines.join('\n')}\n`, mode: 'merge' })).changeset.id;
        // The scratch database's statistics: without them the next import's checks plan a scan per
        // record (bench/signedPublication.ts).
        await admin('ANALYZE records', scratchUrl.toString());
        log(`${Math.min(records - 1, from + perImport)} records imported`);
      }
      const importedAt = performance.now();
      // `live` includes the fleet: the last import's change set is live once all three serve it.
      let loaded = 0;
      const liveMs = await until(
        async () => {
          const set = await api('GET', `/zones/${zone}/changesets/${lastImport}`);
          loaded = set.serial;
          return set.state === 'live';
        },
        importedAt,
        900_000,
        'the last import to be live',
        200,
      );
      const loadedAt = performance.now();
      const firstServed: Record<string, number> = {};
      await Promise.all(
        fleet.consumers.map(async (c) => {
          firstServed[c.name] = await until(
            async () => ((await servedSerial(c.port, zone)) ?? -1) >= loaded,
            loadedAt,
            600_000,
            `${c.name} to serve ${records} records`,
            200,
          );
        }),
      );
      log(`imported in ${((importedAt - loadStart) / 1000).toFixed(1)} s, live ${(liveMs / 1000).toFixed(1)} s later; served: ${JSON.stringify(firstServed)}`);

      const times = new Map<string, number[]>([...fleet.consumers.map((c) => [c.name, []] as [string, number[]]), ['all three', []]]);
      let before = loaded;
      let after = loaded;
      for (let i = 1; i <= changes; i++) {
        await sleep(1000);
        before = (await api('GET', `/zones/${zone}`)).serial;
        const address = `198.51.100.${i}`;
        await api('PATCH', `/zones/${zone}/records/${probe.id}`, { data: { address } });
        const at200 = performance.now();
        const got: Record<string, number> = {};
        await Promise.all(
          fleet.consumers.map(async (c) => {
            got[c.name] = await until(
              async () => {
                const r = await queryDns(c.port, `probe.${zone}`, 'A', { timeoutMs: 500 }).catch(() => null);
                return Boolean(r?.aa && r.answers.some((a) => a.address === address));
              },
              at200,
              60_000,
              `${c.name} to serve ${address}`,
            );
          }),
        );
        got['all three'] = Math.max(...Object.values(got));
        for (const [name, ms] of Object.entries(got)) times.get(name)!.push(ms);
        after = (await api('GET', `/zones/${zone}`)).serial;
      }
      const ixfr = await kdig(service.dnsPort, [zone, `IXFR=${before}`], true);
      const axfr = await kdig(service.dnsPort, [zone, 'AXFR']);

      header(`one-record change in a ${records}-record zone → every consumer serves it (${changes} changes, 1 s apart)`);
      console.log(
        `first load: ${records} records in ${((importedAt - loadStart) / 1000).toFixed(1)} s of imports (${Math.ceil((records - 1) / perImport)} change sets); the last live (served by all three) ${(liveMs / 1000).toFixed(1)} s after its 201`,
      );
      console.log('| consumer | changes | p50 ms | p99 ms | max ms |\n|---|---|---|---|---|');
      for (const [name, xs] of times) console.log(row(name, xs));
      console.log(`\nour nameserver, kdig: IXFR ${before} → ${after}: ${ixfr.bytes} octets, ${ixfr.messages} message(s), ${ixfr.records} records;`);
      console.log(`AXFR of the zone: ${axfr.bytes} octets, ${axfr.messages} messages, ${axfr.records} records`);
      console.log(
        ixfr.text
          .split('\n')
          .filter((l) => l && !l.startsWith(';'))
          .join('\n'),
      );
      console.log('\nwhat the consumers logged for the last change:');
      for (const c of fleet.consumers) {
        const lines = c.handle
          .log()
          .split('\n')
          .filter((l) => l.includes(zone) && (l.includes(String(after)) || /IXFR|AXFR|Transfer completed|incremental/.test(l)));
        console.log(`${c.name}:\n  ${lines.slice(-4).join('\n  ')}`);
      }
    } finally {
      await fleet.close();
    }
  });
}

// --- members: 10,000 zones in one catalog ------------------------------------------------------

async function partMembers() {
  const members = Number(opts.members);
  const concurrency = Number(opts.concurrency ?? 8);
  await withService(async (service, api) => {
    const stamp = Date.now().toString(36);
    const name = (i: number) => `m${i}-${stamp}.example`;
    const createStart = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < members) {
          const i = next++;
          await api('POST', '/zones', { name: name(i) });
          if ((i + 1) % 1000 === 0) log(`${i + 1} zones created`);
        }
      }),
    );
    const createMs = performance.now() - createStart;
    const ownServed = await until(
      async () => (await servedSerial(service.dnsPort, name(members - 1))) !== null,
      createStart,
      600_000,
      'our nameserver to serve the last zone',
      100,
    );

    // The set, with Knot's port named but Knot not yet running.
    const knotPort = await portOutsideEphemeralRange();
    const setStart = performance.now();
    // group_by dnssec: each member has its group TXT beside its PTR (Knot picks a template by it).
    const set = await api('POST', '/secondary-sets', { name: 'fleet', secondaries: [{ address: '127.0.0.1', port: knotPort }], group_by: 'dnssec' });
    const catalog: string = set.catalog_zone;
    let catalogAxfr: KdigStats;
    for (;;) {
      catalogAxfr = await kdig(service.dnsPort, [catalog, 'AXFR']).catch(() => ({ bytes: 0, messages: 0, records: 0, text: '' }));
      // SOA twice, NS, version TXT, and a PTR and a group TXT per member.
      if (catalogAxfr.records >= 2 * members + 4) break;
      await sleep(200);
    }
    const catalogBuiltMs = performance.now() - setStart;

    // (a) one more zone: the catalog's IXFR from the serial before it.
    const before = await catalogSerial(service.dnsPort, catalog);
    const extra = `extra-${stamp}.example`;
    await api('POST', '/zones', { name: extra });
    const extraAt = performance.now();
    let after = before;
    const bumpMs = await until(
      async () => {
        after = await catalogSerial(service.dnsPort, catalog);
        return after > before;
      },
      extraAt,
      60_000,
      'the catalog serial to rise',
    );
    const ixfr = await kdig(service.dnsPort, [catalog, `IXFR=${before}`], true);
    const axfrAfter = await kdig(service.dnsPort, [catalog, 'AXFR']);

    // (b) Knot provisions every member from nothing.
    const all = [...Array.from({ length: members }, (_, i) => name(i)), extra];
    const knotStart = performance.now();
    const knot = await startKnotCatalogConsumer({ port: async () => knotPort, primaryPort: service.dnsPort, catalog, groups: ['signed', 'unsigned'] });
    try {
      const startedMs = performance.now() - knotStart;
      // Knot logs "[zone.] AXFR, incoming, remote …, finished, …" once per transfer.
      let scanned = 0;
      const wanted = new Set(all.map((z) => `${z}.`));
      const transferred = new Set<string>();
      const finished = /^.*\[([^\]]+)\] AXFR, incoming, remote [^,]+, finished.*$/gm;
      const logMs = await until(
        async () => {
          const text = knot.log();
          const tail = text.slice(Math.max(0, scanned - 500));
          scanned = text.length;
          for (const m of tail.matchAll(finished)) if (wanted.has(m[1]!)) transferred.add(m[1]!);
          return transferred.size >= all.length;
        },
        knotStart,
        1_800_000,
        `Knot to transfer ${all.length} members`,
        200,
      );
      // Every member answered (authoritative SOA), checked after the log said so.
      const pending = new Set(all);
      const answeredMs = await until(
        async () => {
          const batch = [...pending];
          for (let i = 0; i < batch.length; i += 50) {
            await Promise.all(
              batch.slice(i, i + 50).map(async (z) => {
                if ((await servedSerial(knotPort, z)) !== null) pending.delete(z);
              }),
            );
          }
          return pending.size === 0;
        },
        knotStart,
        600_000,
        'Knot to answer every member',
        500,
      );
      const catalogLines = knot
        .log()
        .split('\n')
        .filter((l) => l.includes(`[${catalog}.]`) && /catalog/.test(l))
        .slice(0, 6);

      header(`${members} zones in one catalog`);
      console.log(
        `${members} zones made with POST /zones, ${concurrency} at a time: ${(createMs / 1000).toFixed(1)} s (${((members / createMs) * 1000).toFixed(0)} zones/s); the last answered by our nameserver ${(ownServed / 1000).toFixed(1)} s after the first POST`,
      );
      console.log(
        `POST /secondary-sets → the catalog (${catalogAxfr.records} records) transferable: ${(catalogBuiltMs / 1000).toFixed(1)} s; its AXFR ${catalogAxfr.bytes} octets, ${catalogAxfr.messages} messages`,
      );
      console.log(
        `(a) one more zone: 201 → catalog serial ${before} → ${after} on our nameserver ${bumpMs.toFixed(0)} ms; IXFR=${before}: ${ixfr.bytes} octets, ${ixfr.messages} message(s), ${ixfr.records} records (AXFR now ${axfrAfter.bytes} octets, ${axfrAfter.records} records)`,
      );
      console.log(
        ixfr.text
          .split('\n')
          .filter((l) => l && !l.startsWith(';'))
          .join('\n'),
      );
      // startKnotCatalogConsumer returns once knotd has run for 1 s (it exits at once when its port is taken).
      console.log(
        `(b) Knot from nothing (${all.length} members): knotd up (the helper waits 1 s) ${(startedMs / 1000).toFixed(1)} s; every member's AXFR finished (its log) ${(logMs / 1000).toFixed(1)} s; every member answered (SOA of each) ${(answeredMs / 1000).toFixed(1)} s after the start`,
      );
      console.log(`Knot on the catalog:\n  ${catalogLines.join('\n  ')}`);
    } finally {
      await knot.close();
    }
  });
}

const started = performance.now();
if (part === 'create') await partCreate();
if (part === 'change') await partChange();
if (part === 'members') await partMembers();
log(`done in ${((performance.now() - started) / 1000).toFixed(0)} s`);
