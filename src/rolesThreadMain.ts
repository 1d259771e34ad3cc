// The roles thread's side (rolesThread.mjs loads it; the main thread's side is rolesThread.ts):
// starts the service with the roles it was given and answers the main thread's messages.
import { parentPort, workerData } from 'node:worker_threads';
import { loadConfig } from './config/index.js';
import type { FromThread, RolesServiceModule, RolesThreadData, ToThread } from './rolesThreadMessages.js';

export async function serveRolesThread(): Promise<void> {
  const port = parentPort!;
  const send = (m: FromThread) => port.postMessage(m);
  const data = workerData as RolesThreadData;
  // A failed start throws: the main thread gets the error (its 'error' event) and startService rejects.
  const config = loadConfig({ ...data.source, ROLES: data.roles.join(','), DATABASE_URL: data.databaseUrl, THREADED_ROLES: 'off' });
  const { startService } = (await import(data.serviceModule)) as RolesServiceModule;
  const running = await startService(config, { prepared: true });
  port.on('message', (m: ToThread) => {
    if (m.kind === 'counters') {
      running.counters().then(
        (counters) => send({ kind: 'counters', id: m.id, counters }),
        (err: unknown) => send({ kind: 'countersFailed', id: m.id, message: err instanceof Error ? err.message : String(err) }),
      );
    } else if (m.kind === 'stop') {
      // The main thread waits for the thread's exit.
      void running.stop().finally(() => process.exit(0));
    }
  });
  send({ kind: 'ready', dnsPort: running.nameserver?.server.port ?? null });
}
