// Encoding responses: header bits, the question echoed as sent, name compression, EDNS, and
// truncation — checked by decoding with dns2 (software we did not write) and with parseMessage.
import dns2 from 'dns2';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Answer, RRset } from '../../../nameserver/types.js';
import { CLASS, OPCODE, RCODE, TYPE } from '../../../nameserver/types.js';
import { MessageWriter } from '../../../nameserver/wire/messageWriter.js';
import { parseMessage, type Message } from '../../../nameserver/wire/parseMessage.js';
import { parseQuery, type Query } from '../../../nameserver/wire/query.js';
import { encodeRdata } from '../../../nameserver/wire/rdata.js';
import { decodeRdata } from '../../../nameserver/wire/rdataPresentation.js';
import { encodeError, encodeResponse } from '../../../nameserver/wire/response.js';

const { Packet } = dns2;

/** A query as a client sends it, built with dns2 and read with parseQuery. */
function queryFor(name: string, type: number, options: { id?: number; rd?: boolean; cd?: boolean; edns?: { udpSize: number; do?: boolean } } = {}): Query {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(options.id ?? 0x4242, 0);
  header.writeUInt16BE((options.rd ? 0x0100 : 0) | (options.cd ? 0x0010 : 0), 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(options.edns ? 1 : 0, 10);
  const question = Packet.Question.encode(new Packet.Question(name, type, CLASS.IN));
  const parts = [header, question];
  if (options.edns) {
    const opt = Buffer.alloc(11);
    opt.writeUInt16BE(TYPE.OPT, 1);
    opt.writeUInt16BE(options.edns.udpSize, 3);
    opt.writeUInt32BE(options.edns.do ? 0x8000 : 0, 5);
    parts.push(opt);
  }
  const parsed = parseQuery(Buffer.concat(parts));
  if (parsed.kind !== 'query') throw new Error(`test query did not parse: ${JSON.stringify(parsed)}`);
  return parsed.query;
}

const a = (address: string) => encodeRdata('A', { address });
const rrset = (name: string, type: number, rdatas: Buffer[], ttl = 300): RRset => ({ name, type, ttl, rdatas });
const answerOf = (parts: Partial<Answer>): Answer => ({ rcode: RCODE.NOERROR, aa: true, answer: [], authority: [], additional: [], ...parts });
const decoded = (buf: Buffer): Message => {
  const m = parseMessage(buf);
  if (!m) throw new Error('response did not parse');
  return m;
};
/** Section records as "owner type presentation" lines. */
const lines = (records: Message['answer']) => records.map((r) => `${r.name} ${r.type} ${decodeRdata(r.type, r.rdata)}`);

describe('encodeResponse: header and question', () => {
  it('echoes ID, opcode, RD, CD; sets QR and AA; leaves RA, AD, TC clear; dns2 reads it', () => {
    const query = queryFor('www.example.com', TYPE.A, { id: 0xabcd, rd: true, cd: true });
    const buf = encodeResponse(query, answerOf({ answer: [rrset('www.example.com', TYPE.A, [a('192.0.2.1')])] }), { maxSize: 1232, tcp: false });
    const packet = Packet.parse(buf);
    expect(packet.errors).toEqual([]);
    expect(packet.header).toMatchObject({ id: 0xabcd, qr: 1, opcode: 0, aa: 1, tc: 0, rd: 1, ra: 0, rcode: 0, qdcount: 1, ancount: 1 });
    expect(packet.answers[0]).toMatchObject({ name: 'www.example.com', type: TYPE.A, class: CLASS.IN, ttl: 300, address: '192.0.2.1' });
    expect(decoded(buf)).toMatchObject({ cd: true, ad: false, ra: false });
  });

  it('AA clear on a referral; NXDOMAIN in the rcode', () => {
    const query = queryFor('www.sub.example.com', TYPE.A);
    const referral = answerOf({ aa: false, authority: [rrset('sub.example.com', TYPE.NS, [encodeRdata('NS', { nameserver: 'ns.sub.example.com' })])] });
    expect(decoded(encodeResponse(query, referral, { maxSize: 1232, tcp: false }))).toMatchObject({ aa: false, rcode: 0 });
    expect(decoded(encodeResponse(query, answerOf({ rcode: RCODE.NXDOMAIN }), { maxSize: 1232, tcp: false }))).toMatchObject({
      aa: true,
      rcode: RCODE.NXDOMAIN,
    });
  });

  it('echoes the question exactly as sent and answers in its case (owner = pointer to offset 12)', () => {
    const query = queryFor('WwW.ExAmPlE.CoM', TYPE.A);
    const buf = encodeResponse(query, answerOf({ answer: [rrset('www.example.com', TYPE.A, [a('192.0.2.1'), a('192.0.2.2')])] }), { maxSize: 512, tcp: false });
    const questionEnd = 12 + query.question.nameWire.length + 4;
    expect(buf.subarray(12, questionEnd)).toEqual(query.raw.subarray(12, questionEnd));
    expect(buf.subarray(questionEnd, questionEnd + 2)).toEqual(Buffer.from([0xc0, 12]));
    const packet = Packet.parse(buf);
    expect(packet.answers.map((r) => r.name)).toEqual(['WwW.ExAmPlE.CoM', 'WwW.ExAmPlE.CoM']);
    expect(buf.length).toBe(questionEnd + 2 * (2 + 10 + 4));
  });

  it('compresses owner names and RDATA names of the RFC 1035 types against the question and each other (RFC 1035 §4.1.4)', () => {
    const query = queryFor('www.example.com', TYPE.A);
    const answer = answerOf({
      answer: [rrset('www.example.com', TYPE.CNAME, [encodeRdata('CNAME', { target: 'web.example.com' })]), rrset('web.example.com', TYPE.A, [a('192.0.2.7')])],
      authority: [rrset('example.com', TYPE.NS, [encodeRdata('NS', { nameserver: 'ns1.example.net' }), encodeRdata('NS', { nameserver: 'ns2.example.net' })])],
      additional: [rrset('ns1.example.net', TYPE.A, [a('198.51.100.1')]), rrset('ns2.example.net', TYPE.A, [a('198.51.100.2')])],
    });
    const buf = encodeResponse(query, answer, { maxSize: 1232, tcp: false });
    const m = decoded(buf);
    expect(lines(m.answer)).toEqual(['www.example.com 5 web.example.com.', 'web.example.com 1 192.0.2.7']);
    expect(lines(m.authority)).toEqual(['example.com 2 ns1.example.net.', 'example.com 2 ns2.example.net.']);
    expect(lines(m.additional)).toEqual(['ns1.example.net 1 198.51.100.1', 'ns2.example.net 1 198.51.100.2']);
    // RDATA (RFC 3597 §4: CNAME and NS names compressed): 6 (web + pointer) + 4 + 17 (ns1.example.net
    // whole) + 6 (ns2 + pointer) + 4 + 4. Owners, every one a pointer (to the question or to a name
    // in RDATA before it): 6 × 2.
    const rdata = 6 + 4 + 17 + 6 + 4 + 4;
    expect(buf.length).toBe(12 + 21 + 6 * 10 + 6 * 2 + rdata);
    expect(Packet.parse(buf).errors).toEqual([]);
  });

  it('writes every type the signer and zones produce so dns2 reads the ones it knows', () => {
    const query = queryFor('example.com', TYPE.ANY);
    const answer = answerOf({
      answer: [
        rrset('example.com', TYPE.SOA, [
          encodeRdata('SOA', { mname: 'ns1.example.com', rname: 'hostmaster.example.com', serial: 7, refresh: 1, retry: 2, expire: 3, minimum: 4 }),
        ]),
        rrset('example.com', TYPE.MX, [encodeRdata('MX', { preference: 10, exchange: 'mail.example.com' })]),
        rrset('example.com', TYPE.TXT, [encodeRdata('TXT', { text: 'x'.repeat(300) })]),
        rrset('example.com', TYPE.AAAA, [encodeRdata('AAAA', { address: '2001:db8::1' })]),
        rrset('_sip._tcp.example.com', TYPE.SRV, [encodeRdata('SRV', { priority: 1, weight: 2, port: 5060, target: 'sip.example.com' })]),
        rrset('example.com', TYPE.CAA, [encodeRdata('CAA', { flags: 0, tag: 'issue', value: 'ca.example.net' })]),
      ],
    });
    const packet = Packet.parse(encodeResponse(query, answer, { maxSize: 65535, tcp: true }));
    expect(packet.errors).toEqual([]);
    expect(packet.answers).toMatchObject([
      { type: TYPE.SOA, primary: 'ns1.example.com', admin: 'hostmaster.example.com', serial: 7, minimum: 4 },
      { type: TYPE.MX, exchange: 'mail.example.com', priority: 10 },
      { type: TYPE.TXT, data: ['x'.repeat(255), 'x'.repeat(45)] },
      { type: TYPE.AAAA, address: '2001:db8::1' },
      { name: '_sip._tcp.example.com', type: TYPE.SRV, priority: 1, weight: 2, port: 5060, target: 'sip.example.com' },
      { type: TYPE.CAA, flags: 0, tag: 'issue', value: 'ca.example.net' },
    ]);
  });
});

describe('encodeResponse: EDNS', () => {
  it('no OPT when the query had none', () => {
    const m = decoded(encodeResponse(queryFor('example.com', TYPE.A), answerOf({}), { maxSize: 1232, tcp: false }));
    expect(m.edns).toBeNull();
    expect(m.additional).toEqual([]);
  });

  it('an OPT RR last: our payload size 1232, version 0, DO echoed (RFC 3225 §3)', () => {
    for (const dnssecOk of [false, true]) {
      const query = queryFor('example.com', TYPE.A, { edns: { udpSize: 4096, do: dnssecOk } });
      const buf = encodeResponse(query, answerOf({ additional: [rrset('ns.example.com', TYPE.A, [a('192.0.2.53')])] }), { maxSize: 1232, tcp: false });
      const m = decoded(buf);
      expect(m.edns).toMatchObject({ udpSize: 1232, version: 0, dnssecOk, extendedRcode: 0 });
      expect(m.additional.map((r) => r.type)).toEqual([TYPE.A, TYPE.OPT]);
      const packet = Packet.parse(buf);
      expect(packet.errors).toEqual([]);
      expect(packet.additionals[1]).toMatchObject({ type: TYPE.OPT, class: 1232 });
    }
  });

  it('an rcode above 15 puts its high bits in the OPT TTL (RFC 6891 §6.1.3)', () => {
    const query = queryFor('example.com', TYPE.A, { edns: { udpSize: 1232 } });
    const buf = encodeResponse(query, answerOf({ rcode: RCODE.BADKEY }), { maxSize: 1232, tcp: false });
    expect(buf[3]! & 0x0f).toBe(RCODE.BADKEY & 0x0f);
    expect(decoded(buf)).toMatchObject({ rcode: RCODE.BADKEY, edns: { extendedRcode: 1 } });
  });
});

describe('encodeResponse: truncation (RFC 2181 §9)', () => {
  const many = (name: string, count: number, from = 0) =>
    rrset(
      name,
      TYPE.A,
      Array.from({ length: count }, (_, i) => a(`10.0.${(from + i) >> 8}.${(from + i) & 0xff}`)),
    );

  it('drops additional RRsets that do not fit without setting TC', () => {
    const query = queryFor('www.example.com', TYPE.A);
    const answer = answerOf({
      answer: [many('www.example.com', 5)],
      additional: [many('a.example.com', 10), many('b.example.com', 40), many('c.example.com', 1)],
    });
    const buf = encodeResponse(query, answer, { maxSize: 1232, tcp: false });
    expect(buf.length).toBeLessThanOrEqual(512);
    const m = decoded(buf);
    expect(m.tc).toBe(false);
    expect(m.answer).toHaveLength(5);
    // a fits; b does not, and everything after it goes too (whole RRsets, in order).
    expect(m.additional.map((r) => r.name)).toEqual(Array(10).fill('a.example.com'));
  });

  it('sets TC when the answer does not fit, keeping only the complete RRsets before it', () => {
    const query = queryFor('www.example.com', TYPE.A);
    const answer = answerOf({ answer: [many('www.example.com', 3), many('www.example.com', 40, 100)], additional: [many('a.example.com', 1)] });
    const m = decoded(encodeResponse(query, answer, { maxSize: 1232, tcp: false }));
    expect(m.tc).toBe(true);
    expect(m.answer).toHaveLength(3);
    expect(m.additional).toEqual([]);
  });

  it('sets TC when the authority section does not fit', () => {
    const query = queryFor('www.example.com', TYPE.A, { edns: { udpSize: 512 } });
    const answer = answerOf({ answer: [many('www.example.com', 2)], authority: [many('example.com', 60)] });
    const buf = encodeResponse(query, answer, { maxSize: 1232, tcp: false });
    const m = decoded(buf);
    expect(m).toMatchObject({ tc: true, authority: [] });
    expect(m.answer).toHaveLength(2);
    expect(m.edns).not.toBeNull(); // the OPT RR always fits
    expect(buf.length).toBeLessThanOrEqual(512);
  });

  it('uses the client EDNS size up to our 1232, and all of 65535 over TCP', () => {
    const answer = answerOf({ answer: [many('www.example.com', 100)] }); // 12 + 21 + 1600 octets
    const big = queryFor('www.example.com', TYPE.A, { edns: { udpSize: 4096 } });
    const small = queryFor('www.example.com', TYPE.A, { edns: { udpSize: 1000 } });
    expect(decoded(encodeResponse(big, answer, { maxSize: 1232, tcp: false })).tc).toBe(true);
    expect(decoded(encodeResponse(big, answerOf({ answer: [many('www.example.com', 70)] }), { maxSize: 1232, tcp: false })).tc).toBe(false);
    expect(decoded(encodeResponse(small, answerOf({ answer: [many('www.example.com', 70)] }), { maxSize: 1232, tcp: false })).tc).toBe(true);
    const tcp = decoded(encodeResponse(big, answer, { maxSize: 65535, tcp: true }));
    expect(tcp).toMatchObject({ tc: false });
    expect(tcp.answer).toHaveLength(100);
  });

  it('keeps `reserve` octets free for a TSIG RR', () => {
    const query = queryFor('www.example.com', TYPE.A);
    const answer = answerOf({ answer: [many('www.example.com', 29)] }); // 12 + 21 + 29·16 = 497
    expect(encodeResponse(query, answer, { maxSize: 1232, tcp: false }).length).toBe(497);
    const reserved = encodeResponse(query, answer, { maxSize: 1232, tcp: false, reserve: 100 });
    expect(reserved.length).toBeLessThanOrEqual(412);
    expect(decoded(reserved).tc).toBe(true);
  });

  it('property: never over the limit, RRsets whole and in order, TC exactly when answer or authority lost', () => {
    const owners = ['www.example.com', 'example.com', 'a.b.example.com', 'mail.example.net', `${'x'.repeat(60)}.example.org`];
    const rrsetArb = (section: string) =>
      fc
        .record({
          owner: fc.constantFrom(...owners),
          txt: fc.boolean(),
          sizes: fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 1, maxLength: 12 }),
        })
        .map((g) => ({ ...g, section }));
    fc.assert(
      fc.property(
        fc.array(rrsetArb('answer'), { maxLength: 4 }),
        fc.array(rrsetArb('authority'), { maxLength: 3 }),
        fc.array(rrsetArb('additional'), { maxLength: 8 }),
        fc.option(fc.constantFrom(0, 512, 1000, 1232, 4096), { nil: null }),
        fc.boolean(),
        fc.constantFrom(0, 120),
        (answerGen, authorityGen, additionalGen, ednsSize, tcp, reserve) => {
          let n = 0;
          // Each RRset gets its own first label, so decoded records group back into RRsets.
          const build = (g: (typeof answerGen)[number]): RRset => {
            const name = `r${n++}.${g.owner}`;
            return g.txt
              ? rrset(
                  name,
                  TYPE.TXT,
                  g.sizes.map((s, i) => encodeRdata('TXT', { text: `${i}${'t'.repeat(s)}` })),
                )
              : rrset(
                  name,
                  TYPE.A,
                  g.sizes.map((_, i) => a(`10.0.${i}.${n}`)),
                );
          };
          const answer = answerOf({ answer: answerGen.map(build), authority: authorityGen.map(build), additional: additionalGen.map(build) });
          const query = queryFor('www.example.com', TYPE.A, ednsSize === null ? {} : { edns: { udpSize: ednsSize } });
          const buf = encodeResponse(query, answer, { maxSize: tcp ? 65535 : 1232, tcp, reserve });
          const limit = tcp ? 65535 : Math.min(1232, ednsSize === null ? 512 : Math.max(512, ednsSize));
          expect(buf.length).toBeLessThanOrEqual(limit - reserve);
          const m = decoded(buf);
          const prefix = (records: Message['answer'], rrsets: RRset[]) => {
            const kept = rrsets.slice(0, new Set(records.map((r) => r.name)).size);
            expect(records.map((r) => `${r.name}/${r.rdata.toString('hex')}`)).toEqual(
              kept.flatMap((s) => s.rdatas.map((d) => `${s.name}/${d.toString('hex')}`)),
            );
            return kept.length === rrsets.length;
          };
          const answerWhole = prefix(m.answer, answer.answer);
          const authorityWhole = prefix(m.authority, answer.authority);
          const additional = m.additional.filter((r) => r.type !== TYPE.OPT);
          prefix(additional, answer.additional);
          expect(m.tc).toBe(!(answerWhole && authorityWhole));
          if (m.tc) expect(additional).toEqual([]);
          expect(m.edns !== null).toBe(ednsSize !== null);
          if (m.edns) expect(m.additional.at(-1)?.type).toBe(TYPE.OPT);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('encodeError', () => {
  it('FORMERR for an unreadable query: header only', () => {
    const parsed = parseQuery(Buffer.from('12340100000000000000000000', 'hex'));
    expect(parsed.kind).toBe('error');
    if (parsed.kind !== 'error') return;
    const buf = encodeError(parsed, parsed.rcode);
    expect(buf.toString('hex')).toBe('123481010000000000000000');
  });

  it('NOTIMP and REFUSED echo the question and the OPT RR', () => {
    const query = queryFor('Example.com', TYPE.SOA, { rd: true, edns: { udpSize: 1232, do: true } });
    for (const rcode of [RCODE.NOTIMP, RCODE.REFUSED, RCODE.NOTAUTH]) {
      const m = decoded(encodeError(query, rcode));
      expect(m).toMatchObject({
        id: query.id,
        qr: true,
        rd: true,
        aa: false,
        rcode,
        questions: [{ name: 'Example.com', type: TYPE.SOA, klass: CLASS.IN }],
        answer: [],
        authority: [],
      });
      expect(m.edns).toMatchObject({ udpSize: 1232, version: 0, dnssecOk: true });
    }
  });

  it('FORMERR for malformed EDNS carries an OPT RR (RFC 6891 §7)', () => {
    const query = queryFor('example.com', TYPE.A, { edns: { udpSize: 1232, do: true } });
    const twoOpts = Buffer.concat([query.raw, query.raw.subarray(query.raw.length - 11)]);
    twoOpts.writeUInt16BE(2, 10);
    const parsed = parseQuery(twoOpts);
    expect(parsed).toMatchObject({ kind: 'query', query: { ednsError: 'more than one OPT record' } });
    if (parsed.kind !== 'query') return;
    expect(decoded(encodeError(parsed.query, RCODE.FORMERR))).toMatchObject({ rcode: RCODE.FORMERR, edns: { dnssecOk: true, version: 0 } });
  });

  it('BADVERS: rcode 16 as header 0 plus extended rcode 1, OPT version 0 (RFC 6891 §6.1.3)', () => {
    const query = queryFor('example.com', TYPE.A, { edns: { udpSize: 1232 } });
    const buf = encodeError(query, RCODE.BADVERS);
    expect(buf[3]! & 0x0f).toBe(0);
    expect(decoded(buf)).toMatchObject({ rcode: RCODE.BADVERS, edns: { version: 0, extendedRcode: 1 } });
    expect(() => encodeError(queryFor('example.com', TYPE.A), RCODE.BADVERS)).toThrow(RangeError);
  });
});

describe('MessageWriter', () => {
  const header = { id: 1, opcode: OPCODE.QUERY, qr: true, aa: true, rcode: 0 };

  it('a record that does not fit leaves the message exactly as it was', () => {
    const w = new MessageWriter(100, header);
    w.addQuestion({ name: 'example.com', qtype: TYPE.AXFR, qclass: CLASS.IN });
    expect(w.addRecord('answer', { name: 'a.example.com', type: TYPE.A, ttl: 1, rdata: a('192.0.2.1') })).toBe(true);
    const before = w.finish();
    expect(w.addRRset('answer', rrset('new.name.example.com', TYPE.A, [a('192.0.2.2'), a('192.0.2.3'), a('192.0.2.4')]))).toBe(false);
    expect(w.finish()).toEqual(before);
    // The suffixes the failed write registered are forgotten: a later name cannot point into it.
    expect(w.addRecord('answer', { name: 'name.example.com', type: TYPE.A, ttl: 1, rdata: a('192.0.2.5') })).toBe(true);
    expect(lines(decoded(w.finish()).answer)).toEqual(['a.example.com 1 192.0.2.1', 'name.example.com 1 192.0.2.5']);
  });

  it('a malformed owner throws a RangeError and leaves the message as it was', () => {
    const w = new MessageWriter(512, header);
    w.addRecord('answer', { name: 'ok.example', type: TYPE.A, ttl: 1, rdata: a('192.0.2.1') });
    const before = w.finish();
    expect(() => w.addRRset('answer', rrset(`${'a'.repeat(64)}.example`, TYPE.A, [a('192.0.2.1')]))).toThrow(RangeError);
    expect(() => w.addRecord('answer', { name: 'a..example', type: TYPE.A, ttl: 1, rdata: a('192.0.2.1') })).toThrow(RangeError);
    expect(() => w.addRecord('answer', { name: [...Array(4).fill('b'.repeat(63)), 'example'].join('.'), type: TYPE.A, ttl: 1, rdata: a('192.0.2.1') })).toThrow(
      RangeError,
    );
    expect(w.finish()).toEqual(before);
  });

  it('a name over 255 octets through a pointer is refused too', () => {
    const w = new MessageWriter(2000, header);
    const long = [...Array(3).fill('c'.repeat(63)), 'c'.repeat(61)].join('.'); // 255 octets
    w.addRecord('answer', { name: long, type: TYPE.A, ttl: 1, rdata: a('192.0.2.1') });
    expect(() => w.addRecord('answer', { name: `x.${long}`, type: TYPE.A, ttl: 1, rdata: a('192.0.2.1') })).toThrow(RangeError);
  });

  it('limit never exceeds the size the writer was made for', () => {
    const w = new MessageWriter(100, header);
    w.limit = 70_000;
    expect(w.limit).toBe(100);
    expect(
      w.addRRset(
        'answer',
        rrset(
          'example.com',
          TYPE.A,
          Array.from({ length: 10 }, () => a('192.0.2.1')),
        ),
      ),
    ).toBe(false);
  });

  it('sections go forward only', () => {
    const w = new MessageWriter(512, header);
    w.addRecord('authority', { name: 'example.com', type: TYPE.A, ttl: 1, rdata: a('192.0.2.1') });
    expect(() => w.addRecord('answer', { name: 'example.com', type: TYPE.A, ttl: 1, rdata: a('192.0.2.1') })).toThrow();
    expect(() => w.addQuestion({ name: 'example.com', qtype: 1, qclass: 1 })).toThrow();
  });

  it('builds a NOTIFY that parseQuery reads back, and a transfer split over messages', () => {
    const notify = new MessageWriter(512, { id: 7, opcode: OPCODE.NOTIFY, aa: true, rcode: 0 });
    notify.addQuestion({ name: 'example.com', qtype: TYPE.SOA, qclass: CLASS.IN });
    const soa = encodeRdata('SOA', { mname: 'ns1.example.com', rname: 'h.example.com', serial: 99, refresh: 1, retry: 1, expire: 1, minimum: 1 });
    notify.addRecord('answer', { name: 'example.com', type: TYPE.SOA, ttl: 3600, rdata: soa });
    const parsed = parseQuery(notify.finish());
    expect(parsed).toMatchObject({ kind: 'query', query: { opcode: OPCODE.NOTIFY, notifySerial: 99, question: { name: 'example.com', qtype: TYPE.SOA } } });

    const records = Array.from({ length: 300 }, (_, i) => ({
      name: `host${i}.example.com`,
      type: TYPE.TXT,
      ttl: 60,
      rdata: encodeRdata('TXT', { text: 'z'.repeat(200) }),
    }));
    const messages: Buffer[] = [];
    let w = new MessageWriter(16384, { id: 9, opcode: 0, qr: true, aa: true, rcode: 0 });
    w.addQuestion({ name: 'example.com', qtype: TYPE.AXFR, qclass: CLASS.IN });
    for (const r of records) {
      if (w.addRecord('answer', r)) continue;
      messages.push(w.finish());
      w = new MessageWriter(16384, { id: 9, opcode: 0, qr: true, aa: true, rcode: 0 });
      expect(w.addRecord('answer', r)).toBe(true);
    }
    messages.push(w.finish());
    expect(messages.length).toBeGreaterThan(3);
    const all = messages.map(decoded);
    expect(all.every((m, i) => m.questions.length === (i === 0 ? 1 : 0) && m.id === 9)).toBe(true);
    expect(all.flatMap((m) => m.answer.map((r) => r.name))).toEqual(records.map((r) => r.name));
    expect(messages.every((m) => m.length <= 16384)).toBe(true);
  });
});

describe('parseMessage', () => {
  it('decompresses names in NS, MX, SOA, CNAME, SRV RDATA (RFC 3597 §4) of messages others write', () => {
    const packet = new Packet();
    packet.header.id = 5;
    packet.header.qr = 1;
    packet.questions.push(new Packet.Question('example.com', TYPE.SOA, CLASS.IN));
    const answers = [
      {
        name: 'example.com',
        type: TYPE.SOA,
        class: 1,
        ttl: 60,
        primary: 'ns1.example.com',
        admin: 'hostmaster.example.com',
        serial: 5,
        refresh: 6,
        retry: 7,
        expiration: 8,
        minimum: 9,
      },
      { name: 'example.com', type: TYPE.MX, class: 1, ttl: 60, exchange: 'mail.example.com', priority: 10 },
      { name: 'example.com', type: TYPE.NS, class: 1, ttl: 60, ns: 'ns1.example.com' },
      { name: 'www.example.com', type: TYPE.CNAME, class: 1, ttl: 60, domain: 'example.com' },
      { name: '_x._tcp.example.com', type: TYPE.SRV, class: 1, ttl: 60, priority: 1, weight: 2, port: 3, target: 'ns1.example.com' },
    ];
    packet.answers.push(...(answers as unknown as typeof packet.answers));
    const buf = packet.toBuffer();
    expect(buf.length).toBeLessThan(200); // dns2 did compress
    expect(lines(decoded(buf).answer)).toEqual([
      'example.com 6 ns1.example.com. hostmaster.example.com. 5 6 7 8 9',
      'example.com 15 10 mail.example.com.',
      'example.com 2 ns1.example.com.',
      'www.example.com 5 example.com.',
      '_x._tcp.example.com 33 1 2 3 ns1.example.com.',
    ]);
  });

  it('is null for a malformed message', () => {
    expect(parseMessage(Buffer.alloc(11))).toBeNull();
    expect(parseMessage(Buffer.from('000080000001000000000000', 'hex'))).toBeNull();
    const ok = encodeError(queryFor('example.com', TYPE.A), RCODE.REFUSED);
    expect(parseMessage(ok)).not.toBeNull();
    expect(parseMessage(Buffer.concat([ok, Buffer.from([0])]))).toBeNull();
  });
});
