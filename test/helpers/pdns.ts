// PowerDNS Authoritative (pdns_server 4.7, Debian's pdns-server and pdns-backend-pgsql) as a
// catalog consumer (RFC 9432) of our nameserver: software nobody here wrote reading a secondary
// set's catalog. PowerDNS keeps catalogs only in an SQL backend: each instance gets a database of
// its own on the tests' PostgreSQL, with the schema Debian ships.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { type Daemon, startDaemon } from './daemon.js';
import { queryDns } from './dnsQuery.js';
import { requireTool, runToolAsync } from './dnsTools.js';
import type { KnotSecondary } from './knot.js';

/** The same handle as Knot's: port, log, restart (on the same database), stop, close. */
export interface PdnsSecondary extends KnotSecondary {
  /** PowerDNS's zones as its database holds them (`catalog`: the catalog a member came from). */
  domains(): Promise<PdnsDomain[]>;
  /** Runs pdnsutil on this instance's configuration (and so its database). */
  pdnsutil(...args: string[]): Promise<void>;
}

export interface PdnsDomain {
  name: string;
  /** MASTER, SLAVE, CONSUMER, … */
  type: string;
  master: string | null;
  catalog: string | null;
  /** JSON PowerDNS keeps for a member: its catalog member label (`unique`), for instance. */
  options: string | null;
}

export interface PdnsCatalogConsumerOptions {
  /** Port to listen on (UDP and TCP). */
  port: () => Promise<number>;
  primaryPort: number;
  /** The catalog zone PowerDNS follows: its members become secondary zones of PowerDNS. */
  catalog: string;
  /**
   * The catalog transferred with this key (PowerDNS's AXFR-MASTER-TSIG on the catalog; members made
   * from it get no key); none: unsigned. Not exercised by a test yet.
   */
  key?: { name: string; secret: Buffer };
  /**
   * The PostgreSQL server (any database on it) where PowerDNS's own database is made, and that
   * database's name; default: the test run's (vitest's `inject`), for callers outside vitest (benches).
   */
  database?: { adminUrl: string; name: string };
}

const SCHEMA = '/usr/share/pdns-backend-pgsql/schema/schema.pgsql.sql';

/**
 * pdns.conf for a consumer: gpgsql on the scratch database, a secondary (`secondary=yes`) taking
 * NOTIFY from 127.0.0.1, in the foreground with its log (at info, where transfers and catalog
 * changes show) on stderr. Everything else is PowerDNS's default, `xfr-cycle-interval` included:
 * a NOTIFY is acted on within a second whatever the cycle, and the members of a changed catalog
 * are transferred at once. The database's coordinates are the test's; the rest is what a provider
 * copies (docs/catalog-zones.md).
 */
function pdnsConfig(dir: string, port: number, database: URL): string {
  return `launch=gpgsql
gpgsql-host=${database.hostname}
gpgsql-port=${database.port || 5432}
gpgsql-dbname=${database.pathname.slice(1)}
gpgsql-user=${decodeURIComponent(database.username)}
gpgsql-password=${decodeURIComponent(database.password)}
local-address=127.0.0.1
local-port=${port}
socket-dir=${dir}
guardian=no
daemon=no
disable-syslog=yes
loglevel=6
secondary=yes
allow-notify-from=127.0.0.0/8
`;
}

