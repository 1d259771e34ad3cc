// SSHFP, URI, HINFO, RP, OPENPGPKEY, SMIMEA, NAPTR and CERT: each RFC's example (or one like it)
// from master-file text to data, to wire octets and back, and to the presentation the API shows;
// the presentation read again gives the same octets. Then each type's main rule refused with a
// located problem.
import { describe, expect, it } from 'vitest';
import { encodeRdata, presentRdata, rdataToData } from '../../nameserver/wire/rdata.js';
import { parseRecordData } from '../../src/domain/records/parseRecordData.js';
import { ruleOf, type RecordType } from '../../src/domain/records/types.js';
import { rdataFromPresentation } from '../../src/domain/zonefile/rdataFromPresentation.js';
import { forEachLogicalRecord, type Token } from '../../src/domain/zonefile/tokenize.js';

const ORIGIN = 'example.com';
const sha1 = 'dd465c09cfa51fb45020cc83316fff21b9ec74ac';
const sha256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const ascii = (s: string) => Buffer.from(s, 'utf8').toString('hex');
const cs = (s: string) => Buffer.from([Buffer.byteLength(s), ...Buffer.from(s, 'utf8')]).toString('hex');

function tokensOf(text: string): readonly Token[] {
  const records: (readonly Token[])[] = [];
  forEachLogicalRecord(text, (r) => {
    expect(r.errors).toEqual([]);
    if (r.tokens.length) records.push(r.tokens);
  });
  expect(records).toHaveLength(1);
  return records[0]!;
}

/** Master-file RDATA → data as the API stores it (zone-file reader, then the type's policy). */
function fromZoneFile(type: RecordType, text: string): Record<string, unknown> {
  const read = rdataFromPresentation(type, tokensOf(text), ORIGIN);
  if (!read.ok) throw new Error(`${type} ${text}: ${read.detail}`);
  const checked = parseRecordData(type, read.value);
  if (!checked.ok) throw new Error(`${type} ${text}: ${JSON.stringify(checked.errors)}`);
  return checked.data;
}

