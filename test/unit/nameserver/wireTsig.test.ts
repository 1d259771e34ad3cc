// TSIG (RFC 8945) on its own: signing and verifying round trips, each error in the RFC's order,
// chained MACs of a message stream, the MAC of each of the six algorithms recomputed here byte by
// byte from the RFC's description, and truncated MACs (§5.2.2.1). Interoperability with BIND's
// dig and Knot's kdig, every algorithm and truncation included, is in wireInterop.test.ts.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CLASS, OPCODE, RCODE, TYPE } from '../../../nameserver/types.js';
import { MessageWriter } from '../../../nameserver/wire/messageWriter.js';
import { parseMessage } from '../../../nameserver/wire/parseMessage.js';
import { parseQuery, type Query } from '../../../nameserver/wire/query.js';
import { encodeRdata } from '../../../nameserver/wire/rdata.js';
import { encodeError, encodeResponse } from '../../../nameserver/wire/response.js';
import {
  appendTsigError,
  minimumMacOctets,
  signBadTime,
  signMessage,
  TSIG_ALGORITHMS,
  tsigAlgorithmOf,
  tsigRecordSize,
  verifyTsig,
  type TsigAlgorithm,
  type TsigKey,
  type TsigRecord,
} from '../../../nameserver/wire/tsig.js';

const key: TsigKey = { name: 'transfer.key', algorithm: 'hmac-sha256', secret: Buffer.from('a secret of 32 octets, exactly!!'), owner: null };
const keys = new Map([[key.name, key]]);
const now = new Date('2026-03-01T12:00:00Z');
const seconds = now.getTime() / 1000;

/** An unsigned AXFR request as a secondary builds it. */
function request(id = 0x1111): Buffer {
  const w = new MessageWriter(512, { id, opcode: OPCODE.QUERY, rcode: 0 });
  w.addQuestion({ name: 'example.com', qtype: TYPE.AXFR, qclass: CLASS.IN });
  return w.finish();
}

function signedQuery(options: { secret?: Buffer; name?: string; at?: Date } = {}): { raw: Buffer; query: Query } {
  const { message } = signMessage(request(), { ...key, name: options.name ?? key.name, secret: options.secret ?? key.secret }, { now: options.at ?? now });
  const parsed = parseQuery(message);
  if (parsed.kind !== 'query') throw new Error('signed query did not parse');
  return { raw: message, query: parsed.query };
}

const tsigOf = (buf: Buffer): TsigRecord => {
  const t = parseMessage(buf)?.tsig;
  if (!t) throw new Error('no TSIG');
  return t;
};

describe('signMessage', () => {
  it('appends one TSIG RR, increments ARCOUNT, keeps the ID as the original ID', () => {
    const unsigned = request(0x2222);
    const { message, mac } = signMessage(unsigned, key, { now });
    expect(message.subarray(0, 10)).toEqual(unsigned.subarray(0, 10));
    expect(message.readUInt16BE(10)).toBe(1);
    expect(message.subarray(12, unsigned.length)).toEqual(unsigned.subarray(12));
    expect(message.length - unsigned.length).toBeLessThanOrEqual(tsigRecordSize(key));
    const m = parseMessage(message);
    expect(m?.additional.map((r) => [r.name, r.type, r.klass, r.ttl])).toEqual([['transfer.key', TYPE.TSIG, CLASS.ANY, 0]]);
    expect(m?.tsig).toMatchObject({
      keyName: 'transfer.key',
      algorithm: 'hmac-sha256',
      timeSigned: seconds,
      fudge: 300,
      originalId: 0x2222,
      error: 0,
      offset: unsigned.length,
    });
    expect(m?.tsig?.mac).toEqual(mac);
  });

  it('computes the MAC of RFC 8945 §4.3.3: message, then the TSIG variables in canonical form', () => {
    const unsigned = request();
    const { mac } = signMessage(unsigned, { ...key, name: 'Transfer.KEY' }, { now });
    const name = (labels: string[]) => Buffer.concat([...labels.map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)])), Buffer.from([0])]);
    const variables = Buffer.concat([
      name(['transfer', 'key']), // lower case, uncompressed
      Buffer.from([0x00, 0xff]), // CLASS ANY
      Buffer.from([0, 0, 0, 0]), // TTL 0
      name(['hmac-sha256']),
      Buffer.from([0, 0, ...Buffer.from(seconds.toString(16).padStart(8, '0'), 'hex')]), // 48-bit time
      Buffer.from([0x01, 0x2c]), // fudge 300
      Buffer.from([0, 0]), // error
      Buffer.from([0, 0]), // other length
    ]);
    expect(mac).toEqual(createHmac('sha256', key.secret).update(unsigned).update(variables).digest());
  });
});

