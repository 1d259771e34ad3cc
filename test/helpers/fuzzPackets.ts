// Random and mutated DNS messages for fuzzing the query handler (test/dns/fuzz.test.ts and
// bench/fuzzNameserver.ts): real queries of every kind the server handles — plain, EDNS with
// options, DO, TSIG-signed, AXFR, IXFR, NOTIFY, UPDATE — with bits flipped, cut short, extended, counts
// replaced, compression pointers planted (loops included), or wholly random octets. Deterministic
// for a seed, so a failure can be replayed.
import { CLASS, OPCODE, TYPE } from '../../nameserver/types.js';
import { MessageWriter } from '../../nameserver/wire/messageWriter.js';
import { encodeName } from '../../nameserver/wire/name.js';
import { signMessage, type TsigKey } from '../../nameserver/wire/tsig.js';
import type { QueryHandler, Reply } from '../../nameserver/server.js';
import { parseMessage } from '../../nameserver/wire/parseMessage.js';
import { exampleRecords, reverseRecords, storeWith } from './fixtureZones.js';

export const FUZZ_KEY: TsigKey = { name: 'fuzz.key', algorithm: 'hmac-sha256', secret: Buffer.from('0123456789abcdef0123456789abcdef'), owner: null };

export function fuzzStore() {
  return storeWith({ 'example.com': exampleRecords(), '2.0.192.in-addr.arpa': reverseRecords() });
}

function query(
  id: number,
  name: string,
  qtype: number,
  options: { opcode?: number; edns?: { size: number; do?: boolean; version?: number; options?: Buffer }; soa?: 'answer' | 'authority'; qclass?: number } = {},
): Buffer {
  const w = new MessageWriter(4096, { id, opcode: options.opcode ?? OPCODE.QUERY, rcode: 0, rd: id % 2 === 0 });
  w.addQuestion({ name, nameWire: encodeName(name), qtype, qclass: options.qclass ?? CLASS.IN });
  if (options.soa) {
    const rdata = Buffer.alloc(22);
    rdata.writeUInt32BE(2026010100, 2);
    w.addRecord(options.soa, { name, type: TYPE.SOA, ttl: 0, rdata });
  }
  if (options.edns) w.addOpt({ udpSize: options.edns.size, dnssecOk: options.edns.do, version: options.edns.version, options: options.edns.options });
  return w.finish();
}

/** Real messages the mutations start from. */
export function seedMessages(): Buffer[] {
  const cookie = Buffer.from('000a0008' + '0102030405060708', 'hex');
  const nsid = Buffer.from('00030000', 'hex');
  const seeds = [
    query(1, 'www.example.com', TYPE.A),
    query(2, 'WwW.ExAmPlE.CoM', TYPE.AAAA, { edns: { size: 1232, options: cookie } }),
    query(3, 'example.com', TYPE.MX, { edns: { size: 4096, do: true } }),
    query(4, 'nx.example.com', TYPE.A, { edns: { size: 512, options: nsid } }),
    query(5, 'www.sub.example.com', TYPE.A),
    query(6, 'long.example.com', TYPE.TXT),
    query(7, 'big.example.com', TYPE.A, { edns: { size: 600 } }),
    query(8, 'alias.example.com', TYPE.ANY),
    query(9, 'example.com', TYPE.AXFR),
    query(10, 'example.com', TYPE.IXFR, { soa: 'authority' }),
    query(11, 'example.com', TYPE.SOA, { opcode: OPCODE.NOTIFY, soa: 'answer' }),
    query(12, 'www.example.com', TYPE.A, { edns: { size: 1232, version: 1 } }),
    query(13, 'version.bind', TYPE.TXT, { qclass: CLASS.CH }),
    query(14, '10.2.0.192.in-addr.arpa', TYPE.PTR),
    query(15, 'www.example.org', TYPE.A),
    query(16, 'example.com', TYPE.DS, { edns: { size: 1232, do: true } }),
  ];
  const signed = [
    signMessage(updateMessage(20), FUZZ_KEY, { now: new Date() }).message,
    signMessage(query(17, 'www.example.com', TYPE.A), FUZZ_KEY, { now: new Date() }).message,
    signMessage(query(18, 'example.com', TYPE.AXFR, { edns: { size: 1232 } }), FUZZ_KEY, { now: new Date() }).message,
    signMessage(query(19, 'example.com', TYPE.IXFR, { soa: 'authority' }), FUZZ_KEY, { now: new Date() }).message,
  ];
  return [...seeds, updateMessage(21), ...signed];
}

/** An RFC 2136 UPDATE of example.com: a prerequisite of each class, an add, the three deletes. */
function updateMessage(id: number): Buffer {
  const w = new MessageWriter(4096, { id, opcode: OPCODE.UPDATE, rcode: 0 });
  w.addQuestion({ name: 'example.com', nameWire: encodeName('example.com'), qtype: TYPE.SOA, qclass: CLASS.IN });
  const none = Buffer.alloc(0);
  const address = Buffer.from([192, 0, 2, 1]);
  w.addRecord('answer', { name: 'new.example.com', type: TYPE.ANY, klass: CLASS.NONE, ttl: 0, rdata: none });
  w.addRecord('answer', { name: 'www.example.com', type: TYPE.A, klass: CLASS.ANY, ttl: 0, rdata: none });
  w.addRecord('answer', { name: 'www.example.com', type: TYPE.A, ttl: 0, rdata: Buffer.from([192, 0, 2, 10]) });
  w.addRecord('authority', { name: 'new.example.com', type: TYPE.A, ttl: 300, rdata: address });
  w.addRecord('authority', { name: 'new.example.com', type: TYPE.MX, ttl: 300, rdata: Buffer.concat([Buffer.from([0, 10]), encodeName('mail.example.com')]) });
  w.addRecord('authority', { name: 'txt.example.com', type: TYPE.ANY, klass: CLASS.ANY, ttl: 0, rdata: none });
  w.addRecord('authority', { name: 'www.example.com', type: TYPE.AAAA, klass: CLASS.ANY, ttl: 0, rdata: none });
  w.addRecord('authority', { name: 'www.example.com', type: TYPE.A, klass: CLASS.NONE, ttl: 0, rdata: Buffer.from([192, 0, 2, 10]) });
  return w.finish();
}

