// RDATA codec: every type from the service's data to wire form and back to the presentation form
// the RFCs print, golden wire bytes where an RFC gives them, and refusal of every invalid value.
import { execFile } from 'node:child_process';
import net from 'node:net';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { TYPE } from '../../../nameserver/types.js';
import { decodeBase32Hex, encodeBase32Hex } from '../../../nameserver/wire/base32hex.js';
import { decodeName, encodeName, splitLabels } from '../../../nameserver/wire/name.js';
import { encodeRdata, rdataTarget } from '../../../nameserver/wire/rdata.js';
import { decodeRdata } from '../../../nameserver/wire/rdataPresentation.js';
import { parseQuery } from '../../../nameserver/wire/query.js';
import { encodeResponse } from '../../../nameserver/wire/response.js';
import { decodeTypeBitmap, encodeTypeBitmap } from '../../../nameserver/wire/typeBitmap.js';
import { requireTool } from '../../helpers/dnsTools.js';

/** Seconds since the epoch of an RRSIG YYYYMMDDHHmmSS time. */
const epoch = (t: string) => Date.UTC(+t.slice(0, 4), +t.slice(4, 6) - 1, +t.slice(6, 8), +t.slice(8, 10), +t.slice(10, 12), +t.slice(12, 14)) / 1000;

// RFC 4034 §2.3, §3.3 examples (the key and signature as one base64 token).
const RFC4034_KEY =
  'AQPSKmynfzW4kyBv015MUG2DeIQ3Cbl+BBZH4b/0PY1kxkmvHjcZc8nokfzj31GajIQKY+5CptLr3buXA10hWqTkF7H6RfoRqXQeogmMHfpftf6zMv1LyBUgia7za6ZEzOJBOztyvhjL742iU/TpPSEDhm2SNKLijfUppn1UaNvv4w==';
const RFC4034_SIG =
  'oJB1W6WNGv+ldvQ3WDG0MQkg5IEhjRip8WTrPYGv07h108dUKGMeDPKijVCHX3DDKdfb+v6oB9wfuh3DTJXUAfI/M0zmO/zz8bW0Rznl8O3tGNazPwQKkRN20XPXV6nwwfoXmJQbsLNrLfkGJ5D6fwFm8nN+6pBzeDQfsS3Ap3o=';

