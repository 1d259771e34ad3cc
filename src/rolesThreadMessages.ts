// The messages and start data the main thread and the roles thread exchange (rolesThread.ts,
// rolesThreadMain.ts): the one module both sides import.
import type { Config, Role } from './config/index.js';
import type { JobStatus } from './jobs/jobMonitor.js';
import type { NameserverCounters } from './observability/metrics.js';

/** What the main thread reads of the roles' thread: readiness and the counters /metrics shows. */
export interface RolesCounters {
  /** Null without the nameserver role. */
  nameserver: { ready: boolean; counters: NameserverCounters } | null;
  builds: Record<'unsigned' | 'by_change' | 'whole', number> | null;
  webhooks: { attempts: Record<string, number>; inFlight: number } | null;
  /** The thread's periodic jobs by name (jobMonitor). */
  jobs: Record<string, JobStatus>;
}

export type ToThread = { kind: 'counters'; id: number } | { kind: 'stop' };
export type FromThread =
  | { kind: 'ready'; dnsPort: number | null }
  | { kind: 'counters'; id: number; counters: RolesCounters }
  | { kind: 'countersFailed'; id: number; message: string };

export interface RolesThreadData {
  /** Config.source: the thread reads its Config from the same variables. */
  source: Record<string, string | undefined>;
  roles: Role[];
  databaseUrl: string;
  /**
   * The module whose startService the thread runs (service.ts passes its own URL). The thread
   * imports it by this path rather than by name, so that the service, which starts the thread,
   * is not imported back by the thread's own modules.
   */
  serviceModule: string;
}

/** What the thread uses of the service module it is given (service.ts). */
export interface RolesServiceModule {
  startService(
    config: Config,
    overrides: { prepared: boolean },
  ): Promise<{
    counters(): Promise<RolesCounters>;
    stop(): Promise<void>;
    nameserver: { server: { port: number } } | null;
  }>;
}
