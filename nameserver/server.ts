// The authoritative nameserver's network side: UDP and TCP listeners on every configured address,
// all on one port, handing each message to the QueryHandler (server/queryHandler.ts) and sending
// back what it returns, now or (an UPDATE) later; NOTIFY to secondaries (transfer/notify.ts).
// Socket errors are logged and never end the process; the handler never throws.
import net from 'node:net';
import type { ZoneStore } from './zone/store.js';
import type { NameserverLogger } from './server/logger.js';
import type { TsigKeyConfig } from './server/keyRing.js';
import { QueryHandler } from './server/queryHandler.js';
import type { ResponseCacheOptions } from './server/responseCache.js';
import type { ResponseRateLimitOptions } from './server/responseRateLimit.js';
import { copyStats, emptyStats, type ServerStats } from './server/serverStats.js';
import { TcpConnections } from './server/tcpConnections.js';
import {
  bindUdpEndpoint,
  chooseUdpTransport,
  type UdpEndpoint,
  type UdpSharing,
  type UdpTransportChoice,
  type UdpTransportMode,
} from './server/udpEndpoint.js';
import { serveUdp } from './server/udpLoop.js';
import type { UpdateHandler } from './server/updates.js';
import { notifyTarget, type NotifyOptions, type NotifyResult, type NotifyTarget } from './transfer/notify.js';
import type { TsigKey } from './wire/tsig.js';
import type { ZoneAccess } from './server/zoneAccess.js';

export type { NameserverLogger } from './server/logger.js';
export { QueryHandler, type QueryContext, type Reply, type TransferReply } from './server/queryHandler.js';
export { sumStats, type ServerStats } from './server/serverStats.js';
export { RRL_DEFAULTS, type ResponseRateLimitOptions } from './server/responseRateLimit.js';
export type { NotifyResult, NotifyTarget } from './transfer/notify.js';
export type { TsigKeyConfig } from './server/keyRing.js';
export type { ZoneAccess } from './server/zoneAccess.js';
export type { UdpSharing, UdpTransportKind, UdpTransportMode } from './server/udpEndpoint.js';
export type { UpdateHandler, UpdateRecord, UpdateRequest } from './server/updates.js';
export type { TsigAlgorithm, TsigKey } from './wire/tsig.js';

export interface DnsServerOptions {
  /** Addresses to listen on, UDP and TCP each ("127.0.0.1", "::1", "0.0.0.0", "::"). */
  hosts: string[];
  /** 0: a free port, the same for UDP and TCP on every host. */
  port: number;
  store: ZoneStore;
  /** Open TCP connections; at the limit the least recently progressing one is closed for a new one. */
  maxTcpConnections: number;
  /** Open TCP connections from one address (default: maxTcpConnections, i.e. no bound of its own). */
  maxTcpConnectionsPerClient?: number;
  tcpIdleMs: number;
  /** Time for a TCP message to arrive whole once begun (default 2000 ms). */
  tcpIoTimeoutMs?: number;
  /** CIDR blocks allowed AXFR/IXFR ("127.0.0.1/32", "::1/128"). */
  transferAllow: string[];
  /**
   * The deployment's own TSIG keys (algorithm default hmac-sha256). When any is set, transfers
   * need a TSIG with one of them; NOTIFY is signed with the first. Tenants' keys: setTenantTsigKeys.
   */
  tsigKeys: TsigKeyConfig[];
  /** Applies RFC 2136 UPDATEs (signed ones, for served zones); without it UPDATE is NOTIMP. */
  updates?: UpdateHandler;
  /** The zones only some clients may read, from the first message on (later: setZoneAccess). */
  zoneAccess?: readonly ZoneAccess[];
  logger: NameserverLogger;
  /** Response cache bounds, or false to disable it. */
  cache?: ResponseCacheOptions | false;
  /** Response rate limiting of UDP answers (default: NSD's defaults), or false for none (server/responseRateLimit.ts). */
  rateLimit?: ResponseRateLimitOptions | false;
  /** NOTIFY retry policy (default 5 tries, first timeout 1 s, doubling). */
  notify?: NotifyOptions;
  /** Clock for TSIG (tests). */
  now?: () => Date;
  /** DNS_UDP_TRANSPORT (default auto: batched when the addon is built, else node:dgram). */
  udpTransport?: UdpTransportMode;
  /** The batched UDP addon (default: where native/build.mjs builds it). */
  udpAddonPath?: string;
}