describe('verifyTsig (RFC 8945 §5.2: key, then MAC, then time)', () => {
  it('accepts a correctly signed request and names the key', () => {
    const { raw, query } = signedQuery();
    expect(verifyTsig(raw, query.tsig!, keys, now)).toEqual({ ok: true, key });
    expect(verifyTsig(raw, query.tsig!, keys, new Date(now.getTime() + 300_000))).toMatchObject({ ok: true });
  });

  it('accepts a key name sent in another case (names compare case-insensitively)', () => {
    const { raw, query } = signedQuery({ name: 'TRANSFER.Key' });
    expect(query.tsig?.keyName).toBe('transfer.key');
    expect(verifyTsig(raw, query.tsig!, keys, now)).toMatchObject({ ok: true });
  });

  it('BADKEY for an unknown key or another algorithm', () => {
    const { raw, query } = signedQuery({ name: 'other.key' });
    expect(verifyTsig(raw, query.tsig!, keys, now)).toEqual({ ok: false, error: RCODE.BADKEY });
    const { raw: raw2, query: q2 } = signedQuery();
    expect(verifyTsig(raw2, { ...q2.tsig!, algorithm: 'hmac-md5.sig-alg.reg.int' }, keys, now)).toEqual({ ok: false, error: RCODE.BADKEY });
  });

  it('BADSIG for a wrong secret, any changed octet, or a truncated MAC', () => {
    const wrong = signedQuery({ secret: Buffer.from('not the secret') });
    expect(verifyTsig(wrong.raw, wrong.query.tsig!, keys, now)).toEqual({ ok: false, error: RCODE.BADSIG });
    const { raw } = signedQuery();
    for (let i = 0; i < raw.length; i++) {
      if (i === 0 || i === 1) continue; // the ID may change in transit; the original ID is signed
      const tampered = Buffer.from(raw);
      tampered[i]! ^= 0x01;
      const parsed = parseQuery(tampered);
      if (parsed.kind !== 'query' || !parsed.query.tsig) continue; // no longer a signed query
      const result = verifyTsig(tampered, parsed.query.tsig, keys, now);
      expect(result.ok, `octet ${i}`).toBe(false);
    }
  });

  it('a forwarder changing the ID does not break the MAC (the original ID is restored)', () => {
    const { raw } = signedQuery();
    const forwarded = Buffer.from(raw);
    forwarded.writeUInt16BE(0x9999, 0);
    const parsed = parseQuery(forwarded);
    expect(parsed.kind === 'query' && verifyTsig(forwarded, parsed.query.tsig!, keys, now).ok).toBe(true);
  });

  it('BADTIME outside time signed ± fudge, but only once the MAC checked out', () => {
    const { raw, query } = signedQuery();
    // BADTIME names the key: its response is signed (RFC 8945 §5.2.3).
    expect(verifyTsig(raw, query.tsig!, keys, new Date(now.getTime() + 301_000))).toEqual({ ok: false, error: RCODE.BADTIME, key });
    expect(verifyTsig(raw, query.tsig!, keys, new Date(now.getTime() - 301_000))).toEqual({ ok: false, error: RCODE.BADTIME, key });
    const wrong = signedQuery({ secret: Buffer.from('x') });
    expect(verifyTsig(wrong.raw, wrong.query.tsig!, keys, new Date(0))).toEqual({ ok: false, error: RCODE.BADSIG });
  });
});