// [type, master-file RDATA, stored data, wire (hex), presentation]
const CASES: [RecordType, string, Record<string, unknown>, string, string][] = [
  // RFC 4255 §3.3 (the fingerprint as ssh-keygen -r prints it)
  ['SSHFP', `2 1 ${sha1.toUpperCase()}`, { algorithm: 2, fingerprint_type: 1, fingerprint: sha1 }, `0201${sha1}`, `2 1 ${sha1}`],
  // RFC 7479 §3: Ed25519 with a SHA-256 fingerprint, hex in two parts
  [
    'SSHFP',
    `4 2 ( ${sha256.slice(0, 20)}\n ${sha256.slice(20)} )`,
    { algorithm: 4, fingerprint_type: 2, fingerprint: sha256 },
    `0402${sha256}`,
    `4 2 ${sha256}`,
  ],
  // RFC 7553 §4.5 example
  [
    'URI',
    '10 1 "ftp://ftp1.example.com/public"',
    { priority: 10, weight: 1, target: 'ftp://ftp1.example.com/public' },
    `000a0001${ascii('ftp://ftp1.example.com/public')}`,
    '10 1 "ftp://ftp1.example.com/public"',
  ],
  [
    'URI',
    '0 65535 "https://x.example/?q=\\"a\\""',
    { priority: 0, weight: 65535, target: 'https://x.example/?q="a"' },
    `0000ffff${ascii('https://x.example/?q="a"')}`,
    '0 65535 "https://x.example/?q=\\"a\\""',
  ],
  // RFC 8482 §4.2, and RFC 1035's two character-strings unquoted
  ['HINFO', 'RFC8482 ""', { cpu: 'RFC8482', os: '' }, `${cs('RFC8482')}00`, '"RFC8482" ""'],
  ['HINFO', '"PC Intel" "Linux \\"x\\""', { cpu: 'PC Intel', os: 'Linux "x"' }, cs('PC Intel') + cs('Linux "x"'), '"PC Intel" "Linux \\"x\\""'],
  // RFC 1183 §2.2: relative names are completed with the origin; RFC 4034 §6.2: lower case
  [
    'RP',
    'Louie.Trantor.Umd.Edu. LAM1.people',
    { mailbox: 'louie.trantor.umd.edu', text: 'lam1.people.example.com' },
    '056c6f756965077472616e746f7203756d640365647500046c616d310670656f706c65076578616d706c6503636f6d00',
    'louie.trantor.umd.edu. lam1.people.example.com.',
  ],
  ['RP', '. .', { mailbox: '.', text: '.' }, '0000', '. .'],
  // RFC 7929 §2.3: base64, blank space allowed
  [
    'OPENPGPKEY',
    'mQENBFVHm5sBCADrZb/p RsFeJ8A8',
    { public_key: 'mQENBFVHm5sBCADrZb/pRsFeJ8A8' },
    Buffer.from('mQENBFVHm5sBCADrZb/pRsFeJ8A8', 'base64').toString('hex'),
    'mQENBFVHm5sBCADrZb/pRsFeJ8A8',
  ],
  // RFC 8162 §2: the TLSA layout
  ['SMIMEA', `3 0 1 ${sha256.toUpperCase()}`, { usage: 3, selector: 0, matching_type: 1, certificate_data: sha256 }, `030001${sha256}`, `3 0 1 ${sha256}`],
  // RFC 3403 §6.2 (SIP) and §6.1-style ENUM with a regexp and the root as replacement
  [
    'NAPTR',
    '100 10 "S" "SIP+D2U" "" _sip._udp.Example.COM.',
    { order: 100, preference: 10, flags: 'S', services: 'SIP+D2U', regexp: '', replacement: '_sip._udp.example.com' },
    `0064000a${cs('S')}${cs('SIP+D2U')}00045f736970045f756470076578616d706c6503636f6d00`,
    '100 10 "S" "SIP+D2U" "" _sip._udp.example.com.',
  ],
  [
    'NAPTR',
    '100 10 "u" "E2U+sip" "!^.*$!sip:info@example.com!" .',
    { order: 100, preference: 10, flags: 'u', services: 'E2U+sip', regexp: '!^.*$!sip:info@example.com!', replacement: '.' },
    `0064000a${cs('u')}${cs('E2U+sip')}${cs('!^.*$!sip:info@example.com!')}00`,
    '100 10 "u" "E2U+sip" "!^.*$!sip:info@example.com!" .',
  ],
  [
    'NAPTR',
    '1 1 "" "" "!^(.*)$!\\\\1@x!" .',
    { order: 1, preference: 1, flags: '', services: '', regexp: '!^(.*)$!\\1@x!', replacement: '.' },
    `000100010000${cs('!^(.*)$!\\1@x!')}00`,
    '1 1 "" "" "!^(.*)$!\\\\1@x!" .',
  ],
  // RFC 4398 §2.2: type and algorithm by mnemonic or number; printed as numbers (as Knot does)
  [
    'CERT',
    'PKIX 12345 RSASHA256 MIIBIjAN',
    { cert_type: 1, key_tag: 12345, algorithm: 8, certificate: 'MIIBIjAN' },
    '00013039083082012230 0d'.replace(' ', ''),
    '1 12345 8 MIIBIjAN',
  ],
  [
    'CERT',
    'PGP 0 0 mQENBFVHm5sB',
    { cert_type: 3, key_tag: 0, algorithm: 0, certificate: 'mQENBFVHm5sB' },
    `000300000099010d0455479b9b01`,
    '3 0 0 mQENBFVHm5sB',
  ],
  [
    'CERT',
    'pkix 12345 8 ( MIIB IjAN )',
    { cert_type: 1, key_tag: 12345, algorithm: 8, certificate: 'MIIBIjAN' },
    '00013039083082012230 0d'.replace(' ', ''),
    '1 12345 8 MIIBIjAN',
  ],
  [
    'CERT',
    '253 1 2 aHR0cHM6Ly94',
    { cert_type: 253, key_tag: 1, algorithm: 2, certificate: 'aHR0cHM6Ly94' },
    `00fd000102${Buffer.from('aHR0cHM6Ly94', 'base64').toString('hex')}`,
    '253 1 2 aHR0cHM6Ly94',
  ],
];

