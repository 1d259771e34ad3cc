// The authoritative servers the nameserver comparison runs (bench/nameserverCompare.ts), each as
// a child process on its own port on 127.0.0.1, unprivileged ports, data in a directory of its
// own: NSD, Knot, PowerDNS with its PostgreSQL backend (a scratch database), and ours
// (bench/lib/standaloneNameserver.ts). Each start function returns once the process runs; the
// caller checks answers with dig.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import dgram from 'node:dgram';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface ServerProcess {
  /** Short id ("nsd", "knot", "pdns", "ours"). */
  id: string;
  label: string;
  port: number;
  child: ChildProcess;
  /** Process trees whose CPU is the server's (the root pid; children are found under it). */
  pid: number;
  /** Further processes serving it that are not its descendants (PowerDNS: its PostgreSQL backends). */
  helperPids?: () => Promise<number[]>;
  /**
   * Servers whose caches expire by time (PowerDNS: packet and query cache, 20 s): empties them,
   * and how many seconds the entries live, so the caller can refill them at a steady pace.
   */
  cacheTtlSeconds?: number;
  purgeCaches?: () => Promise<void>;
  /** The configuration, one line per choice, for the report. */
  config: string[];
  version: string;
  stop(): Promise<void>;
}

/** A port free for both TCP and UDP on 127.0.0.1. */
export async function freeUdpTcpPort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await new Promise<number>((resolve, reject) => {
      const s = net.createServer().once('error', reject);
      s.listen(0, '127.0.0.1', () => {
        const { port } = s.address() as net.AddressInfo;
        s.close(() => resolve(port));
      });
    });
    const udpFree = await new Promise<boolean>((resolve) => {
      const u = dgram.createSocket('udp4');
      u.once('error', () => resolve(false));
      u.bind(port, '127.0.0.1', () => u.close(() => resolve(true)));
    });
    if (udpFree) return port;
  }
  throw new Error('no free port');
}

/**
 * Spawns a long-running server with stdout and stderr appended to `logPath`. stop() sends SIGTERM,
 * and SIGKILL after `graceMs`.
 */
export function launch(command: string, args: string[], logPath: string, graceMs = 10_000): { child: ChildProcess; stop: () => Promise<void> } {
  const log = fs.openSync(logPath, 'a');
  const child = spawn(command, args, { stdio: ['ignore', log, log] });
  fs.closeSync(log);
  child.on('error', (err) => fs.appendFileSync(logPath, `spawn error: ${err.message}\n`));
  return { child, stop: () => stopChild(child, graceMs) };
}

export async function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

async function firstLine(command: string, args: string[], pattern: RegExp): Promise<string> {
  try {
    const { stdout, stderr } = await run(command, args, { timeout: 10_000 });
    return pattern.exec(`${stdout}\n${stderr}`)?.[0]?.trim() ?? '?';
  } catch (e) {
    const out = e as { stdout?: string; stderr?: string };
    return pattern.exec(`${out.stdout ?? ''}\n${out.stderr ?? ''}`)?.[0]?.trim() ?? '?';
  }
}

function exitedEarly(child: ChildProcess, logPath: string, what: string): Error {
  let log = '';
  try {
    log = fs.readFileSync(logPath, 'utf8').slice(-4000);
  } catch {
    // no log
  }
  return new Error(`${what} exited (${child.exitCode ?? child.signalCode}):\n${log}`);
}

// --- NSD ---------------------------------------------------------------------------------------

