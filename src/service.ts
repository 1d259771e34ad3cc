// Wires the concrete parts into a running service. main.ts calls it for `npm start`; tests call
// it to run the real service in-process on free ports with an injected clock.
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { createApp, type ReadinessCheck } from './api/app.js';
import { answerConnectRequests } from './api/connectRequests.js';
import { type BillingDirectory, noBillingSystem } from './billing/billingDirectory.js';
import { HttpBillingDirectory } from './billing/httpBillingDirectory.js';
import type { Config, Role } from './config/index.js';
import { lockDataDir } from './db/dataDirLock.js';
import { startEmbeddedPostgres } from './db/embeddedPostgres.js';
import { InFlightRequests } from './db/requestActivity.js';
import { createDb, type Db, migrateToLatest } from './db/knex.js';
import { sharedSecret } from './db/secrets.js';
import { watchSlowRequests } from './db/slowRequestWatch.js';
import { type Clock, systemClock } from './domain/clock.js';
import { CursorCodec } from './domain/cursor.js';
import { LabBillingDirectory } from './lab/labBillingDirectory.js';
import { NightlyLabReset } from './lab/nightlyReset.js';
import { ensureLabSeed, type LabTokensFile } from './lab/seed.js';
import { LabParentSync, resetLabParents } from './lab/labParents.js';
import { resetLabReverseDns, seedLabReverseDns } from './lab/reverseDnsSeed.js';
import { labDelegationObserver } from './lab/labPrefixDelegations.js';
import { resolverDelegationObserver } from './rdns/delegationCheck.js';
import { checkDueDelegations } from './rdns/delegationWorker.js';
import { LabRegistrar } from './lab/registrar.js';
import { resetLabWebhooks } from './lab/labWebhooks.js';
import { createLogger, type Logger } from './observability/logger.js';
import {
  createMetrics,
  type NameserverCounters,
  registerBuildMetrics,
  registerJobMetrics,
  registerLiveWaitMetrics,
  registerNameserverMetrics,
  registerSecondaryLagMetrics,
  registerWebhookMetrics,
} from './observability/metrics.js';
import { MaintenanceLoop } from './maintenance.js';
import { DnssecWorker } from './dnssec/dnssecWorker.js';
import { loadKeyEncryptionKey } from './db/sealedSecrets.js';
import { noRegistrar, type Registrar } from './domain/dnssec/registrar.js';
import { trustAnchorsFor } from './dnssec/trustAnchors.js';
import { jobMonitor } from './jobs/jobMonitor.js';
import { PeriodicJob } from './jobs/periodicJob.js';
import { createServices, type Services } from './services/index.js';
import { LiveWaiters } from './services/liveWait.js';
import type { DnssecDeps } from './services/dnssec.js';
import { startDnsServer, sumStats, type DnsServer, type ServerStats, type UpdateHandler } from '../nameserver/server.js';
import { RCODE } from '../nameserver/types.js';
import type { TsigKey } from '../nameserver/wire/tsig.js';
import { TSIG_KEYS_CHANNEL } from './db/channels.js';
import { NotificationListener } from './db/notificationListener.js';
import { applyDnsUpdate } from './services/dnsUpdate/dnsUpdate.js';
import { UpdatesInFlight } from './services/dnsUpdate/retransmissions.js';
import { loadTenantTsigKeys } from './services/tsigKeys.js';
import { ZoneStore } from '../nameserver/zone/store.js';
import { NameserverFeed } from './publication/nameserverFeed.js';
import { PublicationWorker } from './publication/publicationWorker.js';
import { BACKEND_QUOTA_INTERVAL_MS, readBackendQuota } from './services/backendQuota.js';
import { writeDueForwardRecords } from './services/rdns/forwardRecords.js';
import { dnsSoaProbe, withHelperProcesses } from './publication/soaProbe.js';
import { lagging, lagReadings } from './publication/secondaryLag.js';
import { readFleetLag } from './db/repositories/secondaryLagRows.js';
import { notifyFleet, RENOTIFY_AFTER_MS, renotifyLagging } from './publication/notifyFleet.js';
import { MirroredZoneStore } from '../nameserver/udpProcesses.js';
import { addressPolicyFor } from './webhooks/addressPolicy.js';
import { DeliveryWorker } from './webhooks/deliveryWorker.js';
import { createSender } from './webhooks/send.js';
import { MailSender } from './webhooks/mailSender.js';
import { webhookStats } from './webhooks/webhookAdmin.js';
import { type RolesCounters, type RolesThread, startRolesThread } from './rolesThread.js';
import { advisoryLock, type LockOrderViolation, setLockOrderViolationHandler } from './db/lockOrder.js';

