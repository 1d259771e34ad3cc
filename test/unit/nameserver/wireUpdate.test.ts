// Reading RFC 2136 UPDATE requests (wire/update.ts): the sections as the service receives them,
// each FORMERR, the checks of the message alone (checkUpdateForm: FORMERR and NOTZONE in the
// RFC's order), and a fuzz run holding parseUpdate (and the encoders it feeds) to never throwing.
// Messages are built here byte by byte, not by the writer the codec shares.
import { describe, expect, it } from 'vitest';
import { CLASS, OPCODE, RCODE, TYPE } from '../../../nameserver/types.js';
import { parseMessage } from '../../../nameserver/wire/parseMessage.js';
import { encodeError } from '../../../nameserver/wire/response.js';
import { checkUpdateForm, parseUpdate, type ParsedUpdate, type UpdateMessage, type UpdateRecord } from '../../../nameserver/wire/update.js';
import { fuzzMessages } from '../../helpers/fuzzMessages.js';

const u16 = (n: number) => Buffer.from([n >> 8, n & 0xff]);
const u32 = (n: number) => Buffer.from([n >>> 24, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff]);
const wireName = (name: string) =>
  Buffer.concat([...(name ? name.split('.') : []).map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l, 'latin1')])), Buffer.from([0])]);
const rr = (owner: Buffer | string, type: number, klass: number, ttl: number, rdata: Buffer = Buffer.alloc(0)) =>
  Buffer.concat([typeof owner === 'string' ? wireName(owner) : owner, u16(type), u16(klass), u32(ttl), u16(rdata.length), rdata]);
const zoneSection = (name = 'example.com', type: number = TYPE.SOA, klass: number = CLASS.IN) => Buffer.concat([wireName(name), u16(type), u16(klass)]);
const UPDATE_FLAGS = OPCODE.UPDATE << 11;

interface Spec {
  id?: number;
  flags?: number;
  zone?: Buffer[];
  prerequisites?: Buffer[];
  updates?: Buffer[];
  additional?: Buffer[];
  trailing?: Buffer;
}
function message(spec: Spec): Buffer {
  const zone = spec.zone ?? [zoneSection()];
  const pr = spec.prerequisites ?? [];
  const up = spec.updates ?? [];
  const ad = spec.additional ?? [];
  return Buffer.concat([
    u16(spec.id ?? 0x2136),
    u16(spec.flags ?? UPDATE_FLAGS),
    ...[zone, pr, up, ad].map((s) => u16(s.length)),
    ...zone,
    ...pr,
    ...up,
    ...ad,
    spec.trailing ?? Buffer.alloc(0),
  ]);
}
const opt = () => rr('', TYPE.OPT, 1232, 0);
const tsig = () =>
  rr(
    'key.example',
    TYPE.TSIG,
    CLASS.ANY,
    0,
    Buffer.concat([wireName('hmac-sha256'), Buffer.from([0, 0, 0x65, 0, 0, 1]), u16(300), u16(32), Buffer.alloc(32, 7), u16(0x2136), u16(0), u16(0)]),
  );

function expectUpdate(result: ParsedUpdate): UpdateMessage {
  if (result.kind !== 'update') throw new Error(`expected an update, got ${JSON.stringify(result)}`);
  return result.update;
}
function expectFormerr(result: ParsedUpdate, reason: RegExp) {
  if (result.kind !== 'error') throw new Error(`expected an error, got ${result.kind}`);
  expect(result.rcode).toBe(RCODE.FORMERR);
  expect(result.reason).toMatch(reason);
  return result;
}

const A = Buffer.from([192, 0, 2, 7]);
const record = (name: string, type: number, klass: number, ttl: number, rdata: Buffer = Buffer.alloc(0)): UpdateRecord => ({ name, type, klass, ttl, rdata });