export interface DnsServer {
  /** The port bound, UDP and TCP, on every host. */
  readonly port: number;
  /** True from start until close() begins. */
  readonly listening: boolean;
  /** The message handler the sockets use (for in-process tests). */
  readonly handler: QueryHandler;
  /** The UDP transport and how extra answering processes join it (udpProcesses.ts). */
  readonly udp: UdpSharing;
  /**
   * RFC 1996 NOTIFY for `origin` at `serial` to each target, retried until acknowledged; resolves
   * when every target acknowledged or gave up. Targets are told in parallel, so one that is down
   * holds up no other; a newer serial of the zone for the same target ends the retries of the
   * older one (at most one NOTIFY per zone and target is in flight). Signed with `key` when given
   * (null: unsigned), else with the first deployment key. Never throws.
   */
  notifySecondaries(origin: string, serial: number, targets: NotifyTarget[], options?: { key?: TsigKey | null }): Promise<NotifyResult[]>;
  /**
   * Replaces the tenants' TSIG keys at once (each with its owner, the service's credential id) in
   * this process; UDP helper processes started with this server's handler get them too
   * (udpProcesses.ts). A deployment key of the same name wins. They sign queries, NOTIFY and
   * UPDATE, never transfers.
   */
  setTenantTsigKeys(keys: TsigKey[]): void;
  /**
   * Replaces the zones' access lists (server/zoneAccess.ts) at once in this process and in the UDP
   * helper processes started with this server's handler.
   */
  setZoneAccess(lists: readonly ZoneAccess[]): void;
  /** Counters since start. */
  stats(): ServerStats;
  /** Stops listening, closes open TCP connections and abandons pending NOTIFY retries. */
  close(): Promise<void>;
}

interface Listener {
  host: string;
  udp: UdpEndpoint;
  tcp: net.Server;
}

const BIND_ATTEMPTS = 20;
/** Knot's tcp-io-timeout is 500 ms; a little more leaves room for a retransmission on a lossy path. */
const DEFAULT_TCP_IO_TIMEOUT_MS = 2000;

export async function startDnsServer(options: DnsServerOptions): Promise<DnsServer> {
  if (options.hosts.length === 0) throw new RangeError('startDnsServer needs at least one host');
  const { logger } = options;
  const stats = emptyStats();
  const handler = new QueryHandler({
    store: options.store,
    transferAllow: options.transferAllow,
    tsigKeys: options.tsigKeys,
    updates: options.updates,
    logger,
    cache: options.cache,
    now: options.now,
    stats,
    rateLimit: options.rateLimit,
  });
  if (options.zoneAccess) handler.setZoneAccess(options.zoneAccess);
  const limits = {
    maxConnections: options.maxTcpConnections,
    maxPerClient: options.maxTcpConnectionsPerClient ?? options.maxTcpConnections,
    idleMs: options.tcpIdleMs,
    ioTimeoutMs: options.tcpIoTimeoutMs ?? DEFAULT_TCP_IO_TIMEOUT_MS,
  };
  const connections = new TcpConnections(handler, limits, logger, stats);

  const choice = chooseUdpTransport(options.udpTransport ?? 'auto', options.udpAddonPath);
  if (choice.kind === 'batched') logger.info({ transport: choice.kind, addon: choice.addonPath }, 'UDP transport: batched (recvmmsg/sendmmsg)');
  else logger.info({ transport: choice.kind, reason: choice.reason }, 'UDP transport: node:dgram');
  const udp = { choice, logger, onUnsent: (count: number) => (stats.udpUnsent += count) };
  const listeners = await bindAll(options.hosts, options.port, handler, connections, udp);
  const port = (listeners[0]!.tcp.address() as net.AddressInfo).port;
  const notifications = new AbortController();
  const pendingNotifies = new Set<Promise<unknown>>();
  // Per zone and target, the NOTIFY in flight: a newer serial supersedes it.
  const inFlight = new Map<string, AbortController>();
  let listening = true;
  let closing: Promise<void> | null = null;

  const notifyKey = handler.keyRing.deploymentKeys[0] ?? null;

  return {
    port,
    get listening() {
      return listening;
    },
    handler,
    udp: {
      transport: choice.kind,
      reason: choice.reason,
      addonPath: choice.addonPath,
      reusePort: choice.reusePort,
      hosts: options.hosts,
      port,
      sockets: choice.reusePort ? [] : listeners.map((l) => l.udp.socket!),
    },
    setTenantTsigKeys(keys) {
      handler.setTenantTsigKeys(keys);
    },
    setZoneAccess(lists) {
      handler.setZoneAccess(lists);
    },
    stats() {
      const copy = copyStats(stats);
      copy.cache.entries = handler.cacheSize;
      return copy;
    },
    async notifySecondaries(origin, serial, targets, notifyOptions) {
      if (!listening || targets.length === 0) return [];
      const zone = options.store.get(origin);
      const key = notifyOptions?.key === undefined ? notifyKey : notifyOptions.key;
      const run = Promise.all(
        targets.map(async (target) => {
          stats.notify.sent++;
          const slot = `${origin} ${target.host} ${target.port}`;
          inFlight.get(slot)?.abort();
          const mine = new AbortController();
          inFlight.set(slot, mine);
          try {
            const result = await notifyTarget({
              origin,
              serial,
              zone,
              target,
              key,
              logger,
              options: options.notify,
              signal: AbortSignal.any([notifications.signal, mine.signal]),
              now: options.now,
            });
            if (result.acknowledged) stats.notify.acknowledged++;
            else stats.notify.failed++;
            return result;
          } catch (err) {
            stats.notify.failed++;
            logger.error({ err, zone: origin, serial, target: `${target.host}:${target.port}` }, 'NOTIFY failed');
            return { ...target, acknowledged: false, attempts: 0, rcode: null };
          } finally {
            if (inFlight.get(slot) === mine) inFlight.delete(slot);
          }
        }),
      );
      pendingNotifies.add(run);
      try {
        return await run;
      } finally {
        pendingNotifies.delete(run);
      }
    },
    close() {
      closing ??= (async () => {
        listening = false;
        notifications.abort();
        connections.closeAll();
        await Promise.all(listeners.map(closeListener));
        await Promise.allSettled([...pendingNotifies]);
        logger.info({ port }, 'nameserver stopped');
      })();
      return closing;
    },
  };
}

