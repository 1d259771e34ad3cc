import { describe, expect, it } from 'vitest';
import { canonicalIpv6 } from '../../nameserver/wire/address.js';
import { canonicalIssueValue } from '../../src/domain/records/caa.js';
import { parseRecordData } from '../../src/domain/records/parseRecordData.js';
import { presentData } from '../../nameserver/wire/rdata.js';
import fs from 'node:fs';
import path from 'node:path';
import { codecOf } from '../../nameserver/wire/types/index.js';
import { RECORD_TYPES, RECORD_TYPE_RULES, ruleOf, isRecordType, type RecordType } from '../../src/domain/records/types.js';

const sha256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const sha512 = 'cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e';

function parsed(type: RecordType, data: unknown): Record<string, unknown> {
  const result = parseRecordData(type, data);
  if (!result.ok) throw new Error(`expected ${type} ${JSON.stringify(data)} to be valid: ${JSON.stringify(result.errors)}`);
  return result.data;
}

function errorsOf(type: RecordType, data: unknown) {
  const result = parseRecordData(type, data);
  if (result.ok) throw new Error(`expected ${type} ${JSON.stringify(data)} to be invalid, got ${JSON.stringify(result.data)}`);
  return result.errors;
}

const present = (type: RecordType, data: unknown) => ruleOf(type).presentation(parsed(type, data));

describe('the record-type table', () => {
  it('has one rule per type, under its own name', () => {
    expect(Object.keys(RECORD_TYPE_RULES).sort()).toEqual([...RECORD_TYPES].sort());
    for (const type of RECORD_TYPES) expect(ruleOf(type).type).toBe(type);
  });

  it('has a codec for every row, and docs/records.md describes every type in its table', () => {
    const doc = fs.readFileSync(path.resolve('docs/records.md'), 'utf8');
    for (const type of RECORD_TYPES) {
      expect(codecOf(type), type).toBeDefined();
      expect(doc, type).toMatch(new RegExp(`^\\| (?:[A-Z0-9]+, )*${type}(?:, [A-Z0-9]+)* \\|`, 'm'));
    }
  });

  it.each([
    ['A', true],
    ['PTR', true],
    ['a', false],
    ['SOA', false],
    ['DS', true],
    ['CDS', false],
    ['', false],
  ])('isRecordType(%j) is %s', (s, expected) => {
    expect(isRecordType(s)).toBe(expected);
  });

  it.each([
    // lab_parent: the lab's root and TLDs hold delegations and the nameserver names' addresses.
    ['A', ['forward', 'lab_parent']],
    ['AAAA', ['forward', 'lab_parent']],
    // CNAME in lab_parent: the lab's in-addr.arpa holds the RFC 2317 CNAMEs of classless zones.
    ['CNAME', ['forward', 'reverse', 'lab_parent']],
    ['MX', ['forward']],
    ['TXT', ['forward']],
    ['SRV', ['forward']],
    ['CAA', ['forward']],
    ['TLSA', ['forward']],
    ['NS', ['forward', 'reverse', 'lab_parent']],
    ['DS', ['forward', 'lab_parent']],
    ['PTR', ['reverse', 'provider_reverse']],
  ] as const)('%s may be held by %j zones', (type, kinds) => {
    expect(ruleOf(type).zoneKinds).toEqual(kinds);
  });
});