describe('parseUpdate', () => {
  it('reads the zone, prerequisites and updates as sent; names lower case; deletes with empty RDATA', () => {
    const u = expectUpdate(
      parseUpdate(
        message({
          zone: [zoneSection('Example.COM')],
          prerequisites: [rr('WWW.example.com', TYPE.ANY, CLASS.ANY, 0), rr('www.example.com', TYPE.A, CLASS.IN, 0, A)],
          updates: [
            rr('New.Example.com', TYPE.A, CLASS.IN, 300, A),
            rr('old.example.com', TYPE.ANY, CLASS.ANY, 0),
            rr('www.example.com', TYPE.A, CLASS.NONE, 0, A),
          ],
        }),
      ),
    );
    expect(u).toMatchObject({ id: 0x2136, opcode: OPCODE.UPDATE, zone: 'example.com', edns: null, tsig: null });
    // The zone section is echoed as sent (RFC 2136 §3.8).
    expect(u.question.nameWire.toString('latin1')).toBe('\x07Example\x03COM\x00');
    expect(u.prerequisites).toEqual([record('www.example.com', TYPE.ANY, CLASS.ANY, 0), record('www.example.com', TYPE.A, CLASS.IN, 0, A)]);
    expect(u.updates).toEqual([
      record('new.example.com', TYPE.A, CLASS.IN, 300, A),
      record('old.example.com', TYPE.ANY, CLASS.ANY, 0),
      record('www.example.com', TYPE.A, CLASS.NONE, 0, A),
    ]);
  });

  it('names in RDATA and owners may be compressed: they come out uncompressed, and the RDATA is a copy', () => {
    // The MX exchange points at "example.com" of the zone section (offset 12).
    const mx = Buffer.concat([u16(10), Buffer.from([4]), Buffer.from('mail'), Buffer.from([0xc0, 12])]);
    const buf = message({ updates: [rr(Buffer.from([0xc0, 12]), TYPE.MX, CLASS.IN, 300, mx)] });
    const u = expectUpdate(parseUpdate(buf));
    expect(u.updates).toEqual([record('example.com', TYPE.MX, CLASS.IN, 300, Buffer.concat([u16(10), wireName('mail.example.com')]))]);
    const plain = expectUpdate(parseUpdate(message({ updates: [rr('a.example.com', TYPE.A, CLASS.IN, 300, A)] })));
    plain.raw.fill(0);
    expect(plain.updates[0]!.rdata).toEqual(A);
  });

  it('an OPT and a TSIG (last) in the additional section', () => {
    const u = expectUpdate(parseUpdate(message({ updates: [rr('a.example.com', TYPE.A, CLASS.IN, 300, A)], additional: [opt(), tsig()] })));
    expect(u.edns).toMatchObject({ udpSize: 1232, version: 0 });
    expect(u.tsig).toMatchObject({ keyName: 'key.example', algorithm: 'hmac-sha256' });
  });

  it.each<[string, Spec, RegExp]>([
    ['ZOCOUNT 0', { zone: [] }, /ZOCOUNT is 0/],
    ['ZOCOUNT 2', { zone: [zoneSection(), zoneSection()] }, /ZOCOUNT is 2/],
    ['ZTYPE not SOA', { zone: [zoneSection('example.com', TYPE.A)] }, /ZTYPE/],
    ['ZCLASS not IN', { zone: [zoneSection('example.com', TYPE.SOA, CLASS.CH)] }, /ZCLASS/],
    ['a prerequisite cut short', { prerequisites: [rr('a.example.com', TYPE.A, CLASS.IN, 0, A).subarray(0, 20)] }, /prerequisite/],
    ['an MX update whose RDATA is too short', { updates: [rr('a.example.com', TYPE.MX, CLASS.IN, 300, Buffer.from([0]))] }, /update record/],
    ['another record in the additional section', { additional: [rr('glue.example.com', TYPE.A, CLASS.IN, 300, A)] }, /unexpected type 1/],
    ['a TSIG that is not last', { additional: [tsig(), opt()] }, /TSIG is not the last/],
    ['octets after the last record', { trailing: Buffer.from([0]) }, /1 octets after/],
  ])('FORMERR: %s', (_label, spec, reason) => {
    const error = expectFormerr(parseUpdate(message(spec)), reason);
    expect(error.opcode).toBe(OPCODE.UPDATE);
    // The reply to it encodes (the zone section echoed when it could be read).
    expect(parseMessage(encodeError(error, error.rcode))).toMatchObject({ qr: true, opcode: OPCODE.UPDATE, rcode: RCODE.FORMERR });
  });

  it('drops what gets no answer', () => {
    expect(parseUpdate(Buffer.alloc(11)).kind).toBe('drop');
    expect(parseUpdate(message({ flags: UPDATE_FLAGS | 0x8000 })).kind).toBe('drop');
  });
});

