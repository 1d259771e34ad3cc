// The query handler in-process (no sockets): the response cache and its invalidation, opcodes and
// rcodes, TSIG on queries (RFC 8945 §5.2), exceptions turned into SERVFAIL, transfer streams that
// fail, and the small pieces (CIDR matching, serial arithmetic, cache keys).
import { describe, expect, it } from 'vitest';
import { QueryHandler, type Reply, type UpdateHandler, type UpdateRequest } from '../../../nameserver/server.js';
import { TsigKeyRing } from '../../../nameserver/server/keyRing.js';
import { AddressList } from '../../../nameserver/server/addressList.js';
import { CacheProbe } from '../../../nameserver/server/responseCache.js';
import { CLASS, OPCODE, RCODE, TYPE } from '../../../nameserver/types.js';
import { MessageWriter, type RecordToWrite } from '../../../nameserver/wire/messageWriter.js';
import { encodeName } from '../../../nameserver/wire/name.js';
import { parseMessage, type Message } from '../../../nameserver/wire/parseMessage.js';
import { signMessage, verifyTsig, type TsigKey } from '../../../nameserver/wire/tsig.js';
import { buildZoneSnapshot } from '../../../nameserver/zone/snapshot.js';
import type { ZoneStore } from '../../../nameserver/zone/store.js';
import { EXAMPLE_SERIAL, exampleDiff, exampleRecords, memoryLogger, type RecordSpec, soaData, storeWith, zoneRecord } from '../../helpers/fixtureZones.js';

const key: TsigKey = { name: 'query.key', algorithm: 'hmac-sha256', secret: Buffer.from('0123456789abcdef0123456789abcdef'), owner: null };
const keys = new Map([[key.name, key]]);

interface QueryOptions {
  id?: number;
  qclass?: number;
  opcode?: number;
  rd?: boolean;
  cd?: boolean;
  edns?: { size?: number; do?: boolean; version?: number };
  questions?: number;
}

function query(name: string, qtype: number, o: QueryOptions = {}): Buffer {
  const w = new MessageWriter(4096, { id: o.id ?? 0x1234, opcode: o.opcode ?? OPCODE.QUERY, rcode: 0, rd: o.rd, cd: o.cd });
  for (let i = 0; i < (o.questions ?? 1); i++) w.addQuestion({ name, nameWire: encodeName(name), qtype, qclass: o.qclass ?? CLASS.IN });
  if (o.edns) w.addOpt({ udpSize: o.edns.size ?? 1232, dnssecOk: o.edns.do, version: o.edns.version });
  return w.finish();
}

function setup(options: { tsig?: boolean; now?: () => Date; store?: ZoneStore } = {}) {
  const store = options.store ?? storeWith({ 'example.com': exampleRecords() });
  const logger = memoryLogger();
  const handler = new QueryHandler({ store, transferAllow: ['127.0.0.1/32'], tsigKeys: options.tsig ? [key] : [], logger, now: options.now });
  const ask = (buf: Buffer, transport: 'udp' | 'tcp' = 'udp'): Buffer => {
    const reply = handler.handleQuery(buf, { transport, remoteAddress: '127.0.0.1' });
    if (!Buffer.isBuffer(reply)) throw new Error('expected a single message');
    return reply;
  };
  const parsed = (buf: Buffer, transport: 'udp' | 'tcp' = 'udp'): Message => parseMessage(ask(buf, transport))!;
  return { store, logger, handler, ask, parsed };
}

const addresses = (m: Message) => m.answer.filter((r) => r.type === TYPE.A).map((r) => [...r.rdata].join('.'));