// (type, input data, stored canonical data, presentation)
const valid: [RecordType, unknown, Record<string, unknown>, string][] = [
  ['A', { address: '192.0.2.1' }, { address: '192.0.2.1' }, '192.0.2.1'],
  ['A', { address: ' 192.0.2.1 ' }, { address: '192.0.2.1' }, '192.0.2.1'],
  ['A', { address: '0.0.0.0' }, { address: '0.0.0.0' }, '0.0.0.0'],
  ['A', { address: '255.255.255.255' }, { address: '255.255.255.255' }, '255.255.255.255'],
  ['A', { address: '10.0.100.9' }, { address: '10.0.100.9' }, '10.0.100.9'],
  ['AAAA', { address: '2001:db8::1' }, { address: '2001:db8::1' }, '2001:db8::1'],
  ['AAAA', { address: '2001:DB8::1' }, { address: '2001:db8::1' }, '2001:db8::1'],
  ['AAAA', { address: '2001:0db8:0000:0000:0000:0000:0000:0001' }, { address: '2001:db8::1' }, '2001:db8::1'],
  ['AAAA', { address: '2001:db8:0:0:1:0:0:1' }, { address: '2001:db8::1:0:0:1' }, '2001:db8::1:0:0:1'], // first of equal runs
  ['AAAA', { address: '2001:db8:0:1:0:0:0:1' }, { address: '2001:db8:0:1::1' }, '2001:db8:0:1::1'], // longest run
  ['AAAA', { address: '2001:db8:0:1:1:1:1:1' }, { address: '2001:db8:0:1:1:1:1:1' }, '2001:db8:0:1:1:1:1:1'], // one zero group stays
  ['AAAA', { address: '2001:db8::' }, { address: '2001:db8::' }, '2001:db8::'],
  ['AAAA', { address: '0:0:0:0:0:0:0:0' }, { address: '::' }, '::'],
  ['AAAA', { address: '::1' }, { address: '::1' }, '::1'],
  ['AAAA', { address: 'FE80::0001' }, { address: 'fe80::1' }, 'fe80::1'],
  ['AAAA', { address: '::ffff:192.0.2.1' }, { address: '::ffff:192.0.2.1' }, '::ffff:192.0.2.1'],
  ['AAAA', { address: '::FFFF:c000:0201' }, { address: '::ffff:192.0.2.1' }, '::ffff:192.0.2.1'],
  ['AAAA', { address: '64:ff9b::192.0.2.33' }, { address: '64:ff9b::c000:221' }, '64:ff9b::c000:221'],
  ['AAAA', { address: '2001:db8:1:2:3:4:192.0.2.1' }, { address: '2001:db8:1:2:3:4:c000:201' }, '2001:db8:1:2:3:4:c000:201'],
  ['CNAME', { target: 'target.example.com' }, { target: 'target.example.com' }, 'target.example.com.'],
  ['CNAME', { target: 'Target.Example.COM.' }, { target: 'target.example.com' }, 'target.example.com.'],
  ['CNAME', { target: 'www.bücher.example' }, { target: 'www.xn--bcher-kva.example' }, 'www.xn--bcher-kva.example.'],
  ['CNAME', { target: '1.0-26.2.0.192.in-addr.arpa' }, { target: '1.0-26.2.0.192.in-addr.arpa' }, '1.0-26.2.0.192.in-addr.arpa.'],
  ['MX', { preference: 10, exchange: 'mail.example.com' }, { preference: 10, exchange: 'mail.example.com' }, '10 mail.example.com.'],
  ['MX', { exchange: 'MAIL.example.com.', preference: 0 }, { preference: 0, exchange: 'mail.example.com' }, '0 mail.example.com.'],
  ['MX', { preference: 65535, exchange: 'mx.example.net' }, { preference: 65535, exchange: 'mx.example.net' }, '65535 mx.example.net.'],
  ['MX', { preference: 0, exchange: '.' }, { preference: 0, exchange: '.' }, '0 .'],
  ['TXT', { text: 'v=spf1 -all' }, { text: 'v=spf1 -all' }, '"v=spf1 -all"'],
  ['TXT', { text: '  spaced  ' }, { text: '  spaced  ' }, '"  spaced  "'],
  ['TXT', { text: 'say "hi" \\o/' }, { text: 'say "hi" \\o/' }, '"say \\"hi\\" \\\\o/"'],
  ['TXT', { text: 'tab\there\nnew\u007f' }, { text: 'tab\there\nnew\u007f' }, '"tab\\009here\\010new\\127"'],
  ['TXT', { text: 'grüße' }, { text: 'grüße' }, '"gr\\195\\188\\195\\159e"'],
  ['TXT', { text: '😀' }, { text: '😀' }, '"\\240\\159\\152\\128"'],
  [
    'SRV',
    { priority: 10, weight: 5, port: 5060, target: 'SIP.example.com.' },
    { priority: 10, weight: 5, port: 5060, target: 'sip.example.com' },
    '10 5 5060 sip.example.com.',
  ],
  ['SRV', { priority: 0, weight: 0, port: 0, target: '.' }, { priority: 0, weight: 0, port: 0, target: '.' }, '0 0 0 .'],
  [
    'SRV',
    { priority: 65535, weight: 65535, port: 65535, target: 'x.example' },
    { priority: 65535, weight: 65535, port: 65535, target: 'x.example' },
    '65535 65535 65535 x.example.',
  ],
  ['CAA', { flags: 0, tag: 'issue', value: 'letsencrypt.org' }, { flags: 0, tag: 'issue', value: 'letsencrypt.org' }, '0 issue "letsencrypt.org"'],
  [
    'CAA',
    { flags: 128, tag: 'ISSUEWILD', value: ' LetsEncrypt.org ' },
    { flags: 128, tag: 'issuewild', value: 'letsencrypt.org' },
    '128 issuewild "letsencrypt.org"',
  ],
  ['CAA', { flags: 0, tag: 'issue', value: ';' }, { flags: 0, tag: 'issue', value: ';' }, '0 issue ";"'],
  ['CAA', { flags: 0, tag: 'issue', value: '' }, { flags: 0, tag: 'issue', value: ';' }, '0 issue ";"'],
  [
    'CAA',
    { flags: 0, tag: 'issue', value: 'ca.example;account=230123' },
    { flags: 0, tag: 'issue', value: 'ca.example; account=230123' },
    '0 issue "ca.example; account=230123"',
  ],
  [
    'CAA',
    { flags: 0, tag: 'issue', value: 'letsencrypt.org; validationmethods=dns-01 ;  accounturi = https://acme-v02.api.letsencrypt.org/acme/acct/1' },
    { flags: 0, tag: 'issue', value: 'letsencrypt.org; validationmethods=dns-01; accounturi=https://acme-v02.api.letsencrypt.org/acme/acct/1' },
    '0 issue "letsencrypt.org; validationmethods=dns-01; accounturi=https://acme-v02.api.letsencrypt.org/acme/acct/1"',
  ],
  ['CAA', { flags: 0, tag: 'issue', value: 'letsencrypt.org;' }, { flags: 0, tag: 'issue', value: 'letsencrypt.org' }, '0 issue "letsencrypt.org"'],
  ['CAA', { flags: 0, tag: 'issuemail', value: 'ca.example' }, { flags: 0, tag: 'issuemail', value: 'ca.example' }, '0 issuemail "ca.example"'],
  ['CAA', { flags: 0, tag: 'issuevmc', value: 'digicert.com' }, { flags: 0, tag: 'issuevmc', value: 'digicert.com' }, '0 issuevmc "digicert.com"'],
  // RFC 8659 §4.1: any tag of 1–15 letters and digits; values of tags we do not know are kept as given.
  ['CAA', { flags: 128, tag: 'tag0', value: 'critical' }, { flags: 128, tag: 'tag0', value: 'critical' }, '128 tag0 "critical"'],
  [
    'CAA',
    { flags: 0, tag: 'ContactEmail', value: ' x@example.com' },
    { flags: 0, tag: 'contactemail', value: ' x@example.com' },
    '0 contactemail " x@example.com"',
  ],
  ['CAA', { flags: 0, tag: 'policy', value: '' }, { flags: 0, tag: 'policy', value: '' }, '0 policy ""'],
  [
    'CAA',
    { flags: 0, tag: 'iodef', value: 'mailto:security@example.com' },
    { flags: 0, tag: 'iodef', value: 'mailto:security@example.com' },
    '0 iodef "mailto:security@example.com"',
  ],
  [
    'CAA',
    { flags: 0, tag: 'iodef', value: ' https://iodef.example.com/report ' },
    { flags: 0, tag: 'iodef', value: 'https://iodef.example.com/report' },
    '0 iodef "https://iodef.example.com/report"',
  ],
  [
    'CAA',
    { flags: 0, tag: 'iodef', value: 'http://iodef.example.com/"q"' },
    { flags: 0, tag: 'iodef', value: 'http://iodef.example.com/"q"' },
    '0 iodef "http://iodef.example.com/\\"q\\""',
  ],
  [
    'TLSA',
    { usage: 3, selector: 1, matching_type: 1, certificate_data: sha256 },
    { usage: 3, selector: 1, matching_type: 1, certificate_data: sha256 },
    `3 1 1 ${sha256}`,
  ],
  [
    'TLSA',
    { usage: 2, selector: 0, matching_type: 1, certificate_data: ` ${sha256.slice(0, 32).toUpperCase()}\n${sha256.slice(32)} ` },
    { usage: 2, selector: 0, matching_type: 1, certificate_data: sha256 },
    `2 0 1 ${sha256}`,
  ],
  [
    'TLSA',
    { usage: 0, selector: 0, matching_type: 2, certificate_data: sha512 },
    { usage: 0, selector: 0, matching_type: 2, certificate_data: sha512 },
    `0 0 2 ${sha512}`,
  ],
  [
    'DS',
    { key_tag: 60485, algorithm: 13, digest_type: 2, digest: ` ${sha256.toUpperCase()} ` },
    { key_tag: 60485, algorithm: 13, digest_type: 2, digest: sha256 },
    `60485 13 2 ${sha256}`,
  ],
  [
    'DS',
    { key_tag: 0, algorithm: 8, digest_type: 4, digest: sha512.slice(0, 96) },
    { key_tag: 0, algorithm: 8, digest_type: 4, digest: sha512.slice(0, 96) },
    `0 8 4 ${sha512.slice(0, 96)}`,
  ],
  [
    'TLSA',
    { usage: 1, selector: 1, matching_type: 0, certificate_data: '3059 3013 0607' },
    { usage: 1, selector: 1, matching_type: 0, certificate_data: '305930130607' },
    '1 1 0 305930130607',
  ],
  ['NS', { nameserver: 'ns1.example.net' }, { nameserver: 'ns1.example.net' }, 'ns1.example.net.'],
  ['NS', { nameserver: 'NS1.Example.NET.' }, { nameserver: 'ns1.example.net' }, 'ns1.example.net.'],
  ['PTR', { target: 'host.example.com.' }, { target: 'host.example.com' }, 'host.example.com.'],
  ['PTR', { target: 'Host-1.bücher.example' }, { target: 'host-1.xn--bcher-kva.example' }, 'host-1.xn--bcher-kva.example.'],
];

