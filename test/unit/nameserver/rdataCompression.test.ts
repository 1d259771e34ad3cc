// The message writer's compression of names inside RDATA (RFC 3597 §4: the RFC 1035 types only),
// at its edges: what a failed write leaves behind, RDATA that is not what its type says, the root,
// types that must stay uncompressed, and the same RDATA written into several messages.
import dns2 from 'dns2';
import { describe, expect, it } from 'vitest';
import type { RRset } from '../../../nameserver/types.js';
import { CLASS, OPCODE, TYPE } from '../../../nameserver/types.js';
import { MessageWriter } from '../../../nameserver/wire/messageWriter.js';
import { skipName } from '../../../nameserver/wire/name.js';
import { parseMessage, type Message } from '../../../nameserver/wire/parseMessage.js';
import { encodeRdata } from '../../../nameserver/wire/rdata.js';
import { decodeRdata } from '../../../nameserver/wire/rdataPresentation.js';

const header = { id: 1, opcode: OPCODE.QUERY, qr: true, aa: true, rcode: 0 };
const rrset = (name: string, type: number, rdatas: Buffer[], ttl = 300): RRset => ({ name, type, ttl, rdatas });
const decoded = (buf: Buffer): Message => {
  const m = parseMessage(buf);
  if (!m) throw new Error('message did not parse');
  return m;
};
const lines = (records: Message['answer']) => records.map((r) => `${r.name} ${r.type} ${decodeRdata(r.type, r.rdata)}`);
/** Each answer record's RDATA as written in the message (names still compressed). */
function writtenRdatas(buf: Buffer): Buffer[] {
  let pos = skipName(buf, 12) + 4;
  const out: Buffer[] = [];
  for (let i = 0; i < buf.readUInt16BE(6); i++) {
    pos = skipName(buf, pos) + 8;
    const length = buf.readUInt16BE(pos);
    out.push(buf.subarray(pos + 2, pos + 2 + length));
    pos += 2 + length;
  }
  return out;
}
const rdlengths = (buf: Buffer) => writtenRdatas(buf).map((r) => r.length);

function writer(question = 'example.com'): MessageWriter {
  const w = new MessageWriter(1232, header);
  w.addQuestion({ name: question, qtype: TYPE.ANY, qclass: CLASS.IN });
  return w;
}