export interface ServiceOverrides {
  clock?: Clock;
  logger?: Logger;
  billing?: BillingDirectory;
  /** Grace period for in-flight requests on shutdown. */
  shutdownGraceMs?: number;
  /** The service cannot go on (its embedded PostgreSQL will not restart); default: log and exit 70. */
  onFatal?: (err: Error) => void;
  /** The database is migrated and the lab seeded already (the roles' thread: the main thread did both before starting it). */
  prepared?: boolean;
  /** A transaction stepped back up the lock order (src/db/lockOrder.ts); default: log it. Tests throw. */
  onLockOrderViolation?: (violation: LockOrderViolation) => void;
}

/** EX_SOFTWARE: a supervisor (systemd Restart=on-failure, Docker restart policies) starts us again. */
const exitForSupervisor = (logger: Logger, why: string) => (err: Error) => {
  logger.fatal({ err }, `${why}; exiting`);
  process.exit(70);
};

/** The roles that run in the roles' thread: all but the API's, when it shares the process with them. */
function threadedRoles(config: Config): Role[] {
  if (!config.threadedRoles || !config.roles.includes('api')) return [];
  return config.roles.filter((r) => r !== 'api');
}

/** Readiness and counters of the nameserver and worker roles, wherever they run. */
async function countersOf(running: Wiring['running']): Promise<RolesCounters> {
  if (running.rolesThread) {
    // This thread's jobs (none today) beside the roles thread's.
    const theirs = await running.rolesThread.counters();
    return { ...theirs, jobs: { ...jobMonitor.snapshot(), ...theirs.jobs } };
  }
  const own = running.nameserver;
  const { publication, webhooks } = running;
  return {
    nameserver: own && {
      ready: own.feed.ready && own.server.listening,
      counters: nameserverCounters(
        own.server.stats(),
        own.store instanceof MirroredZoneStore ? await own.store.helperStats() : [],
        own.feed.zoneCount,
        own.server.udp.transport,
      ),
    },
    builds: publication && { ...publication.builds },
    webhooks: webhooks && { attempts: { ...webhooks.outcomes }, inFlight: webhooks.inFlightCount },
    jobs: jobMonitor.snapshot(),
  };
}

export interface RunningService {
  config: Config;
  services: Services;
  /** Base URL of the HTTP server, e.g. http://127.0.0.1:8080 (null without the api role). */
  httpUrl: string | null;
  lab: { tokensFile: string; tokens: LabTokensFile } | null;
  /** The nightly lab reset (worker role, sandbox). */
  labReset: NightlyLabReset | null;
  /** The embedded nameserver (nameserver role): its listening port and zone store. */
  nameserver: { server: DnsServer; store: ZoneStore; feed: NameserverFeed; renotifyLagging: () => Promise<number> } | null;
  /** Where DS records go (docs/lab.md "Registrar"): the lab's simulated registry, or production's none. */
  registrar: Registrar;
  /** The publication worker (worker role). */
  publication: PublicationWorker | null;
  /** The webhook delivery worker (worker role). */
  webhooks: DeliveryWorker | null;
  /** The nameserver and worker roles when they run in a thread of their own (THREADED_ROLES); then the three above are null. */
  rolesThread: RolesThread | null;
  /** Readiness and counters of the roles this thread runs, as /metrics and /healthz read them. */
  counters(): Promise<RolesCounters>;
  logger: Logger;
  /** Stops accepting, finishes in-flight requests, stops workers, closes the database. */
  stop(): Promise<void>;
}

function billingFor(config: Config, services: { db: Services['db'] }): BillingDirectory {
  if (config.deployment === 'sandbox') return new LabBillingDirectory(services.db);
  return config.billing.url ? new HttpBillingDirectory(config.billing.url, config.billing.token) : noBillingSystem;
}