export async function startNsd(dir: string, zoneName: string, zoneFile: string): Promise<ServerProcess> {
  await fsp.mkdir(dir, { recursive: true });
  const port = await freeUdpTcpPort();
  const conf = path.join(dir, 'nsd.conf');
  const settings = [
    `ip-address: 127.0.0.1@${port}`,
    `port: ${port}`,
    'do-ip6: no',
    'server-count: 1',
    'minimal-responses: yes',
    'rrl-ratelimit: 0',
    'rrl-whitelist-ratelimit: 0',
    'verbosity: 0',
    'hide-version: yes',
  ];
  await fsp.writeFile(
    conf,
    [
      'server:',
      ...settings.map((s) => `  ${s}`),
      '  username: ""',
      '  chroot: ""',
      `  zonesdir: "${dir}"`,
      '  database: ""',
      `  zonelistfile: "${dir}/zone.list"`,
      `  xfrdfile: "${dir}/xfrd.state"`,
      `  xfrdir: "${dir}"`,
      `  pidfile: "${dir}/nsd.pid"`,
      `  logfile: "${dir}/nsd.log"`,
      'remote-control:',
      '  control-enable: no',
      'zone:',
      `  name: "${zoneName}"`,
      `  zonefile: "${zoneFile}"`,
      '',
    ].join('\n'),
  );
  await run('nsd-checkconf', [conf]);
  const logPath = path.join(dir, 'stdout.log');
  const { child, stop } = launch('nsd', ['-c', conf, '-d'], logPath);
  await new Promise((r) => setTimeout(r, 300));
  if (child.exitCode !== null) throw exitedEarly(child, logPath, 'nsd');
  return {
    id: 'nsd',
    label: 'NSD',
    port,
    child,
    pid: child.pid!,
    config: [`nsd -c nsd.conf -d; ${settings.join('; ')}; no database file (zone file read at start), run as root (username "")`],
    version: await firstLine('nsd', ['-v'], /NSD version .*/),
    stop,
  };
}

// --- Knot --------------------------------------------------------------------------------------

export async function startKnot(dir: string, zoneName: string, zoneFile: string): Promise<ServerProcess> {
  await fsp.mkdir(path.join(dir, 'storage'), { recursive: true });
  const port = await freeUdpTcpPort();
  const conf = path.join(dir, 'knot.conf');
  await fsp.writeFile(
    conf,
    [
      'server:',
      `  rundir: "${dir}"`,
      `  pidfile: "${dir}/knot.pid"`,
      `  listen: 127.0.0.1@${port}`,
      'log:',
      '  - target: stderr',
      '    any: warning',
      'database:',
      `  storage: "${dir}/storage"`,
      'control:',
      `  listen: "${dir}/knot.sock"`,
      'template:',
      '  - id: default',
      `    storage: "${path.dirname(zoneFile)}"`,
      '    zonefile-sync: -1',
      '    zonefile-load: whole',
      '    journal-content: none',
      'zone:',
      `  - domain: ${zoneName}`,
      `    file: "${zoneFile}"`,
      '',
    ].join('\n'),
  );
  await run('knotc', ['-c', conf, 'conf-check']);
  const logPath = path.join(dir, 'stderr.log');
  const { child, stop } = launch('knotd', ['-c', conf], logPath);
  await new Promise((r) => setTimeout(r, 300));
  if (child.exitCode !== null) throw exitedEarly(child, logPath, 'knotd');
  return {
    id: 'knot',
    label: 'Knot',
    port,
    child,
    pid: child.pid!,
    config: [
      'knotd -c knot.conf (foreground); defaults (udp-workers = tcp-workers = number of CPUs, no RRL module); zonefile-load: whole, journal-content: none, zonefile-sync: -1; rundir and database storage in the temp dir; runs as root',
    ],
    version: await firstLine('knotd', ['-V'], /knotd.*version.*/),
    stop,
  };
}

// --- PowerDNS with the PostgreSQL backend ------------------------------------------------------

export interface PgTarget {
  host: string;
  port: number;
  user: string;
}

const pgArgs = (pg: PgTarget) => ['-h', pg.host, '-p', String(pg.port), '-U', pg.user];

export async function psql(pg: PgTarget, database: string, sql: string): Promise<string> {
  const { stdout } = await run('psql', [...pgArgs(pg), '-d', database, '-v', 'ON_ERROR_STOP=1', '-X', '-q', '-A', '-t', '-c', sql], { timeout: 60_000 });
  return stdout.trim();
}

/** The PowerDNS schema for gpgsql, as Debian ships it (possibly gzipped). */
async function pdnsPgSchema(): Promise<string> {
  const base = '/usr/share/doc/pdns-backend-pgsql/schema.pgsql.sql';
  if (fs.existsSync(base)) return fsp.readFile(base, 'utf8');
  if (fs.existsSync(`${base}.gz`)) {
    const { gunzipSync } = await import('node:zlib');
    return gunzipSync(await fsp.readFile(`${base}.gz`)).toString('utf8');
  }
  throw new Error(`${base} not found (apt-get install pdns-backend-pgsql)`);
}

