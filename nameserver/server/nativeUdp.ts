// The batched UDP transport: our addon (native/udp, built at install by native/build.mjs) reads
// datagrams with recvmmsg into one buffer and hands them over in one call, and answers go out
// packed into one buffer through one sendmmsg. Absent (not built, not Linux), the server falls
// back to node:dgram (udpEndpoint.ts).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { formatIpv4, formatIpv6 } from '../wire/address.js';
import type { Datagram, UdpTransport } from './udpTransport.js';

/** What native/udp/batched_udp.c exports. */
export interface BatchedUdpAddon {
  /** A bound non-blocking socket with SO_REUSEPORT: [fd, port]. Throws with `code` (EADDRINUSE, …). */
  open(host: string, port: number, receiveBuffer: number, exclusive: boolean): [number, number];
  receive(
    fd: number,
    onBatch: (count: number) => void,
    data: Uint8Array,
    lengths: Uint32Array,
    families: Uint8Array,
    addresses: Uint8Array,
    ports: Uint16Array,
  ): unknown;
  /** Stops receiving and closes the socket. */
  close(receiver: unknown): void;
  closeFd(fd: number): void;
  /** Sends `count` answers packed in `data`; returns how many went out. */
  send(fd: number, data: Uint8Array, count: number, lengths: Uint32Array, addresses: string[], ports: Uint16Array): number;
  readonly maxBatch: number;
}

/** Where native/build.mjs leaves the addon. */
export const DEFAULT_ADDON_PATH = fileURLToPath(new URL('../../native/udp/build/Release/batched_udp.node', import.meta.url));

/** The addon at `path`, or why it cannot be used. */
export function loadBatchedUdp(path: string): { addon: BatchedUdpAddon } | { error: string } {
  if (process.platform !== 'linux') return { error: `recvmmsg/sendmmsg are Linux system calls, this is ${process.platform}` };
  if (!existsSync(path)) return { error: `${path} not built (npm install builds it; its log says why not)` };
  try {
    return { addon: createRequire(import.meta.url)(path) as BatchedUdpAddon };
  } catch (err) {
    return { error: `${path} did not load: ${(err as Error).message}` };
  }
}

/**
 * Datagrams read per recvmmsg. NSD reads up to 100, Knot 10; 32 keeps one batch's answers within
 * a few hundred microseconds of work, so TCP and the rest of the loop are not held up.
 */
const RECEIVE_BATCH = 32;
/** A slot holds the largest UDP payload; a longer datagram cannot arrive. */
const SLOT = 65_536;

export interface BatchedSocket {
  transport: UdpTransport;
  port: number;
  close(): void;
}

/**
 * A socket of its own on host:port (SO_REUSEPORT) as a transport. `exclusive`: the port must be
 * free (the first process on it); false for another process joining a port already bound.
 * `onUnsent` counts answers the kernel did not take (a full send buffer, an unusable address).
 */
export function openBatchedSocket(
  addon: BatchedUdpAddon,
  host: string,
  port: number,
  options: { receiveBuffer: number; exclusive: boolean; onUnsent: (count: number) => void },
): BatchedSocket {
  const [fd, bound] = addon.open(host, port, options.receiveBuffer, options.exclusive);
  let receiver: unknown = null;
  let closed = false;
  const sendBatch = Math.min(addon.maxBatch, 64);
  const sendLengths = new Uint32Array(new ArrayBuffer(sendBatch * 4));
  const sendPorts = new Uint16Array(new ArrayBuffer(sendBatch * 2));
  const sendAddresses: string[] = [];
  let sendData = Buffer.allocUnsafeSlow(16 * 1024);

  const sendChunk = (batch: readonly Datagram[], from: number, to: number) => {
    let total = 0;
    for (let i = from; i < to; i++) total += batch[i]!.message.length;
    if (total > sendData.length) sendData = Buffer.allocUnsafeSlow(Math.max(total, sendData.length * 2));
    let at = 0;
    for (let i = from; i < to; i++) {
      const answer = batch[i]!;
      answer.message.copy(sendData, at);
      at += answer.message.length;
      sendLengths[i - from] = answer.message.length;
      sendPorts[i - from] = answer.port;
      sendAddresses[i - from] = answer.address;
    }
    const count = to - from;
    const sent = addon.send(fd, sendData, count, sendLengths, sendAddresses, sendPorts);
    if (sent < count) options.onUnsent(count - sent);
  };

  const transport: UdpTransport = {
    recv(onBatch) {
      const data = new Uint8Array(new ArrayBuffer(RECEIVE_BATCH * SLOT));
      const lengths = new Uint32Array(new ArrayBuffer(RECEIVE_BATCH * 4));
      const families = new Uint8Array(new ArrayBuffer(RECEIVE_BATCH));
      const addressOctets = Buffer.from(new ArrayBuffer(RECEIVE_BATCH * 16));
      const ports = new Uint16Array(new ArrayBuffer(RECEIVE_BATCH * 2));
      const onCount = (count: number) => {
        // The slots are read again by the next recvmmsg: the batch's messages move to a buffer
        // of their own (one copy for all), which answers still pending (an UPDATE) may keep.
        let total = 0;
        for (let i = 0; i < count; i++) total += lengths[i]!;
        const messages = Buffer.allocUnsafe(total);
        const batch: Datagram[] = [];
        let at = 0;
        for (let i = 0; i < count; i++) {
          const length = lengths[i]!;
          if (length === 0) continue;
          messages.set(data.subarray(i * SLOT, i * SLOT + length), at);
          const address = families[i] === 4 ? formatIpv4(addressOctets, i * 16) : formatIpv6(addressOctets, i * 16);
          batch.push({ message: messages.subarray(at, at + length), address, port: ports[i]! });
          at += length;
        }
        if (batch.length > 0) onBatch(batch);
      };
      receiver = addon.receive(fd, onCount, data, lengths, families, addressOctets, ports);
    },
    send(batch) {
      if (closed) return;
      for (let from = 0; from < batch.length; from += sendBatch) sendChunk(batch, from, Math.min(batch.length, from + sendBatch));
    },
  };
  return {
    transport,
    port: bound,
    close() {
      if (closed) return;
      closed = true;
      if (receiver) addon.close(receiver);
      else addon.closeFd(fd);
    },
  };
}
