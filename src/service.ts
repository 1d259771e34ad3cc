// Wires the concrete parts into a running service. main.ts calls it for `npm start`; tests call
// it to run the real service in-process on free ports with an injected clock.
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { createApp, type ReadinessCheck } from './api/app.js';
import { type BillingDirectory, noBillingSystem } from './billing/billingDirectory.js';
import { HttpBillingDirectory } from './billing/httpBillingDirectory.js';
import type { Config } from './config/index.js';
import { startEmbeddedPostgres } from './db/embeddedPostgres.js';
import { createDb, migrateToLatest } from './db/knex.js';
import { sharedSecret } from './db/secrets.js';
import { type Clock, systemClock } from './domain/clock.js';
import { CursorCodec } from './domain/cursor.js';
import { LabBillingDirectory } from './lab/labBillingDirectory.js';
import { NightlyLabReset } from './lab/nightlyReset.js';
import { ensureLabSeed, type LabTokensFile } from './lab/seed.js';
import { createLogger, type Logger } from './observability/logger.js';
import { createMetrics, registerNameserverMetrics } from './observability/metrics.js';
import { MaintenanceLoop } from './maintenance.js';
import { createServices, type Services } from './services/index.js';
import { startDnsServer, type DnsServer } from '../nameserver/server.js';
import { ZoneStore } from '../nameserver/zone/store.js';
import { NameserverFeed } from './publication/nameserverFeed.js';
import { PublicationWorker } from './publication/publicationWorker.js';
import { dns2SoaProbe, withHelperProcesses } from './publication/soaProbe.js';
import { MirroredZoneStore } from '../nameserver/udpProcesses.js';

export interface ServiceOverrides {
  clock?: Clock;
  logger?: Logger;
  billing?: BillingDirectory;
  /** Grace period for in-flight requests on shutdown. */
  shutdownGraceMs?: number;
}

export interface RunningService {
  config: Config;
  services: Services;
  /** Base URL of the HTTP server, e.g. http://127.0.0.1:8080 (null without the api role). */
  httpUrl: string | null;
  lab: { tokensFile: string; tokens: LabTokensFile } | null;
  labReset: NightlyLabReset | null;
  /** The embedded nameserver (nameserver role): its listening port and zone store. */
  nameserver: { server: DnsServer; store: ZoneStore; feed: NameserverFeed } | null;
  /** The publication worker (worker role). */
  publication: PublicationWorker | null;
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

