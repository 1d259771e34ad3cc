// DNS over TCP (RFC 1035 §4.2.2, RFC 7766): each message preceded by its length in two octets,
// any number of messages per connection. Queries are answered in the order they arrive (a zone
// transfer streams all its messages before the next query's answer; an UPDATE's answer, which
// waits for the service, holds back the answers to messages sent after it on the same
// connection: RFC 7766 §6.2.1.1 allows answering out of order, we do not); replies go out as soon
// as they are made. A client that sends faster than it reads is paused.
//
// Holding a connection must not be free (RFC 7766 §6.2.3), or a few clients that open many
// connections, or trickle a byte now and then, keep every slot and real queries get no answer:
// - a message once begun must arrive whole within `ioTimeoutMs` (Knot's tcp-io-timeout, NSD's
//   tcp-timeout): trickling bytes does not keep a connection;
// - a connection with nothing read or written for `idleMs` is closed;
// - at `maxConnections` a new connection is not refused: the open connection that has made
//   progress (a whole message read, a reply written) least recently is closed for it;
// - one client address holds at most `maxPerClient` connections; beyond that its own least
//   recently progressing connection is closed, so a client crowds out only itself.
import type net from 'node:net';
import type { NameserverLogger } from './logger.js';
import type { QueryHandler } from './queryHandler.js';
import type { ServerStats } from './serverStats.js';

export interface TcpLimits {
  maxConnections: number;
  /** Open connections from one remote address, well below maxConnections. */
  maxPerClient: number;
  idleMs: number;
  /** Time from a message's first octet to its last. */
  ioTimeoutMs: number;
}

/** Messages read but not yet answered before the connection stops reading. */
const MAX_QUEUED = 64;

export class TcpConnections {
  private readonly open = new Set<Connection>();
  private readonly byClient = new Map<string, Set<Connection>>();

  constructor(
    private readonly handler: QueryHandler,
    private readonly limits: TcpLimits,
    private readonly logger: NameserverLogger,
    private readonly stats: ServerStats,
  ) {}

  get size(): number {
    return this.open.size;
  }

  /** Serves one accepted connection, closing an older one first when a bound is reached. */
  accept(socket: net.Socket): void {
    // 'error' may come at any point, also after destroy(); never let it go unhandled.
    socket.on('error', (err) => this.logger.debug({ err, remote: socket.remoteAddress }, 'TCP connection error'));
    const remote = socket.remoteAddress ?? '';
    const own = this.byClient.get(remote);
    if (own && own.size >= this.limits.maxPerClient) this.evict(own, 'per-client limit');
    if (this.open.size >= this.limits.maxConnections) this.evict(this.open, 'connection limit');
    // Looked up again: an eviction that emptied the client's set removed it.
    let fromClient = this.byClient.get(remote);
    if (!fromClient) {
      fromClient = new Set();
      this.byClient.set(remote, fromClient);
    }
    const connection = new Connection(socket, remote, this.handler, this.limits, this.logger, this.stats);
    this.open.add(connection);
    fromClient.add(connection);
    this.stats.tcp.accepted++;
    this.stats.tcp.open = this.open.size;
    socket.once('close', () => this.forget(connection));
    connection.start();
  }

  closeAll(): void {
    for (const connection of this.open) connection.socket.destroy();
    this.open.clear();
    this.byClient.clear();
    this.stats.tcp.open = 0;
  }

  /** Closes the connection of `among` that made progress least recently. */
  private evict(among: ReadonlySet<Connection>, reason: string): void {
    let oldest: Connection | null = null;
    for (const connection of among) if (!oldest || connection.lastProgress < oldest.lastProgress) oldest = connection;
    if (!oldest) return;
    this.stats.tcp.evicted++;
    this.logger.debug(
      { remote: oldest.remoteAddress, open: this.open.size, reason, idleMs: Date.now() - oldest.lastProgress },
      'TCP connection closed for a new one',
    );
    this.forget(oldest);
    oldest.socket.destroy();
  }

  private forget(connection: Connection): void {
    if (!this.open.delete(connection)) return;
    const fromClient = this.byClient.get(connection.remoteAddress);
    fromClient?.delete(connection);
    if (fromClient?.size === 0) this.byClient.delete(connection.remoteAddress);
    this.stats.tcp.open = this.open.size;
  }
}

class Connection {
  /** When the connection was opened, last read a whole message or last wrote a reply (Date.now()). */
  lastProgress = Date.now();
  private chunks: Buffer[] = [];
  private buffered = 0;
  private readonly queue: Buffer[] = [];
  private working = false;
  private ended = false;
  /** Running while a message is partly read: the ioTimeoutMs bound. */
  private messageTimer: NodeJS.Timeout | null = null;