/**
 * Binds UDP and TCP on every host to one port. With port 0 the first TCP listener picks it; when
 * another host or UDP finds it taken, everything is closed and tried again with a new one.
 */
async function bindAll(
  hosts: string[],
  port: number,
  handler: QueryHandler,
  connections: TcpConnections,
  udpOptions: { choice: UdpTransportChoice; logger: NameserverLogger; onUnsent: (count: number) => void },
): Promise<Listener[]> {
  const { choice, logger, onUnsent } = udpOptions;
  for (let attempt = 1; ; attempt++) {
    const bound: Listener[] = [];
    let chosen = port;
    try {
      for (const host of hosts) {
        const tcp = await listenTcp(host, chosen, connections, logger);
        chosen = (tcp.address() as net.AddressInfo).port;
        let udp: UdpEndpoint;
        try {
          udp = await bindUdpEndpoint(choice, host, chosen, { exclusive: true, logger, onUnsent });
        } catch (err) {
          await new Promise<void>((resolve) => tcp.close(() => resolve()));
          throw err;
        }
        serveUdp(udp.transport, (query) => handler.handleQuery(query.message, { transport: 'udp', remoteAddress: query.address }), handler.udpRateLimit);
        bound.push({ host, udp, tcp });
      }
      return bound;
    } catch (err) {
      await Promise.all(bound.map(closeListener));
      const inUse = (err as NodeJS.ErrnoException).code === 'EADDRINUSE';
      if (port !== 0 || !inUse || attempt >= BIND_ATTEMPTS) throw err;
      logger.debug({ port: chosen, attempt }, 'port taken on another address or for UDP; trying another');
    }
  }
}

function listenTcp(host: string, port: number, connections: TcpConnections, logger: NameserverLogger): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    // allowHalfOpen: a client that shuts down its sending side still gets its answers.
    const server = net.createServer({ allowHalfOpen: true, noDelay: true }, (socket) => connections.accept(socket));
    server.once('error', reject);
    server.listen({ host, port, ipv6Only: net.isIPv6(host), exclusive: true }, () => {
      server.off('error', reject);
      server.on('error', (err) => logger.error({ err, host, port }, 'TCP listener error'));
      resolve(server);
    });
  });
}

async function closeListener(listener: Listener): Promise<void> {
  await Promise.all([new Promise<void>((resolve) => listener.tcp.close(() => resolve())), listener.udp.close()]);
}
