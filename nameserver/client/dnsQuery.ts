// The service's one DNS client: one question to one server, the way a resolver asks it —
// non-recursive unless told, EDNS with DO set (RFC 3225) so that signatures come back, over UDP and
// again over TCP when the answer was truncated. Our codec encodes the question and decodes the
// reply, so every type (the DNSSEC ones included) comes back in wire form. Its users: the
// publication's SOA probe, the DNSSEC worker's checks (keys served, DS at the parent, the chain)
// and the reverse-DNS delegation check.
import dgram from 'node:dgram';
import { randomInt } from 'node:crypto';
import net from 'node:net';
import { CLASS, OPCODE } from '../types.js';
import { MessageWriter } from '../wire/messageWriter.js';
import { type Message, type MessageRecord, parseMessage } from '../wire/parseMessage.js';

export interface DnsServer {
  host: string;
  port: number;
}

export type DnsReply =
  | { kind: 'reply'; rcode: number; aa: boolean; ad: boolean; answer: MessageRecord[]; authority: MessageRecord[] }
  | { kind: 'unreachable'; message: string };

const UDP_SIZE = 4096;

/**
 * `recursive`: ask a recursive resolver (RD set) and take its data unvalidated (CD set, RFC 4035
 * §3.2.2): the worker validates it itself. `validating`: ask it to validate (RD set, CD clear; its
 * verdict is the AD bit). Otherwise an authoritative question (RD clear).
 */
function question(id: number, name: string, type: number, mode: 'authoritative' | 'recursive' | 'validating'): Buffer {
  const w = new MessageWriter(512, { id, opcode: OPCODE.QUERY, rcode: 0, rd: mode !== 'authoritative', cd: mode === 'recursive' });
  w.addQuestion({ name, qtype: type, qclass: CLASS.IN });
  w.addOpt({ udpSize: UDP_SIZE, dnssecOk: true });
  return w.finish();
}

const believable = (reply: Message | null, id: number): reply is Message => reply !== null && reply.qr && reply.id === id;

/**
 * One exchange over a socket `open` makes: it hands each reply (or the socket's error) to `done`;
 * the first one, or the time running out, or `signal` aborting, settles the promise and closes the
 * socket. The time counts from the start, and again from `sent()` when the socket calls it (a
 * datagram waits `timeoutMs` for its answer however long the connect took).
 */
function exchange<T>(
  what: string,
  timeoutMs: number,
  open: (done: (result: T | Error) => void, sent: () => void) => { close(): void },
  signal?: AbortSignal,
): Promise<T> {
  return new Promise((resolve, reject) => {
    let settled = false;
    let socket: { close(): void } | undefined;
    const abort = () => done(new Error(`asking ${what} was given up`));
    const done = (result: T | Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
      socket?.close();
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    const late = () => done(new Error(`no answer from ${what} within ${timeoutMs} ms`));
    let timer = setTimeout(late, timeoutMs);
    const sent = () => {
      clearTimeout(timer);
      if (!settled) timer = setTimeout(late, timeoutMs);
    };
    if (signal?.aborted) return abort();
    signal?.addEventListener('abort', abort, { once: true });
    socket = open(done, sent);
    if (settled) socket.close();
  });
}

/**
 * Sends `packet` to `server` over UDP and settles with the first datagram `accept` takes (returns
 * other than undefined; an Error rejects), or rejects when the time runs out or `signal` aborts.
 * The socket is connected: replies come only from the server, and a closed port is an error at
 * once (ICMP port unreachable) rather than a wait for the timeout.
 */
export function exchangeUdp<T>(
  server: DnsServer,
  packet: Buffer,
  timeoutMs: number,
  accept: (datagram: Buffer) => T | Error | undefined,
  signal?: AbortSignal,
): Promise<T> {
  return exchange<T>(
    `${server.host}:${server.port}`,
    timeoutMs,
    (done, sent) => {
      const socket = dgram.createSocket(net.isIPv6(server.host) ? 'udp6' : 'udp4');
      socket.on('error', done);
      socket.on('message', (datagram) => {
        const taken = accept(datagram);
        if (taken !== undefined) done(taken);
      });
      // With a callback Node hands a failed connect (a name that does not resolve) to it, not to
      // the 'error' event: sending then would throw out of a timer and stop the process.
      socket.connect(server.port, server.host, (err?: Error) => {
        if (err) return done(err);
        socket.send(packet, (sendErr) => (sendErr ? done(sendErr) : sent()));
      });
      return socket;
    },
    signal,
  );
}

function overUdp(server: DnsServer, packet: Buffer, id: number, timeoutMs: number): Promise<Message> {
  return exchangeUdp(server, packet, timeoutMs, (datagram) => {
    const reply = parseMessage(datagram);
    return believable(reply, id) ? reply : undefined;
  });
}

function overTcp(server: DnsServer, packet: Buffer, id: number, timeoutMs: number): Promise<Message> {
  return exchange<Message>(`${server.host}:${server.port} over TCP`, timeoutMs, (done) => {
    const socket = net.connect(server.port, server.host);
    let received = Buffer.alloc(0);
    socket.on('error', done);
    socket.on('connect', () => {
      const length = Buffer.alloc(2);
      length.writeUInt16BE(packet.length);
      socket.write(Buffer.concat([length, packet]));
    });
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      if (received.length < 2 || received.length < 2 + received.readUInt16BE(0)) return;
      const reply = parseMessage(received.subarray(2, 2 + received.readUInt16BE(0)));
      done(believable(reply, id) ? reply : new Error(`unreadable answer from ${server.host}:${server.port}`));
    });
    return { close: () => socket.destroy() };
  });
}

export async function queryDns(
  server: DnsServer,
  name: string,
  type: number,
  options: { timeoutMs?: number; recursive?: boolean; validating?: boolean } = {},
): Promise<DnsReply> {
  const { timeoutMs = 2000, recursive = false, validating = false } = options;
  const id = randomInt(0x10000);
  const packet = question(id, name, type, validating ? 'validating' : recursive ? 'recursive' : 'authoritative');
  try {
    let reply = await overUdp(server, packet, id, timeoutMs);
    if (reply.tc) reply = await overTcp(server, packet, id, timeoutMs);
    return { kind: 'reply', rcode: reply.rcode, aa: reply.aa, ad: reply.ad, answer: reply.answer, authority: reply.authority };
  } catch (err) {
    return { kind: 'unreachable', message: (err as Error).message };
  }
}