export async function startPdnsCatalogConsumer(options: PdnsCatalogConsumerOptions): Promise<PdnsSecondary> {
  const pdnsServer = requireTool('pdns_server');
  const pdnsutil = requireTool('pdnsutil');
  if (!pdnsServer || !pdnsutil) throw new Error('pdns_server and pdnsutil are not installed');
  const adminUrl = options.database?.adminUrl ?? inject('adminDatabaseUrl');
  // Named like the test databases, so the run's global teardown drops it if close() never runs.
  const name = options.database?.name ?? `mdns_t_${inject('runId')}_pdns_${randomBytes(5).toString('hex')}`;
  const admin = async (statement: string) => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    try {
      await c.query(statement);
    } finally {
      await c.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const database = new URL(adminUrl);
  database.pathname = `/${name}`;
  const sql = new pg.Pool({ connectionString: database.toString(), max: 1 });
  sql.on('error', () => {});
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdns-pdns-'));

  const pdnsutilRun = async (...args: string[]) => {
    const r = await runToolAsync(pdnsutil, [`--config-dir=${dir}`, ...args]);
    if (r.code !== 0) throw new Error(`pdnsutil ${args.join(' ')}: ${r.stdout}${r.stderr}`);
  };
  const cleanup = async () => {
    await sql.end();
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    fs.rmSync(dir, { recursive: true, force: true });
  };

  try {
    await sql.query(fs.readFileSync(SCHEMA, 'utf8'));
    // pdnsutil reads the database settings from pdns.conf; the port is written before each start.
    fs.writeFileSync(path.join(dir, 'pdns.conf'), pdnsConfig(dir, 0, database));
    // The consumer zone: a secondary of our nameserver whose kind makes PowerDNS read its members.
    await pdnsutilRun('create-secondary-zone', options.catalog, `127.0.0.1:${options.primaryPort}`);
    await pdnsutilRun('set-kind', options.catalog, 'consumer');
    if (options.key) {
      await pdnsutilRun('import-tsig-key', options.key.name, 'hmac-sha256', options.key.secret.toString('base64'));
      await pdnsutilRun('set-meta', options.catalog, 'AXFR-MASTER-TSIG', options.key.name);
    }
  } catch (error) {
    await cleanup();
    throw error;
  }
  const daemon: Daemon = await startDaemon({
    name: 'pdns_server',
    port: options.port,
    configure: (port) => fs.writeFileSync(path.join(dir, 'pdns.conf'), pdnsConfig(dir, port, database)),
    // pdns_server exits at once when its port is taken; ready when it answers on its port (any
    // answer: the catalog may not be transferred yet).
    launch: async (port, log) => {
      const c = spawn(pdnsServer, [`--config-dir=${dir}`], { stdio: ['ignore', 'pipe', 'pipe'] });
      c.stdout!.on('data', (d) => log(d.toString()));
      c.stderr!.on('data', (d) => log(d.toString()));
      const exit = new Promise<void>((resolve) => c.once('exit', () => resolve()));
      const ready = (async () => {
        for (let i = 0; i < 100 && c.exitCode === null && c.signalCode === null; i++) {
          try {
            await queryDns(port, options.catalog, 'SOA', { timeoutMs: 200 });
            return true;
          } catch {
            await new Promise((r) => setTimeout(r, 50));
          }
        }
        return false;
      })();
      if (await Promise.race([ready, exit.then(() => false)])) return c;
      if (c.exitCode === null && c.signalCode === null) {
        c.kill('SIGKILL');
        await exit;
      }
      return null;
    },
    cleanup,
  });

  return {
    ...daemon,
    get port() {
      return daemon.port;
    },
    domains: async () => (await sql.query<PdnsDomain>('SELECT name, type, master, catalog, options FROM domains ORDER BY name')).rows,
    pdnsutil: pdnsutilRun,
  };
}

/**
 * What PowerDNS's `pdnsutil list-zone` prints for a zone file: the file is loaded with
 * `pdnsutil load-zone` into a gpgsql database of its own on the tests' PostgreSQL (the way an
 * operator's PowerDNS holds it), then listed and the database dropped. No pdns_server runs.
 */
export async function pdnsListZone(zone: string, zonefile: string): Promise<string> {
  const pdnsutil = requireTool('pdnsutil');
  if (!pdnsutil) throw new Error('pdnsutil is not installed');
  const adminUrl = inject('adminDatabaseUrl');
  // Named like the test databases, so the run's global teardown drops it if this never finishes.
  const name = `mdns_t_${inject('runId')}_pdns_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdns-pdns-'));
  try {
    await admin.query(`CREATE DATABASE ${name}`);
    const database = new URL(adminUrl);
    database.pathname = `/${name}`;
    const sql = new pg.Client({ connectionString: database.toString() });
    await sql.connect();
    try {
      await sql.query(fs.readFileSync(SCHEMA, 'utf8'));
    } finally {
      await sql.end();
    }
    fs.writeFileSync(path.join(dir, 'pdns.conf'), pdnsConfig(dir, 0, database));
    fs.writeFileSync(path.join(dir, 'zone'), zonefile);
    const run = async (...args: string[]) => {
      const r = await runToolAsync(pdnsutil, [`--config-dir=${dir}`, ...args]);
      if (r.code !== 0) throw new Error(`pdnsutil ${args.join(' ')}: ${r.stdout}${r.stderr}`);
      return r.stdout;
    };
    await run('load-zone', zone, path.join(dir, 'zone'));
    return await run('list-zone', zone);
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
