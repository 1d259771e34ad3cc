// One codec per record type (nameserver/wire/types/): for every type with a codec, random data
// goes data → wire → presentation → data → wire and comes back to the same octets and the same
// presentation; wire → data → wire is the identity; and for the types the API writes, the API's
// presentation (what it shows as `content`) reads back through the zone-file reader to the same
// wire form. The presentation reader is the zone-file importer's (src/domain/zonefile), so the
// three forms cannot drift apart.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TYPE } from '../../../nameserver/types.js';
import { encodeBase32Hex } from '../../../nameserver/wire/base32hex.js';
import { encodeRdata, presentData, rdataToData } from '../../../nameserver/wire/rdata.js';
import { decodeRdata } from '../../../nameserver/wire/rdataPresentation.js';
import { typeName } from '../../../nameserver/wire/rrTypes.js';
import { RECORD_TYPES } from '../../../src/domain/records/types.js';
import { CODEC_TYPES } from '../../../nameserver/wire/types/index.js';
import { escapedOctets } from '../../../nameserver/wire/types/svcb.js';
import { rdataFromPresentation } from '../../../src/domain/zonefile/rdataFromPresentation.js';
import { forEachLogicalRecord, type Token } from '../../../src/domain/zonefile/tokenize.js';

const u8 = fc.nat(0xff);
const u16 = fc.nat(0xffff);
const u32 = fc.nat(0xffffffff);
const octets = (min: number, max: number) => fc.uint8Array({ minLength: min, maxLength: max }).map((b) => Buffer.from(b));
const hex = (min: number, max: number) => octets(min, max).map((b) => b.toString('hex'));
const base64 = (min: number, max: number) => octets(min, max).map((b) => b.toString('base64'));
const label = fc.stringMatching(/^[a-z0-9_]([a-z0-9-]{0,20}[a-z0-9])?$/);
const name = fc.oneof(
  fc.constant('.'),
  fc.array(label, { minLength: 1, maxLength: 5 }).map((l) => l.join('.')),
);
// Any Unicode scalar values (no lone surrogates: they have no UTF-8 form).
const text = (max: number) => fc.string({ unit: 'grapheme', maxLength: max });
const ipv6 = octets(16, 16).map((b) => Array.from({ length: 8 }, (_, i) => b.readUInt16BE(2 * i).toString(16)).join(':'));
const typeList = (min: number) => fc.uniqueArray(fc.integer({ min: 1, max: 0xffff }), { minLength: min, maxLength: 12 }).map((codes) => codes.map(typeName));

// Every SvcParamKey (RFC 9460 §14.3.2, RFC 9461, RFC 9540) with values the wire can hold, each
// key optional; ALPN ids and dohpath any text (commas, backslashes, quotes, non-ASCII); one more
// key of any unregistered number with any octets.
const svcParams = fc
  .tuple(
    fc.record(
      {
        mandatory: fc.uniqueArray(fc.constantFrom('alpn', 'no-default-alpn', 'port', 'ipv4hint', 'ech', 'ipv6hint', 'dohpath', 'ohttp', 'key65000'), {
          minLength: 1,
          maxLength: 5,
        }),
        alpn: fc.array(
          text(20).filter((t) => t.length > 0 && Buffer.byteLength(t) <= 255),
          { minLength: 1, maxLength: 4 },
        ),
        'no-default-alpn': fc.constant(true),
        port: u16,
        ipv4hint: fc.array(
          fc.tuple(u8, u8, u8, u8).map((o) => o.join('.')),
          { minLength: 1, maxLength: 4 },
        ),
        ech: base64(0, 60),
        ipv6hint: fc.array(ipv6, { minLength: 1, maxLength: 3 }),
        dohpath: text(60),
        ohttp: fc.constant(true),
        key65000: octets(0, 40).map(escapedOctets),
      },
      { requiredKeys: [] },
    ),
    fc.option(fc.tuple(fc.integer({ min: 9, max: 65534 }), octets(0, 20))),
  )
  .map(([params, extra]) => (extra ? { ...params, [`key${extra[0]}`]: escapedOctets(extra[1]) } : params));