/** [type, data, presentation] — the presentation as `dig +nosplit` prints it (checked below). */
const RDATA_CASES: [string, Record<string, unknown>, string][] = [
  // RFC 1035 §5.3 example zone
  ['A', { address: '10.2.0.52' }, '10.2.0.52'],
  ['A', { address: '0.0.0.0' }, '0.0.0.0'],
  ['A', { address: '255.255.255.255' }, '255.255.255.255'],
  ['NS', { nameserver: 'a.isi.edu' }, 'a.isi.edu.'],
  ['CNAME', { target: 'venera.isi.edu' }, 'venera.isi.edu.'],
  ['PTR', { target: 'venera.isi.edu' }, 'venera.isi.edu.'],
  ['MX', { preference: 10, exchange: 'venera.isi.edu' }, '10 venera.isi.edu.'],
  [
    'SOA',
    { mname: 'venera.isi.edu', rname: 'action\\.domains.isi.edu', serial: 20, refresh: 7200, retry: 600, expire: 3600000, minimum: 60 },
    'venera.isi.edu. action\\.domains.isi.edu. 20 7200 600 3600000 60',
  ],
  [
    'SOA',
    { mname: 'ns1.example.com', rname: 'hostmaster.example.com', serial: 4294967295, refresh: 0, retry: 0, expire: 0, minimum: 0 },
    'ns1.example.com. hostmaster.example.com. 4294967295 0 0 0 0',
  ],
  // RFC 7505 §3: the null MX; RFC 2782: a "." target says the service is not offered
  ['MX', { preference: 0, exchange: '.' }, '0 .'],
  ['MX', { preference: 0, exchange: '' }, '0 .'],
  ['SRV', { priority: 0, weight: 5, port: 5060, target: 'sip.example.com' }, '0 5 5060 sip.example.com.'],
  ['SRV', { priority: 65535, weight: 65535, port: 65535, target: '.' }, '65535 65535 65535 .'],
  // RFC 3596 §2.2 and the RFC 4291 §2.2 text forms, printed as RFC 5952 §4 says
  ['AAAA', { address: '4321:0:1:2:3:4:567:89ab' }, '4321:0:1:2:3:4:567:89ab'],
  ['AAAA', { address: '2001:DB8:0:0:8:800:200C:417A' }, '2001:db8::8:800:200c:417a'],
  ['AAAA', { address: 'FF01:0:0:0:0:0:0:101' }, 'ff01::101'],
  ['AAAA', { address: '0:0:0:0:0:0:0:1' }, '::1'],
  ['AAAA', { address: '::' }, '::'],
  ['AAAA', { address: '0:0:0:0:0:0:13.1.68.3' }, '::13.1.68.3'], // RFC 5952 §5: mixed notation
  ['AAAA', { address: '::2' }, '::2'],
  ['AAAA', { address: '0:0:0:0:0:FFFF:129.144.52.38' }, '::ffff:129.144.52.38'],
  ['AAAA', { address: '::ffff:192.0.2.1' }, '::ffff:192.0.2.1'],
  ['AAAA', { address: '2001:db8:0:1:1:1:1:1' }, '2001:db8:0:1:1:1:1:1'], // RFC 5952 §4.2.2
  ['AAAA', { address: '2001:0:0:1:0:0:0:1' }, '2001:0:0:1::1'], // §4.2.3: the longest run
  ['AAAA', { address: '2001:db8:0:0:1:0:0:1' }, '2001:db8::1:0:0:1'], // §4.2.3: the first of equals
  ['AAAA', { address: '1::' }, '1::'],
  // RFC 1035 §3.3.14, §5.1: character-strings, quoted, with \" \\ and \DDD
  ['TXT', { text: 'v=spf1 -all' }, '"v=spf1 -all"'],
  ['TXT', { text: '' }, '""'],
  ['TXT', { text: 'say "hi" \\o/' }, '"say \\"hi\\" \\\\o/"'],
  ['TXT', { text: 'tab\there' }, '"tab\\009here"'],
  ['TXT', { text: 'é' }, '"\\195\\169"'],
  ['TXT', { text: 'a'.repeat(255) }, `"${'a'.repeat(255)}"`],
  ['TXT', { text: 'a'.repeat(256) }, `"${'a'.repeat(255)}" "a"`],
  ['TXT', { text: 'b'.repeat(8192) }, `${`"${'b'.repeat(255)}" `.repeat(32)}"${'b'.repeat(32)}"`],
  // The cut falls by octets, inside a two-octet character (SPF/DKIM consumers concatenate).
  ['TXT', { text: `${'a'.repeat(254)}é` }, `"${'a'.repeat(254)}\\195" "\\169"`],
  // RFC 8659 §4.3 examples
  ['CAA', { flags: 0, tag: 'issue', value: 'ca.example.net' }, '0 issue "ca.example.net"'],
  ['CAA', { flags: 0, tag: 'iodef', value: 'mailto:security@example.com' }, '0 iodef "mailto:security@example.com"'],
  ['CAA', { flags: 128, tag: 'tbs', value: 'Unknown' }, '128 tbs "Unknown"'],
  ['CAA', { flags: 0, tag: 'issue', value: ';' }, '0 issue ";"'],
  ['CAA', { flags: 0, tag: 'issue', value: '' }, '0 issue ""'],
  // RFC 6698 §2.3 examples (dig prints hex upper case)
  [
    'TLSA',
    { usage: 0, selector: 0, matching_type: 1, certificate_data: 'd2abde240d7cd3ee6b4b28c54df034b97983a1d16e8a410e4561cb106618e971' },
    '0 0 1 D2ABDE240D7CD3EE6B4B28C54DF034B97983A1D16E8A410E4561CB106618E971',
  ],
  [
    'TLSA',
    {
      usage: 1,
      selector: 1,
      matching_type: 2,
      certificate_data: '92003ba34942dc74152e2f2c408d29eca5a520e7f2e06bb944f4dca346baf63c1b177615d466f6c4b71c216a50292bd58c9ebdd2f74e38fe51ffd48c43326cbc',
    },
    '1 1 2 92003BA34942DC74152E2F2C408D29ECA5A520E7F2E06BB944F4DCA346BAF63C1B177615D466F6C4B71C216A50292BD58C9EBDD2F74E38FE51FFD48C43326CBC',
  ],
  // RFC 4034 §2.3, §5.4; RFC 7344 §3 (CDS, CDNSKEY), RFC 8078 §4 (the delete forms)
  ['DNSKEY', { flags: 256, protocol: 3, algorithm: 5, public_key: RFC4034_KEY }, `256 3 5 ${RFC4034_KEY}`],
  ['CDNSKEY', { flags: 257, protocol: 3, algorithm: 5, public_key: RFC4034_KEY }, `257 3 5 ${RFC4034_KEY}`],
  ['CDNSKEY', { flags: 0, protocol: 3, algorithm: 0, public_key: 'AA==' }, '0 3 0 AA=='],
  [
    'DS',
    { key_tag: 60485, algorithm: 5, digest_type: 1, digest: '2BB183AF5F22588179A53B0A98631FAD1A292118' },
    '60485 5 1 2BB183AF5F22588179A53B0A98631FAD1A292118',
  ],
  [
    'CDS',
    { key_tag: 60485, algorithm: 5, digest_type: 1, digest: '2bb183af5f22588179a53b0a98631fad1a292118' },
    '60485 5 1 2BB183AF5F22588179A53B0A98631FAD1A292118',
  ],
  ['CDS', { key_tag: 0, algorithm: 0, digest_type: 0, digest: '00' }, '0 0 0 00'],
  // RFC 4034 §3.3
  [
    'RRSIG',
    {
      type_covered: 'A',
      algorithm: 5,
      labels: 3,
      original_ttl: 86400,
      expiration: epoch('20030322173103'),
      inception: epoch('20030220173103'),
      key_tag: 2642,
      signer_name: 'example.com',
      signature: RFC4034_SIG,
    },
    `A 5 3 86400 20030322173103 20030220173103 2642 example.com. ${RFC4034_SIG}`,
  ],
  // RFC 4034 §4.3
  ['NSEC', { next_domain_name: 'host.example.com', types: ['A', 'MX', 'RRSIG', 'NSEC', 'TYPE1234'] }, 'host.example.com. A MX RRSIG NSEC TYPE1234'],
  ['NSEC', { next_domain_name: 'example.com', types: ['NSEC', 'RRSIG', 'TYPE65534'] }, 'example.com. RRSIG NSEC TYPE65534'],
  // RFC 5155 Appendix A (types in code order, hashes and salt upper case as dig prints them)
  [
    'NSEC3',
    {
      hash_algorithm: 1,
      flags: 1,
      iterations: 12,
      salt: 'aabbccdd',
      next_hashed_owner_name: '2t7b4g4vsa5smi47k61mv5bv1a22bojr',
      types: ['MX', 'DNSKEY', 'NS', 'SOA', 'NSEC3PARAM', 'RRSIG'],
    },
    '1 1 12 AABBCCDD 2T7B4G4VSA5SMI47K61MV5BV1A22BOJR NS SOA MX RRSIG DNSKEY NSEC3PARAM',
  ],
  [
    'NSEC3',
    { hash_algorithm: 1, flags: 0, iterations: 0, salt: '-', next_hashed_owner_name: '2VPTU5TIMAMQTTGL4LUU9KG21E0AOR3S', types: ['A', 'RRSIG'] },
    '1 0 0 - 2VPTU5TIMAMQTTGL4LUU9KG21E0AOR3S A RRSIG',
  ],
  ['NSEC3PARAM', { hash_algorithm: 1, flags: 0, iterations: 12, salt: 'aabbccdd' }, '1 0 12 AABBCCDD'],
  ['NSEC3PARAM', { hash_algorithm: 1, flags: 0, iterations: 0, salt: '' }, '1 0 0 -'],
];

