// fast-check arbitraries of valid data for every type with a codec (nameserver/wire/types/): the
// codec round trips (test/unit/nameserver/wireCodecRoundTrip.test.ts) and the cross-check against
// BIND and ldns (test/dns/codecCrossCheck.test.ts) draw from the same generators; ACCEPTED_DATA
// is the part of it the API accepts.
import fc from 'fast-check';
import { encodeBase32Hex } from '../../nameserver/wire/base32hex.js';
import { typeName } from '../../nameserver/wire/rrTypes.js';
import { escapedOctets } from '../../nameserver/wire/types/svcb.js';
import { parseRecordData } from '../../src/domain/records/parseRecordData.js';
import { RECORD_TYPES } from '../../src/domain/records/types.js';

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

/** Random valid data of each codec type, keyed by type mnemonic. */
export const DATA: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
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

const printableAscii = (max: number) => fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: max });
/** An octet string of one of the lengths a digest type fixes ([type, octets] pairs), in hex. */
const digest = (lengths: readonly [number, number][]) => fc.constantFrom(...lengths).chain(([type, n]) => hex(n, n).map((h) => [type, h] as const));
const tlsaLike = fc
  .record({
    usage: fc.nat(3),
    selector: fc.nat(1),
    data: fc.oneof(
      hex(1, 100).map((h) => [0, h] as const),
      digest([
        [1, 32],
        [2, 64],
      ]),
    ),
  })
  .map(({ usage, selector, data: [matching_type, certificate_data] }) => ({ usage, selector, matching_type, certificate_data }));
// RFC 9461 §5 (the API's dohpath rule): a relative URI template with the variable "dns".
const dohpath = fc
  .tuple(fc.stringMatching(/^(\/[a-zA-Z0-9._~-]{0,12}){1,3}$/), fc.constantFrom('{?dns}', '{?dns,extra}', '{&dns}', '?x={dns}'))
  .map(([path, template]) => path + template);
// RFC 9460 §2.4.2, §7.1.1, §8 (the API's rules): AliasMode has no params, mandatory lists keys
// that are present, no-default-alpn comes with alpn, ech is not empty.
const acceptedSvcParams = svcParams.map((params) => {
  const p: Record<string, unknown> = { ...params };
  if (p.dohpath !== undefined) delete p.dohpath;
  if (p.ech === '') delete p.ech;
  if (p['no-default-alpn'] && !p.alpn) p.alpn = ['h2'];
  if (Array.isArray(p.mandatory)) {
    const present = (p.mandatory as string[]).filter((k) => k in p);
    if (present.length) p.mandatory = present;
    else delete p.mandatory;
  }
  return p;
});
// RFC 3402 §3.2: delimiter, POSIX extended regular expression, delimiter, replacement (with
// back-references only to groups the expression has), delimiter, the flag "i" or none.
const naptrRegexp = fc
  .record({
    delimiter: fc.constantFrom('!', '/', '#'),
    literal: fc.stringMatching(/^[a-z0-9+:.-]{0,10}$/),
    group: fc.boolean(),
    replacement: fc.stringMatching(/^[a-z0-9+:@._-]{0,20}$/),
    caseless: fc.boolean(),
  })
  .map(({ delimiter: d, literal, group, replacement, caseless }) => {
    const ere = `^${literal.replace(/[+.]/g, '\\$&')}${group ? '(.*)' : '.*'}$`;
    return `${d}${ere}${d}${replacement}${group ? '\\1' : ''}${d}${caseless ? 'i' : ''}`;
  });
const svcb = fc
  .record({ priority: u16, target: name, params: acceptedSvcParams, dohpath: fc.option(dohpath) })
  .map(({ priority, target, params, dohpath }) => ({ priority, target, params: priority === 0 ? {} : dohpath === null ? params : { ...params, dohpath } }));

