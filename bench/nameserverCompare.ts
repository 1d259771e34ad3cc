// Queries per second and server CPU per query with dnsperf against four authoritative servers
// serving the same zone, interleaved in one run: our nameserver (in a child process of its own,
// bench/lib/standaloneNameserver.ts), NSD, Knot and PowerDNS with its PostgreSQL backend.
//
//   node --import tsx bench/nameserverCompare.ts [-l seconds] [--rounds 3] [--do] [options]
//
// Options: -l seconds per measured run (10); --rounds (3); --prime-seconds: how long the paced
// priming of a server with time-limited caches takes (default: its cache TTL, PowerDNS 20 s);
// -c clients (4), -T threads (1), -q outstanding queries (200) and -Q max q/s (none) as dnsperf
// takes them; --do sets the DNSSEC OK bit (dnsperf -D); --signed serves the zone signed: signed
// once by ldns-signzone (NSEC3, SHA-1, 0 extra iterations, empty salt, ECDSA P-256 KSK and ZSK
// from ldns-keygen), the same signed file loaded into every server (PowerDNS: presigned; ours: read
// into the snapshot with test/helpers/signedZones.ts's reader), and adds "ours (unsigned zone)", our
// server with the unsigned zone, for the cost of signing in the same run; --servers
// ours,nsd,knot,pdns (any subset, in this order); --pdns-live-signing (with --signed): PowerDNS
// signs the unsigned zone itself as it answers (pdnsutil secure-zone, its own keys, NSEC3 1 0 0 -)
// instead of serving the presigned file, whose NSEC3 path is slow from gpgsql; --ours-processes N runs ours with N processes
// answering UDP (DNS_UDP_PROCESSES); --ours-transport auto|batched|dgram its UDP transport
// (DNS_UDP_TRANSPORT); --ours-nocache adds our server with its response
// cache off; --hosts (10000) names in the zone; --queries (100000) lines in the query file;
// --nx (0.1) share of NXDOMAIN queries; --pg-host/--pg-port/--pg-user (127.0.0.1, 5432, postgres:
// PowerDNS's scratch database is created there and dropped at the end); --keep keeps the temp dir.
//
// Figures to report are the server's CPU time per query (its CPU seconds over the run ÷ queries
// answered, from /proc, over the whole process tree; for PowerDNS plus its PostgreSQL backends)
// beside queries/s: on a 2-core machine dnsperf takes about one core, so the fast servers stop at
// the client's ceiling. Every server runs with response rate limiting off, since dnsperf asks from
// one address far above any limit: ours (standaloneNameserver.ts, rateLimit: false), NSD
// (rrl-ratelimit: 0 and rrl-whitelist-ratelimit: 0, Debian's build has RRL compiled in), Knot
// (its rrl module is not loaded), PowerDNS (the authoritative server has no RRL).
import { execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildBenchZone, buildQueryFile } from './lib/dnsBenchZone.js';
import { dig, runDnsperf, type DnsperfResult } from './lib/dnsTools.js';
import { processCpuSeconds, treeCpuSeconds } from './lib/procCpu.js';
import { dropDatabase, startKnot, startNsd, startOurs, startPowerDns, type OursProcess, type PgTarget, type ServerProcess } from './lib/referenceServers.js';

const { values: opts } = parseArgs({
  options: {
    l: { type: 'string', short: 'l', default: '10' },
    rounds: { type: 'string', default: '3' },
    'prime-seconds': { type: 'string' },
    c: { type: 'string', short: 'c', default: '4' },
    T: { type: 'string', short: 'T', default: '1' },
    q: { type: 'string', short: 'q', default: '200' },
    Q: { type: 'string', short: 'Q' },
    do: { type: 'boolean', default: false },
    signed: { type: 'boolean', default: false },
    'pdns-live-signing': { type: 'boolean', default: false },
    servers: { type: 'string', default: 'ours,nsd,knot,pdns' },
    'ours-nocache': { type: 'boolean', default: false },
    'ours-processes': { type: 'string', default: '1' },
    'ours-transport': { type: 'string', default: 'auto' },
    hosts: { type: 'string', default: '10000' },
    queries: { type: 'string', default: '100000' },
    nx: { type: 'string', default: '0.1' },
    'pg-host': { type: 'string', default: process.env.PGHOST ?? '127.0.0.1' },
    'pg-port': { type: 'string', default: process.env.PGPORT ?? '5432' },
    'pg-user': { type: 'string', default: process.env.PGUSER ?? 'postgres' },
    keep: { type: 'boolean', default: false },
  },
});