describe('responses', () => {
  it('a response MAC covers the request MAC; the requester verifies it', () => {
    const { query } = signedQuery();
    const answer = { rcode: 0, aa: true, answer: [], authority: [], additional: [] };
    const unsigned = encodeResponse(query, answer, { maxSize: 65535, tcp: true, reserve: tsigRecordSize(key) });
    const { message } = signMessage(unsigned, key, { requestMac: query.tsig!.mac, now });
    expect(verifyTsig(message, tsigOf(message), keys, now, { requestMac: query.tsig!.mac })).toMatchObject({ ok: true });
    expect(verifyTsig(message, tsigOf(message), keys, now)).toEqual({ ok: false, error: RCODE.BADSIG });
    expect(verifyTsig(message, tsigOf(message), keys, now, { requestMac: Buffer.alloc(32) })).toEqual({ ok: false, error: RCODE.BADSIG });
  });

  it('a stream: each later message covers the previous MAC and the timers only (RFC 8945 §5.3.1)', () => {
    const { query } = signedQuery();
    const soa = encodeRdata('SOA', { mname: 'ns1.example.com', rname: 'h.example.com', serial: 1, refresh: 1, retry: 1, expire: 1, minimum: 1 });
    const messages: Buffer[] = [];
    let previous: Buffer | undefined;
    for (let i = 0; i < 3; i++) {
      const w = new MessageWriter(65535 - tsigRecordSize(key), { id: query.id, opcode: 0, qr: true, aa: true, rcode: 0 });
      if (i === 0) w.addQuestion(query.question);
      w.addRecord('answer', { name: 'example.com', type: TYPE.SOA, ttl: 60, rdata: soa });
      const signed: { message: Buffer; mac: Buffer } =
        i === 0
          ? signMessage(w.finish(), key, { requestMac: query.tsig!.mac, now })
          : signMessage(w.finish(), key, { previousMac: previous, timersOnly: true, now });
      previous = signed.mac;
      messages.push(signed.message);
    }
    let prior = query.tsig!.mac;
    for (const [i, message] of messages.entries()) {
      const tsig = tsigOf(message);
      const chain = i === 0 ? { requestMac: prior } : { previousMac: prior, timersOnly: true };
      expect(verifyTsig(message, tsig, keys, now, chain)).toMatchObject({ ok: true });
      if (i > 0) expect(verifyTsig(message, tsig, keys, now, { requestMac: prior })).toMatchObject({ ok: false });
      prior = tsig.mac;
    }
  });

  it('BADKEY and BADSIG go back unsigned: MAC size 0, the request key, time and fudge (RFC 8945 §5.3.2)', () => {
    const { query } = signedQuery({ name: 'unknown.key' });
    const reply = appendTsigError(encodeError(query, RCODE.NOTAUTH), query.tsig!, RCODE.BADKEY);
    const m = parseMessage(reply);
    expect(m).toMatchObject({ rcode: RCODE.NOTAUTH, id: query.id });
    expect(m?.tsig).toMatchObject({
      keyName: 'unknown.key',
      algorithm: 'hmac-sha256',
      timeSigned: seconds,
      fudge: 300,
      error: RCODE.BADKEY,
      originalId: query.id,
    });
    expect(m?.tsig?.mac.length).toBe(0);
  });

  it('BADTIME is signed, repeats the request time and carries the server time (RFC 8945 §5.2.3)', () => {
    const { query } = signedQuery();
    const serverNow = new Date(now.getTime() + 3_600_000);
    const { message } = signBadTime(encodeError(query, RCODE.NOTAUTH), key, query.tsig!, serverNow);
    const tsig = tsigOf(message);
    expect(tsig).toMatchObject({ error: RCODE.BADTIME, timeSigned: seconds, fudge: 300 });
    expect(tsig.otherData.readUIntBE(0, 6)).toBe(seconds + 3600);
    // The requester, whose clock says `now`, can verify it.
    expect(verifyTsig(message, tsig, keys, now, { requestMac: query.tsig!.mac })).toMatchObject({ ok: true });
  });
});

/** Key names in wire form, built here rather than by the codec under test. */
const wireName = (name: string) => Buffer.concat([...name.split('.').map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)])), Buffer.from([0])]);
const u16 = (n: number) => Buffer.from([n >> 8, n & 0xff]);

/** `signed` with its TSIG RR's MAC replaced by `mac` (everything else as signed). */
function withMac(signed: Buffer, mac: Buffer): Buffer {
  const tsig = tsigOf(signed);
  const algorithm = wireName(tsig.algorithm);
  const rdata = Buffer.concat([
    algorithm,
    Buffer.from(tsig.timeSigned.toString(16).padStart(12, '0'), 'hex'),
    u16(tsig.fudge),
    u16(mac.length),
    mac,
    u16(tsig.originalId),
    u16(tsig.error),
    u16(tsig.otherData.length),
    tsig.otherData,
  ]);
  return Buffer.concat([signed.subarray(0, tsig.offset), wireName(tsig.keyName), u16(TYPE.TSIG), u16(CLASS.ANY), Buffer.alloc(4), u16(rdata.length), rdata]);
}

const HASH: Record<TsigAlgorithm, [hash: string, octets: number, wire: string]> = {
  'hmac-md5': ['md5', 16, 'hmac-md5.sig-alg.reg.int'],
  'hmac-sha1': ['sha1', 20, 'hmac-sha1'],
  'hmac-sha224': ['sha224', 28, 'hmac-sha224'],
  'hmac-sha256': ['sha256', 32, 'hmac-sha256'],
  'hmac-sha384': ['sha384', 48, 'hmac-sha384'],
  'hmac-sha512': ['sha512', 64, 'hmac-sha512'],
};