describe('encodeRdata → decodeRdata gives the RFC presentation', () => {
  it.each(RDATA_CASES)('%s %j', (type, data, presentation) => {
    const code = TYPE[type as keyof typeof TYPE];
    expect(decodeRdata(code, encodeRdata(type, data))).toBe(presentation);
  });
});

describe('golden wire bytes', () => {
  const hex = (type: string, data: Record<string, unknown>) => encodeRdata(type, data).toString('hex');

  it('NSEC from RFC 4034 §4.3', () => {
    const rfc = [
      '04686f7374076578616d706c6503636f6d00', // host.example.com.
      '0006400100000003', // window 0, 6 octets: A MX RRSIG NSEC
      `041b${'00'.repeat(26)}20`, // window 4, 27 octets: TYPE1234
    ].join('');
    expect(hex('NSEC', { next_domain_name: 'host.example.com', types: ['A', 'MX', 'RRSIG', 'NSEC', 'TYPE1234'] })).toBe(rfc);
  });

  it('names in RDATA are uncompressed and lower case (RFC 3597 §4, RFC 4034 §6.2)', () => {
    expect(hex('CNAME', { target: 'WWW.Example.COM' })).toBe('03777777076578616d706c6503636f6d00');
    expect(hex('MX', { preference: 10, exchange: 'mail.example.com.' })).toBe('000a046d61696c076578616d706c6503636f6d00');
  });

  it('an escaped dot stays inside the first label of an SOA RNAME', () => {
    const rdata = encodeRdata('SOA', { mname: 'a', rname: 'john\\.doe.example', serial: 1, refresh: 2, retry: 3, expire: 4, minimum: 5 });
    expect(rdata.subarray(3, 3 + 1 + 8 + 1 + 7 + 1).toString('latin1')).toBe('\x08john.doe\x07example\x00');
  });

  it('TXT splits into character-strings of 255 octets, an empty text into one empty string', () => {
    expect(hex('TXT', { text: '' })).toBe('00');
    const rdata = encodeRdata('TXT', { text: 'x'.repeat(600) });
    expect(rdata.length).toBe(603);
    expect([rdata[0], rdata[256], rdata[512]]).toEqual([255, 255, 90]);
  });

  it('A, AAAA, SRV, CAA, TLSA, DS, DNSKEY field layout', () => {
    expect(hex('A', { address: '192.0.2.1' })).toBe('c0000201');
    expect(hex('AAAA', { address: '2001:db8::1' })).toBe('20010db8000000000000000000000001');
    expect(hex('SRV', { priority: 1, weight: 2, port: 443, target: 'a' })).toBe('0001000201bb016100');
    expect(hex('CAA', { flags: 0, tag: 'issue', value: 'ca.example' })).toBe(`0005${Buffer.from('issueca.example').toString('hex')}`);
    expect(hex('TLSA', { usage: 3, selector: 1, matching_type: 1, certificate_data: 'ABCDEF' })).toBe('030101abcdef');
    expect(hex('DS', { key_tag: 1, algorithm: 13, digest_type: 2, digest: 'ff' })).toBe('00010d02ff');
    expect(hex('DNSKEY', { flags: 257, protocol: 3, algorithm: 13, public_key: 'AQID' })).toBe('0101030d010203');
  });

  it('an RRSIG with an empty signature is the prefix signatures are computed over (RFC 4034 §3.1.8.1)', () => {
    const data = {
      type_covered: 'A',
      algorithm: 13,
      labels: 2,
      original_ttl: 300,
      expiration: 2,
      inception: 1,
      key_tag: 7,
      signer_name: 'example.com',
      signature: '',
    };
    const prefix = encodeRdata('RRSIG', data);
    expect(prefix.length).toBe(18 + 13);
    expect(encodeRdata('RRSIG', { ...data, signature: 'AQID' })).toEqual(Buffer.concat([prefix, Buffer.from([1, 2, 3])]));
  });
});

