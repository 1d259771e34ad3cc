// Extra processes answering UDP on the server's port, to put the other cores to work. Each opens
// a socket of its own on the main process's hosts and port with SO_REUSEPORT (the batched addon,
// or node:dgram from Node 22.12 on), and the kernel spreads the queries over the processes by
// their source address and port; only without either (node:dgram on Node 20) do the helpers read
// from the main process's sockets, their handles passed to them (server/udpEndpoint.ts). The main process stays the one that follows PostgreSQL: every change to its ZoneStore is
// sent to each helper, in order, and each helper acknowledges the serial it serves, so that
// `servingSerial` tells the publication verifier when every process answers a version.
//
// Helpers given the main process's QueryHandler (startHelpers' `handler`) also get the tenants'
// TSIG keys and the zones' access lists whenever they change, and hand every UPDATE they receive to the main process, which
// alone applies updates; its answer goes back to the client from the helper's socket.
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TsigKeyConfig } from './server/keyRing.js';
import type { QueryHandler } from './server/queryHandler.js';
import { RRL_DEFAULTS, type ResponseRateLimitOptions } from './server/responseRateLimit.js';
import type { UdpSharing } from './server/udpEndpoint.js';
import { emptyStats, type ServerStats } from './server/serverStats.js';
import type { ZoneDiff, ZoneRecord } from './types.js';
import { DEFAULT_TSIG_ALGORITHM, type TsigAlgorithm, type TsigKey } from './wire/tsig.js';
import type { ZoneSnapshot } from './zone/snapshot.js';
import type { ZoneAccess } from './server/zoneAccess.js';
import { ZoneStore } from './zone/store.js';

/** A record on the IPC channel: rdata as base64 (Buffers do not survive JSON serialisation). */
export type IpcRecord = [name: string, type: number, ttl: number, rdata: string];

/** A TSIG key on the IPC channel (secret as base64). */
export interface WireTsigKey {
  name: string;
  algorithm: TsigAlgorithm;
  secret: string;
  owner: string | null;
}

export type ToHelper =
  | { kind: 'config'; transferAllow: string[]; tsigKeys: WireTsigKey[]; forwardUpdates: boolean; rateLimit: ResponseRateLimitOptions | false }
  | { kind: 'tenantKeys'; keys: WireTsigKey[] }
  | { kind: 'zoneAccess'; lists: ZoneAccess[] }
  /** The main process's response to a forwarded UPDATE (base64), null when there is none. */
  | { kind: 'updateAnswer'; request: number; message: string | null }
  | { kind: 'set'; origin: string; records: IpcRecord[] }
  | { kind: 'diff'; origin: string; fromSerial: number; toSerial: number; removed: IpcRecord[]; added: IpcRecord[] }
  | { kind: 'remove'; origin: string }
  /** The main process's socket handle comes with this message (no SO_REUSEPORT). */
  | { kind: 'socket' }
  /** Open a socket of its own on each host at `port` (SO_REUSEPORT) with this transport. */
  | { kind: 'udp'; transport: UdpSharing['transport']; addonPath: string; hosts: string[]; port: number }
  | { kind: 'stats'; request: number };

export type FromHelper =
  | { kind: 'ready' }
  /** Answering UDP (`error`: its sockets could not be opened). */
  | { kind: 'listening'; error?: string }
  | { kind: 'serving'; origin: string; serial: number | null }
  | { kind: 'resync'; origin: string }
  | { kind: 'stats'; request: number; stats: ServerStats }
  /** An UPDATE datagram (base64) for the main process to answer. */
  | { kind: 'update'; request: number; message: string; remoteAddress: string };

/** How long helperStats waits for the helpers' counters before it reports the last ones known. */
const STATS_TIMEOUT_MS = 1000;

const toWire = (r: ZoneRecord): IpcRecord => [r.name, r.type, r.ttl, r.rdata.toString('base64')];
export const fromWire = ([name, type, ttl, rdata]: IpcRecord): ZoneRecord => ({ name, type, ttl, rdata: Buffer.from(rdata, 'base64') });
const keyToWire = (k: TsigKey): WireTsigKey => ({ name: k.name, algorithm: k.algorithm, secret: k.secret.toString('base64'), owner: k.owner });
export const keyFromWire = (k: WireTsigKey): TsigKey => ({ name: k.name, algorithm: k.algorithm, secret: Buffer.from(k.secret, 'base64'), owner: k.owner });