describe.each(TSIG_ALGORITHMS)('%s (RFC 8945 §6)', (algorithm) => {
  const [hash, octets, wire] = HASH[algorithm];
  const k: TsigKey = { name: `${algorithm}.key`, algorithm, secret: Buffer.from(`the secret of ${algorithm}`), owner: 'credential-1' };
  const ring = new Map([[k.name, k]]);

  it('names itself on the wire as the registry does, and MACs as the RFC says', () => {
    const unsigned = request();
    const { message, mac } = signMessage(unsigned, k, { now });
    const tsig = tsigOf(message);
    expect(tsig.algorithm).toBe(wire);
    expect(tsigAlgorithmOf(wire)).toBe(algorithm);
    expect(mac).toHaveLength(octets);
    const variables = Buffer.concat([
      wireName(k.name),
      u16(CLASS.ANY),
      Buffer.alloc(4),
      wireName(wire),
      Buffer.from(seconds.toString(16).padStart(12, '0'), 'hex'),
      u16(300),
      u16(0),
      u16(0),
    ]);
    expect(mac).toEqual(createHmac(hash, k.secret).update(unsigned).update(variables).digest());
    expect(verifyTsig(message, tsig, ring, now)).toEqual({ ok: true, key: k });
    expect(message.length - unsigned.length).toBe(tsigRecordSize(k) - 6);
  });

  it('a key of another algorithm under the same name is BADKEY', () => {
    const { message } = signMessage(request(), k, { now });
    const other = TSIG_ALGORITHMS.find((a) => a !== algorithm)!;
    expect(verifyTsig(message, tsigOf(message), new Map([[k.name, { ...k, algorithm: other }]]), now)).toEqual({ ok: false, error: RCODE.BADKEY });
  });

  it(`truncation (§5.2.2.1): down to ${Math.max(10, octets / 2)} octets accepted, shorter or longer FORMERR, empty BADSIG`, () => {
    const minimum = Math.max(10, Math.ceil(octets / 2));
    expect(minimumMacOctets(algorithm)).toBe(minimum);
    const { message, mac } = signMessage(request(), k, { now });
    const verify = (m: Buffer) => verifyTsig(m, tsigOf(m), ring, now);
    for (let length = minimum; length <= octets; length++)
      expect(verify(withMac(message, mac.subarray(0, length))), `${length} octets`).toMatchObject({ ok: true });
    expect(verify(withMac(message, mac.subarray(0, minimum - 1)))).toEqual({ ok: false, error: RCODE.FORMERR });
    expect(verify(withMac(message, Buffer.concat([mac, Buffer.from([0])])))).toEqual({ ok: false, error: RCODE.FORMERR });
    expect(verify(withMac(message, Buffer.alloc(0)))).toEqual({ ok: false, error: RCODE.BADSIG });
    const wrong = Buffer.from(mac.subarray(0, minimum));
    wrong[minimum - 1]! ^= 1;
    expect(verify(withMac(message, wrong))).toEqual({ ok: false, error: RCODE.BADSIG });
  });

  it('the response to a truncated request MAC is truncated alike, and covers the truncated MAC; so is a stream', () => {
    const minimum = minimumMacOctets(algorithm);
    const signed = signMessage(request(), k, { now });
    const truncated = withMac(signed.message, signed.mac.subarray(0, minimum));
    const parsed = parseQuery(truncated);
    if (parsed.kind !== 'query') throw new Error('no query');
    const requestMac = parsed.query.tsig!.mac;
    const answer = { rcode: 0, aa: true, answer: [], authority: [], additional: [] };
    const first = signMessage(encodeResponse(parsed.query, answer, { maxSize: 65535, tcp: true }), k, { requestMac, now });
    expect(first.mac).toHaveLength(minimum);
    expect(verifyTsig(first.message, tsigOf(first.message), ring, now, { requestMac })).toMatchObject({ ok: true });
    expect(verifyTsig(first.message, tsigOf(first.message), ring, now, { requestMac: signed.mac })).toMatchObject({ ok: false });
    const second = signMessage(encodeResponse(parsed.query, answer, { maxSize: 65535, tcp: true }), k, { previousMac: first.mac, timersOnly: true, now });
    expect(second.mac).toHaveLength(minimum);
    expect(verifyTsig(second.message, tsigOf(second.message), ring, now, { previousMac: first.mac, timersOnly: true })).toMatchObject({ ok: true });
  });
});

describe('algorithm names', () => {
  it('reads the registry names, case-folded by the parser, and no others', () => {
    expect(TSIG_ALGORITHMS.map((a) => tsigAlgorithmOf(HASH[a][2]))).toEqual([...TSIG_ALGORITHMS]);
    // Our short name for HMAC-MD5 is not its name on the wire; GSS-TSIG and unknown names are not ours.
    for (const name of ['hmac-md5', 'gss-tsig', 'hmac-sha256-128', 'hmac-sha3-256', '']) expect(tsigAlgorithmOf(name), name).toBeNull();
  });
});