describe('the response cache', () => {
  it('serves a repeated question from the cache with the new ID, RD, CD and the question case', () => {
    const { ask, handler } = setup();
    const first = ask(query('www.example.com', TYPE.A, { id: 1 }));
    const second = ask(query('WWW.Example.COM', TYPE.A, { id: 2, rd: true, cd: true }));
    expect(handler.stats.cache).toMatchObject({ hits: 1, misses: 1 });
    const m = parseMessage(second)!;
    expect(m).toMatchObject({ id: 2, rd: true, cd: true, aa: true, ra: false });
    expect(m.questions[0]!.name).toBe('WWW.Example.COM');
    // The owner points at the question, so it carries the same case.
    expect(m.answer[0]!.name).toBe('WWW.Example.COM');
    // Apart from ID, flags and the question name's case, the very same octets.
    const afterName = 12 + 'www.example.com'.length + 2;
    expect(second.subarray(afterName)).toEqual(first.subarray(afterName));
    expect(second.subarray(4, 12)).toEqual(first.subarray(4, 12));
    expect(parseMessage(first)!.rd).toBe(false);
  });

  it('keys on DO, EDNS presence, the UDP size limit and the transport', () => {
    const { ask, handler } = setup();
    ask(query('big.example.com', TYPE.A));
    ask(query('big.example.com', TYPE.A, { edns: { size: 1232 } }));
    ask(query('big.example.com', TYPE.A, { edns: { size: 1232, do: true } }));
    ask(query('big.example.com', TYPE.A, { edns: { size: 600 } }));
    ask(query('big.example.com', TYPE.A), 'tcp');
    expect(handler.stats.cache).toMatchObject({ hits: 0, misses: 5 });
    // 4096 and 1232 have the same effective limit (1232): one entry.
    const tc = parseMessage(ask(query('big.example.com', TYPE.A, { edns: { size: 4096 } })))!;
    expect(handler.stats.cache.hits).toBe(1);
    expect(tc.tc).toBe(false);
    expect(parseMessage(ask(query('big.example.com', TYPE.A)))!.tc).toBe(true);
    expect(parseMessage(ask(query('big.example.com', TYPE.A), 'tcp'))!.answer).toHaveLength(40);
  });

  it('drops an entry when its zone changes, and only then', () => {
    const { store, parsed, handler } = setup();
    store.set(buildZoneSnapshot('other.test', [zoneRecord(['other.test', 'SOA', 300, soaData('other.test', 1)])]));
    expect(addresses(parsed(query('www.example.com', TYPE.A)))).toEqual(['192.0.2.10']);
    // Another zone changes: the store generation moves, the entry stays good.
    store.set(buildZoneSnapshot('other.test', [zoneRecord(['other.test', 'SOA', 300, soaData('other.test', 2)])]));
    expect(addresses(parsed(query('www.example.com', TYPE.A)))).toEqual(['192.0.2.10']);
    expect(handler.stats.cache.hits).toBe(1);
    // Its own zone changes: a miss, and the new data.
    store.applyDiff(
      'example.com',
      exampleDiff(EXAMPLE_SERIAL, EXAMPLE_SERIAL + 1, { oldAddress: '192.0.2.10', newAddress: '192.0.2.99', added: 'x.example.com' }),
    );
    expect(addresses(parsed(query('www.example.com', TYPE.A)))).toEqual(['192.0.2.99']);
    expect(handler.stats.cache.hits).toBe(1);
  });

  it('keeps a name’s answer across a diff that touched neither the name nor an ancestor below the apex', () => {
    const { store, parsed, handler } = setup();
    const o = 'example.com';
    const step = (from: number, removed: RecordSpec[], added: RecordSpec[]) =>
      store.applyDiff(o, {
        fromSerial: from,
        toSerial: from + 1,
        removed: [[o, 'SOA', 3600, soaData(o, from)] as RecordSpec, ...removed].map(zoneRecord),
        added: [[o, 'SOA', 3600, soaData(o, from + 1)] as RecordSpec, ...added].map(zoneRecord),
      });
    const soaSerial = (m: Message) => m.authority.find((r) => r.type === TYPE.SOA)!.rdata.readUInt32BE(m.authority[0]!.rdata.length - 20);
    const ask = () => ({
      www: addresses(parsed(query('www.example.com', TYPE.A))),
      wwwDo: addresses(parsed(query('www.example.com', TYPE.A, { edns: { do: true } }))),
      nx: soaSerial(parsed(query('nx.example.com', TYPE.A))),
      mx: parsed(query('example.com', TYPE.MX)).additional.length,
    });
    expect(ask()).toEqual({ www: ['192.0.2.10'], wwwDo: ['192.0.2.10'], nx: EXAMPLE_SERIAL, mx: 1 });
    const hits = () => handler.stats.cache.hits;

    // Another name changes: www's two entries outlive the diff; NXDOMAIN (it carries the SOA) and
    // the apex's MX (the apex changed) are made afresh.
    step(EXAMPLE_SERIAL, [], [[`other.${o}`, 'A', 300, { address: '192.0.2.77' }]]);
    let before = hits();
    expect(ask()).toEqual({ www: ['192.0.2.10'], wwwDo: ['192.0.2.10'], nx: EXAMPLE_SERIAL + 1, mx: 1 });
    expect(hits() - before).toBe(2);

    // www itself changes: a miss and the new address.
    step(EXAMPLE_SERIAL + 1, [[`www.${o}`, 'A', 300, { address: '192.0.2.10' }]], [[`www.${o}`, 'A', 300, { address: '192.0.2.11' }]]);
    before = hits();
    expect(ask().www).toEqual(['192.0.2.11']);
    expect(hits() - before).toBe(0);

    // A name below www is added (www's own RRsets unchanged): still a hit.
    before = hits();
    expect(parsed(query('www.example.com', TYPE.A)).answer).toHaveLength(1);
    step(EXAMPLE_SERIAL + 2, [], [[`deep.www.${o}`, 'TXT', 300, { text: 'below' }]]);
    expect(addresses(parsed(query('www.example.com', TYPE.A)))).toEqual(['192.0.2.11']);
    expect(hits() - before).toBe(2);

    // Two diffs before the next question: the entry cannot tell what the first one did, so a miss.
    step(EXAMPLE_SERIAL + 3, [], [[`a1.${o}`, 'A', 300, { address: '192.0.2.81' }]]);
    step(EXAMPLE_SERIAL + 4, [], [[`a2.${o}`, 'A', 300, { address: '192.0.2.82' }]]);
    before = hits();
    expect(addresses(parsed(query('www.example.com', TYPE.A)))).toEqual(['192.0.2.11']);
    expect(hits() - before).toBe(0);
  });

  it('drops a name’s answer when a delegation appears above it, and never carries a wildcard’s or a CNAME’s', () => {
    const o = 'example.com';
    const store = storeWith({
      [o]: [...exampleRecords(), [`host.zone2.${o}`, 'A', 300, { address: '192.0.2.40' }], [`*.wild.${o}`, 'A', 300, { address: '192.0.2.50' }]],
    });
    const { parsed, handler } = setup({ store });
    const step = (from: number, added: RecordSpec[], removed: RecordSpec[] = []) =>
      store.applyDiff(o, {
        fromSerial: from,
        toSerial: from + 1,
        removed: [[o, 'SOA', 3600, soaData(o, from)] as RecordSpec, ...removed].map(zoneRecord),
        added: [[o, 'SOA', 3600, soaData(o, from + 1)] as RecordSpec, ...added].map(zoneRecord),
      });
    expect(addresses(parsed(query(`host.zone2.${o}`, TYPE.A)))).toEqual(['192.0.2.40']);
    expect(addresses(parsed(query(`x.wild.${o}`, TYPE.A)))).toEqual(['192.0.2.50']);
    expect(addresses(parsed(query(`alias.${o}`, TYPE.A)))).toEqual(['192.0.2.10']);
    step(EXAMPLE_SERIAL, [[`zone2.${o}`, 'NS', 300, { nameserver: 'ns.elsewhere.net' }]]);
    const referral = parsed(query(`host.zone2.${o}`, TYPE.A));
    expect(referral.answer).toEqual([]);
    expect(referral.authority.map((r) => r.type)).toEqual([TYPE.NS]);
    // The wildcard and the CNAME's target change; their answers follow.
    step(
      EXAMPLE_SERIAL + 1,
      [
        [`*.wild.${o}`, 'A', 300, { address: '192.0.2.51' }],
        [`www.${o}`, 'A', 300, { address: '192.0.2.12' }],
      ],
      [
        [`*.wild.${o}`, 'A', 300, { address: '192.0.2.50' }],
        [`www.${o}`, 'A', 300, { address: '192.0.2.10' }],
      ],
    );
    const before = handler.stats.cache.hits;
    expect(addresses(parsed(query(`x.wild.${o}`, TYPE.A)))).toEqual(['192.0.2.51']);
    expect(addresses(parsed(query(`alias.${o}`, TYPE.A)))).toEqual(['192.0.2.12']);
    expect(handler.stats.cache.hits).toBe(before);
  });

  it('a child zone added below a cached name takes over; a removed zone is REFUSED', () => {
    const { store, parsed } = setup();
    expect(parsed(query('www.sub.example.com', TYPE.A)).aa).toBe(false); // referral
    const child: RecordSpec[] = [
      ['sub.example.com', 'SOA', 300, soaData('sub.example.com', 1)],
      ['www.sub.example.com', 'A', 300, { address: '203.0.113.7' }],
    ];
    store.set(buildZoneSnapshot('sub.example.com', child.map(zoneRecord)));
    const m = parsed(query('www.sub.example.com', TYPE.A));
    expect(m.aa).toBe(true);
    expect(addresses(m)).toEqual(['203.0.113.7']);
    store.remove('sub.example.com');
    store.remove('example.com');
    expect(parsed(query('www.sub.example.com', TYPE.A)).rcode).toBe(RCODE.REFUSED);
  });

  it('bounds its size, oldest entries first', () => {
    const store = storeWith({ 'example.com': exampleRecords() });
    const handler = new QueryHandler({ store, transferAllow: [], tsigKeys: [], logger: memoryLogger(), cache: { maxEntries: 10 } });
    for (let i = 0; i < 50; i++) handler.handleQuery(query(`n${i}.example.com`, TYPE.A), { transport: 'udp', remoteAddress: '::1' });
    expect(handler.cacheSize).toBe(10);
    handler.handleQuery(query('n49.example.com', TYPE.A), { transport: 'udp', remoteAddress: '::1' });
    handler.handleQuery(query('n0.example.com', TYPE.A), { transport: 'udp', remoteAddress: '::1' });
    expect(handler.stats.cache).toMatchObject({ hits: 1, misses: 51 });
  });

  it('never answers one question with another whose key hashes the same, within its bounds', () => {
    // Two names of the same length whose keys collide in the hash: found by trying names in turn
    // (a 32-bit hash collides within a few hundred thousand).
    const template = query('c000000.example.com', TYPE.A);
    const reader = new CacheProbe();
    const seen = new Map<number, string>();
    let pair: [string, string] | undefined;
    for (let i = 0; !pair && i < 2_000_000; i++) {
      const digits = String(i).padStart(6, '0');
      template.write(digits, 14, 'latin1');
      reader.read(template, false);
      const other = seen.get(reader.hash);
      if (other !== undefined) pair = [other, digits];
      else seen.set(reader.hash, digits);
    }
    if (!pair) throw new Error('no colliding keys found');
    const [a, b] = pair.map((digits) => `c${digits}.example.com`) as [string, string];
    const hashOf = (name: string) => (reader.read(query(name, TYPE.A), false) ? reader.hash : null);
    expect(hashOf(a)).toBe(hashOf(b));

    const store = storeWith({ 'example.com': [...exampleRecords(), [a, 'A', 300, { address: '198.51.100.1' }], [b, 'A', 300, { address: '198.51.100.2' }]] });
    const handlerWith = (cache: { maxEntries?: number; maxBytes?: number }) => {
      const handler = new QueryHandler({ store, transferAllow: [], tsigKeys: [], logger: memoryLogger(), cache });
      const ask = (name: string) => {
        const reply = handler.handleQuery(query(name, TYPE.A), { transport: 'udp', remoteAddress: '::1' });
        if (!Buffer.isBuffer(reply)) throw new Error('expected a single message');
        return reply;
      };
      return { handler, ask, address: (name: string) => addresses(parseMessage(ask(name))!) };
    };

    const byCount = handlerWith({ maxEntries: 2 });
    for (let round = 0; round < 2; round++) {
      expect(byCount.address(a)).toEqual(['198.51.100.1']);
      expect(byCount.address(b)).toEqual(['198.51.100.2']);
    }
    expect(byCount.handler.stats.cache).toMatchObject({ hits: 2, misses: 2 });
    // A third entry evicts the oldest, a; b stays and is still told apart from a.
    byCount.address('www.example.com');
    expect(byCount.handler.cacheSize).toBe(2);
    expect(byCount.address(b)).toEqual(['198.51.100.2']);
    expect(byCount.handler.stats.cache).toMatchObject({ hits: 3, misses: 3 });
    expect(byCount.address(a)).toEqual(['198.51.100.1']);
    expect(byCount.handler.stats.cache).toMatchObject({ hits: 3, misses: 4 });

    // Room for one response only: each colliding key in turn pushes the other out.
    const size = byCount.ask(a).length;
    const byBytes = handlerWith({ maxBytes: 2 * size - 1 });
    for (let round = 0; round < 2; round++) {
      expect(byBytes.address(a)).toEqual(['198.51.100.1']);
      expect(byBytes.address(b)).toEqual(['198.51.100.2']);
      expect(byBytes.handler.cacheSize).toBe(1);
    }
    expect(byBytes.address(b)).toEqual(['198.51.100.2']);
    expect(byBytes.handler.stats.cache).toMatchObject({ hits: 1, misses: 4 });
  });

  it('keeps thousands of entries apart as its table grows, and still evicts the oldest', () => {
    const address = (i: number) => `10.0.${i >> 8}.${i & 255}`;
    const hosts: RecordSpec[] = Array.from({ length: 3000 }, (_, i) => [`h${i}.example.com`, 'A', 300, { address: address(i) }]);
    const store = storeWith({ 'example.com': [...exampleRecords(), ...hosts] });
    const handler = new QueryHandler({ store, transferAllow: [], tsigKeys: [], logger: memoryLogger(), cache: { maxEntries: 2500 } });
    const ask = (i: number) => {
      const reply = handler.handleQuery(query(`h${i}.example.com`, TYPE.A), { transport: 'udp', remoteAddress: '::1' });
      if (!Buffer.isBuffer(reply)) throw new Error('expected a single message');
      return addresses(parseMessage(reply)!);
    };
    for (let i = 0; i < 3000; i++) ask(i);
    expect(handler.cacheSize).toBe(2500);
    const wrong: number[] = [];
    for (let i = 2999; i >= 500; i--) if (ask(i).join() !== address(i)) wrong.push(i);
    expect(wrong).toEqual([]);
    expect(handler.stats.cache).toMatchObject({ hits: 2500, misses: 3000 });
    expect(ask(0)).toEqual([address(0)]);
    expect(handler.stats.cache).toMatchObject({ hits: 2500, misses: 3001 });
  });

  it('never caches TSIG-signed queries', () => {
    const { ask, handler } = setup({ tsig: true });
    for (let i = 0; i < 2; i++) ask(signMessage(query('www.example.com', TYPE.A), key, { now: new Date() }).message);
    expect(handler.stats.cache).toMatchObject({ hits: 0, misses: 0 });
    expect(handler.cacheSize).toBe(0);
  });
});

