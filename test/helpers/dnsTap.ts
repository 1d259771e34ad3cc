// A recording relay in front of a DNS server: clients talk to the tap's port (UDP and TCP), the
// tap forwards every message to the server unchanged and keeps a summary of each query and
// response. It shows what a client nobody here wrote really asks, in which order, over which
// transport and signed with which TSIG algorithm — Debian's knotd has no dnstap module and tests
// have no packet capture. The summaries are read by a decoder of their own (not the nameserver's
// codec), so a mistake there cannot hide one in the server under test.
import dgram from 'node:dgram';
import net from 'node:net';

export interface TappedRecord {
  name: string;
  type: string;
  /** IN, or ANY / NONE in an UPDATE's deletions (RFC 2136 §2.5). */
  class: string;
  ttl: number;
}

export interface TappedMessage {
  /** Milliseconds since the tap started. */
  at: number;
  transport: 'udp' | 'tcp';
  /** The client's address and port: pairs a query with its response. */
  client: string;
  from: 'client' | 'server';
  id: number;
  opcode: string;
  rcode: string;
  flags: { aa: boolean; rd: boolean; tc: boolean };
  /** The question, or the zone of an UPDATE. */
  question: { name: string; type: string } | null;
  /** ANSWER (QUERY) or prerequisites (UPDATE). */
  answer: TappedRecord[];
  /** AUTHORITY (QUERY) or the update section (UPDATE). */
  authority: TappedRecord[];
  /** The TSIG record, when signed: key name, algorithm name, TSIG error. */
  tsig: { key: string; algorithm: string; error: string } | null;
  /** Not a DNS message the decoder could read. */
  malformed?: boolean;
}

export interface DnsTap {
  /** UDP and TCP, 127.0.0.1. */
  port: number;
  /** The messages so far, and clears the list. */
  take(): TappedMessage[];
  close(): Promise<void>;
}

const TYPE: Record<number, string> = {
  1: 'A',
  2: 'NS',
  5: 'CNAME',
  6: 'SOA',
  12: 'PTR',
  15: 'MX',
  16: 'TXT',
  28: 'AAAA',
  41: 'OPT',
  43: 'DS',
  46: 'RRSIG',
  48: 'DNSKEY',
  250: 'TSIG',
  251: 'IXFR',
  252: 'AXFR',
  255: 'ANY',
  257: 'CAA',
};
const CLASS: Record<number, string> = { 1: 'IN', 254: 'NONE', 255: 'ANY' };
const OPCODE: Record<number, string> = { 0: 'QUERY', 4: 'NOTIFY', 5: 'UPDATE' };
const RCODE: Record<number, string> = {
  0: 'NOERROR',
  1: 'FORMERR',
  2: 'SERVFAIL',
  3: 'NXDOMAIN',
  4: 'NOTIMP',
  5: 'REFUSED',
  6: 'YXDOMAIN',
  7: 'YXRRSET',
  8: 'NXRRSET',
  9: 'NOTAUTH',
  10: 'NOTZONE',
  16: 'BADSIG',
  17: 'BADKEY',
  18: 'BADTIME',
};
const nameOf = (table: Record<number, string>, n: number, prefix: string) => table[n] ?? `${prefix}${n}`;

/** A name at `offset`, following compression pointers (RFC 1035 §4.1.4). */
function readName(buf: Buffer, offset: number): { name: string; end: number } {
  const labels: string[] = [];
  let o = offset;
  let end = -1;
  for (let hops = 0; hops < 128; hops++) {
    const len = buf[o];
    if (len === undefined) throw new RangeError('name past the end');
    if ((len & 0xc0) === 0xc0) {
      if (end < 0) end = o + 2;
      o = buf.readUInt16BE(o) & 0x3fff;
      continue;
    }
    if (len === 0) return { name: labels.length ? `${labels.join('.')}.` : '.', end: end < 0 ? o + 1 : end };
    labels.push(buf.toString('latin1', o + 1, o + 1 + len));
    o += 1 + len;
  }
  throw new RangeError('compression loop');
}

/** Summarises one DNS message; `malformed` when it cannot be read. */
export function summariseMessage(buf: Buffer, base: Pick<TappedMessage, 'at' | 'transport' | 'client' | 'from'>): TappedMessage {
  const flags = buf.length >= 4 ? buf.readUInt16BE(2) : 0;
  const message: TappedMessage = {
    ...base,
    id: buf.length >= 2 ? buf.readUInt16BE(0) : 0,
    opcode: nameOf(OPCODE, (flags >> 11) & 0xf, 'OPCODE'),
    rcode: nameOf(RCODE, flags & 0xf, 'RCODE'),
    flags: { aa: Boolean(flags & 0x0400), tc: Boolean(flags & 0x0200), rd: Boolean(flags & 0x0100) },
    question: null,
    answer: [],
    authority: [],
    tsig: null,
  };
  try {
    const counts = [4, 6, 8, 10].map((o) => buf.readUInt16BE(o));
    let o = 12;
    for (let i = 0; i < counts[0]!; i++) {
      const q = readName(buf, o);
      message.question = { name: q.name, type: nameOf(TYPE, buf.readUInt16BE(q.end), 'TYPE') };
      o = q.end + 4;
    }
    const sections = [message.answer, message.authority, null];
    for (let s = 0; s < 3; s++) {
      for (let i = 0; i < counts[s + 1]!; i++) {
        const owner = readName(buf, o);
        const type = buf.readUInt16BE(owner.end);
        const rdata = owner.end + 10;
        const length = buf.readUInt16BE(owner.end + 8);
        if (type === 250) {
          // RFC 8945 §4.2: algorithm name, time signed (6), fudge (2), MAC size, MAC, original id, error.
          const algorithm = readName(buf, rdata);
          const macSize = buf.readUInt16BE(algorithm.end + 8);
          const error = buf.readUInt16BE(algorithm.end + 10 + macSize + 2);
          message.tsig = { key: owner.name, algorithm: algorithm.name, error: nameOf(RCODE, error, 'RCODE') };
        } else {
          sections[s]?.push({
            name: owner.name,
            type: nameOf(TYPE, type, 'TYPE'),
            class: nameOf(CLASS, buf.readUInt16BE(owner.end + 2), 'CLASS'),
            ttl: buf.readUInt32BE(owner.end + 4),
          });
        }
        o = rdata + length;
      }
    }
  } catch {
    message.malformed = true;
  }
  return message;
}