/**
 * Creates `database` (dropped first if it exists), loads the schema, and the zone with
 * `pdnsutil load-zone`; then starts pdns_server. `onDatabase` is called once the database exists,
 * so the caller can drop it whatever happens next.
 */
export async function startPowerDns(
  dir: string,
  zoneName: string,
  zoneFile: string,
  pg: PgTarget,
  database: string,
  onDatabase: () => void,
  options: { presigned?: boolean; liveSigning?: boolean } = {},
): Promise<ServerProcess> {
  await fsp.mkdir(dir, { recursive: true });
  await dropDatabase(pg, database);
  await psql(pg, 'postgres', `CREATE DATABASE "${database}"`);
  onDatabase();
  const schemaPath = path.join(dir, 'schema.pgsql.sql');
  await fsp.writeFile(schemaPath, await pdnsPgSchema());
  await run('psql', [...pgArgs(pg), '-d', database, '-v', 'ON_ERROR_STOP=1', '-X', '-q', '-f', schemaPath], { timeout: 60_000 });

  const port = await freeUdpTcpPort();
  const settings = [
    'launch=gpgsql',
    `gpgsql-host=${pg.host}`,
    `gpgsql-port=${pg.port}`,
    `gpgsql-user=${pg.user}`,
    `gpgsql-dbname=${database}`,
    `gpgsql-dnssec=${options.presigned || options.liveSigning ? 'yes' : 'no'}`,
    'local-address=127.0.0.1',
    `local-port=${port}`,
    `socket-dir=${dir}`,
    'daemon=no',
    'guardian=no',
    'disable-syslog=yes',
    'loglevel=4',
    'webserver=no',
    'api=no',
    'primary=no',
    'secondary=no',
    'security-poll-suffix=',
  ];
  await fsp.writeFile(path.join(dir, 'pdns.conf'), `${settings.join('\n')}\n`);
  await run('pdnsutil', [`--config-dir=${dir}`, 'load-zone', zoneName, zoneFile], { timeout: 120_000 });
  // A zone signed elsewhere: PowerDNS serves its RRSIGs and NSEC3 records as they are.
  if (options.presigned) {
    await run('pdnsutil', [`--config-dir=${dir}`, 'set-presigned', zoneName]);
    await run('pdnsutil', [`--config-dir=${dir}`, 'set-nsec3', zoneName, '1 0 0 -']);
    // What PowerDNS itself stores for a presigned NSEC3 zone it receives by AXFR (it refuses to
    // rectify one): each NSEC3 record ordered by its hash label, every record authoritative (the
    // bench zone has no delegations).
    await psql(pg, database, `UPDATE records SET auth = true, ordername = CASE WHEN type = 'NSEC3' THEN split_part(name, '.', 1) END`);
  }
  // Signed by PowerDNS itself as it answers (keys of its own, signatures cached).
  if (options.liveSigning) {
    await run('pdnsutil', [`--config-dir=${dir}`, 'secure-zone', zoneName], { timeout: 120_000 });
    await run('pdnsutil', [`--config-dir=${dir}`, 'set-nsec3', zoneName, '1 0 0 -']);
  }
  // pdnsutil refuses to rectify a presigned zone ("not allowed/necessary").
  if (!options.presigned) await run('pdnsutil', [`--config-dir=${dir}`, 'rectify-zone', zoneName], { timeout: 120_000 });
  const count = await psql(pg, database, 'SELECT count(*) FROM records');

  const logPath = path.join(dir, 'stderr.log');
  const { child, stop } = launch(
    'pdns_server',
    [`--config-dir=${dir}`, '--daemon=no', '--guardian=no', '--local-address=127.0.0.1', `--local-port=${port}`, `--socket-dir=${dir}`, '--launch=gpgsql'],
    logPath,
  );
  await new Promise((r) => setTimeout(r, 500));
  if (child.exitCode !== null) throw exitedEarly(child, logPath, 'pdns_server');
  const pgVersion = await psql(pg, database, 'SHOW server_version');
  return {
    id: 'pdns',
    label: options.liveSigning ? 'PowerDNS (signing live)' : 'PowerDNS',
    port,
    child,
    pid: child.pid!,
    cacheTtlSeconds: 20,
    purgeCaches: async () => {
      await run('pdns_control', [`--config-dir=${dir}`, `--socket-dir=${dir}`, 'purge'], { timeout: 10_000 });
    },
    helperPids: async () =>
      (await psql(pg, 'postgres', `SELECT pid FROM pg_stat_activity WHERE datname = '${database}' AND pid <> pg_backend_pid()`))
        .split('\n')
        .filter(Boolean)
        .map(Number),
    config: [
      `pdns_server ${settings.filter((s) => !/^gpgsql-(host|port|user|dbname)|local-port|socket-dir/.test(s)).join(' ')}; scratch PostgreSQL ${pgVersion} database "${database}" (${count} rows in records, loaded with pdnsutil load-zone${options.presigned ? ', set-presigned, set-nsec3 "1 0 0 -", auth and NSEC3 ordernames set in SQL' : options.liveSigning ? ' + secure-zone (its own keys, signed as it answers) + set-nsec3 "1 0 0 -" + rectify-zone' : ' + rectify-zone'}); everything else default: packet cache on (cache-ttl 20 s), query cache on, receiver-threads 1, distributor-threads 3; runs as root`,
    ],
    version: await firstLine('pdns_server', ['--version'], /PowerDNS Authoritative Server [^\s]+/),
    stop,
  };
}