describe('the cache key', () => {
  const probe = (buf: Buffer, tcp = false) => {
    const reader = new CacheProbe();
    return reader.read(buf, tcp) ? reader.keyCopy().toString('hex') : null;
  };

  it('is the same for any case of the name, different for anything the response depends on', () => {
    const base = probe(query('www.example.com', TYPE.A));
    expect(probe(query('WwW.eXaMpLe.CoM', TYPE.A))).toBe(base);
    expect(probe(query('www.example.com', TYPE.AAAA))).not.toBe(base);
    expect(probe(query('www.example.com', TYPE.A, { qclass: CLASS.CH }))).not.toBe(base);
    expect(probe(query('www.example.com', TYPE.A), true)).not.toBe(base);
    expect(probe(query('www.example.com', TYPE.A, { edns: {} }))).not.toBe(base);
  });

  it('lower-cases only ASCII letters of the name, never the type octets', () => {
    // TYPE 0x0041 (65, HTTPS) and 0x0061 (97) must not share a key.
    expect(probe(query('www.example.com', 0x41))).not.toBe(probe(query('www.example.com', 0x61)));
    expect(probe(query('\\195.example.com', TYPE.A))).not.toBe(probe(query('\\227.example.com', TYPE.A)));
  });

  it('reads past well-formed EDNS options (a client cookie) and leaves malformed ones to the slow path', () => {
    const withOption = (option: number[]) => {
      const plain = query('example.com', TYPE.A, { edns: {} });
      const out = Buffer.concat([plain, Buffer.from(option)]);
      out.writeUInt16BE(option.length, plain.length - 2);
      return out;
    };
    const cookie = [0, 10, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8];
    expect(probe(withOption(cookie))).toBe(probe(query('example.com', TYPE.A, { edns: {} })));
    expect(probe(withOption(cookie.slice(0, 8)))).toBeNull();
    expect(probe(withOption(cookie.slice(0, 3)))).toBeNull();
  });

  it('leaves to the slow path: transfers, NOTIFY, several questions, EDNS version 1, trailing octets', () => {
    expect(probe(query('example.com', TYPE.AXFR))).toBeNull();
    expect(probe(query('example.com', TYPE.SOA, { opcode: OPCODE.NOTIFY }))).toBeNull();
    expect(probe(query('example.com', TYPE.A, { questions: 2 }))).toBeNull();
    expect(probe(query('example.com', TYPE.A, { edns: { version: 1 } }))).toBeNull();
    expect(probe(Buffer.concat([query('example.com', TYPE.A), Buffer.from([0])]))).toBeNull();
    expect(probe(signMessage(query('example.com', TYPE.A), key, { now: new Date() }).message)).toBeNull();
  });
});