/** The answer of `handler` to an UPDATE a helper forwarded, as base64; null when there is none. Never rejects. */
async function answerForwarded(handler: QueryHandler, message: string, remoteAddress: string): Promise<string | null> {
  const reply = handler.handleQuery(Buffer.from(message, 'base64'), { transport: 'udp', remoteAddress });
  const answer = reply instanceof Promise ? await reply : reply;
  return Buffer.isBuffer(answer) ? answer.toString('base64') : null;
}

interface Helper {
  child: ChildProcess;
  serving: Map<string, number>;
  /** The counters it last reported (zeros until it first does). */
  stats: ServerStats;
  /** Waiting for its next report. */
  statsWaiters: (() => void)[];
}

/** A ZoneStore whose every change is mirrored to the helper processes. */
export class MirroredZoneStore extends ZoneStore {
  private readonly helpers: Helper[] = [];
  private statsRequests = 0;
  private unsubscribeKeys: (() => void) | null = null;
  private unsubscribeAccess: (() => void) | null = null;

  override set(snapshot: ZoneSnapshot, history: readonly ZoneDiff[] = []): void {
    super.set(snapshot, history);
    this.post({ kind: 'set', origin: snapshot.origin, records: [...snapshot.records()].map(toWire) });
  }

  override installDiff(origin: string, diff: ZoneDiff, next: ZoneSnapshot): ZoneSnapshot {
    super.installDiff(origin, diff, next);
    this.post({ kind: 'diff', origin, fromSerial: diff.fromSerial, toSerial: diff.toSerial, removed: diff.removed.map(toWire), added: diff.added.map(toWire) });
    return next;
  }

  override remove(origin: string): boolean {
    const removed = super.remove(origin);
    this.post({ kind: 'remove', origin });
    return removed;
  }

  private post(message: ToHelper, only?: Helper): void {
    for (const helper of only ? [only] : this.helpers) if (helper.child.connected) helper.child.send(message);
  }

  /**
   * The serial every helper serves for `origin`: the lowest, null when one of them does not serve
   * the zone, undefined without helpers.
   */
  servingSerial(origin: string): number | null | undefined {
    if (!this.helpers.length) return undefined;
    let lowest: number | null = Number.POSITIVE_INFINITY;
    for (const h of this.helpers) {
      const serial = h.serving.get(origin);
      if (serial === undefined) return null;
      lowest = Math.min(lowest, serial);
    }
    return lowest;
  }