describe('encodeRdata refuses invalid input with a RangeError', () => {
  const label63 = 'a'.repeat(63);
  const cases: [string, Record<string, unknown>][] = [
    ['A', { address: '192.0.2' }],
    ['A', { address: '192.0.2.256' }],
    ['A', { address: '192.0.2.01' }],
    ['A', { address: ' 192.0.2.1' }],
    ['A', { address: '2001:db8::1' }],
    ['A', { address: 3221225985 }],
    ['A', {}],
    ['AAAA', { address: '2001:db8::1::2' }],
    ['AAAA', { address: '2001:db8:1:2:3:4:5:6:7' }],
    ['AAAA', { address: '2001:db8:1:2:3:4:5' }],
    ['AAAA', { address: '12345::1' }],
    ['AAAA', { address: 'fe80::1%eth0' }],
    ['AAAA', { address: '::ffff:1.2.3' }],
    ['AAAA', { address: '1.2.3.4::' }],
    ['AAAA', { address: ':1::' }],
    ['AAAA', { address: '192.0.2.1' }],
    ['NS', { nameserver: `${'a'.repeat(64)}.example` }],
    ['NS', { nameserver: 'a..example' }],
    ['NS', { nameserver: '.example' }],
    ['NS', { nameserver: 'bad\\999.example' }],
    ['NS', { nameserver: 'dangling\\' }],
    ['NS', { nameserver: Array(5).fill(label63).join('.') }], // 320 octets
    ['CNAME', { target: null }],
    ['MX', { preference: 65536, exchange: 'mx.example' }],
    ['MX', { preference: -1, exchange: 'mx.example' }],
    ['MX', { preference: 1.5, exchange: 'mx.example' }],
    ['MX', { preference: '10', exchange: 'mx.example' }],
    ['SRV', { priority: 0, weight: 0, port: 70000, target: 'a' }],
    ['TXT', { text: 'lone \ud800 surrogate' }],
    ['TXT', { text: 'x'.repeat(65535) }],
    ['TXT', { text: ['a', 'b'] }],
    ['CAA', { flags: 256, tag: 'issue', value: 'ca' }],
    ['CAA', { flags: 0, tag: '', value: 'ca' }],
    ['CAA', { flags: 0, tag: 'x'.repeat(16), value: 'ca' }],
    ['CAA', { flags: 0, tag: 'is-sue', value: 'ca' }],
    ['TLSA', { usage: 3, selector: 1, matching_type: 1, certificate_data: 'abc' }],
    ['TLSA', { usage: 3, selector: 1, matching_type: 1, certificate_data: 'zz' }],
    ['TLSA', { usage: 3, selector: 1, matching_type: 1, certificate_data: '' }],
    ['TLSA', { usage: 256, selector: 1, matching_type: 1, certificate_data: 'ab' }],
    ['SOA', { mname: 'a', rname: 'b', serial: 4294967296, refresh: 0, retry: 0, expire: 0, minimum: 0 }],
    ['SOA', { mname: 'a', rname: 'b', serial: 1, refresh: 0, retry: 0, expire: 0 }],
    ['DNSKEY', { flags: 257, protocol: 2, algorithm: 13, public_key: 'AQID' }],
    ['DNSKEY', { flags: 257, protocol: 3, algorithm: 13, public_key: 'AQI' }],
    ['DNSKEY', { flags: 257, protocol: 3, algorithm: 13, public_key: 'AQ ID' }],
    ['DNSKEY', { flags: 257, protocol: 3, algorithm: 13, public_key: '' }],
    ['DS', { key_tag: 65536, algorithm: 13, digest_type: 2, digest: 'ab' }],
    ['DS', { key_tag: 1, algorithm: 13, digest_type: 2, digest: '' }],
    ['RRSIG', { type_covered: 'NOPE', algorithm: 13, labels: 2, original_ttl: 1, expiration: 1, inception: 1, key_tag: 1, signer_name: 'a', signature: '' }],
    ['NSEC', { next_domain_name: 'a', types: ['A', 'BOGUS'] }],
    ['NSEC', { next_domain_name: 'a', types: [0x10000] }],
    ['NSEC', { next_domain_name: 'a', types: [] }], // an NSEC lists at least itself (RFC 4034 §4.1.2)
    ['NSEC', { next_domain_name: 'a', types: 'A' }],
    ['NSEC3', { hash_algorithm: 1, flags: 0, iterations: 0, salt: '', next_hashed_owner_name: 'not base32!', types: [] }],
    ['NSEC3', { hash_algorithm: 1, flags: 0, iterations: 0, salt: 'aa'.repeat(256), next_hashed_owner_name: 'CPNG', types: [] }],
    ['NSEC3PARAM', { hash_algorithm: 1, flags: 0, iterations: 65536, salt: '' }],
    ['HINFO', { cpu: 'x'.repeat(256), os: 'y' }], // a character-string holds at most 255 octets
    ['SPF', { text: 'v=spf1 -all' }], // no codec
    ['a', { address: '192.0.2.1' }],
  ];
  it.each(cases)('%s %j', (type, data) => {
    expect(() => encodeRdata(type, data)).toThrow(RangeError);
  });
});

