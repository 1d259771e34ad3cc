// Reading requests: what is dropped, what is a query, what is answered FORMERR or NOTIMP — and a
// fuzz run holding parseQuery (and the encoders it feeds) to never throwing.
import { describe, expect, it } from 'vitest';
import { CLASS, OPCODE, RCODE, TYPE } from '../../../nameserver/types.js';
import { parseMessage } from '../../../nameserver/wire/parseMessage.js';
import { parseQuery, quickCheck, type ParsedQuery, type Query, type QueryError } from '../../../nameserver/wire/query.js';
import { encodeError, encodeResponse } from '../../../nameserver/wire/response.js';
import { fuzzMessages } from '../../helpers/fuzzMessages.js';

// An independent, deliberately naive message builder, so the parser is not tested against the
// writer it shares code with.
const u16 = (n: number) => Buffer.from([n >> 8, n & 0xff]);
const u32 = (n: number) => Buffer.from([n >>> 24, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff]);
const wireName = (name: string) =>
  Buffer.concat([...(name ? name.split('.') : []).map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l, 'latin1')])), Buffer.from([0])]);
const rr = (owner: Buffer | string, type: number, klass: number, ttl: number, rdata: Buffer) =>
  Buffer.concat([typeof owner === 'string' ? wireName(owner) : owner, u16(type), u16(klass), u32(ttl), u16(rdata.length), rdata]);
const soaRdata = (serial: number) =>
  Buffer.concat([wireName('ns1.example.com'), wireName('hostmaster.example.com'), u32(serial), u32(1), u32(2), u32(3), u32(4)]);
const opt = (udpSize = 1232, options: Buffer = Buffer.alloc(0), ttl = 0) => rr('', TYPE.OPT, udpSize, ttl, options);

function tsigRdata(mac = Buffer.alloc(32, 7), other = Buffer.alloc(0)) {
  return Buffer.concat([
    wireName('hmac-sha256'),
    Buffer.from([0, 0, 0x65, 0x00, 0x00, 0x01]),
    u16(300),
    u16(mac.length),
    mac,
    u16(0x1234),
    u16(0),
    u16(other.length),
    other,
  ]);
}
const tsig = (klass: number = CLASS.ANY, ttl = 0) => rr('key.example', TYPE.TSIG, klass, ttl, tsigRdata());

interface Spec {
  id?: number;
  flags?: number;
  questions?: Buffer[];
  answer?: Buffer[];
  authority?: Buffer[];
  additional?: Buffer[];
  counts?: [number, number, number, number];
  trailing?: Buffer;
}
function message(spec: Spec): Buffer {
  const qs = spec.questions ?? [question('www.example.com')];
  const an = spec.answer ?? [];
  const ns = spec.authority ?? [];
  const ar = spec.additional ?? [];
  const counts = spec.counts ?? [qs.length, an.length, ns.length, ar.length];
  return Buffer.concat([u16(spec.id ?? 0xbeef), u16(spec.flags ?? 0x0100), ...counts.map(u16), ...qs, ...an, ...ns, ...ar, spec.trailing ?? Buffer.alloc(0)]);
}
function question(name: string, qtype: number = TYPE.A, qclass: number = CLASS.IN) {
  return Buffer.concat([wireName(name), u16(qtype), u16(qclass)]);
}
const opcodeFlags = (opcode: number) => opcode << 11;

function expectQuery(result: ParsedQuery): Query {
  if (result.kind !== 'query') throw new Error(`expected a query, got ${JSON.stringify(result)}`);
  return result.query;
}
function expectError(result: ParsedQuery, rcode: number): QueryError {
  if (result.kind !== 'error') throw new Error(`expected an error, got ${result.kind}`);
  expect(result.rcode, result.reason).toBe(rcode);
  return result;
}

describe('dropped without an answer', () => {
  it.each([
    ['empty', Buffer.alloc(0)],
    ['11 octets', Buffer.alloc(11)],
    ['a response (QR set)', message({ flags: 0x8100 })],
    ['a response even when malformed', Buffer.from('0001800000000000000000', 'hex')],
  ])('%s', (_label, buf) => {
    expect(quickCheck(buf)).toBe(false);
    expect(parseQuery(buf).kind).toBe('drop');
  });

  it('quickCheck passes a header-sized query on to the parser', () => {
    expect(quickCheck(Buffer.alloc(12))).toBe(true);
    expectError(parseQuery(Buffer.alloc(12)), RCODE.FORMERR); // QDCOUNT 0
  });
});