  constructor(
    readonly socket: net.Socket,
    readonly remoteAddress: string,
    private readonly handler: QueryHandler,
    private readonly limits: TcpLimits,
    private readonly logger: NameserverLogger,
    private readonly stats: ServerStats,
  ) {}

  start(): void {
    const socket = this.socket;
    socket.setNoDelay(true);
    socket.setTimeout(this.limits.idleMs);
    socket.on('timeout', () => {
      this.stats.tcp.idleClosed++;
      socket.destroy();
    });
    socket.on('data', (chunk: Buffer) => this.read(chunk));
    socket.once('close', () => this.stopMessageTimer());
    // The client closed its side: answer what it sent, then close ours.
    socket.on('end', () => {
      this.ended = true;
      this.stopMessageTimer();
      if (!this.working) socket.end();
    });
  }

  private read(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    // Chunks are joined only once a whole message is there: a client trickling a large message
    // in tiny segments costs one copy, not one per segment.
    if (this.buffered < 2 || this.buffered < 2 + this.announcedLength()) {
      this.startMessageTimer();
      return;
    }
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
    this.lastProgress = Date.now();
    // A new message's clock starts with its first octet.
    this.stopMessageTimer();
    if (this.queue.length > MAX_QUEUED) this.socket.pause();
    else if (rest > 0) this.startMessageTimer();
    if (!this.working && this.queue.length > 0) void this.work();
  }

  /** The length prefix of the next message (the first two buffered octets, possibly in two chunks). */
  private announcedLength(): number {
    const first = this.chunks[0]!;
    if (first.length >= 2) return first.readUInt16BE(0);
    return (first[0]! << 8) | this.chunks[1]![0]!;
  }

  /** From a message's first octet: closed unless the message is whole within ioTimeoutMs. */
  private startMessageTimer(): void {
    if (this.messageTimer || this.socket.isPaused()) return;
    this.messageTimer = setTimeout(() => {
      this.messageTimer = null;
      this.stats.tcp.slowClosed++;
      this.logger.debug({ remote: this.remoteAddress, buffered: this.buffered }, 'TCP message not complete within the I/O timeout; closed');
      this.socket.destroy();
    }, this.limits.ioTimeoutMs);
    this.messageTimer.unref();
  }

  private stopMessageTimer(): void {
    if (this.messageTimer) clearTimeout(this.messageTimer);
    this.messageTimer = null;
  }

  /** Reading again after a pause: a message already begun gets its time anew (the pause was ours). */
  private resume(): void {
    this.socket.resume();
    if (this.buffered > 0) this.startMessageTimer();
  }

  /** Answers the queued messages in order; runs synchronously until a write must wait. */
  private async work(): Promise<void> {
    this.working = true;
    const context = { transport: 'tcp' as const, remoteAddress: this.remoteAddress };
    try {
      while (this.queue.length > 0 && !this.socket.destroyed) {
        const frame = this.queue.shift()!;
        let reply = this.handler.handleQuery(frame, context);
        if (reply instanceof Promise) {
          reply = await this.awaitAnswer(reply);
          // Closed meanwhile (by the client, a limit, or the server stopping): nothing to write to.
          if (this.socket.destroyed) break;
        }
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
        if (this.socket.isPaused() && this.queue.length <= MAX_QUEUED / 2) this.resume();
      }
    } catch (err) {
      this.logger.error({ err, remote: this.remoteAddress }, 'TCP connection failed');
      this.socket.destroy();
    } finally {
      this.working = false;
    }
    if (this.socket.destroyed) return;
    if (this.socket.isPaused()) this.resume();
    if (this.ended && this.queue.length === 0) this.socket.end();
  }

  /**
   * An answer the handler makes later (an UPDATE): the connection is not idle while we owe it
   * one, so the idle timer stops meanwhile.
   */
  private async awaitAnswer(reply: Promise<Buffer>): Promise<Buffer> {
    this.socket.setTimeout(0);
    try {
      return await reply;
    } finally {
      if (!this.socket.destroyed) this.socket.setTimeout(this.limits.idleMs);
    }
  }

  private write(message: Buffer): boolean {
    const framed = Buffer.allocUnsafe(message.length + 2);
    framed.writeUInt16BE(message.length, 0);
    message.copy(framed, 2);
    this.lastProgress = Date.now();
    return this.socket.write(framed);
  }

  /** Resolves when the socket can take more, or is gone. */
  private drained(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.socket.off('drain', done);
        this.socket.off('close', done);
        this.lastProgress = Date.now();
        resolve();
      };
      this.socket.on('drain', done);
      this.socket.on('close', done);
    });
  }
}