describe('rdataTarget: the name to chase or to find addresses for', () => {
  it.each([
    ['NS', { nameserver: 'ns1.example.net' }, 'ns1.example.net'],
    ['CNAME', { target: 'www.example.org' }, 'www.example.org'],
    ['PTR', { target: 'host.example' }, 'host.example'],
    ['MX', { preference: 10, exchange: 'mail.example.com' }, 'mail.example.com'],
    ['MX', { preference: 0, exchange: '.' }, ''],
    ['SRV', { priority: 1, weight: 1, port: 1, target: 'sip.example.com' }, 'sip.example.com'],
    ['A', { address: '192.0.2.1' }, null],
    ['TXT', { text: 'ns1.example.net' }, null],
  ] as const)('%s %j → %s', (type, data, target) => {
    expect(rdataTarget(TYPE[type], encodeRdata(type, data))).toBe(target);
  });

  it('is null for RDATA that is not a name', () => {
    expect(rdataTarget(TYPE.CNAME, Buffer.from([3, 0x61]))).toBeNull();
    expect(rdataTarget(TYPE.CNAME, Buffer.from([1, 0x61, 0, 0]))).toBeNull();
  });
});

describe('decodeRdata never throws: malformed or unknown RDATA in the RFC 3597 generic form', () => {
  it.each([
    [TYPE.A, '0a0000', '\\# 3 0A0000'],
    [TYPE.AAAA, '00', '\\# 1 00'],
    [TYPE.MX, '000a03', '\\# 3 000A03'],
    [TYPE.CNAME, 'c00c', '\\# 2 C00C'], // a compression pointer has no place in our RDATA
    [TYPE.TXT, '05616263', '\\# 4 05616263'],
    [TYPE.TXT, '', '\\# 0'],
    [TYPE.DS, '0001020300', '1 2 3 00'],
    [TYPE.DS, '000102', '\\# 3 000102'],
    [TYPE.NSEC, '00000101', '. MB'], // type 7 has a mnemonic in the IANA table, as dig prints it
    [TYPE.NSEC, '000000', '\\# 3 000000'], // a window of 0 octets (RFC 4034 §4.1.2)
    [TYPE.SOA, '0000', '\\# 2 0000'],
    [65280, 'c0000201', '\\# 4 C0000201'],
    [TYPE.OPT, '', '\\# 0'],
  ])('type %i %s', (type, hexData, presentation) => {
    expect(decodeRdata(type, Buffer.from(hexData, 'hex'))).toBe(presentation);
  });
});