const DATA: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
  SVCB: fc.record({ priority: u16, target: name, params: svcParams }),
  HTTPS: fc.record({ priority: u16, target: name, params: svcParams }),
  A: fc.tuple(u8, u8, u8, u8).map((o) => ({ address: o.join('.') })),
  AAAA: fc
    .oneof(
      ipv6,
      u32.map((v) => `::${v >>> 24}.${(v >>> 16) & 0xff}.${(v >>> 8) & 0xff}.${v & 0xff}`),
      u32.map((v) => `::ffff:${(v >>> 16).toString(16)}:${(v & 0xffff).toString(16)}`),
    )
    .map((address) => ({ address })),
  NS: fc.record({ nameserver: name }),
  CNAME: fc.record({ target: name }),
  PTR: fc.record({ target: name }),
  MX: fc.record({ preference: u16, exchange: name }),
  TXT: fc.record({ text: text(700) }),
  SRV: fc.record({ priority: u16, weight: u16, port: u16, target: name }),
  CAA: fc.record({ flags: u8, tag: fc.stringMatching(/^[a-zA-Z0-9]{1,15}$/), value: text(300) }),
  TLSA: fc.record({ usage: u8, selector: u8, matching_type: u8, certificate_data: hex(1, 100) }),
  SOA: fc.record({ mname: name, rname: name, serial: u32, refresh: u32, retry: u32, expire: u32, minimum: u32 }),
  DNSKEY: fc.record({ flags: u16, protocol: fc.constant(3), algorithm: u8, public_key: base64(1, 100) }),
  CDNSKEY: fc.record({ flags: u16, protocol: fc.constant(3), algorithm: u8, public_key: base64(1, 100) }),
  DS: fc.record({ key_tag: u16, algorithm: u8, digest_type: u8, digest: hex(1, 64) }),
  CDS: fc.record({ key_tag: u16, algorithm: u8, digest_type: u8, digest: hex(1, 64) }),
  RRSIG: fc.record({
    type_covered: fc.nat(0xffff).map(typeName),
    algorithm: u8,
    labels: u8,
    original_ttl: u32,
    expiration: u32,
    inception: u32,
    key_tag: u16,
    signer_name: name,
    signature: base64(1, 100),
  }),
  NSEC: fc.record({ next_domain_name: name, types: typeList(1) }),
  NSEC3: fc.record({
    hash_algorithm: u8,
    flags: u8,
    iterations: u16,
    salt: fc.oneof(fc.constant('-'), hex(1, 20)),
    next_hashed_owner_name: octets(1, 32).map(encodeBase32Hex),
    types: typeList(0),
  }),
  NSEC3PARAM: fc.record({ hash_algorithm: u8, flags: u8, iterations: u16, salt: fc.oneof(fc.constant(''), hex(1, 20)) }),
  SSHFP: fc.record({ algorithm: u8, fingerprint_type: u8, fingerprint: hex(1, 64) }),
  URI: fc.record({ priority: u16, weight: u16, target: text(300).filter((t) => t !== '') }),
  HINFO: fc.record({ cpu: text(60), os: text(60) }),
  RP: fc.record({ mailbox: name, text: name }),
  OPENPGPKEY: fc.record({ public_key: base64(1, 200) }),
  SMIMEA: fc.record({ usage: u8, selector: u8, matching_type: u8, certificate_data: hex(1, 100) }),
  NAPTR: fc.record({ order: u16, preference: u16, flags: text(20), services: text(60), regexp: text(60), replacement: name }),
  CERT: fc.record({ cert_type: u16, key_tag: u16, algorithm: u8, certificate: base64(1, 200) }),
  // RFC 1876 §2: angles in thousandths of an arcsecond, altitude in centimetres, sizes a digit times a power of ten (cm).
  LOC: fc
    .record({
      latitude: fc.integer({ min: -90 * 3_600_000, max: 90 * 3_600_000 }),
      longitude: fc.integer({ min: -180 * 3_600_000, max: 180 * 3_600_000 }),
      altitude: u32,
      sizes: fc.array(fc.tuple(fc.nat(9), fc.nat(9)), { minLength: 3, maxLength: 3 }),
    })
    .map((r) => {
      const [size, horizontal_precision, vertical_precision] = r.sizes.map(([m, e]) => (m * 10 ** e) / 100);
      return {
        latitude: r.latitude / 3_600_000,
        longitude: r.longitude / 3_600_000,
        altitude: (r.altitude - 10_000_000) / 100,
        size,
        horizontal_precision,
        vertical_precision,
      };
    }),
};

/** The RDATA tokens of a presentation, as the zone-file reader sees them after the type. */
function tokensOf(presentation: string): Token[] {
  let tokens: Token[] = [];
  forEachLogicalRecord(`x ${presentation}`, (record) => {
    expect(record.errors).toEqual([]);
    tokens = record.tokens.slice(1);
  });
  return tokens;
}

/** presentation → data (the zone-file reader, root origin) → wire. */
function wireOfPresentation(type: string, presentation: string): Buffer {
  const data = rdataFromPresentation(type, tokensOf(presentation), '');
  if (!data.ok) throw new Error(`${type} "${presentation}": ${data.code} ${data.detail}`);
  return encodeRdata(type, data.value);
}

describe('every codec round-trips presentation → data → wire → presentation', () => {
  it('covers every type in the codec table', () => {
    expect(Object.keys(DATA).sort()).toEqual([...CODEC_TYPES].sort());
  });

  it.each(CODEC_TYPES.map((t) => [t]))('%s', (type) => {
    const code = TYPE[type as keyof typeof TYPE];
    fc.assert(
      fc.property(DATA[type]!, (data) => {
        const wire = encodeRdata(type, data);
        // wire → data → wire
        const back = rdataToData(type, wire);
        expect(back).not.toBeNull();
        expect(encodeRdata(type, back!).equals(wire)).toBe(true);
        // wire → presentation (dig's form) → data → wire → presentation
        const presentation = decodeRdata(code, wire);
        expect(presentation.startsWith('\\#')).toBe(false);
        const again = wireOfPresentation(type, presentation);
        expect(again.toString('hex')).toBe(wire.toString('hex'));
        expect(decodeRdata(code, again)).toBe(presentation);
      }),
      { numRuns: 150 },
    );
  });

  it.each(RECORD_TYPES.map((t) => [t]))('%s: the API presentation reads back to the same wire form', (type) => {
    fc.assert(
      fc.property(DATA[type]!, (data) => {
        const wire = encodeRdata(type, data);
        const content = presentData(type, data);
        expect(wireOfPresentation(type, content).equals(wire)).toBe(true);
      }),
      { numRuns: 100 },
    );
  });
});