const seconds = Number(opts.l);
const liveSigning = opts.signed && opts['pdns-live-signing'];
const rounds = Number(opts.rounds);
const primeSeconds = opts['prime-seconds'] === undefined ? undefined : Number(opts['prime-seconds']);
const hosts = Number(opts.hosts);
const queryCount = Number(opts.queries);
const nxFraction = Number(opts.nx);
const selected = opts.servers.split(',').map((s) => s.trim());
for (const s of selected) if (!['ours', 'nsd', 'knot', 'pdns'].includes(s)) throw new Error(`unknown server "${s}" (ours, nsd, knot, pdns)`);
if (opts['ours-nocache'] && !selected.includes('ours-nocache'))
  selected.splice(selected.includes('ours') ? selected.indexOf('ours') + 1 : 0, 0, 'ours-nocache');
if (opts.signed && selected.includes('ours') && !selected.includes('ours-unsigned'))
  selected.splice(selected.includes('ours') ? selected.indexOf('ours') + 1 : 0, 0, 'ours-unsigned');
const pg: PgTarget = { host: opts['pg-host'], port: Number(opts['pg-port']), user: opts['pg-user'] };
const origin = 'bench.example';
const database = `mdns_bench_pdns_${process.pid}`;
const dnsperfBase = ['-s', '127.0.0.1', '-c', opts.c, '-T', opts.T, '-q', opts.q, ...(opts.Q ? ['-Q', opts.Q] : []), ...(opts.do ? ['-D'] : [])];

const log = (msg: string) => process.stderr.write(`[nameserverCompare] ${msg}\n`);

// --- cleanup, also on SIGINT/SIGTERM -------------------------------------------------------------

const servers: ServerProcess[] = [];
let tmp: string | null = null;
let databaseCreated = false;
let dnsperfChild: ChildProcess | null = null;
let cleaning: Promise<void> | null = null;
let interrupted = false;

function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    dnsperfChild?.kill('SIGTERM');
    await Promise.allSettled(servers.map((s) => s.stop()));
    if (databaseCreated) {
      try {
        await dropDatabase(pg, database);
      } catch (e) {
        log(`could not drop database ${database}: ${(e as Error).message}`);
      }
    }
    if (tmp) {
      if (opts.keep) log(`kept ${tmp}`);
      else await fs.rm(tmp, { recursive: true, force: true });
    }
  })();
  return cleaning;
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    log(`${signal}: cleaning up`);
    interrupted = true;
    void cleanup().finally(() => process.exit(130));
  });
}

// --- helpers -------------------------------------------------------------------------------------

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length === 0 ? NaN : s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const fmt = (x: number, digits = 0) => (Number.isFinite(x) ? x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '–');
const tryRun = (cmd: string, args: string[]) => {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  } catch {
    return '?';
  }
};

interface Check {
  ok: boolean;
  detail: string;
}