describe('a well-formed query', () => {
  it('gives the header fields and the question, name lower case, the sent octets kept', () => {
    const q = expectQuery(parseQuery(message({ id: 0x1234, flags: 0x0110, questions: [question('WwW.ExAmple.COM', TYPE.AAAA)] })));
    expect(q).toMatchObject({
      id: 0x1234,
      opcode: OPCODE.QUERY,
      rd: true,
      cd: true,
      edns: null,
      ednsError: null,
      tsig: null,
      ixfrSerial: null,
      notifySerial: null,
    });
    expect(q.question).toMatchObject({ name: 'www.example.com', qtype: TYPE.AAAA, qclass: CLASS.IN });
    expect(q.question.nameWire.toString('latin1')).toBe('\x03WwW\x07ExAmple\x03COM\x00');
  });

  it('the root and escaped octets', () => {
    expect(expectQuery(parseQuery(message({ questions: [question('', TYPE.NS)] }))).question.name).toBe('');
    const odd = Buffer.concat([Buffer.from('\x03a.B\x00', 'latin1'), u16(TYPE.TXT), u16(CLASS.CH)]);
    expect(expectQuery(parseQuery(message({ questions: [odd] }))).question).toMatchObject({ name: 'a\\.b', qclass: CLASS.CH });
  });

  it('EDNS: payload size (below 512 counts as 512), version, DO, the options as sent', () => {
    const cookie = Buffer.from('000a0008' + '0102030405060708', 'hex');
    const q = expectQuery(parseQuery(message({ additional: [opt(4096, cookie, 0x00008000)] })));
    expect(q.edns).toMatchObject({ udpSize: 4096, version: 0, dnssecOk: true });
    expect(q.edns?.options).toEqual(cookie);
    expect(expectQuery(parseQuery(message({ additional: [opt(100)] }))).edns).toMatchObject({ udpSize: 512, dnssecOk: false });
    expect(expectQuery(parseQuery(message({ additional: [opt(1232, Buffer.alloc(0), 0x00010000)] }))).edns?.version).toBe(1);
  });

  it('TSIG: the fields, and where the RR starts (the signed part ends there)', () => {
    const unsigned = message({ additional: [opt()] });
    const buf = message({ additional: [opt(), tsig()] });
    const q = expectQuery(parseQuery(buf));
    expect(q.tsig).toMatchObject({
      keyName: 'key.example',
      algorithm: 'hmac-sha256',
      timeSigned: 0x65000001,
      fudge: 300,
      originalId: 0x1234,
      error: 0,
      offset: unsigned.length,
    });
    expect(q.tsig?.mac).toEqual(Buffer.alloc(32, 7));
    expect(q.raw).toBe(buf);
  });

  it('NOTIFY with the new SOA in the answer section (RFC 1996 §3.7)', () => {
    const q = expectQuery(
      parseQuery(
        message({
          flags: opcodeFlags(OPCODE.NOTIFY) | 0x0400,
          questions: [question('example.com', TYPE.SOA)],
          answer: [rr('example.com', TYPE.SOA, CLASS.IN, 3600, soaRdata(2024010203))],
        }),
      ),
    );
    expect(q).toMatchObject({ opcode: OPCODE.NOTIFY, notifySerial: 2024010203, ixfrSerial: null });
    expect(expectQuery(parseQuery(message({ flags: opcodeFlags(OPCODE.NOTIFY), questions: [question('example.com', TYPE.SOA)] }))).notifySerial).toBeNull();
  });

  it("IXFR with the client's SOA in the authority section (RFC 1995 §3), names compressed or not", () => {
    const plain = message({ questions: [question('example.com', TYPE.IXFR)], authority: [rr('example.com', TYPE.SOA, CLASS.IN, 0, soaRdata(42))] });
    expect(expectQuery(parseQuery(plain)).ixfrSerial).toBe(42);
    // Owner a pointer to the question (offset 12); MNAME and RNAME pointing into it too.
    const rdata = Buffer.concat([Buffer.from([3, 0x6e, 0x73, 0x31, 0xc0, 12]), Buffer.from([0xc0, 12]), u32(7), u32(1), u32(2), u32(3), u32(4)]);
    const compressed = message({
      questions: [question('Example.COM', TYPE.IXFR)],
      authority: [rr(Buffer.from([0xc0, 12]), TYPE.SOA, CLASS.IN, 0, rdata)],
      additional: [opt()],
    });
    expect(expectQuery(parseQuery(compressed))).toMatchObject({ ixfrSerial: 7, question: { name: 'example.com' } });
  });
});