describe('valid data is stored canonically and presented in master-file form', () => {
  it.each(valid)('%s %j', (type, input, stored, presentation) => {
    const data = parsed(type, input);
    expect(data).toStrictEqual(stored);
    expect(Object.keys(data)).toEqual(Object.keys(stored)); // one key order too: canonical JSON
    expect(ruleOf(type).presentation(data)).toBe(presentation);
  });

  it.each(valid)('%s %j: the stored form is a fixed point', (type, _input, stored) => {
    expect(parsed(type, stored)).toStrictEqual(stored);
  });
});

// (type, input data, [pointer, code] of every expected error)
const invalid: [RecordType, unknown, [string, string][]][] = [
  // The data object itself
  ['A', '192.0.2.1', [['', 'invalid_type']]],
  ['A', null, [['', 'invalid_type']]],
  ['A', ['192.0.2.1'], [['', 'invalid_type']]],
  ['A', {}, [['/address', 'required']]],
  ['A', { address: '192.0.2.1', ttl: 300 }, [['/ttl', 'unknown_field']]],
  [
    'A',
    { address: '192.0.2.1', a: 1, 'b/c': 2 },
    [
      ['/a', 'unknown_field'],
      ['/b~1c', 'unknown_field'],
    ],
  ],
  // A
  ['A', { address: 3221225985 }, [['/address', 'invalid_type']]],
  ['A', { address: '192.0.2.01' }, [['/address', 'invalid_ipv4']]],
  ['A', { address: '010.0.0.1' }, [['/address', 'invalid_ipv4']]],
  ['A', { address: '256.0.0.1' }, [['/address', 'invalid_ipv4']]],
  ['A', { address: '192.0.2' }, [['/address', 'invalid_ipv4']]],
  ['A', { address: '192.0.2.1.5' }, [['/address', 'invalid_ipv4']]],
  ['A', { address: '192.0.2.1/32' }, [['/address', 'invalid_ipv4']]],
  ['A', { address: '0x7f.0.0.1' }, [['/address', 'invalid_ipv4']]],
  ['A', { address: '2001:db8::1' }, [['/address', 'invalid_ipv4']]],
  ['A', { address: 'host.example.com' }, [['/address', 'invalid_ipv4']]],
  ['A', { address: '' }, [['/address', 'invalid_ipv4']]],
  // AAAA
  ['AAAA', { address: '192.0.2.1' }, [['/address', 'invalid_ipv6']]],
  ['AAAA', { address: '2001:db8::1::2' }, [['/address', 'invalid_ipv6']]],
  ['AAAA', { address: '2001:db8:0:0:0:0:0:0:1' }, [['/address', 'invalid_ipv6']]],
  ['AAAA', { address: '2001:db8::g' }, [['/address', 'invalid_ipv6']]],
  ['AAAA', { address: '2001:db8::12345' }, [['/address', 'invalid_ipv6']]],
  ['AAAA', { address: 'fe80::1%eth0' }, [['/address', 'invalid_ipv6']]],
  ['AAAA', { address: '[2001:db8::1]' }, [['/address', 'invalid_ipv6']]],
  ['AAAA', { address: '2001:db8::/64' }, [['/address', 'invalid_ipv6']]],
  ['AAAA', { address: '::ffff:192.0.2.01' }, [['/address', 'invalid_ipv6']]],
  ['AAAA', { address: '::ffff:192.0.2.256' }, [['/address', 'invalid_ipv6']]],
  ['AAAA', { address: '' }, [['/address', 'invalid_ipv6']]],
  // CNAME
  ['CNAME', {}, [['/target', 'required']]],
  ['CNAME', { target: 'www' }, [['/target', 'single_label']]],
  ['CNAME', { target: '192.0.2.1' }, [['/target', 'ip_not_allowed']]],
  ['CNAME', { target: '.' }, [['/target', 'root_not_allowed']]],
  ['CNAME', { target: '*.example.com' }, [['/target', 'invalid_wildcard']]],
  ['CNAME', { target: 'a..example.com' }, [['/target', 'empty_label']]],
  ['CNAME', { target: 'bad host.example.com' }, [['/target', 'invalid_character']]],
  ['CNAME', { target: `${'a'.repeat(64)}.example.com` }, [['/target', 'label_too_long']]],
  ['CNAME', { target: 'www.example.com', ttl: 60 }, [['/ttl', 'unknown_field']]],
  // MX
  ['MX', { exchange: 'mail.example.com' }, [['/preference', 'required']]],
  ['MX', { preference: 10 }, [['/exchange', 'required']]],
  ['MX', { preference: -1, exchange: 'mail.example.com' }, [['/preference', 'too_small']]],
  ['MX', { preference: 65536, exchange: 'mail.example.com' }, [['/preference', 'too_big']]],
  ['MX', { preference: 1.5, exchange: 'mail.example.com' }, [['/preference', 'invalid_type']]],
  ['MX', { preference: '10', exchange: 'mail.example.com' }, [['/preference', 'invalid_type']]],
  ['MX', { preference: 10, exchange: 'mail' }, [['/exchange', 'single_label']]],
  ['MX', { preference: 10, exchange: '192.0.2.25' }, [['/exchange', 'ip_not_allowed']]],
  ['MX', { preference: 10, exchange: '.' }, [['/preference', 'null_mx_preference']]],
  ['MX', { preference: 70000, exchange: '.' }, [['/preference', 'too_big']]], // no second error on top
  [
    'MX',
    { preference: 'x', exchange: 'mail', priority: 1 },
    [
      ['/preference', 'invalid_type'],
      ['/exchange', 'single_label'],
      ['/priority', 'unknown_field'],
    ],
  ],
  // TXT
  ['TXT', {}, [['/text', 'required']]],
  ['TXT', { text: '' }, [['/text', 'too_small']]],
  ['TXT', { text: ['a', 'b'] }, [['/text', 'invalid_type']]],
  ['TXT', { text: 'a'.repeat(8193) }, [['/text', 'too_big']]],
  ['TXT', { text: 'é'.repeat(4097) }, [['/text', 'too_big']]], // 8194 octets, 4097 characters
  ['TXT', { text: 'nul\u0000' }, [['/text', 'invalid_character']]],
  ['TXT', { text: 'half \ud83d surrogate' }, [['/text', 'invalid_character']]],
  ['TXT', { text: 'x', value: 'y' }, [['/value', 'unknown_field']]],
  // SRV
  ['SRV', { priority: 10, weight: 5, port: 5060 }, [['/target', 'required']]],
  ['SRV', { priority: 10, weight: 5, target: 'sip.example.com' }, [['/port', 'required']]],
  [
    'SRV',
    { priority: 65536, weight: -1, port: 70000, target: 'sip.example.com' },
    [
      ['/priority', 'too_big'],
      ['/weight', 'too_small'],
      ['/port', 'too_big'],
    ],
  ],
  ['SRV', { priority: 0, weight: 0, port: 5060, target: 'sip' }, [['/target', 'single_label']]],
  ['SRV', { priority: 0, weight: 0, port: 5060, target: '2001:db8::5' }, [['/target', 'ip_not_allowed']]],
  // CAA
  ['CAA', { tag: 'issue', value: 'ca.example' }, [['/flags', 'required']]],
  ['CAA', { flags: 256, tag: 'issue', value: 'ca.example' }, [['/flags', 'too_big']]],
  ['CAA', { flags: 0, tag: '', value: 'ca.example' }, [['/tag', 'invalid_tag']]],
  ['CAA', { flags: 0, tag: 'issue-wild', value: 'ca.example' }, [['/tag', 'invalid_tag']]],
  ['CAA', { flags: 0, tag: 'abcdefghijklmnop', value: 'ca.example' }, [['/tag', 'invalid_tag']]],
  ['CAA', { flags: 128, tag: 'tag0', value: 'critical\n' }, [['/value', 'invalid_character']]],
  ['CAA', { flags: 0, tag: 'issue', value: 'c'.repeat(1025) }, [['/value', 'too_big']]],
  ['CAA', { flags: 0, tag: 'issue', value: 'cä.example' }, [['/value', 'invalid_character']]],
  ['CAA', { flags: 0, tag: 'issue', value: 'ca.example\n' }, [['/value', 'invalid_character']]],
  ['CAA', { flags: 0, tag: 'issue', value: 'ca example' }, [['/value', 'invalid_issuer']]],
  ['CAA', { flags: 0, tag: 'issue', value: '-ca.example' }, [['/value', 'invalid_issuer']]],
  ['CAA', { flags: 0, tag: 'issue', value: 'ca.example.' }, [['/value', 'invalid_issuer']]],
  ['CAA', { flags: 0, tag: 'issue', value: 'https://ca.example' }, [['/value', 'invalid_issuer']]],
  ['CAA', { flags: 0, tag: 'issuewild', value: 'ca.example; account' }, [['/value', 'invalid_issuer']]],
  ['CAA', { flags: 0, tag: 'issuewild', value: 'ca.example; a=b c' }, [['/value', 'invalid_issuer']]],
  ['CAA', { flags: 0, tag: 'issue', value: 'ca.example; a=1;; b=2' }, [['/value', 'invalid_issuer']]],
  ['CAA', { flags: 0, tag: 'iodef', value: 'security@example.com' }, [['/value', 'invalid_iodef']]],
  ['CAA', { flags: 0, tag: 'iodef', value: 'ftp://example.com/report' }, [['/value', 'invalid_iodef']]],
  ['CAA', { flags: 0, tag: 'iodef', value: 'mailto:' }, [['/value', 'invalid_iodef']]],
  ['CAA', { flags: 0, tag: 'iodef', value: '' }, [['/value', 'invalid_iodef']]],
  [
    'CAA',
    { flags: 0, tag: 'issue-wild', value: 'x'.repeat(2000) },
    [
      ['/tag', 'invalid_tag'],
      ['/value', 'too_big'],
    ],
  ],
  // TLSA
  [
    'TLSA',
    { usage: 4, selector: 2, matching_type: 3, certificate_data: sha256 },
    [
      ['/usage', 'too_big'],
      ['/selector', 'too_big'],
      ['/matching_type', 'too_big'],
    ],
  ],
  ['TLSA', { usage: -1, selector: 0, matching_type: 0, certificate_data: 'ab' }, [['/usage', 'too_small']]],
  ['TLSA', { usage: 3, selector: 1, matching_type: 1 }, [['/certificate_data', 'required']]],
  ['TLSA', { usage: 3, selector: 1, matching_type: 0, certificate_data: '' }, [['/certificate_data', 'too_small']]],
  ['TLSA', { usage: 3, selector: 1, matching_type: 0, certificate_data: '  \n' }, [['/certificate_data', 'too_small']]],
  ['TLSA', { usage: 3, selector: 1, matching_type: 0, certificate_data: 'abc' }, [['/certificate_data', 'invalid_hex']]],
  ['TLSA', { usage: 3, selector: 1, matching_type: 0, certificate_data: 'zz' }, [['/certificate_data', 'invalid_hex']]],
  ['TLSA', { usage: 3, selector: 1, matching_type: 0, certificate_data: '0x1234' }, [['/certificate_data', 'invalid_hex']]],
  ['TLSA', { usage: 3, selector: 1, matching_type: 0, certificate_data: 'ab'.repeat(8193) }, [['/certificate_data', 'too_big']]],
  ['TLSA', { usage: 3, selector: 1, matching_type: 1, certificate_data: sha256.slice(2) }, [['/certificate_data', 'invalid_digest_length']]],
  ['TLSA', { usage: 3, selector: 1, matching_type: 1, certificate_data: sha512 }, [['/certificate_data', 'invalid_digest_length']]],
  ['TLSA', { usage: 3, selector: 1, matching_type: 2, certificate_data: sha256 }, [['/certificate_data', 'invalid_digest_length']]],
  // NS
  ['NS', {}, [['/nameserver', 'required']]],
  ['NS', { nameserver: 'ns1' }, [['/nameserver', 'single_label']]],
  ['NS', { nameserver: '198.51.100.53' }, [['/nameserver', 'ip_not_allowed']]],
  ['NS', { nameserver: '.' }, [['/nameserver', 'root_not_allowed']]],
  [
    'NS',
    { target: 'ns1.example.net' },
    [
      ['/nameserver', 'required'],
      ['/target', 'unknown_field'],
    ],
  ],
  // PTR
  ['PTR', { target: 'host' }, [['/target', 'single_label']]],
  ['PTR', { target: '192.0.2.1' }, [['/target', 'ip_not_allowed']]],
  ['PTR', { target: '.' }, [['/target', 'root_not_allowed']]],
  ['PTR', { target: null }, [['/target', 'invalid_type']]],
  [
    'PTR',
    { hostname: 'host.example.com' },
    [
      ['/target', 'required'],
      ['/hostname', 'unknown_field'],
    ],
  ],
  // DS
  ['DS', { key_tag: 65536, algorithm: 13, digest_type: 2, digest: sha256 }, [['/key_tag', 'too_big']]],
  ['DS', { key_tag: 1, algorithm: 13, digest_type: 3, digest: sha256 }, [['/digest_type', 'unknown_digest_type']]],
  ['DS', { key_tag: 1, algorithm: 13, digest_type: 2, digest: sha256.slice(2) }, [['/digest', 'invalid_length']]],
  ['DS', { key_tag: 1, algorithm: 13, digest_type: 2, digest: 'xy'.repeat(32) }, [['/digest', 'invalid_hex']]],
];

