// The nameserver and worker roles in a thread of their own, beside the API on the main thread
// (THREADED_ROLES, docs/operations.md "Processes and roles"). The thread runs the very service
// a ROLES=nameserver,worker process runs, on the same database and DATA_DIR, with its own heap,
// event loop and connection pool: loading a large zone version, reading a zone to sign it and
// the garbage collection of both no longer hold the thread that answers requests. The two
// threads share nothing but these messages; everything else goes through PostgreSQL, as between
// the processes of a split deployment.
import { Worker } from 'node:worker_threads';
import type { Logger } from './observability/logger.js';
import type { FromThread, RolesCounters, RolesThreadData, ToThread } from './rolesThreadMessages.js';

export type { FromThread, RolesCounters, RolesThreadData, ToThread } from './rolesThreadMessages.js';

export interface RolesThread {
  /** The port the thread's nameserver listens on (DNS_PORT=0 picks one); null without the nameserver role. */
  dnsPort: number | null;
  counters(): Promise<RolesCounters>;
  stop(): Promise<void>;
}

/** How long a stop may take before the thread is terminated (its roles' own grace is shorter). */
const STOP_BOUND_MS = 30_000;

/**
 * Starts the roles' thread and waits until its roles run (the nameserver has loaded every zone and
 * listens): the API starts after it, as in one thread. `onExit` hears of a thread that ended
 * without being asked to.
 */
export async function startRolesThread(data: RolesThreadData, logger: Logger, onExit: (err: Error) => void): Promise<RolesThread> {
  const worker = new Worker(new URL('./rolesThread.mjs', import.meta.url), { workerData: data });
  const pending = new Map<number, { resolve: (c: RolesCounters) => void; reject: (err: Error) => void }>();
  let nextId = 0;
  let stopping = false;
  // A thread that fails while starting fails the start (startService rejects); later, onExit hears of it.
  let started = false;
  const stopped = new Promise<void>((resolve) => worker.once('exit', () => resolve()));

  const ready = new Promise<number | null>((resolve, reject) => {
    worker.on('message', (m: FromThread) => {
      if (m.kind === 'ready') resolve(m.dnsPort);
      else if (m.kind === 'counters' || m.kind === 'countersFailed') {
        const asked = pending.get(m.id);
        pending.delete(m.id);
        if (m.kind === 'counters') asked?.resolve(m.counters);
        else asked?.reject(new Error(`roles thread: ${m.message}`));
      }
    });
    // A start that fails throws in the thread: its error comes here, the thread ends.
    worker.once('error', (err) => reject(err));
    worker.once('exit', (code) => {
      const err = new Error(`the roles thread (${data.roles.join(',')}) stopped with exit code ${code}`);
      reject(err);
      for (const asked of pending.values()) asked.reject(err);
      pending.clear();
      if (started && !stopping) onExit(err);
    });
  });
  const dnsPort = await ready.catch(async (err) => {
    await worker.terminate();
    throw err;
  });
  started = true;
  logger.info({ roles: data.roles }, 'roles thread running');

  const post = (m: ToThread) => worker.postMessage(m);
  return {
    dnsPort,
    counters: () =>
      new Promise((resolve, reject) => {
        if (stopping) return reject(new Error('the roles thread is stopping'));
        const id = nextId++;
        pending.set(id, { resolve, reject });
        post({ kind: 'counters', id });
      }),
    stop: async () => {
      stopping = true;
      post({ kind: 'stop' });
      const bound = setTimeout(() => {
        logger.warn('roles thread did not stop in time; terminating it');
        void worker.terminate();
      }, STOP_BOUND_MS);
      await stopped;
      clearTimeout(bound);
    },
  };
}
