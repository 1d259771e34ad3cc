// Which UDP transport the nameserver uses, chosen once at start, and its sockets: the batched
// addon (nativeUdp.ts) when it is built, else node:dgram. Every answering process (the main one
// and its helpers, udpProcesses.ts) opens a socket of its own on the same port with SO_REUSEPORT,
// so that the kernel spreads the queries over them; only node:dgram before Node 22.12, which
// cannot set SO_REUSEPORT, shares the main process's socket handle with the helpers instead.
import dgram from 'node:dgram';
import net from 'node:net';
import type { NameserverLogger } from './logger.js';
import { type BatchedUdpAddon, DEFAULT_ADDON_PATH, loadBatchedUdp, openBatchedSocket } from './nativeUdp.js';
import { dgramTransport, type UdpTransport } from './udpTransport.js';

/** DNS_UDP_TRANSPORT: `auto` takes the batched transport when the addon is built. */
export type UdpTransportMode = 'auto' | 'batched' | 'dgram';
export type UdpTransportKind = 'batched' | 'dgram';

export interface UdpTransportChoice {
  kind: UdpTransportKind;
  /** Why this one (shown in the log). */
  reason: string;
  /** Each process has a socket of its own (SO_REUSEPORT); false: helpers share the main one's handle. */
  reusePort: boolean;
  /** The addon's path (helper processes load it too). */
  addonPath: string;
  addon: BatchedUdpAddon | null;
}

/** How this server's UDP is done, and how helper processes answer on its port (udpProcesses.ts). */
export interface UdpSharing {
  /** The transport chosen at start, and why. */
  transport: UdpTransportKind;
  reason: string;
  addonPath: string;
  /** True: each process opens a socket of its own on `hosts` and `port` (SO_REUSEPORT). */
  reusePort: boolean;
  hosts: string[];
  port: number;
  /** Without SO_REUSEPORT: the main process's node:dgram sockets, one per host, whose handles helpers share. */
  sockets: dgram.Socket[];
}

/** Larger than the usual 208 KiB default, so that bursts are not dropped by the kernel. */
const UDP_RECEIVE_BUFFER = 4 * 1024 * 1024;

/** `reusePort` of dgram.createSocket: Node 22.12 and 23.1 on. */
function dgramHasReusePort(version = process.versions.node): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major >= 24 || (major === 23 && minor >= 1) || (major === 22 && minor >= 12);
}

/** The transport for `mode`; throws for `batched` when the addon cannot be loaded. */
export function chooseUdpTransport(mode: UdpTransportMode, addonPath = DEFAULT_ADDON_PATH): UdpTransportChoice {
  const dgramChoice = (reason: string): UdpTransportChoice => ({ kind: 'dgram', reason, reusePort: dgramHasReusePort(), addonPath, addon: null });
  if (mode === 'dgram') return dgramChoice('DNS_UDP_TRANSPORT=dgram');
  const loaded = loadBatchedUdp(addonPath);
  if ('addon' in loaded) return { kind: 'batched', reason: `addon ${addonPath}`, reusePort: true, addonPath, addon: loaded.addon };
  if (mode === 'batched') throw new Error(`DNS_UDP_TRANSPORT=batched, but the batched UDP addon cannot be used: ${loaded.error}`);
  return dgramChoice(loaded.error);
}

/** One bound UDP socket of this process. */
export interface UdpEndpoint {
  transport: UdpTransport;
  port: number;
  /** The node:dgram socket, to share its handle with helpers when there is no SO_REUSEPORT. */
  socket: dgram.Socket | null;
  close(): Promise<void>;
}

export interface UdpBindOptions {
  /** The first socket on the port (the main process): the port must be free. */
  exclusive: boolean;
  logger: NameserverLogger;
  /** Counts answers the kernel did not take. */
  onUnsent: (count: number) => void;
}

/** A socket on host:port with `choice`'s transport; rejects with the bind error (EADDRINUSE, …). */
export async function bindUdpEndpoint(choice: UdpTransportChoice, host: string, port: number, options: UdpBindOptions): Promise<UdpEndpoint> {
  if (choice.addon) {
    const socket = openBatchedSocket(choice.addon, host, port, { receiveBuffer: UDP_RECEIVE_BUFFER, exclusive: options.exclusive, onUnsent: options.onUnsent });
    return {
      transport: socket.transport,
      port: socket.port,
      socket: null,
      close: async () => socket.close(),
    };
  }
  // With SO_REUSEPORT the first process makes sure first that nobody holds the port (another
  // service would otherwise share it silently).
  if (choice.reusePort && options.exclusive) port = await probeFreePort(host, port);
  const socket = await bindDgram(host, port, choice.reusePort ? {} : { exclusive: true }, choice.reusePort);
  try {
    socket.setRecvBufferSize(UDP_RECEIVE_BUFFER);
  } catch {
    // capped by the system (net.core.rmem_max): the default stays
  }
  return {
    transport: dgramTransport(socket, options.logger),
    port: socket.address().port,
    socket,
    close: () =>
      new Promise<void>((resolve) => {
        try {
          socket.close(() => resolve());
        } catch {
          resolve();
        }
      }),
  };
}

function bindDgram(host: string, port: number, bindOptions: { exclusive?: boolean }, reusePort: boolean): Promise<dgram.Socket> {
  return new Promise((resolve, reject) => {
    const ipv6 = net.isIPv6(host);
    const socket = dgram.createSocket({ type: ipv6 ? 'udp6' : 'udp4', ipv6Only: ipv6, ...(reusePort ? { reusePort: true } : {}) } as dgram.SocketOptions);
    socket.once('error', reject);
    socket.bind({ address: host, port, ...bindOptions }, () => {
      socket.off('error', reject);
      resolve(socket);
    });
  });
}

/** Binds host:port without SO_REUSEPORT and lets it go: the port (the one chosen for 0), or EADDRINUSE. */
async function probeFreePort(host: string, port: number): Promise<number> {
  const probe = await bindDgram(host, port, { exclusive: true }, false);
  const chosen = probe.address().port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return chosen;
}