CASES.push(
  // RFC 1876 §4 examples (the octets as ldns-read-zone -u LOC prints them); the defaults of §3 (size 1 m, precision 10,000 m and 10 m)
  [
    'LOC',
    '42 21 54 N 71 06 18 W -24m 30m',
    { latitude: 42.365, longitude: -71.105, altitude: -24, size: 30, horizontal_precision: 10000, vertical_precision: 10 },
    '0033161389172dd070be15f000988d20',
    '42 21 54.000 N 71 6 18.000 W -24.00m 30m 10000m 10m',
  ],
  [
    'LOC',
    '52 N 4 E 0',
    { latitude: 52, longitude: 4, altitude: 0, size: 1, horizontal_precision: 10000, vertical_precision: 10 },
    '001216138b28720080dbba0000989680',
    '52 0 0.000 N 4 0 0.000 E 0.00m 1m 10000m 10m',
  ],
  // sizes keep one significant digit (1.5 m is 1 m, as BIND reads it); the extremes of §3
  [
    'LOC',
    '90 S 180 0 0.000 W 42849672.95m 90000000m 1.5m 0.01',
    { latitude: -90, longitude: -180, altitude: 42849672.95, size: 90000000, horizontal_precision: 1, vertical_precision: 0.01 },
    '009912106cb0270059604e00ffffffff',
    '90 0 0.000 S 180 0 0.000 W 42849672.95m 90000000m 1m 0.01m',
  ],
);

CASES.push(
  // RFC 3597 §5: a type without a name, in the generic form only; opaque octets, no RDATA too
  ['TYPE65534', '\\# 4 0A0b0C0d', { rdata: '0a0b0c0d' }, '0a0b0c0d', '\\# 4 0a0b0c0d'],
  ['TYPE999', '\\# 0', { rdata: '' }, '', '\\# 0'],
);

describe('master file → data → wire → data and presentation → wire', () => {
  it.each(CASES)('%s %s', (type, text, data, wire, presentation) => {
    expect(fromZoneFile(type, text)).toEqual(data);
    const octets = encodeRdata(type, data);
    expect(octets.toString('hex')).toBe(wire);
    expect(rdataToData(type, octets)).toEqual(data);
    expect(presentRdata(type, octets)).toBe(presentation);
    expect(ruleOf(type).presentation(data)).toBe(presentation);
    // The presentation is itself master-file text that reads back to the same octets.
    expect(encodeRdata(type, fromZoneFile(type, presentation)).toString('hex')).toBe(wire);
  });

  // The octets of the fixed fields of the types whose last field runs to the end of the RDATA:
  // cut there, the RDATA lacks its non-empty last field.
  const FIXED: Partial<Record<RecordType, number>> = { SSHFP: 2, URI: 4, OPENPGPKEY: 0, SMIMEA: 3, CERT: 5, LOC: 15 };
  const OPAQUE = /^TYPE/; // any octets are opaque RDATA
  it.each(CASES.filter(([type]) => !OPAQUE.test(type)))('%s %s: a cut RDATA is no record of its type, nor one with an octet too many', (type, _text, data) => {
    const octets = encodeRdata(type, data);
    const fixed = FIXED[type];
    expect(rdataToData(type, octets.subarray(0, fixed ?? octets.length - 1))).toBeNull();
    if (fixed === undefined) expect(rdataToData(type, Buffer.concat([octets, Buffer.from([0])]))).toBeNull();
  });
});