export async function startService(config: Config, overrides: ServiceOverrides = {}): Promise<RunningService> {
  const logger = overrides.logger ?? createLogger(config.logLevel);
  const clock = overrides.clock ?? systemClock;
  const stack: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    while (stack.length) await stack.pop()!().catch((err) => logger.error({ err }, 'shutdown step failed'));
  };

  setLockOrderViolationHandler(overrides.onLockOrderViolation ?? ((violation) => logger.error({ err: violation }, 'lock order violated')));
  try {
    const { db, databaseUrl } = await openDatabase(config, logger, overrides, (step) => stack.push(step));

    const cursors = new CursorCodec(await sharedSecret(db, 'cursor_hmac'), clock);
    const lab = config.deployment === 'sandbox';
    const kek = await loadKeyEncryptionKey(config.keyEncryptionKey, config.dataDir);
    const registrar: Registrar = lab ? new LabRegistrar(db, config, clock) : noRegistrar;
    // Filled in by the nameserver role; until then (and without it) DNS_HOST:DNS_PORT.
    const running: Wiring['running'] = {
      lab: null,
      labReset: null,
      nameserver: null,
      publication: null,
      webhooks: null,
      rolesThread: null,
      httpUrl: null,
      registrar,
    };
    const dnssec = new DnssecWorker({
      db,
      clock,
      logger,
      servers: () => [...ownNameservers(config, running), ...config.dns.secondaries],
      observer: () => {
        if (config.dnssec.resolver) return { server: config.dnssec.resolver, recursive: true };
        const own = lab ? ownNameservers(config, running)[0] : undefined;
        return own ? { server: own, recursive: false } : null;
      },
      validator: config.dnssec.validator,
      trustAnchors: trustAnchorsFor(config, db),
      registrar,
      dnskeyTtl: config.dnssec.dnskeyTtl,
      dsTtl: config.dnssec.dsTtl,
      checkIntervalMs: config.dnssec.checkIntervalMs,
      zskLifetimeMs: config.dnssec.zskLifetimeDays * 86_400_000,
      kek,
    });
    const dnssecDeps: DnssecDeps = { config, kek, registrar, checkNow: (zoneId) => dnssec.checkZone(zoneId) };
    const services = createServices({
      db,
      clock,
      config,
      billing: overrides.billing ?? billingFor(config, { db }),
      cursors,
      dnssec: dnssecDeps,
      rdns: { observeDelegation: lab ? labDelegationObserver(db) : resolverDelegationObserver(config.dnssec.resolver) },
      statsContributors: [webhookStats],
      labResetSteps: lab ? [resetLabParents(config, clock), resetLabReverseDns(config, clock, dnssecDeps), resetLabWebhooks] : [],
      liveWaiters: new LiveWaiters({ db, databaseUrl, onError: (err) => logger.warn({ err }, 'waiting until live: a read or the LISTEN connection failed') }),
    });
    // Its LISTEN connection, in whichever role waited (the API stops it earlier, see startApiRole).
    stack.push(() => services.liveWaiters.stop());

    const wiring: Wiring = {
      config,
      clock,
      logger,
      db,
      databaseUrl,
      services,
      onStop: (step) => stack.push(step),
      shutdownGraceMs: overrides.shutdownGraceMs ?? 25_000,
      running,
      kek,
      dnssec,
    };
    if (config.deployment === 'sandbox') {
      if (!overrides.prepared) {
        const seeded = await ensureLabSeed(db, config.dataDir, clock.now());
        await db.transaction(async (trx) => {
          await advisoryLock(trx, 'deployment', 'lab-seed');
          await seedLabReverseDns(trx, config, clock, dnssecDeps);
        });
        wiring.running.lab = { tokensFile: seeded.file, tokens: seeded.tokens };
      }
    }
    const threaded = threadedRoles(config);
    if (threaded.length) {
      // A clock injected here cannot reach another thread: such tests run every role here.
      if (overrides.clock) throw new Error('an injected clock needs THREADED_ROLES=off');
      const thread = await startRolesThread(
        { source: { ...config.source }, roles: threaded, databaseUrl, serviceModule: import.meta.url },
        logger,
        overrides.onFatal ?? exitForSupervisor(logger, 'the roles thread stopped'),
      );
      stack.push(() => thread.stop());
      wiring.running.rolesThread = thread;
    }
    for (const { role, start } of ROLES) if (config.roles.includes(role) && !threaded.includes(role)) await start(wiring);

    return { config, services, logger, stop: stopAll, counters: () => countersOf(wiring.running), ...wiring.running };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/**
 * The database: the embedded PostgreSQL without DATABASE_URL (DATA_DIR locked first), migrated on
 * a connection of its own, then the bounded pool everything else uses.
 */
async function openDatabase(config: Config, logger: Logger, overrides: ServiceOverrides, onStop: Wiring['onStop']): Promise<{ db: Db; databaseUrl: string }> {
  let databaseUrl = config.databaseUrl;
  if (!databaseUrl) {
    // Before anything under DATA_DIR is touched: a second service here would stop our database.
    const lock = await lockDataDir(config.dataDir);
    onStop(() => lock.release());
    const component = { component: 'embedded-postgres' };
    const embedded = await startEmbeddedPostgres({
      dir: path.join(config.dataDir, 'postgres'),
      port: config.embeddedPostgresPort,
      database: 'managed_dns',
      log: (m) => logger.debug(component, m),
      warn: (m) => logger.warn(component, m),
      // docs/operations.md: restarted in place (the nameserver keeps answering, the API says 503
      // meanwhile); if that fails, the process exits non-zero for its supervisor.
      supervision: {
        exited: (reason) => logger.error({ ...component, reason }, 'embedded PostgreSQL exited unexpectedly; restarting it'),
        restarted: () => logger.info(component, 'embedded PostgreSQL restarted'),
        gaveUp: (err) => (overrides.onFatal ?? exitForSupervisor(logger, 'embedded PostgreSQL cannot be restarted'))(err),
      },
    });
    onStop(() => embedded.stop());
    databaseUrl = embedded.url;
    logger.info({ port: config.embeddedPostgresPort, dir: path.join(config.dataDir, 'postgres') }, 'embedded PostgreSQL started');
  }
  // Knex's warnings (a connection lost while PostgreSQL is away) as JSON log lines, not console text.
  const knexLog = {
    warn: (message: string) => logger.warn({ component: 'knex' }, message),
    error: (message: string) => logger.error({ component: 'knex' }, message),
  };
  // Migrations run unbounded on a connection of their own: a long one is not an outage.
  if (!overrides.prepared) {
    const migrator = createDb(databaseUrl, 1, knexLog);
    try {
      await migrateToLatest(migrator);
    } finally {
      await migrator.destroy();
    }
  }
  const db = createDb(databaseUrl, undefined, knexLog, config.database);
  onStop(() => db.destroy());

  return { db, databaseUrl };
}

/** What the roles are started with, and what they leave running (RunningService's parts). */
interface Wiring {
  config: Config;
  clock: Clock;
  logger: Logger;
  db: Db;
  databaseUrl: string;
  services: Services;
  /** Registers a shutdown step; steps run in reverse order of registration. */
  onStop(step: () => Promise<void>): void;
  shutdownGraceMs: number;
  running: Pick<RunningService, 'lab' | 'labReset' | 'nameserver' | 'publication' | 'webhooks' | 'rolesThread' | 'httpUrl' | 'registrar'>;
  /** Decrypts zone keys for the build's sign step. */
  kek: Buffer;
  dnssec: DnssecWorker;
}

/** The own nameserver's addresses: this process's, else DNS_VERIFY_SERVERS, else DNS_HOST:DNS_PORT. */
function ownNameservers(config: Config, running: Wiring['running']) {
  const port = running.nameserver?.server.port ?? running.rolesThread?.dnsPort ?? null;
  const local = port === null ? [] : config.dns.hosts.map((host) => ({ host, port }));
  return [...local, ...(config.dns.verifyServers ?? (local.length ? [] : config.dns.hosts.map((host) => ({ host, port: config.dns.port }))))];
}

/**
 * The roles in start order (ROLES picks which run). The nameserver loads every zone before it
 * listens and before the worker verifies against it; the API listens last, when all is ready.
 */
const ROLES: { role: Role; start(wiring: Wiring): Promise<void> }[] = [
  { role: 'nameserver', start: startNameserverRole },
  { role: 'worker', start: startWorkerRole },
  { role: 'api', start: startApiRole },
];

/** The nameserver never answers from a partial store: it listens once every zone is loaded. */
async function startNameserverRole(w: Wiring): Promise<void> {
  const { config, logger, running } = w;
  const store = config.dns.udpProcesses > 1 ? new MirroredZoneStore() : new ZoneStore();
  let server: DnsServer | null = null;
  const feed = new NameserverFeed({
    db: w.db,
    databaseUrl: w.databaseUrl,
    store,
    logger,
    onLoaded: (zoneId, origin, serial) => {
      // The zones loaded at start-up need no NOTIFY: secondaries ask by their refresh timer.
      if (serial !== null && server) void notifyFleet({ db: w.db, server, logger, secondaries: config.dns.secondaries }, zoneId, origin, serial);
      running.publication?.verifySoon(zoneId);
    },
    // Set before the zones they restrict are served (the feed reads them first).
    onAccess: (lists) => server?.setZoneAccess(lists),
  });
  await feed.start();
  w.onStop(() => feed.stop());
  // The tenants' keys are read before the server listens and set before it answers anything.
  const tenantKeys = await tenantTsigKeysOf(w);
  server = await startDnsServer({
    hosts: config.dns.hosts,
    port: config.dns.port,
    store,
    maxTcpConnections: config.dns.maxTcpConnections,
    maxTcpConnectionsPerClient: config.dns.maxTcpConnectionsPerClient,
    tcpIdleMs: config.dns.tcpIdleMs,
    tcpIoTimeoutMs: config.dns.tcpIoTimeoutMs,
    transferAllow: config.dns.transferAllow,
    tsigKeys: config.dns.tsigKeys,
    udpTransport: config.dns.udpTransport,
    udpAddonPath: config.dns.udpAddonPath ?? undefined,
    updates: dnsUpdateHandler(w),
    zoneAccess: feed.zoneAccess,
    rateLimit: config.dns.rateLimit,
    logger,
  });
  const listening = server;
  listening.setTenantTsigKeys(tenantKeys);
  w.onStop(() => listening.close());
  // Before the sockets close: UPDATEs waiting until live are answered now (they are committed).
  w.onStop(() => w.services.liveWaiters.stop());
  await followTenantTsigKeys(w, (keys) => listening.setTenantTsigKeys(keys));
  if (store instanceof MirroredZoneStore) {
    await store.startHelpers(config.dns.udpProcesses - 1, listening.udp, {
      transferAllow: config.dns.transferAllow,
      tsigKeys: config.dns.tsigKeys,
      handler: listening.handler,
      rateLimit: config.dns.rateLimit,
    });
    w.onStop(() => store.stopHelpers());
  }
  // Set secondaries still behind a minute on are told again (notifyFleet.ts renotifyLagging).
  const fleet = { db: w.db, server: listening, logger, secondaries: config.dns.secondaries };
  const renotify = () => renotifyLagging(fleet, w.clock.now());
  const renotifyJob = new PeriodicJob({
    name: 'NOTIFY to lagging secondaries',
    intervalMs: RENOTIFY_AFTER_MS,
    jitter: 0.1,
    logger,
    failureLevel: 'warn',
    run: renotify,
  });
  renotifyJob.start();
  w.onStop(() => renotifyJob.stop());
  running.nameserver = { server: listening, store, feed, renotifyLagging: renotify };
  logger.info({ hosts: config.dns.hosts, port: listening.port }, 'nameserver listening (UDP and TCP)');
}

/** Every tenant's TSIG key as the nameserver's key ring holds it (owner: the key's id). */
const tenantTsigKeysOf = async (w: Wiring): Promise<TsigKey[]> =>
  (await loadTenantTsigKeys(w.db, w.kek)).map((k) => ({ name: k.name, algorithm: k.algorithm, secret: k.secret, owner: k.id }));

/** How often the tenants' keys are read again without a notification (one lost while the LISTEN connection was away). */
const TSIG_KEYS_RELOAD_MS = 60_000;

/**
 * Keeps the nameserver's tenant keys current (docs/credentials.md "For the nameservers"): read
 * again on every TSIG_KEYS_CHANNEL notification (the commit of a key's creation, rotation, policy
 * change or deletion), after every (re)connection of the LISTEN connection, and every minute.
 * Reads that overlap are coalesced: one more read follows the one in flight.
 */
async function followTenantTsigKeys(w: Wiring, apply: (keys: TsigKey[]) => void): Promise<void> {
  let inFlight: Promise<void> | null = null;
  let again = false;
  const reload = (): Promise<void> => {
    if (inFlight) {
      again = true;
      return inFlight;
    }
    inFlight = (async () => {
      do {
        again = false;
        apply(await tenantTsigKeysOf(w));
      } while (again);
    })().finally(() => (inFlight = null));
    return inFlight;
  };
  const reloadLogged = () =>
    void reload().catch((err: unknown) => w.logger.warn({ err }, 'reading the tenants’ TSIG keys failed; the nameserver keeps the keys it has'));
  const listener = new NotificationListener({
    url: w.databaseUrl,
    channels: [TSIG_KEYS_CHANNEL],
    onNotification: reloadLogged,
    onConnected: reloadLogged,
    onError: (err) => w.logger.warn({ err }, 'the TSIG key listener lost its database connection; keys are read again when it is back'),
  });
  await listener.start();
  w.onStop(() => listener.stop());
  const job = new PeriodicJob({ name: 'tenant TSIG keys', intervalMs: TSIG_KEYS_RELOAD_MS, jitter: 0.1, logger: w.logger, failureLevel: 'warn', run: reload });
  job.start();
  w.onStop(() => job.stop());
}

/**
 * RFC 2136 UPDATEs the nameserver verified (signed, for a served zone, well formed), applied by
 * the service (src/services/dnsUpdate/dnsUpdate.ts); every outcome is logged. A failure of the
 * service itself (the database, its deadline) answers SERVFAIL.
 */
function dnsUpdateHandler(w: Wiring): UpdateHandler {
  const inFlight = new UpdatesInFlight();
  return async (request) => {
    const fields = { zone: request.zone, key: request.key?.name ?? null, transport: request.transport, client: request.remoteAddress };
    try {
      const { value: result, copy } = await inFlight.run(request, () => applyDnsUpdate(w.services, request));
      const logged = {
        ...fields,
        keyId: result.keyId,
        requestId: result.requestId,
        rcode: result.rcode,
        changeSet: result.changeSetId,
        live: result.live,
        reason: result.reason,
      };
      if (copy) w.logger.info(logged, 'dynamic update sent again while applied: answered as the first');
      else if (result.rcode !== 'NOERROR') w.logger.info(logged, 'dynamic update not applied');
      else if (result.live !== null && result.live !== 'live') w.logger.warn(logged, 'dynamic update committed; answered before it was live');
      else w.logger.info(logged, 'dynamic update applied');
      return RCODE[result.rcode];
    } catch (err) {
      w.logger.error({ ...fields, err }, 'dynamic update failed; answered SERVFAIL');
      return RCODE.SERVFAIL;
    }
  };
}

/** The background work: nightly lab reset, maintenance, publication. */
async function startWorkerRole(w: Wiring): Promise<void> {
  const { config, logger, running } = w;
  if (config.deployment === 'sandbox') {
    const labReset = new NightlyLabReset(w.db, w.clock, config.labResetTime, w.services.labResetSteps, logger, () => w.services.tokens.invalidate());
    running.labReset = labReset;
    labReset.start();
    w.onStop(() => labReset.stop());
    // The lab's parent zones: every zone there is gets its delegation before the worker goes on.
    const parents = new LabParentSync(w.db, config, w.clock, logger, w.services.dnssec);
    await parents.start();
    w.onStop(() => parents.stop());
  }
  const maintenance = new MaintenanceLoop(w.db, w.clock, logger);
  maintenance.start();
  w.onStop(() => maintenance.stop());
  // The backend's zone quota for the platform's stats: read now and every 15 minutes, never by a request.
  const quota = new PeriodicJob({
    name: 'backend quota reading',
    intervalMs: BACKEND_QUOTA_INTERVAL_MS,
    jitter: 0.1,
    logger,
    run: () => readBackendQuota(w.db, w.clock, config.zones.backendCapacity),
  });
  await readBackendQuota(w.db, w.clock, config.zones.backendCapacity).catch((err: unknown) => logger.warn({ err }, 'backend quota reading failed'));
  quota.start();
  w.onStop(() => quota.stop());

  // A version is live when every nameserver of the service serves it: this process's own (if
  // it has the nameserver role), the other nameserver processes listed in DNS_VERIFY_SERVERS
  // (without that list and without an own nameserver: DNS_HOST:DNS_PORT), and every secondary.
  const own = running.nameserver;
  const nameservers = () => ownNameservers(config, running);
  const store = own?.store;
  const probe =
    own && store instanceof MirroredZoneStore
      ? withHelperProcesses(
          dnsSoaProbe(),
          (s) => s.port === own.server.port && config.dns.hosts.includes(s.host),
          (zone) => store.servingSerial(zone),
        )
      : dnsSoaProbe();
  const publication = new PublicationWorker({
    db: w.db,
    databaseUrl: w.databaseUrl,
    clock: w.clock,
    logger,
    localFeed: own !== null,
    verify: { probe, nameservers, secondaries: config.dns.secondaries },
    nameservers: config.zones.nameservers,
    dnssec: { kek: w.kek, dnskeyTtl: config.dnssec.dnskeyTtl, signingThread: config.dnssec.signingThread },
  });
  running.publication = publication;
  await publication.start();
  w.onStop(() => publication.stop());

  // Customer prefixes: every reverse zone's delegation looked at again once a day (docs/rdns.md).
  const delegations = new PeriodicJob({
    name: 'prefix delegation check',
    intervalMs: 60_000,
    jitter: 0.1,
    logger,
    failureLevel: 'warn',
    run: () =>
      checkDueDelegations({ db: w.db, clock: w.clock, nameservers: config.zones.nameservers, observe: (zone) => w.services.rdns.observeDelegation(zone) }),
  });
  delegations.start();
  w.onStop(() => delegations.stop());
  // Address spaces: the forward records of their default PTRs beyond a request's first chunk
  // (docs/rdns.md), looked for every second; a stop waits only for the chunk in flight.
  let stoppingForwardRecords = false;
  const forwardRecords = new PeriodicJob({
    name: 'forward records of default PTRs',
    intervalMs: 1000,
    jitter: 0.1,
    logger,
    failureLevel: 'warn',
    run: () => writeDueForwardRecords({ db: w.db, config, clock: w.clock }, () => stoppingForwardRecords),
  });
  forwardRecords.start();
  w.onStop(() => {
    stoppingForwardRecords = true;
    return forwardRecords.stop();
  });

  // Webhooks: beside the publication pipeline, never in it (docs/webhooks.md "Delivery").
  const webhooks = new DeliveryWorker({
    db: w.db,
    clock: w.clock,
    logger,
    kek: w.kek,
    sender: createSender(addressPolicyFor(config), config.webhooks.perWebhookConcurrency),
    concurrency: config.webhooks.concurrency,
    perWebhookConcurrency: config.webhooks.perWebhookConcurrency,
    pollIntervalMs: config.webhooks.pollIntervalMs,
  });
  running.webhooks = webhooks;
  webhooks.start();
  w.onStop(() => webhooks.stop());
  // Queued mail goes to the SMTP server; the lab keeps it in its outbox (GET /lab/mails).
  if (config.mail.smtpUrl) {
    const mail = new MailSender(config.mail.smtpUrl, config.mail.from);
    const mailJob = new PeriodicJob({
      name: 'mail',
      intervalMs: Math.max(config.webhooks.pollIntervalMs, 1000),
      jitter: 0.1,
      logger,
      failureLevel: 'warn',
      run: () => mail.sendDue(w.db, w.clock.now()),
    });
    mailJob.start();
    w.onStop(() => mailJob.stop());
  } else if (config.deployment === 'production') {
    logger.warn('SMTP_URL is not set: mail (disabled webhooks) stays queued in mail_outbox');
  }

  // DNSSEC transitions advance on what the real DNS shows (docs/dnssec.md "States").
  const dnssecJob = new PeriodicJob({
    name: 'dnssec',
    intervalMs: config.dnssec.checkIntervalMs,
    jitter: 0.1,
    logger,
    failureLevel: 'warn',
    run: (signal) => w.dnssec.runDue(undefined, signal),
  });
  dnssecJob.start();
  w.onStop(() => dnssecJob.stop());
}

async function startApiRole(w: Wiring): Promise<void> {
  const { config, logger, db, running } = w;
  const readiness: ReadinessCheck[] = [
    {
      name: 'database',
      check: () =>
        withinMs(
          READINESS_TIMEOUT_MS,
          db.raw('SELECT 1').then(() => true),
        ),
    },
  ];
  const metrics = createMetrics();
  // The roles beside this one, in this thread or in the roles' thread (the same counters either
  // way). One scrape reads them once for all its gauges: prom-client collects them in parallel,
  // so a read still in flight is shared; once it settled the next read asks again (a reuse window
  // would hide queries answered between two quick scrapes).
  let reading: Promise<RolesCounters> | null = null;
  const counters = () => (reading ??= countersOf(running).finally(() => setImmediate(() => (reading = null))));
  if (config.roles.includes('nameserver')) {
    const nameserver = async () => (await counters()).nameserver!;
    readiness.push({
      name: 'nameserver',
      check: () =>
        withinMs(
          READINESS_TIMEOUT_MS,
          nameserver().then((n) => n.ready),
        ),
    });
    registerNameserverMetrics(metrics.registry, async () => (await nameserver()).counters);
  }
  const degradedChecks: ReadinessCheck[] = [];
  if (config.roles.includes('worker')) {
    registerBuildMetrics(metrics.registry, async () => (await counters()).builds!);
    // Read from the rows the verifier writes (secondary_lag), wherever the verifier runs.
    const fleetLag = async () => lagReadings(await readFleetLag(w.db), w.clock.now());
    registerSecondaryLagMetrics(metrics.registry, fleetLag);
    // A secondary of a set lagging for minutes: writes wait `pushed` (never lost); the service still serves.
    // Bounded like the database check: with PostgreSQL unresponsive /healthz still answers at once.
    degradedChecks.push({
      name: 'secondaries',
      check: () =>
        withinMs(
          READINESS_TIMEOUT_MS,
          fleetLag().then((readings) => lagging(readings).length === 0),
        ),
    });
    registerWebhookMetrics(
      metrics.registry,
      async () => (await counters()).webhooks!.attempts,
      async () => (await counters()).webhooks!.inFlight,
    );
  }
  const jobs = async () => (await counters()).jobs;
  registerJobMetrics(metrics.registry, jobs);
  registerLiveWaitMetrics(metrics.registry, () => w.services.liveWaiters.waiting);
  const inFlight = new InFlightRequests();
  const app = createApp({
    services: w.services,
    logger,
    metrics,
    readiness,
    degradedChecks,
    inFlight,
    jobs: async () => Object.fromEntries(Object.entries(await jobs()).map(([name, j]) => [name, j.state])),
  });
  const stopWatch = watchSlowRequests({
    inFlight,
    db,
    connectionString: w.databaseUrl,
    thresholdMs: config.http.slowRequestLogMs,
    report: (stage, fields) => {
      metrics.slowRequests.inc({ stage });
      logger.warn(fields, 'slow request');
    },
  });
  w.onStop(async () => stopWatch());
  // Errors outside the middleware (a request cut off by requestTimeout, a client gone while we
  // answered): Koa prints them as console text unless someone listens.
  app.on('error', (err: unknown) => logger.warn({ err }, 'HTTP connection failed'));
  const server = http.createServer(
    {
      // A request must arrive whole within this (Node's default is 300 s): a client trickling
      // its body holds a socket and a parser. Node answers 408 and closes the connection.
      requestTimeout: config.http.requestTimeoutMs,
      headersTimeout: Math.min(config.http.requestTimeoutMs, 60_000),
      // Node looks for expired requests this often (default 30 s, which would double the bound).
      connectionsCheckingInterval: Math.min(1000, config.http.requestTimeoutMs / 4),
    },
    app.callback(),
  );
  server.keepAliveTimeout = 5000;
  answerConnectRequests(server, app.callback());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.http.port, config.http.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  running.httpUrl = `http://${host}:${address.port}`;
  w.onStop(() => closeGracefully(server, w.shutdownGraceMs, logger));
  // Before the server waits for requests in flight: answers waiting until live go out now.
  w.onStop(() => w.services.liveWaiters.stop());
  logger.info({ url: running.httpUrl }, 'HTTP API listening');
}

/**
 * The readiness check's own bound: `/healthz` must say "database down" at once, not after the
 * statement timeout (a monitor's probe gives up after a second or two).
 */
const READINESS_TIMEOUT_MS = 1000;

/** false when `check` has not resolved true within `ms` (it may go on; its result is ignored). */
function withinMs(ms: number, check: Promise<boolean>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  return Promise.race([check.catch(() => false), late]).finally(() => clearTimeout(timer));
}

/** The nameserver's counters as /metrics shows them: summed over its processes, queries also per process. */
function nameserverCounters(main: ServerStats, helpers: readonly ServerStats[], zonesLoaded: number, udpTransport: string): NameserverCounters {
  const total = sumStats([main, ...helpers]);
  const queriesByProcess: Record<string, number> = { main: main.queries.udp + main.queries.tcp };
  helpers.forEach((h, i) => (queriesByProcess[`helper-${i + 1}`] = h.queries.udp + h.queries.tcp));
  return {
    queries: total.queries,
    responses: total.responses,
    cache: total.cache,
    errors: total.errors,
    rateLimit: total.rateLimit,
    queriesByProcess,
    zonesLoaded,
    udpTransport,
    udpUnsent: total.udpUnsent,
  };
}

/** Stops accepting connections and waits for in-flight requests, up to the grace period. */
function closeGracefully(server: http.Server, graceMs: number, logger: Logger): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      logger.warn('grace period over; closing remaining connections');
      server.closeAllConnections();
    }, graceMs);
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}