  /**
   * Starts `count` helpers answering UDP on the server's port (`udp`: sockets of their own, or the
   * main process's handles). Each gets every zone first and opens or takes its sockets only once
   * it has acknowledged them all: a helper never answers from a partial store. Resolves when every
   * helper answers; rejects when one cannot open its sockets. With the main
   * process's `handler`, helpers follow its tenant TSIG keys and zone access lists and forward UPDATEs to it; without
   * one they answer UPDATE themselves (NOTIMP: they have no UpdateHandler).
   */
  async startHelpers(
    count: number,
    udp: UdpSharing,
    config: { transferAllow: string[]; tsigKeys: TsigKeyConfig[]; handler?: QueryHandler; rateLimit?: ResponseRateLimitOptions | false },
    onServing?: (origin: string) => void,
  ): Promise<void> {
    const { handler } = config;
    if (handler && !this.unsubscribeKeys)
      this.unsubscribeKeys = handler.keyRing.onTenantKeys((keys) => this.post({ kind: 'tenantKeys', keys: keys.map(keyToWire) }));
    // On the channel the zones take: a list set before its zone is served reaches a helper before the zone does.
    if (handler && !this.unsubscribeAccess)
      this.unsubscribeAccess = handler.zoneAccess.onChange((lists) => this.post({ kind: 'zoneAccess', lists: [...lists] }));
    const entry = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? './udpHelper.ts' : './udpHelper.js', import.meta.url));
    await Promise.all(
      Array.from({ length: count }, async () => {
        // Run from TypeScript sources (npm start, tests) the helper needs tsx's loader too.
        const child = fork(entry, [], { execArgv: entry.endsWith('.ts') ? ['--import', 'tsx'] : [], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
        const helper: Helper = { child, serving: new Map(), stats: emptyStats(), statsWaiters: [] };
        await new Promise<void>((resolve, reject) => {
          child.once('error', reject);
          child.once('exit', (code) => reject(new Error(`nameserver helper exited (${code}) before it was ready`)));
          child.once('message', (m: FromHelper) => (m.kind === 'ready' ? resolve() : reject(new Error('unexpected first message'))));
        });
        child.removeAllListeners('exit');
        child.on('message', (m: FromHelper) => {
          if (m.kind === 'serving') {
            if (m.serial === null) helper.serving.delete(m.origin);
            else helper.serving.set(m.origin, m.serial);
            onServing?.(m.origin);
          } else if (m.kind === 'stats') {
            helper.stats = m.stats;
            for (const wake of helper.statsWaiters.splice(0)) wake();
          } else if (m.kind === 'update' && handler) {
            void answerForwarded(handler, m.message, m.remoteAddress).then((message) =>
              this.post({ kind: 'updateAnswer', request: m.request, message }, helper),
            );
          } else if (m.kind === 'resync') {
            const snapshot = this.get(m.origin);
            if (snapshot) this.post({ kind: 'set', origin: m.origin, records: [...snapshot.records()].map(toWire) }, helper);
            else this.post({ kind: 'remove', origin: m.origin }, helper);
          }
        });
        const tsigKeys = config.tsigKeys.map((k) => ({
          name: k.name,
          algorithm: k.algorithm ?? DEFAULT_TSIG_ALGORITHM,
          secret: k.secret.toString('base64'),
          owner: null,
        }));
        const rateLimit = config.rateLimit ?? RRL_DEFAULTS;
        this.post({ kind: 'config', transferAllow: config.transferAllow, tsigKeys, forwardUpdates: Boolean(handler), rateLimit }, helper);
        if (handler) this.post({ kind: 'tenantKeys', keys: handler.keyRing.tenantKeys.map(keyToWire) }, helper);
        if (handler) this.post({ kind: 'zoneAccess', lists: [...handler.zoneAccess.all] }, helper);
        // Registered and replayed in one tick: later changes follow the replay on the same channel.
        this.helpers.push(helper);
        const origins = this.origins();
        for (const origin of origins) this.post({ kind: 'set', origin, records: [...this.get(origin)!.records()].map(toWire) }, helper);
        await new Promise<void>((resolve) => {
          const check = () => (origins.every((o) => helper.serving.has(o) || !this.get(o)) ? resolve() : setTimeout(check, 5));
          check();
        });
        // One acknowledgement for its own sockets, or one per handle passed.
        let awaited = udp.reusePort ? 1 : udp.sockets.length;
        const listening = new Promise<void>((resolve, reject) => {
          const onMessage = (m: FromHelper) => {
            if (m.kind !== 'listening') return;
            if (m.error) reject(new Error(`nameserver helper could not open its UDP sockets: ${m.error}`));
            else if (--awaited > 0) return;
            else resolve();
            child.off('message', onMessage);
          };
          child.on('message', onMessage);
        });
        if (udp.reusePort) this.post({ kind: 'udp', transport: udp.transport, addonPath: udp.addonPath, hosts: udp.hosts, port: udp.port }, helper);
        else for (const socket of udp.sockets) child.send({ kind: 'socket' } satisfies ToHelper, socket);
        await listening;
      }),
    );
  }

  /**
   * Each helper's counters since it started (for /metrics): asked for now, and what it last
   * reported when it does not answer within a second (counters never go back).
   */
  async helperStats(): Promise<ServerStats[]> {
    const request = ++this.statsRequests;
    await Promise.all(
      this.helpers.map(
        (helper) =>
          new Promise<void>((resolve) => {
            if (!helper.child.connected) return resolve();
            const timer = setTimeout(resolve, STATS_TIMEOUT_MS);
            timer.unref();
            helper.statsWaiters.push(() => {
              clearTimeout(timer);
              resolve();
            });
            this.post({ kind: 'stats', request }, helper);
          }),
      ),
    );
    return this.helpers.map((helper) => helper.stats);
  }

  async stopHelpers(): Promise<void> {
    this.unsubscribeKeys?.();
    this.unsubscribeKeys = null;
    this.unsubscribeAccess?.();
    this.unsubscribeAccess = null;
    const helpers = this.helpers.splice(0);
    await Promise.all(
      helpers.map(
        (h) =>
          new Promise<void>((resolve) => {
            if (h.child.exitCode !== null || h.child.signalCode !== null) return resolve();
            h.child.once('exit', () => resolve());
            h.child.kill('SIGTERM');
          }),
      ),
    );
  }
}