describe('checkUpdateForm (RFC 2136 §3.2.1–3.2.3, §3.4.1.3)', () => {
  const form = (prerequisites: UpdateRecord[], updates: UpdateRecord[] = [], zone = 'example.com') => checkUpdateForm({ zone, prerequisites, updates });

  it('passes every form nsupdate sends', () => {
    expect(
      form(
        [
          record('example.com', TYPE.ANY, CLASS.ANY, 0),
          record('a.example.com', TYPE.ANY, CLASS.NONE, 0),
          record('b.example.com', TYPE.TXT, CLASS.ANY, 0),
          record('b.example.com', TYPE.A, CLASS.IN, 0, A),
          record('c.example.com', TYPE.TXT, CLASS.NONE, 0),
        ],
        [
          record('a.example.com', TYPE.A, CLASS.IN, 300, A),
          record('b.example.com', TYPE.TXT, CLASS.ANY, 0),
          record('b.example.com', TYPE.ANY, CLASS.ANY, 0),
          record('b.example.com', TYPE.A, CLASS.NONE, 0, A),
        ],
      ),
    ).toBeNull();
  });

  it.each<[string, UpdateRecord[], UpdateRecord[], number]>([
    ['a prerequisite with a TTL', [record('a.example.com', TYPE.A, CLASS.IN, 60, A)], [], RCODE.FORMERR],
    // §3.2.5: the TTL is checked before the zone.
    ['a prerequisite with a TTL, outside the zone', [record('a.example.org', TYPE.A, CLASS.IN, 60, A)], [], RCODE.FORMERR],
    ['a prerequisite outside the zone', [record('a.example.org', TYPE.ANY, CLASS.ANY, 0)], [], RCODE.NOTZONE],
    ['a prerequisite at a name merely ending like the zone', [record('notexample.com', TYPE.ANY, CLASS.ANY, 0)], [], RCODE.NOTZONE],
    ['CLASS ANY prerequisite with RDATA', [record('a.example.com', TYPE.A, CLASS.ANY, 0, A)], [], RCODE.FORMERR],
    ['CLASS NONE prerequisite with RDATA', [record('a.example.com', TYPE.A, CLASS.NONE, 0, A)], [], RCODE.FORMERR],
    ['a prerequisite of class CH', [record('a.example.com', TYPE.A, CLASS.CH, 0)], [], RCODE.FORMERR],
    ['an update outside the zone', [], [record('www.example.net', TYPE.A, CLASS.IN, 300, A)], RCODE.NOTZONE],
    ['adding type ANY', [], [record('a.example.com', TYPE.ANY, CLASS.IN, 300)], RCODE.FORMERR],
    [
      'adding AXFR, MAILA, MAILB, OPT, TSIG',
      [],
      [TYPE.AXFR, TYPE.MAILA, TYPE.MAILB, TYPE.OPT, TYPE.TSIG].map((t) => record('a.example.com', t, CLASS.IN, 300, A)),
      RCODE.FORMERR,
    ],
    ['deleting an RRset with a TTL', [], [record('a.example.com', TYPE.A, CLASS.ANY, 300)], RCODE.FORMERR],
    ['deleting an RRset with RDATA', [], [record('a.example.com', TYPE.A, CLASS.ANY, 0, A)], RCODE.FORMERR],
    ['deleting an RRset of type AXFR', [], [record('a.example.com', TYPE.AXFR, CLASS.ANY, 0)], RCODE.FORMERR],
    ['deleting one record with a TTL', [], [record('a.example.com', TYPE.A, CLASS.NONE, 300, A)], RCODE.FORMERR],
    ['deleting one record of type ANY', [], [record('a.example.com', TYPE.ANY, CLASS.NONE, 0)], RCODE.FORMERR],
    ['an update of class CH', [], [record('a.example.com', TYPE.A, CLASS.CH, 300, A)], RCODE.FORMERR],
  ])('%s', (_label, prerequisites, updates, rcode) => {
    expect(form(prerequisites, updates)).toMatchObject({ rcode, reason: expect.any(String) });
  });

  it('the root zone holds every name', () => {
    expect(form([record('anything.example', TYPE.ANY, CLASS.ANY, 0)], [record('x.y', TYPE.A, CLASS.IN, 1, A)], '')).toBeNull();
  });
});

describe('fuzz: nothing an UPDATE datagram holds makes the parser throw', () => {
  it('200k random and mutated buffers through parseUpdate, checkUpdateForm and the error encoder', () => {
    const mx = Buffer.concat([u16(10), Buffer.from([4]), Buffer.from('mail'), Buffer.from([0xc0, 12])]);
    const seeds = [
      message({ updates: [rr('a.example.com', TYPE.A, CLASS.IN, 300, A)] }),
      message({
        prerequisites: [rr('a.example.com', TYPE.ANY, CLASS.NONE, 0), rr('b.example.com', TYPE.A, CLASS.IN, 0, A)],
        updates: [rr(Buffer.from([0xc0, 12]), TYPE.MX, CLASS.IN, 300, mx)],
        additional: [opt(), tsig()],
      }),
      message({ updates: [rr('a.example.com', TYPE.ANY, CLASS.ANY, 0), rr('a.example.com', TYPE.A, CLASS.NONE, 0, A)], additional: [tsig()] }),
      message({ prerequisites: [rr('x.example.com', TYPE.SOA, CLASS.IN, 0, Buffer.concat([Buffer.from([0xc0, 12, 0xc0, 12]), Buffer.alloc(20)]))] }),
    ];
    let updates = 0;
    let errors = 0;
    for (const buf of fuzzMessages(seeds, { count: 200_000, seed: 0x2136, randomLength: 100, flags: () => UPDATE_FLAGS >> 8 })) {
      const result = parseUpdate(buf);
      if (result.kind === 'update') {
        updates++;
        checkUpdateForm(result.update);
        encodeError(result.update, RCODE.NOERROR);
      } else if (result.kind === 'error') {
        errors++;
        encodeError(result, result.rcode);
      }
    }
    expect(updates).toBeGreaterThan(5_000);
    expect(errors).toBeGreaterThan(5_000);
  });
});