  try {
    let databaseUrl = config.databaseUrl;
    if (!databaseUrl) {
      const embedded = await startEmbeddedPostgres({
        dir: path.join(config.dataDir, 'postgres'),
        port: config.embeddedPostgresPort,
        database: 'managed_dns',
        log: (m) => logger.debug({ component: 'embedded-postgres' }, m),
        warn: (m) => logger.warn({ component: 'embedded-postgres' }, m),
      });
      stack.push(() => embedded.stop());
      databaseUrl = embedded.url;
      logger.info({ port: config.embeddedPostgresPort, dir: path.join(config.dataDir, 'postgres') }, 'embedded PostgreSQL started');
    }
    // Knex's warnings (a connection lost while PostgreSQL is away) as JSON log lines, not console text.
    const db = createDb(databaseUrl, undefined, {
      warn: (message) => logger.warn({ component: 'knex' }, message),
      error: (message) => logger.error({ component: 'knex' }, message),
    });
    stack.push(() => db.destroy());
    await migrateToLatest(db);

    const cursors = new CursorCodec(await sharedSecret(db, 'cursor_hmac'), clock);
    const services = createServices({ db, clock, config, billing: overrides.billing ?? billingFor(config, { db }), cursors });

    let lab: RunningService['lab'] = null;
    let labReset: NightlyLabReset | null = null;
    if (config.deployment === 'sandbox') {
      const seeded = await ensureLabSeed(db, config.dataDir, clock.now());
      lab = { tokensFile: seeded.file, tokens: seeded.tokens };
      labReset = new NightlyLabReset(db, clock, config.labResetTime, services.labResetSteps, logger, () => services.tokens.invalidate());
      if (config.roles.includes('worker')) {
        labReset.start();
        stack.push(async () => labReset!.stop());
      }
    }
    if (config.roles.includes('worker')) {
      const maintenance = new MaintenanceLoop(db, clock, logger);
      maintenance.start();
      stack.push(async () => maintenance.stop());
    }

    // The nameserver loads every zone before it listens: it never answers from a partial store.
    let nameserver: RunningService['nameserver'] = null;
    let publication: PublicationWorker | null = null;
    if (config.roles.includes('nameserver')) {
      const store = config.dns.udpProcesses > 1 ? new MirroredZoneStore() : new ZoneStore();
      let server: DnsServer | null = null;
      const feed = new NameserverFeed({
        db,
        databaseUrl,
        store,
        logger,
        onLoaded: (zoneId, origin, serial) => {
          // The zones loaded at start-up need no NOTIFY: secondaries ask by their refresh timer.
          if (serial !== null && server) void server.notifySecondaries(origin, serial, config.dns.secondaries);
          publication?.verifySoon(zoneId);
        },
      });
      await feed.start();
      stack.push(() => feed.stop());
      server = await startDnsServer({
        hosts: config.dns.hosts,
        port: config.dns.port,
        store,
        maxTcpConnections: config.dns.maxTcpConnections,
        tcpIdleMs: config.dns.tcpIdleMs,
        transferAllow: config.dns.transferAllow,
        tsigKeys: config.dns.tsigKeys,
        logger,
      });
      const listening = server;
      stack.push(() => listening.close());
      if (store instanceof MirroredZoneStore) {
        await store.startHelpers(config.dns.udpProcesses - 1, listening.udpSockets, { transferAllow: config.dns.transferAllow, tsigKeys: config.dns.tsigKeys });
        stack.push(() => store.stopHelpers());
      }
      nameserver = { server: listening, store, feed };
      logger.info({ hosts: config.dns.hosts, port: listening.port }, 'nameserver listening (UDP and TCP)');
    }
    if (config.roles.includes('worker')) {
      // A version is live when every nameserver of the service serves it: this process's own (if
      // it has the nameserver role), the other nameserver processes listed in DNS_VERIFY_SERVERS
      // (without that list and without an own nameserver: DNS_HOST:DNS_PORT), and every secondary.
      const nameservers = () => {
        const own = nameserver ? config.dns.hosts.map((host) => ({ host, port: nameserver!.server.port })) : [];
        return [...own, ...(config.dns.verifyServers ?? (own.length ? [] : config.dns.hosts.map((host) => ({ host, port: config.dns.port }))))];
      };
      const store = nameserver?.store;
      const probe =
        store instanceof MirroredZoneStore
          ? withHelperProcesses(dns2SoaProbe(), (s) => s.port === nameserver!.server.port && config.dns.hosts.includes(s.host), (zone) => store.servingSerial(zone))
          : dns2SoaProbe();
      publication = new PublicationWorker({
        db,
        databaseUrl,
        clock,
        logger,
        localFeed: nameserver !== null,
        verify: { probe, nameservers, secondaries: config.dns.secondaries },
        nameservers: config.zones.nameservers,
      });
      await publication.start();
      const worker = publication;
      stack.push(() => worker.stop());
    }

    let httpUrl: string | null = null;
    if (config.roles.includes('api')) {
      const readiness: ReadinessCheck[] = [
        { name: 'database', check: async () => (await db.raw('SELECT 1'), true) },
      ];
      if (nameserver) {
        const { feed, server } = nameserver;
        readiness.push({ name: 'nameserver', check: async () => feed.ready && server.listening });
      }
      const metrics = createMetrics();
      if (nameserver) {
        const { server, feed } = nameserver;
        registerNameserverMetrics(metrics.registry, () => server.stats(), () => feed.zoneCount);
      }
      const app = createApp({ services, logger, metrics, readiness });
      const server = http.createServer(app.callback());
      server.keepAliveTimeout = 5000;
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(config.http.port, config.http.host, () => resolve());
      });
      const address = server.address() as AddressInfo;
      const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      httpUrl = `http://${host}:${address.port}`;
      stack.push(() => closeGracefully(server, overrides.shutdownGraceMs ?? 25_000, logger));
      logger.info({ url: httpUrl }, 'HTTP API listening');
    }

    return { config, services, httpUrl, lab, labReset, nameserver, publication, logger, stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
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
