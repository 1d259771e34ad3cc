// DNS over TCP (RFC 1035 §4.2.2, RFC 7766): each message preceded by its length in two octets,
// any number of messages per connection. Queries are answered in the order they arrive (a zone
// transfer streams all its messages before the next query's answer); replies go out as soon as
// they are made. Bounds: at most `maxConnections` open connections across all listeners (more are
// closed at once), and a connection with nothing read or written for `idleMs` is closed
// (RFC 7766 §6.2.3). A client that sends faster than it reads is paused.
import type net from 'node:net';
import type { NameserverLogger } from './logger.js';
import type { QueryHandler } from './queryHandler.js';
import type { ServerStats } from './serverStats.js';

export interface TcpLimits {
  maxConnections: number;
  idleMs: number;
}

/** Messages read but not yet answered before the connection stops reading. */
const MAX_QUEUED = 64;

export class TcpConnections {
  private readonly open = new Set<net.Socket>();

  constructor(
    private readonly handler: QueryHandler,
    private readonly limits: TcpLimits,
    private readonly logger: NameserverLogger,
    private readonly stats: ServerStats,
  ) {}

  get size(): number {
    return this.open.size;
  }

  /** Serves one accepted connection, or closes it when the bound is reached. */
  accept(socket: net.Socket): void {
    // 'error' may come at any point, also after destroy(); never let it go unhandled.
    socket.on('error', (err) => this.logger.debug({ err, remote: socket.remoteAddress }, 'TCP connection error'));
    if (this.open.size >= this.limits.maxConnections) {
      this.stats.tcp.refused++;
      this.logger.debug({ remote: socket.remoteAddress, open: this.open.size }, 'TCP connection refused: too many open');
      socket.destroy();
      return;
    }
    this.open.add(socket);
    this.stats.tcp.accepted++;
    this.stats.tcp.open = this.open.size;
    socket.once('close', () => {
      this.open.delete(socket);
      this.stats.tcp.open = this.open.size;
    });
    new Connection(socket, this.handler, this.limits.idleMs, this.logger, this.stats).start();
  }

  closeAll(): void {
    for (const socket of this.open) socket.destroy();
    this.open.clear();
    this.stats.tcp.open = 0;
  }
}

class Connection {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private readonly queue: Buffer[] = [];
  private working = false;
  private ended = false;
  private readonly remoteAddress: string;

  constructor(
    private readonly socket: net.Socket,
    private readonly handler: QueryHandler,
    private readonly idleMs: number,
    private readonly logger: NameserverLogger,
    private readonly stats: ServerStats,
  ) {
    this.remoteAddress = socket.remoteAddress ?? '';
  }

  start(): void {
    const socket = this.socket;
    socket.setNoDelay(true);
    socket.setTimeout(this.idleMs);
    socket.on('timeout', () => {
      this.stats.tcp.idleClosed++;
      socket.destroy();
    });
    socket.on('data', (chunk: Buffer) => this.read(chunk));
    // The client closed its side: answer what it sent, then close ours.
    socket.on('end', () => {
      this.ended = true;
      if (!this.working) socket.end();
    });
  }

  private read(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    // Chunks are joined only once a whole message is there: a client trickling a large message
    // in tiny segments costs one copy, not one per segment.
    if (this.buffered < 2 || this.buffered < 2 + this.announcedLength()) return;
    const data = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.buffered);
    let pos = 0;
    while (data.length - pos >= 2) {
      const length = data.readUInt16BE(pos);
      if (data.length - pos - 2 < length) break;
      this.queue.push(data.subarray(pos + 2, pos + 2 + length));
      pos += 2 + length;
    }
    // Keep only the unread tail, not the whole chunk it came in.
    const rest = data.length - pos;
    this.chunks = rest > 0 ? [Buffer.from(data.subarray(pos))] : [];
    this.buffered = rest;
    if (this.queue.length > MAX_QUEUED) this.socket.pause();
    if (!this.working && this.queue.length > 0) void this.work();
  }

  /** The length prefix of the next message (the first two buffered octets, possibly in two chunks). */
  private announcedLength(): number {
    const first = this.chunks[0]!;
    if (first.length >= 2) return first.readUInt16BE(0);
    return (first[0]! << 8) | this.chunks[1]![0]!;
  }

  /** Answers the queued messages in order; runs synchronously until a write must wait. */
  private async work(): Promise<void> {
    this.working = true;
    const context = { transport: 'tcp' as const, remoteAddress: this.remoteAddress };
    try {
      while (this.queue.length > 0 && !this.socket.destroyed) {
        const frame = this.queue.shift()!;
        const reply = this.handler.handleQuery(frame, context);
        if (reply === null) continue;
        if (Buffer.isBuffer(reply)) {
          if (!this.write(reply)) await this.drained();
        } else {
          for (const message of reply.messages()) {
            if (this.socket.destroyed) break;
            if (!this.write(message)) await this.drained();
          }
          if (reply.failed) {
            this.socket.destroy();
            break;
          }
        }
        if (this.socket.isPaused() && this.queue.length <= MAX_QUEUED / 2) this.socket.resume();
      }
    } catch (err) {
      this.logger.error({ err, remote: this.remoteAddress }, 'TCP connection failed');
      this.socket.destroy();
    } finally {
      this.working = false;
    }
    if (this.socket.destroyed) return;
    if (this.socket.isPaused()) this.socket.resume();
    if (this.ended && this.queue.length === 0) this.socket.end();
  }

  private write(message: Buffer): boolean {
    const framed = Buffer.allocUnsafe(message.length + 2);
    framed.writeUInt16BE(message.length, 0);
    message.copy(framed, 2);
    return this.socket.write(framed);
  }

  /** Resolves when the socket can take more, or is gone. */
  private drained(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.socket.off('drain', done);
        this.socket.off('close', done);
        resolve();
      };
      this.socket.on('drain', done);
      this.socket.on('close', done);
    });
  }
}
