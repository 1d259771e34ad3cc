// A small DNS-over-TCP client (RFC 1035 §4.2.2: two-octet length, then the message) for the tests
// that need to see single messages: several queries on one connection, transfer streams,
// connection limits and timeouts.
import net from 'node:net';
import { CLASS, OPCODE, TYPE } from '../../nameserver/types.js';
import { MessageWriter } from '../../nameserver/wire/messageWriter.js';
import { encodeName } from '../../nameserver/wire/name.js';

export function frame(message: Buffer): Buffer {
  const out = Buffer.allocUnsafe(message.length + 2);
  out.writeUInt16BE(message.length, 0);
  message.copy(out, 2);
  return out;
}

/** A query as a stub resolver sends it (no RD), optionally with an empty OPT (EDNS 0). */
export function buildQuery(
  id: number,
  name: string,
  type: number,
  options: { edns?: number; opcode?: number; authoritySoa?: { serial: number } } = {},
): Buffer {
  const w = new MessageWriter(4096, { id, opcode: options.opcode ?? OPCODE.QUERY, rcode: 0 });
  w.addQuestion({ name, nameWire: encodeName(name), qtype: type, qclass: CLASS.IN });
  if (options.authoritySoa) {
    // IXFR (RFC 1995 §3): the client's SOA in the authority section; only the serial matters.
    const rdata = Buffer.alloc(2 + 20);
    rdata.writeUInt32BE(options.authoritySoa.serial, 2);
    w.addRecord('authority', { name, type: TYPE.SOA, ttl: 0, rdata });
  }
  if (options.edns !== undefined) w.addOpt({ udpSize: options.edns });
  return w.finish();
}

export class TcpDnsClient {
  readonly messages: Buffer[] = [];
  closed = false;
  private buffered = Buffer.alloc(0);
  private waiters: (() => void)[] = [];

  private constructor(readonly socket: net.Socket) {
    socket.on('data', (chunk) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      while (this.buffered.length >= 2) {
        const length = this.buffered.readUInt16BE(0);
        if (this.buffered.length < 2 + length) break;
        this.messages.push(Buffer.from(this.buffered.subarray(2, 2 + length)));
        this.buffered = this.buffered.subarray(2 + length);
      }
      this.wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    socket.on('error', () => {});
  }

  /** `localAddress`: the source address (any of 127.0.0.0/8 on the loopback), to act as another client. */
  static connect(port: number, host = '127.0.0.1', localAddress?: string): Promise<TcpDnsClient> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ port, host, localAddress }, () => resolve(new TcpDnsClient(socket)));
      socket.once('error', reject);
    });
  }

  send(...messages: Buffer[]): void {
    this.socket.write(Buffer.concat(messages.map(frame)));
  }

  /** Waits until `count` messages have arrived in all (or the connection closed, or the timeout). */
  async waitFor(count: number, timeoutMs = 5000): Promise<Buffer[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.messages.length < count && !this.closed) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out with ${this.messages.length} of ${count} messages`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.messages.slice(0, count);
  }

  /** Resolves when the server closes the connection; rejects after `timeoutMs`. */
  async waitClosed(timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('connection still open');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  close(): void {
    this.socket.destroy();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}