describe('invalid data gives errors with pointers relative to data', () => {
  it.each(invalid)('%s %j', (type, input, expected) => {
    const errors = errorsOf(type, input);
    expect(errors.map((e) => [e.pointer, e.code])).toEqual(expect.arrayContaining(expected));
    expect(errors).toHaveLength(expected.length);
    for (const e of errors) expect(e.detail).toMatch(/\S/);
  });

  it('explains the problem in the detail', () => {
    expect(errorsOf('A', { address: '192.0.2.01' })[0]?.detail).toMatch(/leading zero/);
    expect(errorsOf('A', { address: '2001:db8::1' })[0]?.detail).toMatch(/AAAA/);
    expect(errorsOf('AAAA', { address: '192.0.2.1' })[0]?.detail).toMatch(/A record/);
    expect(errorsOf('MX', { preference: 10, exchange: 'mail' })[0]?.detail).toMatch(/fully-qualified/);
    expect(errorsOf('MX', { preference: 10, exchange: '.' })[0]?.detail).toMatch(/RFC 7505/);
    expect(errorsOf('CAA', { flags: 0, tag: 'issue_x', value: '' })[0]?.detail).toMatch(/RFC 8659 §4.1/);
  });
});

describe('TXT presentation: character-strings of at most 255 octets', () => {
  const strings = (text: string) => {
    const out = present('TXT', { text });
    // Split the presentation back into its quoted strings (no escaped quotes in these inputs).
    return out.match(/"[^"]*"/g) ?? [];
  };
  const octetsOf = (quoted: string) => quoted.slice(1, -1).replace(/\\\d{3}/g, '.').length;

  it.each([
    [1, 1],
    [254, 1],
    [255, 1],
    [256, 2],
    [510, 2],
    [511, 3],
    [8192, 33],
  ])('%i ASCII octets give %i string(s)', (n, count) => {
    const parts = strings('a'.repeat(n));
    expect(parts).toHaveLength(count);
    expect(parts.map(octetsOf).reduce((a, b) => a + b, 0)).toBe(n);
    for (const p of parts.slice(0, -1)) expect(octetsOf(p)).toBe(255);
  });

  it('separates the strings by one space', () => {
    expect(present('TXT', { text: 'a'.repeat(256) })).toBe(`"${'a'.repeat(255)}" "a"`);
  });

  it('cuts by octets, also inside a multi-byte character, escaping each octet', () => {
    // 254 ASCII + "é" (0xc3 0xa9) = 256 octets: the cut falls between 0xc3 and 0xa9.
    expect(present('TXT', { text: `${'a'.repeat(254)}é` })).toBe(`"${'a'.repeat(254)}\\195" "\\169"`);
    // 128 × "é" = 256 octets.
    const parts = strings('é'.repeat(128));
    expect(parts.map(octetsOf)).toEqual([255, 1]);
    expect(parts[1]).toBe('"\\169"');
  });

  it('counts an escape as one octet, not as its presentation length', () => {
    const text = `${'"'.repeat(255)}\\`;
    expect(present('TXT', { text })).toBe(`"${'\\"'.repeat(255)}" "\\\\"`);
  });

  it('accepts exactly 8192 octets of multi-byte text', () => {
    expect(parsed('TXT', { text: 'é'.repeat(4096) })).toEqual({ text: 'é'.repeat(4096) });
  });

  it('the empty text is one empty string (the codec writes one, RFC 1035 §3.3.14)', () => {
    expect(presentData('TXT', { text: '' })).toBe('""');
  });
});