/** Waits until the server answers, then checks a few answers against the zone. */
async function verify(server: ServerProcess, expectAddress: (n: number) => string): Promise<Check> {
  const signed = opts.signed && server.id !== 'ours-unsigned';
  const signatures = new Map<string, number>();
  const deadline = Date.now() + 30_000;
  let first = await dig('127.0.0.1', server.port, `h1.${origin}`, 'A');
  while (!(first?.status === 'NOERROR' && first.answer.length === 1) && Date.now() < deadline) {
    if (server.child.exitCode !== null) return { ok: false, detail: `exited with ${server.child.exitCode}` };
    await new Promise((r) => setTimeout(r, 250));
    first = await dig('127.0.0.1', server.port, `h1.${origin}`, 'A');
  }
  const problems: string[] = [];
  const expect = async (name: string, type: string, status: string, answer: (a: string[]) => boolean, extra: string[] = []) => {
    const got = await dig('127.0.0.1', server.port, name, type, [...extra, ...(opts.do ? ['+dnssec'] : [])]);
    if (!got) return (problems.push(`${name} ${type}: no reply`), null);
    if (got.status !== status) problems.push(`${name} ${type}: ${got.status}, expected ${status}`);
    if (!got.flags.includes('aa')) problems.push(`${name} ${type}: no AA flag`);
    signatures.set(`${name} ${type}`, got.answer.filter((l) => / RRSIG /.test(l)).length);
    if (signed && opts.do && status === 'NOERROR' && !got.answer.some((l) => / RRSIG /.test(l))) problems.push(`${name} ${type}: no RRSIG with DO`);
    if (signed && opts.do && status === 'NXDOMAIN' && got.counts.authority < 2)
      problems.push(`${name} ${type}: no denial proof (${got.counts.authority} authority records)`);
    got.answer = got.answer.filter((l) => !/ RRSIG /.test(l));
    if (!answer(got.answer)) problems.push(`${name} ${type}: answer ${JSON.stringify(got.answer)}`);
    return got;
  };
  const n = 4321 % hosts;
  const a = await expect(`h${n}.${origin}`, 'A', 'NOERROR', (ans) => ans.length === 1 && ans[0]!.endsWith(` A ${expectAddress(n)}`));
  const nx = await expect(`nx-check.${origin}`, 'A', 'NXDOMAIN', (ans) => ans.length === 0);
  await expect(`h10.${origin}`, 'AAAA', 'NOERROR', (ans) => ans.length === 1 && ans[0]!.endsWith(' AAAA 2001:db8::a'));
  await expect(origin, 'SOA', 'NOERROR', (ans) => ans.length === 1 && ans[0]!.includes(' SOA ns1.bench.example. hostmaster.bench.example. 2026112201 '));
  const shape = (d: typeof a) => (d ? `${d.counts.answer}/${d.counts.authority}/${d.counts.additional} ${d.size} B` : '?');
  return {
    ok: problems.length === 0,
    detail: problems.length
      ? problems.join('; ')
      : `A: ${shape(a)}, NXDOMAIN: ${shape(nx)} (answer/authority/additional records, size${opts.do ? ', with DO' : ''})`,
  };
}

interface Run {
  server: ServerProcess;
  round: number;
  result: DnsperfResult & { clientCpuSeconds: number };
  cpuSeconds: number;
  helperCpuSeconds: number;
}

async function helperCpu(server: ServerProcess): Promise<Map<number, number>> {
  const map = new Map<number, number>();
  if (!server.helperPids) return map;
  for (const pid of await server.helperPids()) map.set(pid, processCpuSeconds(pid));
  return map;
}

/**
 * Before each run, every distinct query of the file once (unmeasured): caches hold every answer
 * and code paths are warm. A server whose cache entries expire after a time (PowerDNS) has its
 * caches purged first and gets the queries paced evenly over that time, so that during the run
 * its entries expire, and are fetched again, at the even rate continuous load would give
 * (distinct names ÷ TTL per second) — not all at once, as after a burst at full speed.
 */
async function prime(server: ServerProcess, primeFile: string, distinct: number): Promise<void> {
  const args = [...dnsperfBase, '-p', String(server.port), '-d', primeFile, '-n', '1'];
  const spread = primeSeconds ?? server.cacheTtlSeconds ?? 0;
  if (server.purgeCaches) await server.purgeCaches();
  if (server.cacheTtlSeconds && spread > 0) args.push('-Q', String(Math.ceil(distinct / spread)));
  await runDnsperf(args, (c) => (dnsperfChild = c));
}

async function measure(server: ServerProcess, round: number, queryFile: string, primeFile: string, distinct: number): Promise<Run> {
  const args = [...dnsperfBase, '-p', String(server.port), '-d', queryFile];
  await prime(server, primeFile, distinct);
  const helpersBefore = await helperCpu(server);
  const before = treeCpuSeconds([server.pid]);
  let after = before;
  const result = await runDnsperf(
    [...args, '-l', String(seconds)],
    (c) => (dnsperfChild = c),
    () => (after = treeCpuSeconds([server.pid])),
  );
  const helpersAfter = await helperCpu(server);
  let helperCpuSeconds = 0;
  for (const [pid, cpu] of helpersAfter) helperCpuSeconds += cpu - (helpersBefore.get(pid) ?? 0);
  return { server, round, result, cpuSeconds: after - before + helperCpuSeconds, helperCpuSeconds };
}