/** [type, data, pointer, code] */
const REFUSED: [RecordType, Record<string, unknown>, string, string][] = [
  ['SSHFP', { algorithm: 1, fingerprint_type: 1, fingerprint: sha256 }, '/fingerprint', 'invalid_digest_length'],
  ['SSHFP', { algorithm: 4, fingerprint_type: 2, fingerprint: sha1 }, '/fingerprint', 'invalid_digest_length'],
  ['SSHFP', { algorithm: 4, fingerprint_type: 3, fingerprint: sha1 }, '/fingerprint_type', 'unknown_fingerprint_type'],
  ['SSHFP', { algorithm: 0, fingerprint_type: 1, fingerprint: sha1 }, '/algorithm', 'reserved_algorithm'],
  ['SSHFP', { algorithm: 1, fingerprint_type: 1, fingerprint: 'xyz' }, '/fingerprint', 'invalid_hex'],
  ['URI', { priority: 1, weight: 1, target: '' }, '/target', 'too_small'],
  ['URI', { priority: 1, weight: 1, target: 'not a uri' }, '/target', 'invalid_uri'],
  ['URI', { priority: 65536, weight: 1, target: 'https://x.example/' }, '/priority', 'too_big'],
  ['HINFO', { cpu: 'x'.repeat(256), os: '' }, '/cpu', 'too_big'],
  ['HINFO', { cpu: 'x' }, '/os', 'required'],
  ['RP', { mailbox: 'not a name', text: '.' }, '/mailbox', 'invalid_character'],
  ['OPENPGPKEY', { public_key: 'not base64!' }, '/public_key', 'invalid_base64'],
  ['OPENPGPKEY', { public_key: '' }, '/public_key', 'too_small'],
  ['SMIMEA', { usage: 3, selector: 1, matching_type: 1, certificate_data: sha1 }, '/certificate_data', 'invalid_digest_length'],
  [
    'NAPTR',
    { order: 1, preference: 1, flags: 'U', services: 'E2U+sip', regexp: '!^.*$!sip:a@b!', replacement: 'sip.example.com' },
    '/replacement',
    'regexp_and_replacement',
  ],
  ['NAPTR', { order: 1, preference: 1, flags: 'S+', services: '', regexp: '', replacement: 'sip.example.com' }, '/flags', 'invalid_flags'],
  ['CERT', { cert_type: 'X509', key_tag: 0, algorithm: 0, certificate: 'AAAA' }, '/cert_type', 'invalid_cert_type'],
  ['CERT', { cert_type: 255, key_tag: 0, algorithm: 0, certificate: 'AAAA' }, '/cert_type', 'invalid_cert_type'],
  ['CERT', { cert_type: 1, key_tag: 0, algorithm: 0, certificate: '' }, '/certificate', 'too_small'],
  ['CERT', { cert_type: 1, key_tag: 0, algorithm: 'RSA', certificate: 'AAAA' }, '/algorithm', 'invalid_algorithm'],
  ['CERT', { cert_type: 1, key_tag: 0, algorithm: 256, certificate: 'AAAA' }, '/algorithm', 'invalid_algorithm'],
  ['TYPE65534', { rdata: 'abc' }, '/rdata', 'invalid_hex'],
  ['LOC', { latitude: 90.5, longitude: 0, altitude: 0, size: 1, horizontal_precision: 1, vertical_precision: 1 }, '/latitude', 'too_big'],
  ['LOC', { latitude: 0, longitude: 0, altitude: 0, size: -1, horizontal_precision: 1, vertical_precision: 1 }, '/size', 'too_small'],
];

it.each([
  ['91 N 0 E 0', /latitude/],
  ['52 60 0 N 4 E 0', /latitude/],
  ['52 N 4 X 0', /longitude/],
  ['52 N 4 E', /altitude/],
  ['52 N 4 E 0 -1m', /size/],
  ['52 N 4 E 0 1 2 3 4', /altitude/],
  ['52 N 4 E 0.001m', /altitude/],
])('LOC %s is refused in a zone file (%s)', (text, field) => {
  const read = rdataFromPresentation('LOC', tokensOf(text), ORIGIN);
  expect(read.ok).toBe(false);
  if (!read.ok) expect(read.detail).toMatch(field);
});

describe('each rule refused with a located problem', () => {
  it.each(REFUSED)('%s %j → %s %s', (type, data, pointer, code) => {
    const result = parseRecordData(type, data);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => [e.pointer, e.code])).toContainEqual([pointer, code]);
    for (const e of result.errors) expect(e.detail).toMatch(/\S/);
  });

  it('RP takes a mailbox written as an address', () => {
    expect(parseRecordData('RP', { mailbox: 'hostmaster@example.com', text: '.' })).toEqual({
      ok: true,
      data: { mailbox: 'hostmaster.example.com', text: '.' },
    });
  });

  it.each([
    ['OPENPGPKEY', 'c93f1e400f26708f98cb19d936620da35eec8f72e57f9eec01c1afd6._openpgpkey', true],
    ['OPENPGPKEY', 'c93f1e400f26708f98cb19d936620da35eec8f72e57f9eec01c1afd6._openpgpkey.sub', true],
    ['OPENPGPKEY', 'hugh._openpgpkey', false],
    ['OPENPGPKEY', '@', false],
    ['SMIMEA', 'c93f1e400f26708f98cb19d936620da35eec8f72e57f9eec01c1afd6._smimecert', true],
    ['SMIMEA', 'c93f1e400f26708f98cb19d936620da35eec8f72e57f9eec01c1afd6._openpgpkey', false],
  ] as const)('%s at %s: allowed=%s (RFC 7929 §3, RFC 8162 §3)', (type, owner, allowed) => {
    expect(ruleOf(type).ownerProblem(owner) === null).toBe(allowed);
  });
});