describe('names in RDATA (RFC 3597 §4)', () => {
  it('compresses NS, CNAME, PTR, MX and both SOA names against the question; dns2 reads them back', () => {
    const w = writer();
    const soa = encodeRdata('SOA', { mname: 'ns1.example.com', rname: 'hostmaster.example.com', serial: 1, refresh: 2, retry: 3, expire: 4, minimum: 5 });
    w.addRRset('answer', rrset('example.com', TYPE.SOA, [soa]));
    w.addRRset('answer', rrset('example.com', TYPE.NS, [encodeRdata('NS', { nameserver: 'example.com' })]));
    w.addRRset('answer', rrset('example.com', TYPE.MX, [encodeRdata('MX', { preference: 5, exchange: 'mail.example.com' })]));
    w.addRRset('answer', rrset('alias.example.com', TYPE.CNAME, [encodeRdata('CNAME', { target: 'mail.example.com' })]));
    w.addRRset('answer', rrset('example.com', TYPE.PTR, [encodeRdata('PTR', { target: 'hostmaster.example.com' })]));
    const buf = w.finish();
    // SOA: ns1 + pointer, hostmaster + pointer, 20; NS: a pointer; MX: 2 + mail + pointer;
    // CNAME and PTR: a pointer each, to the names written in the MX and SOA RDATA.
    expect(rdlengths(buf)).toEqual([6 + 13 + 20, 2, 2 + 5 + 2, 2, 2]);
    expect(lines(decoded(buf).answer)).toEqual([
      'example.com 6 ns1.example.com. hostmaster.example.com. 1 2 3 4 5',
      'example.com 2 example.com.',
      'example.com 15 5 mail.example.com.',
      'alias.example.com 5 mail.example.com.',
      'example.com 12 hostmaster.example.com.',
    ]);
    const packet = dns2.Packet.parse(buf);
    expect(
      packet.answers.map((r: { ns?: string; exchange?: string; domain?: string; primary?: string }) => r.ns ?? r.exchange ?? r.domain ?? r.primary),
    ).toEqual(['ns1.example.com', 'example.com', 'mail.example.com', 'mail.example.com', 'hostmaster.example.com']);
  });

  it('leaves the RDATA names of other types whole (SRV, RFC 2782)', () => {
    const w = writer();
    const srv = encodeRdata('SRV', { priority: 1, weight: 2, port: 3, target: 'example.com' });
    w.addRRset('answer', rrset('_x._tcp.example.com', TYPE.SRV, [srv]));
    expect(rdlengths(w.finish())).toEqual([srv.length]);
  });

  it('writes the root (MX ".", RFC 7505) as one octet', () => {
    const w = writer();
    w.addRRset('answer', rrset('example.com', TYPE.MX, [encodeRdata('MX', { preference: 0, exchange: '' })]));
    const buf = w.finish();
    expect(rdlengths(buf)).toEqual([3]);
    expect(lines(decoded(buf).answer)).toEqual(['example.com 15 0 .']);
  });

  it('writes RDATA that is not what its type says as it is', () => {
    const w = writer();
    const odd = [
      Buffer.from([3, 0x61, 0x62]),
      Buffer.from([0xc0, 0x0c]),
      Buffer.concat([encodeRdata('NS', { nameserver: 'a.example.com' }), Buffer.from([1])]),
    ];
    w.addRRset('answer', rrset('example.com', TYPE.NS, odd));
    expect(writtenRdatas(w.finish())).toEqual(odd);
  });

  it('an RRset that does not fit forgets the names its RDATA registered', () => {
    const w = new MessageWriter(100, header);
    w.addQuestion({ name: 'example.com', qtype: TYPE.ANY, qclass: CLASS.IN });
    const before = w.finish();
    const big = rrset(
      'example.com',
      TYPE.NS,
      Array.from({ length: 8 }, (_, i) => encodeRdata('NS', { nameserver: `ns${i}.other.net` })),
    );
    expect(w.addRRset('answer', big)).toBe(false);
    expect(w.finish()).toEqual(before);
    // Had other.net stayed registered, this owner would point into the octets that were dropped.
    expect(w.addRecord('answer', { name: 'other.net', type: TYPE.A, ttl: 1, rdata: Buffer.from([192, 0, 2, 1]) })).toBe(true);
    expect(lines(decoded(w.finish()).answer)).toEqual(['other.net 1 192.0.2.1']);
  });

  it('the same RDATA buffer compresses according to each message it goes into', () => {
    const ns = encodeRdata('NS', { nameserver: 'ns1.example.com' });
    const first = writer('example.com');
    first.addRRset('answer', rrset('example.com', TYPE.NS, [ns]));
    const second = writer('example.org');
    second.addRRset('answer', rrset('example.org', TYPE.NS, [ns]));
    expect(rdlengths(first.finish())).toEqual([6]);
    expect(rdlengths(second.finish())).toEqual([17]);
  });

  it('a record that fits only once compressed is written (the limit counts the written octets)', () => {
    const soa = encodeRdata('SOA', { mname: 'ns1.example.com', rname: 'hostmaster.example.com', serial: 1, refresh: 2, retry: 3, expire: 4, minimum: 5 });
    // Header 12 + question 17 + owner pointer 2 + 10 + compressed RDATA 39 = 80; whole it would be 102.
    const w = new MessageWriter(80, header);
    w.addQuestion({ name: 'example.com', qtype: TYPE.SOA, qclass: CLASS.IN });
    expect(w.addRRset('answer', rrset('example.com', TYPE.SOA, [soa]))).toBe(true);
    expect(w.finish()).toHaveLength(80);
    const tight = new MessageWriter(79, header);
    tight.addQuestion({ name: 'example.com', qtype: TYPE.SOA, qclass: CLASS.IN });
    expect(tight.addRRset('answer', rrset('example.com', TYPE.SOA, [soa]))).toBe(false);
  });
});