// --- main ----------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const startedAt = new Date();
  const loadBefore = os.loadavg();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'mdns-nscompare-'));
  log(`temp dir ${tmp}`);

  const zone = buildBenchZone(origin, hosts);
  const zoneDir = path.join(tmp, 'zones');
  await fs.mkdir(zoneDir);
  const zoneFile = path.join(zoneDir, `${origin}.zone`);
  let signedRecords = 0;
  if (opts.signed) {
    const keyDir = path.join(tmp, 'keys');
    await fs.mkdir(keyDir);
    await fs.writeFile(path.join(keyDir, 'unsigned.zone'), zone.masterFile);
    const keygen = (ksk: boolean) =>
      execFileSync('ldns-keygen', ['-a', 'ECDSAP256SHA256', ...(ksk ? ['-k'] : []), origin], { cwd: keyDir, encoding: 'utf8' }).trim();
    const keys = [keygen(true), keygen(false)].map((k) => path.join(keyDir, k));
    const started = Date.now();
    execFileSync('ldns-signzone', ['-n', '-t', '0', '-s', '', '-o', origin, '-f', zoneFile, path.join(keyDir, 'unsigned.zone'), ...keys], { encoding: 'utf8' });
    signedRecords = (await fs.readFile(zoneFile, 'utf8')).split('\n').filter((l) => l && !l.startsWith(';')).length;
    log(`signed with ldns-signzone in ${Date.now() - started} ms: ${signedRecords} records`);
  } else {
    await fs.writeFile(zoneFile, zone.masterFile);
  }
  const zoneJson = path.join(tmp, 'zone.json');
  await fs.writeFile(zoneJson, JSON.stringify(zone.description));
  const queryFile = path.join(tmp, 'queries.txt');
  const queries = buildQueryFile(origin, hosts, queryCount, nxFraction);
  await fs.writeFile(queryFile, queries);
  const distinctQueries = [...new Set(queries.split('\n').filter(Boolean))];
  const primeFile = path.join(tmp, 'prime.txt');
  await fs.writeFile(primeFile, `${distinctQueries.join('\n')}\n`);
  log(`zone ${origin}: ${zone.description.records.length} records; ${queryCount} queries, ${distinctQueries.length} distinct`);

  const failures: string[] = [];
  for (const id of selected) {
    log(`starting ${id}`);
    try {
      let server: ServerProcess;
      if (id === 'nsd') server = await startNsd(path.join(tmp, 'nsd'), origin, zoneFile);
      else if (id === 'knot') server = await startKnot(path.join(tmp, 'knot'), origin, zoneFile);
      else if (id === 'pdns' && liveSigning)
        server = await startPowerDns(path.join(tmp, 'pdns'), origin, path.join(tmp, 'keys', 'unsigned.zone'), pg, database, () => (databaseCreated = true), {
          liveSigning,
        });
      else if (id === 'pdns')
        server = await startPowerDns(path.join(tmp, 'pdns'), origin, zoneFile, pg, database, () => (databaseCreated = true), { presigned: opts.signed });
      else if (id === 'ours-unsigned')
        server = await startOurs(path.join(tmp, 'ours-unsigned'), zoneJson, {
          processes: Number(opts['ours-processes']),
          udpTransport: opts['ours-transport'],
          id,
          label: 'ours (unsigned zone)',
        });
      else if (id === 'ours-nocache') server = await startOurs(path.join(tmp, 'ours-nocache'), zoneJson, { noCache: true, id, label: 'ours (no cache)' });
      else
        server = await startOurs(path.join(tmp, 'ours'), opts.signed ? zoneFile : zoneJson, {
          processes: Number(opts['ours-processes']),
          udpTransport: opts['ours-transport'],
        });
      servers.push(server);
    } catch (e) {
      failures.push(`${id}: did not start: ${(e as Error).message.split('\n').slice(0, 6).join(' | ')}`);
      log(failures.at(-1)!);
    }
  }
  const checks = new Map<ServerProcess, Check>();
  for (const server of [...servers]) {
    const check = await verify(server, zone.addressOf);
    checks.set(server, check);
    log(`${server.label} on port ${server.port}: ${check.ok ? 'ok' : 'FAILED'}: ${check.detail}`);
    if (!check.ok) {
      failures.push(`${server.label}: answers wrong, not measured: ${check.detail}`);
      await server.stop();
      servers.splice(servers.indexOf(server), 1);
    }
  }
  if (servers.length === 0) throw new Error(`no server to measure:\n${failures.join('\n')}`);

  const runs: Run[] = [];
  for (let round = 1; round <= rounds; round++) {
    // Rotate the order each round, so no server always runs first (or right after another).
    const order = servers.map((_, i) => servers[(i + round - 1) % servers.length]!);
    for (const server of order) {
      log(`round ${round}/${rounds}: ${server.label} (${seconds} s)`);
      const run = await measure(server, round, queryFile, primeFile, distinctQueries.length);
      runs.push(run);
      log(`  ${fmt(run.result.qps)} q/s, lost ${run.result.lost}, ${fmt((run.cpuSeconds / run.result.completed) * 1e6, 2)} µs CPU/query`);
    }
  }
  const loadAfter = os.loadavg();

  // Stop ours first so its exit report (cpuUsage, cache counters) can be printed.
  const ourReports: string[] = [];
  for (const server of servers) {
    if (!server.id.startsWith('ours')) continue;
    await server.stop();
    const report = (server as OursProcess).exitReport();
    if (report) {
      const stats = report.stats as { cache?: { hits: number; misses: number; entries: number }; responses?: Record<string, number>; dropped?: number };
      ourReports.push(
        `${server.label}: process.cpuUsage() at exit user ${(report.cpu.user / 1e6).toFixed(2)} s + system ${(report.cpu.system / 1e6).toFixed(2)} s` +
          ` (whole life, load included); response cache hits ${stats.cache?.hits ?? '?'}, misses ${stats.cache?.misses ?? '?'}, entries ${stats.cache?.entries ?? '?'}; dropped ${stats.dropped ?? '?'}`,
      );
    }
  }

  // --- report ---
  const git = tryRun('git', ['rev-parse', '--short', 'HEAD']);
  const dirty = tryRun('git', ['--no-optional-locks', 'status', '--porcelain', '--', 'nameserver', 'bench']) ? ' (working tree modified)' : '';
  const out: string[] = [];
  out.push(`## Authoritative servers compared with dnsperf${opts.do ? ' (DO bit set)' : ''}`, '');
  out.push(`- Command: \`node --import tsx bench/nameserverCompare.ts ${process.argv.slice(2).join(' ')}\``);
  out.push(`- Date: ${startedAt.toISOString()} (machine clock)`);
  out.push(
    `- Machine: \`nproc\` ${tryRun('nproc', [])}, CPU "${os.cpus()[0]?.model ?? '?'}", ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.type()} ${os.release()}`,
  );
  out.push(`- Load average (1/5/15 min): ${loadBefore.map((x) => x.toFixed(2)).join(' ')} before, ${loadAfter.map((x) => x.toFixed(2)).join(' ')} after`);
  out.push(
    `- Load generator: ${tryRun('sh', ['-c', 'dnsperf -h 2>&1 | grep -m1 Version'])} — \`dnsperf ${dnsperfBase.join(' ')} -p <port> -d queries.txt -l ${seconds}\`, each run preceded by an unmeasured priming pass`,
  );
  out.push(
    `- Priming: before each run every distinct query of the file (${distinctQueries.length}) is sent once, unmeasured; PowerDNS first has its packet and query caches purged (\`pdns_control purge\`) and the priming paced over ${primeSeconds ?? 20} s (\`-Q\`), its cache TTL, so that during the run entries expire and are refetched at the even rate continuous load gives, not in one wave`,
  );
  out.push(
    `- Zone: ${origin}, ${zone.description.records.length} records (SOA, 2 NS with A, apex MX/TXT, h0…h${hosts - 1} with A, every 10th AAAA, every 100th TXT, every 250th MX), TTL 3600`,
  );
  if (opts.signed)
    out.push(
      `- Signed once by \`ldns-signzone -n -t 0 -s ''\` (NSEC3 SHA-1, 0 extra iterations, no salt; ECDSA P-256 KSK + ZSK from ldns-keygen): ${signedRecords} records, the same file served by every server except "ours (unsigned zone)"`,
    );
  out.push(
    `- Queries: ${queryCount} lines (${distinctQueries.length} distinct), ${fmt((1 - nxFraction) * 100)}% A for random existing hN, ${fmt(nxFraction * 100)}% A for distinct non-existent names (NXDOMAIN), shuffled, fixed seed`,
  );
  out.push(`- Our nameserver: git ${git}${dirty}, node ${process.version}`);
  out.push(
    `- Rounds: ${rounds}, servers rotated each round; CPU = utime+stime of the server's process tree from /proc (PowerDNS: plus its PostgreSQL backends) over the run ÷ queries completed; CPU % = CPU seconds ÷ dnsperf's run time (100 = one core)`,
  );
  out.push('');
  out.push('| server | version | configuration | response shape (answer/authority/additional, size) |', '|---|---|---|---|');
  for (const s of servers) out.push(`| ${s.label} | ${s.version} | ${s.config.join(' ')} | ${checks.get(s)?.detail ?? ''} |`);
  out.push('');
  out.push(
    '| server | round | q/s | lost | µs CPU/query | of which SQL backends | server CPU % | dnsperf CPU % | completed | avg response B | avg latency ms | rcodes |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
  );
  const sorted = [...runs].sort((a, b) => servers.indexOf(a.server) - servers.indexOf(b.server) || a.round - b.round);
  for (const r of sorted) {
    const per = (r.cpuSeconds / r.result.completed) * 1e6;
    const sql = r.server.helperPids ? fmt((r.helperCpuSeconds / r.result.completed) * 1e6, 2) : '–';
    const rcodes = Object.entries(r.result.rcodes)
      .map(([k, v]) => `${k} ${fmt((v / r.result.completed) * 100, 1)}%`)
      .join(', ');
    out.push(
      `| ${r.server.label} | ${r.round} | ${fmt(r.result.qps)} | ${r.result.lost} | ${fmt(per, 2)} | ${sql} | ${fmt((r.cpuSeconds / r.result.runTime) * 100)} | ${fmt((r.result.clientCpuSeconds / r.result.runTime) * 100)} | ${fmt(r.result.completed)} | ${r.result.responseSize} | ${fmt(r.result.latency.avg * 1000, 2)} | ${rcodes} |`,
    );
  }
  out.push('');
  out.push(
    'Medians:',
    '',
    '| server | q/s (median) | q/s (min–max) | µs CPU/query (median) | µs CPU/query (min–max) | lost (total) |',
    '|---|---|---|---|---|---|',
  );
  const summary = new Map<string, { qps: number; cpu: number }>();
  for (const s of servers) {
    const mine = runs.filter((r) => r.server === s);
    const qps = mine.map((r) => r.result.qps);
    const cpu = mine.map((r) => (r.cpuSeconds / r.result.completed) * 1e6);
    summary.set(s.id, { qps: median(qps), cpu: median(cpu) });
    out.push(
      `| ${s.label} | ${fmt(median(qps))} | ${fmt(Math.min(...qps))}–${fmt(Math.max(...qps))} | ${fmt(median(cpu), 2)} | ${fmt(Math.min(...cpu), 2)}–${fmt(Math.max(...cpu), 2)} | ${mine.reduce((n, r) => n + r.result.lost, 0)} |`,
    );
  }
  out.push('');
  for (const ours of servers.filter((s) => s.id.startsWith('ours'))) {
    const mine = summary.get(ours.id)!;
    const ratios = servers
      .filter((s) => !s.id.startsWith('ours'))
      .map((s) => {
        const other = summary.get(s.id)!;
        return `${s.label}: ${fmt((mine.qps / other.qps) * 100)}% of its q/s, ${fmt(mine.cpu / other.cpu, 2)}× its CPU per query`;
      });
    if (ratios.length) out.push(`- ${ours.label} vs ${ratios.join('; ')}`);
  }
  for (const line of ourReports) out.push(`- ${line}`);
  const anomalies = runs.filter((r) => Object.keys(r.result.rcodes).some((k) => k !== 'NOERROR' && k !== 'NXDOMAIN'));
  for (const r of anomalies) out.push(`- WARNING: ${r.server.label} round ${r.round} answered ${JSON.stringify(r.result.rcodes)}`);
  for (const f of failures) out.push(`- NOT MEASURED: ${f}`);
  console.log(out.join('\n'));
}

try {
  await main();
} catch (e) {
  if (!interrupted) log(`failed: ${(e as Error).stack ?? e}`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