describe('FORMERR', () => {
  const q = question('www.example.com');
  it.each<[string, Spec, boolean]>([
    // [label, message, whether the question is echoed]
    ['no question', { questions: [] }, false],
    ['two questions (RFC 9619)', { questions: [q, q] }, false],
    ['a question cut short', { questions: [q.subarray(0, q.length - 1)] }, false],
    ['a label running past the end', { questions: [Buffer.from([9, 0x61])] }, false],
    ['a compressed question name', { questions: [Buffer.concat([Buffer.from([0xc0, 0x0c]), u16(1), u16(1)])] }, false],
    ['a reserved label type', { questions: [Buffer.concat([Buffer.from([0x41, 0x61, 0]), u16(1), u16(1)])] }, false],
    [
      'a name over 255 octets',
      { questions: [Buffer.concat([...Array(5).fill(Buffer.concat([Buffer.from([63]), Buffer.alloc(63, 0x61)])), Buffer.from([0]), u16(1), u16(1)])] },
      false,
    ],
    ['QTYPE OPT', { questions: [question('example.com', TYPE.OPT)] }, true],
    ['QTYPE TSIG', { questions: [question('example.com', TYPE.TSIG)] }, true],
    ['an answer record in a query', { answer: [rr('www.example.com', TYPE.A, 1, 1, Buffer.alloc(4))] }, true],
    ['an authority record in a query', { authority: [rr('example.com', TYPE.SOA, 1, 1, soaRdata(1))] }, true],
    ['three additional records', { additional: [opt(), rr('a', TYPE.A, 1, 1, Buffer.alloc(4)), tsig()] }, true],
    ['an A record in the additional section', { additional: [rr('a', TYPE.A, 1, 1, Buffer.alloc(4))] }, true],
    ['TSIG before OPT (RFC 8945 §5.1: TSIG is last)', { additional: [tsig(), opt()] }, true],
    ['two TSIG records', { additional: [tsig(), tsig()] }, true],
    ['TSIG of class IN', { additional: [tsig(CLASS.IN)] }, true],
    ['TSIG with a TTL', { additional: [tsig(CLASS.ANY, 5)] }, true],
    ['TSIG RDATA cut short', { additional: [rr('k', TYPE.TSIG, CLASS.ANY, 0, tsigRdata().subarray(0, 20))] }, true],
    ['TSIG RDATA with octets left over', { additional: [rr('k', TYPE.TSIG, CLASS.ANY, 0, Buffer.concat([tsigRdata(), Buffer.from([0])]))] }, true],
    ['an additional record past the end', { counts: [1, 0, 0, 1] }, true],
    ['RDLENGTH past the end', { additional: [opt().subarray(0, 11 - 2), Buffer.from([0, 9])] }, true],
    ['trailing octets', { trailing: Buffer.from([0]) }, true],
    ['IXFR without authority', { questions: [question('example.com', TYPE.IXFR)] }, true],
    [
      'IXFR with an A record as authority',
      { questions: [question('example.com', TYPE.IXFR)], authority: [rr('example.com', TYPE.A, 1, 0, Buffer.alloc(4))] },
      true,
    ],
    [
      'IXFR with the SOA of another zone',
      { questions: [question('example.com', TYPE.IXFR)], authority: [rr('example.net', TYPE.SOA, 1, 0, soaRdata(1))] },
      true,
    ],
    [
      'IXFR SOA RDATA cut short',
      { questions: [question('example.com', TYPE.IXFR)], authority: [rr('example.com', TYPE.SOA, 1, 0, soaRdata(1).subarray(0, 40))] },
      true,
    ],
    ['NOTIFY with an A record as answer', { flags: opcodeFlags(OPCODE.NOTIFY), answer: [rr('www.example.com', TYPE.A, 1, 0, Buffer.alloc(4))] }, true],
    [
      'NOTIFY with two answers',
      { flags: opcodeFlags(OPCODE.NOTIFY), answer: [rr('a', TYPE.SOA, 1, 0, soaRdata(1)), rr('a', TYPE.SOA, 1, 0, soaRdata(1))] },
      true,
    ],
  ])('%s', (_label, spec, echoed) => {
    const error = expectError(parseQuery(message(spec)), RCODE.FORMERR);
    expect(error.id).toBe(spec.id ?? 0xbeef);
    expect(error.question !== null).toBe(echoed);
  });
});