describe('canonical helpers', () => {
  it.each([
    ['2001:DB8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['0:0:0:0:0:0:0:1', '::1'],
    ['1:0:0:0:0:0:0:0', '1::'],
    ['1:2:3:4:5:6:7:0', '1:2:3:4:5:6:7:0'],
    ['::ffff:0:0', '::ffff:0.0.0.0'],
    // RFC 4291 §2.5.5 prefixes in mixed notation, as dig and kdig print them (RFC 5952 §5).
    ['::192.0.2.1', '::192.0.2.1'],
    ['::c000:201', '::192.0.2.1'],
    ['::ffff:c000:201', '::ffff:192.0.2.1'],
    ['::1:c000:201', '::1:c000:201'],
    ['::2', '::2'],
    ['fe80::1%eth0', null],
    ['1::2::3', null],
    ['192.0.2.1', null],
    ['nonsense', null],
  ])('canonicalIpv6(%j) → %j', (input, expected) => {
    expect(canonicalIpv6(input)).toBe(expected);
  });

  it.each([
    ['', ';'],
    ['  ;  ', ';'],
    ['Ca.Example', 'ca.example'],
    ['ca.example ; a=1 ;b = 2', 'ca.example; a=1; b=2'],
    ['; a=1', '; a=1'],
    ['ca..example', null],
    ['ca.example; =1', null],
  ])('canonicalIssueValue(%j) → %j', (input, expected) => {
    expect(canonicalIssueValue(input)).toBe(expected);
  });
});

describe('owner names per type', () => {
  // (type, owner, allowed)
  const owners: [RecordType, string, boolean][] = [
    ['A', '@', true],
    ['A', '*.dev', true],
    ['A', '_under', true],
    ['AAAA', '@', true],
    ['MX', '@', true],
    ['TXT', '@', true],
    ['TXT', '_dmarc', true],
    ['CAA', '@', true],
    ['PTR', '@', true],
    ['PTR', '1', true],
    ['CNAME', '@', false],
    ['CNAME', 'www', true],
    ['CNAME', '*.dev', true],
    ['NS', '@', false],
    ['NS', 'sub', true],
    ['NS', 'a.sub', true],
    ['NS', '*', false],
    ['NS', '*.sub', false],
    ['SRV', '@', false],
    ['SRV', '_sip._tcp', true],
    ['SRV', '_sip._udp', true],
    ['SRV', '_sips._tls', true],
    ['SRV', '_diameter._sctp', true],
    ['SRV', '_xmpp-server._tcp.chat', true],
    ['SRV', '_imaps._tcp.mail.eu', true],
    ['SRV', 'sip._tcp', false],
    ['SRV', '_sip.tcp', false],
    ['SRV', '_sip', false],
    ['SRV', '_sip._http', false],
    ['SRV', '_tcp._sip', false],
    ['SRV', 'www', false],
    ['SRV', '*._tcp', false],
    ['SRV', '_-sip._tcp', false],
    ['SRV', '_sip-._tcp', false],
    ['SRV', '_5060._tcp', false], // a service name has at least one letter (RFC 6335 §5.1)
    ['SRV', '_sipfederationtls._tcp', true], // 16 characters: beyond RFC 6335's 15, but deployed (Microsoft 365)
    ['SRV', `_${'a'.repeat(63)}._tcp`, false], // longer than a DNS label
    ['TLSA', '@', false],
    ['TLSA', '_443._tcp', true],
    ['TLSA', '_443._tcp.www', true],
    ['TLSA', '_25._tcp.mail', true],
    ['TLSA', '_853._udp.dns', true],
    ['TLSA', '_5061._sctp.sip', true],
    ['TLSA', '_65535._tcp', true],
    ['TLSA', '_0._tcp', false],
    ['TLSA', '_65536._tcp', false],
    ['TLSA', '_0443._tcp', false],
    ['TLSA', '_https._tcp', false],
    ['TLSA', '443._tcp', false],
    ['TLSA', '_443._tls', false],
    ['TLSA', '_443', false],
    ['TLSA', 'www', false],
  ];

  it.each(owners)('%s at %j: allowed=%s', (type, owner, allowed) => {
    const problem = ruleOf(type).ownerProblem(owner);
    if (allowed) expect(problem).toBeNull();
    else expect(problem).toMatch(/\S/);
  });

  it('says why', () => {
    expect(ruleOf('CNAME').ownerProblem('@')).toMatch(/apex.*RFC 1034/);
    expect(ruleOf('NS').ownerProblem('@')).toMatch(/apex NS set is managed by the service/);
    expect(ruleOf('SRV').ownerProblem('www')).toMatch(/_service\._proto/);
    expect(ruleOf('TLSA').ownerProblem('www')).toMatch(/_<port>\._<protocol>/);
  });
});