describe('opcodes and rcodes', () => {
  it('NOTIMP for opcodes other than QUERY and NOTIFY (RFC 1035 §4.1.1)', () => {
    const { parsed } = setup();
    for (const opcode of [OPCODE.IQUERY, OPCODE.STATUS, OPCODE.UPDATE, 3, 15]) {
      const m = parsed(query('example.com', TYPE.SOA, { opcode }));
      expect(m.rcode).toBe(RCODE.NOTIMP);
      expect(m.opcode).toBe(opcode);
    }
  });

  it('NOTIFY for a zone served here: NOERROR with AA and opcode NOTIFY; for another zone: NOTAUTH', () => {
    const { parsed, logger, handler } = setup();
    const m = parsed(query('example.com', TYPE.SOA, { opcode: OPCODE.NOTIFY }));
    expect(m).toMatchObject({ rcode: RCODE.NOERROR, aa: true, opcode: OPCODE.NOTIFY, qr: true });
    expect(parsed(query('example.org', TYPE.SOA, { opcode: OPCODE.NOTIFY })).rcode).toBe(RCODE.NOTAUTH);
    expect(handler.stats.notify.received).toBe(2);
    expect(logger.lines.filter((l) => l.msg.startsWith('NOTIFY received'))).toHaveLength(2);
  });

  it('FORMERR for two questions (RFC 9619), BADVERS for EDNS version 1 (RFC 6891 §6.1.3)', () => {
    const { parsed } = setup();
    expect(parsed(query('www.example.com', TYPE.A, { questions: 2 })).rcode).toBe(RCODE.FORMERR);
    const badvers = parsed(query('www.example.com', TYPE.A, { edns: { version: 1 } }));
    expect(badvers.rcode).toBe(RCODE.BADVERS);
    expect(badvers.edns?.version).toBe(0);
  });

  it('REFUSED for classes other than IN (version.bind CH)', () => {
    const { parsed } = setup();
    expect(parsed(query('version.bind', TYPE.TXT, { qclass: CLASS.CH })).rcode).toBe(RCODE.REFUSED);
  });

  it('RD is echoed and RA never set: no recursion here', () => {
    const { parsed } = setup();
    const m = parsed(query('www.example.org', TYPE.A, { rd: true }));
    expect(m).toMatchObject({ rd: true, ra: false, rcode: RCODE.REFUSED });
  });

  it('no reply at all to responses and to messages shorter than a header', () => {
    const { handler } = setup();
    const response = query('www.example.com', TYPE.A);
    response[2]! |= 0x80;
    expect(handler.handleQuery(response, { transport: 'udp', remoteAddress: '127.0.0.1' })).toBeNull();
    expect(handler.handleQuery(Buffer.alloc(11), { transport: 'udp', remoteAddress: '127.0.0.1' })).toBeNull();
    expect(handler.stats.dropped).toBe(2);
  });
});