describe('building blocks', () => {
  it('base32hex: RFC 4648 §10 test vectors (unpadded, as NSEC3 writes them)', () => {
    const vectors: [string, string][] = [
      ['', ''],
      ['f', 'CO'],
      ['fo', 'CPNG'],
      ['foo', 'CPNMU'],
      ['foob', 'CPNMUOG'],
      ['fooba', 'CPNMUOJ1'],
      ['foobar', 'CPNMUOJ1E8'],
    ];
    for (const [plain, encoded] of vectors) {
      expect(encodeBase32Hex(Buffer.from(plain))).toBe(encoded);
      expect(decodeBase32Hex(encoded)?.toString()).toBe(plain);
      expect(decodeBase32Hex(encoded.toLowerCase())?.toString()).toBe(plain);
    }
    expect(decodeBase32Hex('C')).toBeNull(); // 5 bits: no whole octet
    expect(decodeBase32Hex('CP')).toBeNull(); // unused bits not zero
    expect(decodeBase32Hex('W0')).toBeNull(); // outside the alphabet
  });

  it('type bitmaps round-trip and reject malformed windows', () => {
    const types = [1, 2, 6, 15, 46, 47, 48, 257, 1234, 65535];
    const bitmap = encodeTypeBitmap([...types, 1].reverse());
    expect(decodeTypeBitmap(bitmap, 0, bitmap.length)).toEqual(types);
    const bad = [Buffer.from('0000', 'hex'), Buffer.from(`0021${'00'.repeat(33)}`, 'hex'), Buffer.from('010101000101', 'hex'), Buffer.from('0002ff', 'hex')];
    for (const b of bad) expect(decodeTypeBitmap(b, 0, b.length)).toBeNull();
  });

  it('names: escapes, case, trailing dot, limits', () => {
    expect(splitLabels('john\\.doe.example.com.')).toEqual(['john\\.doe', 'example', 'com']);
    expect(splitLabels('')).toEqual([]);
    expect(splitLabels('.')).toEqual([]);
    expect(encodeName('A\\066c.', true).toString('latin1')).toBe('\x03abc\x00');
    expect(encodeName('a\\.b').toString('latin1')).toBe('\x03a.b\x00');
    expect(encodeName('ü').toString('hex')).toBe('02c3bc00');
    expect(encodeName('').toString('hex')).toBe('00');
    const longest = [...Array(3).fill('a'.repeat(63)), 'a'.repeat(61)].join('.'); // 255 octets
    expect(encodeName(longest).length).toBe(255);
    expect(() => encodeName(`a${longest}`)).toThrow(RangeError);
    expect(decodeName(Buffer.from('\x03a.b\x01\\\x00', 'latin1'), 0)).toEqual({ name: 'a\\.b.\\\\', end: 7 });
    expect(decodeName(Buffer.from('\x02 A\x00', 'latin1'), 0)?.name).toBe('\\032A');
  });
});