export async function dropDatabase(pg: PgTarget, database: string): Promise<void> {
  await psql(pg, 'postgres', `DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
}

// --- ours --------------------------------------------------------------------------------------

export interface OursProcess extends ServerProcess {
  /** The JSON line the process prints on SIGTERM (its cpuUsage totals and server counters). */
  exitReport(): { cpu: { user: number; system: number }; stats: unknown } | null;
}

export async function startOurs(
  dir: string,
  zoneJson: string,
  options: { noCache?: boolean; processes?: number; id?: string; label?: string; rrl?: boolean; rrlSlip?: number; udpTransport?: string } = {},
): Promise<OursProcess> {
  await fsp.mkdir(dir, { recursive: true });
  const script = path.join(path.dirname(new URL(import.meta.url).pathname), 'standaloneNameserver.ts');
  const args = [
    '--import',
    'tsx',
    script,
    zoneJson,
    '0',
    ...(options.noCache ? ['--no-cache'] : []),
    '--processes',
    String(options.processes ?? 1),
    ...(options.rrl ? ['--rrl'] : []),
    ...(options.rrlSlip !== undefined ? ['--rrl-slip', String(options.rrlSlip)] : []),
    '--udp-transport',
    options.udpTransport ?? 'auto',
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const logPath = path.join(dir, 'stderr.log');
  const log = fs.createWriteStream(logPath);
  child.stderr!.pipe(log);
  let stdout = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('our nameserver did not print its ready line within 60 s')), 60_000);
    const check = () => {
      const m = /^ready (\d+) /m.exec(stdout);
      if (m) {
        clearTimeout(timer);
        child.stdout!.off('data', check);
        resolve(Number(m[1]));
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', () => {
      clearTimeout(timer);
      setTimeout(() => reject(exitedEarly(child, logPath, 'our nameserver')), 100);
    });
  });
  return {
    id: options.id ?? 'ours',
    label: options.label ?? 'ours',
    port,
    child,
    pid: child.pid!,
    config: [
      `node ${process.version} --import tsx bench/lib/standaloneNameserver.ts ${path.basename(zoneJson)} 0${options.noCache ? ' --no-cache' : ''} --processes ${options.processes ?? 1} --udp-transport ${options.udpTransport ?? 'auto'}${options.rrl ? ' --rrl' : ''}${options.rrlSlip !== undefined ? ` --rrl-slip ${options.rrlSlip}` : ''}: startDnsServer on 127.0.0.1 (${options.processes ?? 1} process(es) answering UDP on one port, DNS_UDP_PROCESSES; DNS_UDP_TRANSPORT ${options.udpTransport ?? 'auto'}), response cache ${options.noCache ? 'off' : 'on (defaults)'}, response rate limiting ${options.rrl ? `on (200/s per /24, slip ${options.rrlSlip ?? 2})` : 'off'}, silent logger`,
    ],
    version: `ours (node ${process.version})`,
    stop: () => stopChild(child),
    exitReport() {
      const line = stdout.split('\n').find((l) => l.startsWith('{'));
      return line ? JSON.parse(line) : null;
    },
  };
}