describe('malformed EDNS: a query flagged with ednsError (answered FORMERR with OPT, RFC 6891 §7)', () => {
  it.each<[string, Buffer[]]>([
    ['two OPT records', [opt(), opt()]],
    ['an OPT record not owned by the root', [rr('example.com', TYPE.OPT, 1232, 0, Buffer.alloc(0))]],
    ['an option running past the RDATA', [opt(1232, Buffer.from('000a0008010203', 'hex'))]],
    ['an option header cut short', [opt(1232, Buffer.from('000a00', 'hex'))]],
  ])('%s', (_label, additional) => {
    const q = expectQuery(parseQuery(message({ additional })));
    expect(q.ednsError).toEqual(expect.any(String));
    expect(q.edns).not.toBeNull();
  });
});

describe('NOTIMP for opcodes other than QUERY and NOTIFY (RFC 1035 §4.1.1)', () => {
  it.each([OPCODE.IQUERY, OPCODE.STATUS, OPCODE.UPDATE, 3, 15])('opcode %i', (opcode) => {
    const error = expectError(parseQuery(message({ flags: opcodeFlags(opcode) | 0x0100 })), RCODE.NOTIMP);
    expect(error).toMatchObject({ opcode, rd: true, question: { name: 'www.example.com' } });
  });
  it('without a readable question', () => {
    expect(expectError(parseQuery(message({ flags: opcodeFlags(OPCODE.UPDATE), questions: [] })), RCODE.NOTIMP).question).toBeNull();
  });
});

describe('fuzz: nothing a datagram holds makes the parser throw', () => {
  it('200k random and mutated buffers through quickCheck, parseQuery, the encoders and parseMessage', () => {
    const seeds = [
      message({}),
      message({ additional: [opt(4096, Buffer.from('000a000401020304', 'hex'), 0x8000)] }),
      message({ additional: [opt(), tsig()] }),
      message({ questions: [question('example.com', TYPE.IXFR)], authority: [rr(Buffer.from([0xc0, 12]), TYPE.SOA, CLASS.IN, 0, soaRdata(3))] }),
      message({
        flags: opcodeFlags(OPCODE.NOTIFY),
        questions: [question('example.com', TYPE.SOA)],
        answer: [rr('example.com', TYPE.SOA, CLASS.IN, 0, soaRdata(3))],
      }),
      message({ questions: [question('a.b.c.d.e.f.g.h.example.com', TYPE.ANY)], additional: [opt(), opt()] }),
    ];
    const answer = {
      rcode: RCODE.NOERROR,
      aa: true,
      answer: [{ name: 'www.example.com', type: TYPE.A, ttl: 60, rdatas: [Buffer.from([192, 0, 2, 1])] }],
      authority: [],
      additional: [],
    };
    let queries = 0;
    let errors = 0;
    // Random octets mostly with QR clear (queries), so parsing goes deep.
    for (const buf of fuzzMessages(seeds, { count: 200_000, seed: 0x5eed, randomLength: 80, flags: (octet) => octet & 0x7f })) {
      const pass = quickCheck(buf);
      const result = parseQuery(buf);
      if (!pass && result.kind !== 'drop') throw new Error(`quickCheck dropped what parseQuery answers: ${buf.toString('hex')}`);
      if (result.kind === 'query') {
        queries++;
        encodeResponse(result.query, answer, { maxSize: 1232, tcp: false });
      } else if (result.kind === 'error') {
        errors++;
        encodeError(result, result.rcode);
      }
      parseMessage(buf);
    }
    // The run reached deep into the parser, not just the header checks.
    expect(queries).toBeGreaterThan(5_000);
    expect(errors).toBeGreaterThan(5_000);
  });
});