describe('TSIG on queries (RFC 8945)', () => {
  it('verifies a signed query and signs the answer, covering the request MAC', () => {
    const { ask } = setup({ tsig: true });
    const request = signMessage(query('www.example.com', TYPE.A, { edns: {} }), key, { now: new Date() });
    const reply = ask(request.message);
    const m = parseMessage(reply)!;
    expect(m.rcode).toBe(RCODE.NOERROR);
    expect(addresses(m)).toEqual(['192.0.2.10']);
    expect(verifyTsig(reply, m.tsig!, keys, new Date(), { requestMac: request.mac })).toMatchObject({ ok: true });
  });

  it('BADSIG and BADKEY: NOTAUTH with the error in an unsigned TSIG (RFC 8945 §5.2.1, §5.2.2)', () => {
    const { parsed } = setup({ tsig: true });
    const badSig = parsed(signMessage(query('www.example.com', TYPE.A), { ...key, secret: Buffer.alloc(32, 7) }, { now: new Date() }).message);
    expect(badSig.rcode).toBe(RCODE.NOTAUTH);
    expect(badSig.tsig).toMatchObject({ error: RCODE.BADSIG });
    expect(badSig.tsig!.mac.length).toBe(0);
    const badKey = parsed(signMessage(query('www.example.com', TYPE.A), { ...key, name: 'unknown.key' }, { now: new Date() }).message);
    expect(badKey.rcode).toBe(RCODE.NOTAUTH);
    expect(badKey.tsig).toMatchObject({ error: RCODE.BADKEY, keyName: 'unknown.key' });
  });

  it('BADTIME: NOTAUTH, signed, with the server time as other data (RFC 8945 §5.2.3)', () => {
    const serverNow = new Date('2030-01-01T00:00:00Z');
    const { ask } = setup({ tsig: true, now: () => serverNow });
    const request = signMessage(query('www.example.com', TYPE.A), key, { now: new Date('2030-01-01T01:00:00Z') });
    const reply = ask(request.message);
    const m = parseMessage(reply)!;
    expect(m.rcode).toBe(RCODE.NOTAUTH);
    expect(m.tsig).toMatchObject({ error: RCODE.BADTIME });
    expect(m.tsig!.otherData.readUIntBE(0, 6)).toBe(serverNow.getTime() / 1000);
    // Verifiable with the request's time (the response repeats it).
    expect(verifyTsig(reply, m.tsig!, keys, new Date('2030-01-01T01:00:00Z'), { requestMac: request.mac }).ok).toBe(true);
  });

  it('a signed query with keys absent from the server: BADKEY', () => {
    const { parsed } = setup();
    const m = parsed(signMessage(query('www.example.com', TYPE.A), key, { now: new Date() }).message);
    expect(m.tsig).toMatchObject({ error: RCODE.BADKEY });
  });
});