/** One fuzz packet: a mutated seed most of the time, sometimes random octets. */
export function fuzzPacket(random: () => number, seeds: readonly Buffer[]): Buffer {
  const int = (n: number) => Math.floor(random() * n);
  if (random() < 0.1) {
    const out = Buffer.allocUnsafe(int(600));
    for (let i = 0; i < out.length; i++) out[i] = int(256);
    // Most random octets would have QR set half the time and be dropped; keep half of them queries.
    if (out.length > 2 && random() < 0.5) out[2]! &= 0x7f;
    return out;
  }
  let buf = Buffer.from(seeds[int(seeds.length)]!);
  // A new ID and 0x20 case noise, which keep the query valid: the cache's ID and case patching.
  buf.writeUInt16BE(int(0x10000), 0);
  for (let i = 13; i < buf.length && buf[i] !== 0 && random() < 0.9; i++) if (buf[i]! >= 0x61 && buf[i]! <= 0x7a && random() < 0.5) buf[i]! ^= 0x20;
  // One in five stays valid; the rest get one to three mutations.
  const steps = random() < 0.2 ? 0 : 1 + int(3);
  for (let s = 0; s < steps; s++) {
    const kind = int(8);
    if (kind === 0 || kind === 1) {
      // flip bits
      for (let i = int(8) + 1; i > 0 && buf.length > 0; i--) buf[int(buf.length)]! ^= 1 << int(8);
    } else if (kind === 2) {
      buf = buf.subarray(0, int(buf.length + 1));
    } else if (kind === 3) {
      const extra = Buffer.allocUnsafe(1 + int(64));
      for (let i = 0; i < extra.length; i++) extra[i] = int(256);
      buf = Buffer.concat([buf, extra]);
    } else if (kind === 4 && buf.length >= 12) {
      // random section counts
      const at = 4 + 2 * int(4);
      buf.writeUInt16BE(random() < 0.5 ? int(4) : int(0x10000), at);
    } else if (kind === 5 && buf.length > 14) {
      // a compression pointer somewhere: to itself (a loop), forwards, or back into the header
      const at = 12 + int(buf.length - 13);
      const target = random() < 0.3 ? at : random() < 0.5 ? int(buf.length + 20) : int(12);
      buf[at] = 0xc0 | ((target >> 8) & 0x3f);
      buf[at + 1] = target & 0xff;
    } else if (kind === 6 && buf.length >= 4) {
      // opcode, flags, rcode bits
      buf[2] = int(256) & 0x7f;
      buf[3] = int(256);
    } else if (kind === 7 && buf.length > 12) {
      // a label length octet set to something odd
      buf[12 + int(buf.length - 12)] = [0, 63, 64, 0x80, 0xbf, 0xff][int(6)]!;
    }
  }
  return buf;
}

export interface CheckedReply {
  /** Messages the reply consisted of (a transfer: every message). */
  messages: number;
  /** For an answer made later (an UPDATE handed to the handler): its check, rejecting on a violation. */
  later?: Promise<void>;
}

/**
 * Runs `packet` through the handler the way the sockets do (transfers read to the end) and checks
 * each reply message: it parses, is a response, and repeats the query's ID. Throws on a violation
 * (with the packet in hex) — and of course when the handler throws.
 */
export function checkReply(handler: QueryHandler, packet: Buffer, transport: 'udp' | 'tcp'): CheckedReply {
  const reply: Reply = handler.handleQuery(packet, { transport, remoteAddress: transport === 'udp' ? '127.0.0.1' : '::ffff:127.0.0.1' });
  if (reply === null) return { messages: 0 };
  if (reply instanceof Promise) return { messages: 1, later: reply.then((m) => checkMessage(packet, m, transport)) };
  const messages = Buffer.isBuffer(reply) ? [reply] : [...reply.messages()];
  for (const m of messages) checkMessage(packet, m, transport);
  return { messages: messages.length };
}

function checkMessage(packet: Buffer, m: Buffer, transport: 'udp' | 'tcp'): void {
  const parsed = parseMessage(m);
  if (!parsed) throw new Error(`reply does not parse: query ${packet.toString('hex')} reply ${m.toString('hex')}`);
  if (!parsed.qr) throw new Error(`reply without QR: query ${packet.toString('hex')}`);
  if (parsed.id !== packet.readUInt16BE(0)) throw new Error(`reply ID ${parsed.id} for query ${packet.toString('hex')}`);
  if (transport === 'udp' && m.length > 1232) throw new Error(`UDP reply of ${m.length} octets: query ${packet.toString('hex')}`);
}