describe('dig prints every RDATA as decodeRdata does', () => {
  it('served over TCP, read back with dig +nosplit', async (ctx) => {
    const dig = requireTool('dig', ctx);
    // Each case under its own name r<i>.example (NSEC3 owners start with a hash label, or dig's
    // check-names refuses them); one TCP connection per query, as dig makes them.
    const server = net.createServer((socket) => {
      let pending = Buffer.alloc(0);
      socket.on('error', () => {});
      socket.on('data', (chunk) => {
        pending = Buffer.concat([pending, chunk]);
        while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
          const parsed = parseQuery(pending.subarray(2, 2 + pending.readUInt16BE(0)));
          pending = pending.subarray(2 + pending.readUInt16BE(0));
          if (parsed.kind !== 'query') continue;
          const q = parsed.query;
          const index = Number(/(?:^|\.)r(\d+)\.example$/.exec(q.question.name)?.[1]);
          const [type, data] = RDATA_CASES[index] ?? ['A', { address: '0.0.0.0' }];
          const rrset = { name: q.question.name, type: TYPE[type as keyof typeof TYPE], ttl: 60, rdatas: [encodeRdata(type, data)] };
          const reply = encodeResponse(q, { rcode: 0, aa: true, answer: [rrset], authority: [], additional: [] }, { maxSize: 65535, tcp: true });
          socket.write(Buffer.concat([Buffer.from([reply.length >> 8, reply.length & 0xff]), reply]));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as net.AddressInfo).port;
      const hash = '0p9mhaveqvm6t7vbl5lop2u3t2rp3tom.';
      const queries = RDATA_CASES.flatMap(([type], i) => [`${type === 'NSEC3' ? hash : ''}r${i}.example`, type]);
      const { stdout } = await promisify(execFile)(dig, ['@127.0.0.1', '-p', String(port), '+tcp', '+tries=1', '+nosplit', '+noall', '+answer', ...queries], {
        maxBuffer: 16 << 20,
      });
      const printed = new Map<number, string>();
      for (const line of stdout.split('\n')) {
        const m = /^(?:\w+\.)?r(\d+)\.example\.\s+60\s+IN\s+\S+\s+(.*)$/.exec(line);
        if (m) printed.set(Number(m[1]), m[2]!);
      }
      const mismatches = RDATA_CASES.flatMap(([type, , expected], i) => {
        const ours = decodeRdata(TYPE[type as keyof typeof TYPE], encodeRdata(RDATA_CASES[i]![0], RDATA_CASES[i]![1]));
        return printed.get(i) === ours && ours === expected ? [] : [{ type, dig: printed.get(i), ours }];
      });
      expect(mismatches).toEqual([]);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