describe('failures inside the handler', () => {
  it('an exception while answering becomes SERVFAIL with the question, a log line, a count', () => {
    const store = storeWith({ 'example.com': exampleRecords() });
    const broken = Object.create(store) as ZoneStore;
    broken.find = () => {
      throw new Error('store exploded');
    };
    const { parsed, logger, handler } = setup({ store: broken });
    const m = parsed(query('www.example.com', TYPE.A, { id: 99 }));
    expect(m).toMatchObject({ id: 99, rcode: RCODE.SERVFAIL, qr: true });
    expect(m.questions[0]!.name).toBe('www.example.com');
    expect(handler.stats.errors).toBe(1);
    expect(logger.lines.find((l) => l.level === 'error')).toMatchObject({ msg: 'answering a query failed; SERVFAIL' });
  });

  it('a transfer that fails before its first message yields SERVFAIL and is marked failed', () => {
    const store = storeWith({ 'example.com': exampleRecords() });
    const zone = store.get('example.com')!;
    const broken = Object.create(store) as ZoneStore;
    broken.get = () =>
      Object.assign(Object.create(zone), {
        records: function* () {
          throw new Error('snapshot unreadable');
        },
      });
    const { handler } = setup({ store: broken });
    const reply: Reply = handler.handleQuery(query('example.com', TYPE.AXFR), { transport: 'tcp', remoteAddress: '127.0.0.1' });
    if (reply === null || Buffer.isBuffer(reply) || reply instanceof Promise) throw new Error('expected a transfer');
    const messages = [...reply.messages()];
    expect(messages.map((m) => parseMessage(m)!.rcode)).toEqual([RCODE.SERVFAIL]);
    expect(reply.failed).toBe(true);
    expect(handler.stats.errors).toBe(1);
  });
});

describe('AddressList (transferAllow)', () => {
  const list = new AddressList(['192.0.2.0/24', '10.1.2.3/32', '2001:db8::/32', '::1/128', '172.16.0.0/12']);
  it.each([
    ['192.0.2.77', true],
    ['192.0.3.1', false],
    ['10.1.2.3', true],
    ['10.1.2.4', false],
    ['::ffff:192.0.2.5', true], // IPv4-mapped, as a dual-stack socket reports IPv4 clients
    ['::ffff:10.1.2.4', false],
    ['2001:db8:1::5', true],
    ['2001:db9::1', false],
    ['::1', true],
    ['::2', false],
    ['172.31.255.255', true],
    ['172.32.0.0', false],
    ['fe80::1%eth0', false],
    ['not an address', false],
  ])('%s → %s', (address, allowed) => {
    expect(list.includes(address)).toBe(allowed);
  });

  it('rejects what is not a CIDR block', () => {
    for (const bad of ['192.0.2.0/33', '2001:db8::/129', 'example.com/24', '192.0.2.0/x', '']) expect(() => new AddressList([bad])).toThrow(RangeError);
  });

  it('::ffff:0:0/96 admits every IPv4 client; 0.0.0.0/0 too, and no IPv6 one', () => {
    expect(new AddressList(['::ffff:0:0/96']).includes('203.0.113.1')).toBe(true);
    expect(new AddressList(['0.0.0.0/0']).includes('203.0.113.1')).toBe(true);
    expect(new AddressList(['0.0.0.0/0']).includes('2001:db8::1')).toBe(false);
  });
});