/** One line per message, for a transcript: `+12ms tcp client UPDATE acme.test. SOA tsig=hmac-md5… update=[…]`. */
export function describeMessage(m: TappedMessage): string {
  const rrs = (list: TappedRecord[]) => list.map((r) => `${r.name} ${r.class === 'IN' ? '' : `${r.class} `}${r.type}`).join(', ');
  const update = m.opcode === 'UPDATE';
  const parts = [`+${Math.round(m.at)}ms`, m.transport, m.from === 'client' ? 'query   ' : 'response', m.opcode];
  if (m.question) parts.push(`${m.question.name} ${m.question.type}`);
  if (m.from === 'server') parts.push(m.rcode, m.flags.aa ? 'aa' : 'no-aa');
  else if (!update) parts.push(m.flags.rd ? 'rd' : 'no-rd');
  parts.push(m.tsig ? `tsig=${m.tsig.algorithm}${m.tsig.error === 'NOERROR' ? '' : `/${m.tsig.error}`}` : 'unsigned');
  if (m.answer.length) parts.push(`${update ? 'prerequisites' : 'answer'}=[${rrs(m.answer)}]`);
  if (m.authority.length) parts.push(`${update ? 'update' : 'authority'}=[${rrs(m.authority)}]`);
  if (m.malformed) parts.push('MALFORMED');
  return parts.join(' ');
}

/** Listens on one free port for UDP and TCP on 127.0.0.1 and relays to `upstreamPort` there. */
export async function startDnsTap(upstreamPort: number, upstreamHost = '127.0.0.1'): Promise<DnsTap> {
  const started = performance.now();
  let messages: TappedMessage[] = [];
  const record = (buf: Buffer, transport: 'udp' | 'tcp', client: string, from: 'client' | 'server') =>
    messages.push(summariseMessage(buf, { at: performance.now() - started, transport, client, from }));

  // TCP: each connection gets its own upstream connection; messages are read off the 2-octet
  // length prefixes (RFC 1035 §4.2.2) as the bytes pass.
  const sockets = new Set<net.Socket>();
  const framer = (transportClient: string, from: 'client' | 'server') => {
    let pending = Buffer.alloc(0);
    return (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
        record(pending.subarray(2, 2 + pending.readUInt16BE(0)), 'tcp', transportClient, from);
        pending = pending.subarray(2 + pending.readUInt16BE(0));
      }
    };
  };
  const tcp = net.createServer((client) => {
    const who = `${client.remoteAddress}:${client.remotePort}`;
    const server = net.connect(upstreamPort, upstreamHost);
    for (const s of [client, server]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    }
    const fromClient = framer(who, 'client');
    const fromServer = framer(who, 'server');
    client.on('data', (d) => {
      fromClient(d);
      server.write(d);
    });
    server.on('data', (d) => {
      fromServer(d);
      client.write(d);
    });
    client.on('end', () => server.end());
    server.on('end', () => client.end());
    client.on('error', () => server.destroy());
    server.on('error', () => client.destroy());
  });

  // The same port for both transports: take a TCP port, then try to bind UDP on it.
  let port = 0;
  let udp: dgram.Socket | null = null;
  for (let attempt = 0; !udp; attempt++) {
    if (attempt >= 20) throw new Error('no port free for both UDP and TCP');
    await new Promise<void>((resolve, reject) => {
      tcp.once('error', reject);
      tcp.listen(0, '127.0.0.1', () => resolve());
    });
    port = (tcp.address() as net.AddressInfo).port;
    const candidate = dgram.createSocket('udp4');
    const bound = await new Promise<boolean>((resolve) => {
      candidate.once('error', () => resolve(false));
      candidate.bind(port, '127.0.0.1', () => resolve(true));
    });
    if (bound) udp = candidate;
    else await new Promise((r) => tcp.close(r));
  }
  const listener = udp;

  // UDP: one upstream socket per client address, so replies find their way back.
  const relays = new Map<string, dgram.Socket>();
  listener.on('message', (msg, from) => {
    const who = `${from.address}:${from.port}`;
    record(msg, 'udp', who, 'client');
    let relay = relays.get(who);
    if (!relay) {
      relay = dgram.createSocket('udp4');
      relay.on('message', (reply) => {
        record(reply, 'udp', who, 'server');
        listener.send(reply, from.port, from.address);
      });
      relay.on('error', () => undefined);
      relays.set(who, relay);
    }
    relay.send(msg, upstreamPort, upstreamHost);
  });

  return {
    port,
    take: () => {
      const taken = messages;
      messages = [];
      return taken;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      for (const r of relays.values()) r.close();
      await new Promise((r) => tcp.close(r));
      await new Promise<void>((r) => listener.close(() => r()));
    },
  };
}