/** DATA narrowed where a type's policy (src/domain/records/<type>.ts) allows less than the codec encodes. */
const NARROWED: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
  // Digest lengths as their digest type fixes them (RFC 4034 §5.1.4, RFC 4509, RFC 6605).
  DS: fc
    .record({
      key_tag: u16,
      algorithm: u8,
      digest: digest([
        [1, 20],
        [2, 32],
        [4, 48],
      ]),
    })
    .map(({ key_tag, algorithm, digest: [digest_type, d] }) => ({ key_tag, algorithm, digest_type, digest: d })),
  // RFC 4255 §3.1.2, RFC 6594 §3: SHA-1 and SHA-256 fingerprints; algorithm 0 is reserved.
  SSHFP: fc
    .record({
      algorithm: fc.integer({ min: 1, max: 255 }),
      fp: digest([
        [1, 20],
        [2, 32],
      ]),
    })
    .map(({ algorithm, fp: [fingerprint_type, fingerprint] }) => ({ algorithm, fingerprint_type, fingerprint })),
  // RFC 6698 §2.1: usage 0–3, selector 0–1, matching type 0–2, digests of their length.
  TLSA: tlsaLike,
  SMIMEA: tlsaLike,
  // The API's CAA values are printable ASCII; issue values an issuer and parameters (RFC 8659 §4.2).
  CAA: fc.oneof(
    fc.record({ flags: u8, tag: fc.stringMatching(/^[a-zA-Z0-9]{1,15}$/), value: printableAscii(300) }),
    fc.record({
      flags: u8,
      tag: fc.constantFrom('issue', 'issuewild'),
      value: fc
        .tuple(
          fc.array(fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?$/), { maxLength: 3 }),
          fc.array(fc.stringMatching(/^[a-z0-9]{1,8}=[!-:<-~]{0,10}$/), { maxLength: 3 }),
        )
        .map(([labels, parameters]) => [labels.join('.'), ...parameters].join('; ')),
    }),
  ),
  // RFC 7553 §4.4 (the API's rule): an absolute URI, printable ASCII without blank space.
  URI: fc.record({
    priority: u16,
    weight: u16,
    target: fc.tuple(fc.stringMatching(/^[a-z][a-z0-9+.-]{0,8}$/), printableAscii(200)).map(([s, rest]) => `${s}:${rest.replace(/ /g, '')}`),
  }),
  // RFC 3403 §4.1: flags are letters and digits; regexp and replacement are mutually exclusive.
  // The regexp is an RFC 3402 §3.2 substitution expression ("!ere!replacement!flags"), the only
  // form BIND and the API's policy take: random text would almost never be one.
  NAPTR: fc
    .record({
      order: u16,
      preference: u16,
      flags: fc.stringMatching(/^[A-Za-z0-9]{0,4}$/),
      services: text(60),
      regexp: fc.option(naptrRegexp, { freq: 3 }),
      replacement: name,
    })
    .map((d) => (d.regexp === null ? { ...d, regexp: '' } : { ...d, replacement: '.' })),
  SVCB: svcb,
  HTTPS: svcb,
};

/**
 * Random data the API accepts, in the form it stores: NARROWED or DATA, passed through the policy
 * (parseRecordData), which drops what it still refuses and canonicalises the rest.
 */
export const ACCEPTED_DATA: Record<string, fc.Arbitrary<Record<string, unknown>>> = Object.fromEntries(
  RECORD_TYPES.map((type) => {
    const accepted = (NARROWED[type] ?? DATA[type]!)
      .map((data) => parseRecordData(type, data))
      .filter((parsed) => parsed.ok)
      .map((parsed) => (parsed as { data: Record<string, unknown> }).data);
    return [type, accepted];
  }),
);

/** RFC 3597 opaque RDATA of a type with no codec (`TYPEnnn`), as the API takes it; empty too. */
export const OPAQUE_DATA: fc.Arbitrary<Record<string, unknown>> = hex(0, 200).map((rdata) => ({ rdata }));