describe('RFC 2136 UPDATE: the order of checks and the handler', () => {
  const tenant: TsigKey = { name: 'tenant.key', algorithm: 'hmac-sha1', secret: Buffer.from('a tenant secret of some length'), owner: 'credential-7' };
  const A = Buffer.from([192, 0, 2, 7]);

  /** An UPDATE: the zone section, then prerequisites and updates ({ name, type, ttl, rdata, klass }). */
  function updateMessage(
    zone: string,
    o: { prerequisites?: RecordToWrite[]; updates?: RecordToWrite[]; edns?: { version?: number }; id?: number } = {},
  ): Buffer {
    const w = new MessageWriter(4096, { id: o.id ?? 0x2136, opcode: OPCODE.UPDATE, rcode: 0 });
    w.addQuestion({ name: zone, nameWire: encodeName(zone), qtype: TYPE.SOA, qclass: CLASS.IN });
    for (const r of o.prerequisites ?? []) w.addRecord('answer', r);
    for (const r of o.updates ?? []) w.addRecord('authority', r);
    if (o.edns) w.addOpt({ udpSize: 1232, version: o.edns.version });
    return w.finish();
  }
  const add: RecordToWrite = { name: 'new.example.com', type: TYPE.A, ttl: 300, rdata: A };

  function updateSetup(handler: UpdateHandler | undefined, now?: () => Date) {
    const store = storeWith({ 'example.com': exampleRecords() });
    const logger = memoryLogger();
    const h = new QueryHandler({ store, transferAllow: [], tsigKeys: [key], logger, updates: handler, now });
    h.setTenantTsigKeys([tenant]);
    /** The reply, waited for when it comes later. */
    const send = async (buf: Buffer, transport: 'udp' | 'tcp' = 'udp'): Promise<Buffer> => {
      const reply = h.handleQuery(buf, { transport, remoteAddress: '192.0.2.99' });
      const answer = reply instanceof Promise ? await reply : reply;
      if (!Buffer.isBuffer(answer)) throw new Error('expected one message');
      return answer;
    };
    return { handler: h, logger, send };
  }

  function recording(rcode: number = RCODE.NOERROR) {
    const requests: UpdateRequest[] = [];
    const handler: UpdateHandler = async (request) => {
      requests.push(request);
      return rcode;
    };
    return { requests, handler };
  }

  it('a signed UPDATE reaches the handler parsed; the answer echoes the zone section only, signed, with the handler rcode', async () => {
    const { requests, handler } = recording(RCODE.YXRRSET);
    const { send, handler: h } = updateSetup(handler);
    const request = signMessage(
      updateMessage('Example.Com', {
        prerequisites: [{ name: 'new.example.com', type: TYPE.ANY, klass: CLASS.NONE, ttl: 0, rdata: Buffer.alloc(0) }],
        updates: [add],
        edns: {},
      }),
      tenant,
      { now: new Date() },
    );
    const reply = await send(request.message, 'tcp');
    expect(requests).toEqual([
      {
        zone: 'example.com',
        prerequisites: [{ name: 'new.example.com', type: TYPE.ANY, klass: CLASS.NONE, ttl: 0, rdata: Buffer.alloc(0) }],
        updates: [{ name: 'new.example.com', type: TYPE.A, klass: CLASS.IN, ttl: 300, rdata: A }],
        key: tenant,
        transport: 'tcp',
        remoteAddress: '192.0.2.99',
      },
    ]);
    const m = parseMessage(reply)!;
    expect(m).toMatchObject({ id: 0x2136, qr: true, opcode: OPCODE.UPDATE, rcode: RCODE.YXRRSET, answer: [], authority: [] });
    expect(m.questions).toEqual([{ name: 'Example.Com', type: TYPE.SOA, klass: CLASS.IN }]);
    expect(m.edns).not.toBeNull();
    expect(verifyTsig(reply, m.tsig!, new Map([[tenant.name, tenant]]), new Date(), { requestMac: request.mac })).toMatchObject({ ok: true });
    expect(h.stats.updates).toEqual({ received: 1, handed: 1, forwarded: 0 });
    expect(h.stats.responses).toMatchObject({ YXRRSET: 1 });
  });

  it('FORMERR first, then TSIG (BADKEY, BADSIG, BADTIME), then NOTIMP without a handler, NOTAUTH, the form, REFUSED unsigned', async () => {
    const { requests, handler } = recording();
    const serverNow = new Date('2030-01-01T00:00:00Z');
    const { send } = updateSetup(handler, () => serverNow);
    const signed = (buf: Buffer, k: TsigKey = tenant, at = serverNow) => signMessage(buf, k, { now: at }).message;
    const rcodeOf = async (buf: Buffer) => {
      const m = parseMessage(await send(buf))!;
      return [m.rcode, m.tsig?.error ?? null];
    };
    // A malformed message is FORMERR whatever its signature (nothing after the TSIG may follow).
    expect(await rcodeOf(Buffer.concat([signed(updateMessage('example.com', { updates: [add] })), Buffer.from([0])]))).toEqual([RCODE.FORMERR, null]);
    expect(await rcodeOf(signed(updateMessage('example.com', { updates: [add] }), { ...tenant, name: 'who.key' }))).toEqual([RCODE.NOTAUTH, RCODE.BADKEY]);
    expect(await rcodeOf(signed(updateMessage('example.com', { updates: [add] }), { ...tenant, secret: Buffer.from('wrong') }))).toEqual([
      RCODE.NOTAUTH,
      RCODE.BADSIG,
    ]);
    expect(await rcodeOf(signed(updateMessage('example.com', { updates: [add] }), tenant, new Date('2030-01-01T01:00:00Z')))).toEqual([
      RCODE.NOTAUTH,
      RCODE.BADTIME,
    ]);
    // A zone not served here, checked before the form; the form before the signature's absence.
    expect(await rcodeOf(signed(updateMessage('example.org', { updates: [{ ...add, name: 'x.example.net' }] })))).toEqual([RCODE.NOTAUTH, 0]);
    expect(await rcodeOf(signed(updateMessage('example.com', { updates: [{ ...add, name: 'x.example.net' }] })))).toEqual([RCODE.NOTZONE, 0]);
    expect(await rcodeOf(updateMessage('example.com', { updates: [{ ...add, name: 'x.example.net' }] }))).toEqual([RCODE.NOTZONE, null]);
    expect(await rcodeOf(updateMessage('example.com', { updates: [{ ...add, ttl: 5, klass: CLASS.NONE }] }))).toEqual([RCODE.FORMERR, null]);
    expect(await rcodeOf(updateMessage('example.com', { updates: [add] }))).toEqual([RCODE.REFUSED, null]);
    // EDNS as for queries: version 1 is BADVERS (signed).
    expect(await rcodeOf(signed(updateMessage('example.com', { updates: [add], edns: { version: 1 } })))).toEqual([RCODE.BADVERS, 0]);
    expect(requests).toEqual([]);

    const noHandler = updateSetup(undefined, () => serverNow);
    const m = parseMessage(await noHandler.send(signed(updateMessage('example.org', { updates: [add] }))))!;
    expect([m.rcode, m.tsig?.error]).toEqual([RCODE.NOTIMP, 0]);
  });

  it('a handler that rejects, or answers what is no rcode, is SERVFAIL (logged); the promise never rejects', async () => {
    for (const failing of [async () => Promise.reject(new Error('gone')), async () => 99, async () => Number.NaN] as UpdateHandler[]) {
      const { send, logger, handler } = updateSetup(failing);
      const m = parseMessage(await send(signMessage(updateMessage('example.com', { updates: [add] }), tenant, { now: new Date() }).message))!;
      expect(m.rcode).toBe(RCODE.SERVFAIL);
      expect(m.tsig?.error).toBe(0);
      expect(logger.lines.filter((l) => l.level === 'error').map((l) => l.msg)).toEqual(['UPDATE handler failed; SERVFAIL']);
      expect(handler.stats.errors).toBe(1);
    }
  });

  it('the deployment key may sign UPDATEs too (owner null); the handler sees which', async () => {
    const { requests, handler } = recording();
    const { send } = updateSetup(handler);
    await send(signMessage(updateMessage('example.com', { updates: [add] }), key, { now: new Date() }).message);
    expect(requests.map((r) => r.key)).toEqual([key]);
  });
});

describe('the TSIG key ring', () => {
  const tenant = (name: string, owner: string | null = 'c1'): TsigKey => ({
    name,
    algorithm: 'hmac-sha256',
    secret: Buffer.from(name),
    owner: owner as string,
  });

  it('deployment keys first: a tenant key of the same name is left out and reported; names canonical', () => {
    const ring = new TsigKeyRing([{ name: 'XFR.Key.', secret: Buffer.from('d') }]);
    expect(ring.get('xfr.key')).toEqual({ name: 'xfr.key', algorithm: 'hmac-sha256', secret: Buffer.from('d'), owner: null });
    expect(ring.setTenantKeys([tenant('Xfr.key'), tenant('A.Key.'), tenant('a.key', 'c2')])).toEqual({ shadowed: ['xfr.key'], duplicates: ['a.key'] });
    expect(ring.get('xfr.key')!.owner).toBeNull();
    expect(ring.get('a.key')).toMatchObject({ name: 'a.key', owner: 'c1' });
    expect(ring.isDeploymentKey(ring.get('xfr.key')!)).toBe(true);
    expect(ring.isDeploymentKey(ring.get('a.key')!)).toBe(false);
    // A look-alike object is not the deployment key.
    expect(ring.isDeploymentKey({ ...ring.get('xfr.key')! })).toBe(false);
  });

  it('replaces the tenant set whole, tells subscribers, and refuses a tenant key without owner', () => {
    const ring = new TsigKeyRing([]);
    const seen: string[][] = [];
    const unsubscribe = ring.onTenantKeys((keys) => seen.push(keys.map((k) => k.name)));
    ring.setTenantKeys([tenant('a.key'), tenant('b.key')]);
    ring.setTenantKeys([tenant('c.key')]);
    expect(ring.get('a.key')).toBeUndefined();
    expect(ring.tenantKeys.map((k) => k.name)).toEqual(['c.key']);
    unsubscribe();
    ring.setTenantKeys([]);
    expect(seen).toEqual([['a.key', 'b.key'], ['c.key']]);
    expect(() => ring.setTenantKeys([tenant('d.key', null)])).toThrow(RangeError);
    expect(ring.get('c.key')).toBeUndefined();
  });
});
