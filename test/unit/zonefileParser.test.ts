import { describe, expect, it } from 'vitest';
import { absoluteName } from '../../nameserver/wire/name.js';
import { parseRecordData } from '../../src/domain/records/parseRecordData.js';
import { presentData } from '../../nameserver/wire/rdata.js';
import { isRecordType, ruleOf, type RecordType } from '../../src/domain/records/types.js';
import { soaData, soaPresentation } from '../../src/domain/soa.js';
import { parseZoneFile, type ZoneFileEntry } from '../../src/domain/zonefile/parseZoneFile.js';
import { mulberry32 } from '../helpers/seededRandom.js';

const ZONE = 'example.com';
const sha256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const sha512 = 'cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e';

const parse = (text: string, zone = ZONE) => parseZoneFile(text, zone);

/** The one entry of a file that must parse without errors or skips. */
function only(text: string, zone = ZONE): ZoneFileEntry {
  const r = parse(text, zone);
  expect(r.errors).toEqual([]);
  expect(r.skipped).toEqual([]);
  expect(r.entries).toHaveLength(1);
  return r.entries[0]!;
}

/** The errors of a file, as [line, code]. */
const errorsOf = (text: string, zone = ZONE) => parse(text, zone).errors.map((e) => [e.line, e.code]);

/** Owner, type and data of each entry: the part the import cares about. */
const brief = (entries: ZoneFileEntry[]) => entries.map((e) => [e.owner, e.ttl, e.type, e.data]);

describe('owner names', () => {
  it.each([
    ['absolute', 'www.example.com. A 192.0.2.1', 'www.example.com'],
    ['relative to the zone', 'www A 192.0.2.1', 'www.example.com'],
    ['@ is the origin', '@ A 192.0.2.1', 'example.com'],
    ['the zone itself, absolute', 'example.com. A 192.0.2.1', 'example.com'],
    ['upper case is lowered', 'WWW.Example.COM. A 192.0.2.1', 'www.example.com'],
    ['a wildcard', '*.dev A 192.0.2.1', '*.dev.example.com'],
    ['an underscore label', '_dmarc TXT "v=DMARC1; p=none"', '_dmarc.example.com'],
    ['\\DDD escapes', '\\119ww A 192.0.2.1', 'www.example.com'],
    ['\\X escapes', 'w\\ww A 192.0.2.1', 'www.example.com'],
    ['a U-label becomes an A-label', 'bücher A 192.0.2.1', 'xn--bcher-kva.example.com'],
    ['a U-label written as \\DDD UTF-8 octets', 'b\\195\\188cher A 192.0.2.1', 'xn--bcher-kva.example.com'],
    ['relative to $ORIGIN (absolute)', '$ORIGIN sub.example.com.\nwww A 192.0.2.1', 'www.sub.example.com'],
    ['relative to $ORIGIN (relative to the previous origin)', '$ORIGIN sub\nwww A 192.0.2.1', 'www.sub.example.com'],
    ['$ORIGIN . and a relative name spelling the zone', '$ORIGIN .\nwww.example.com A 192.0.2.1', 'www.example.com'],
    ['@ after $ORIGIN', '$ORIGIN sub.example.com.\n@ A 192.0.2.1', 'sub.example.com'],
    ['lower-case directive', '$origin sub.example.com.\n@ A 192.0.2.1', 'sub.example.com'],
  ])('%s', (_, text, owner) => {
    expect(only(text).owner).toBe(owner);
  });

  it('a line starting with blank space (space or tab) repeats the previous owner', () => {
    const r = parse('www A 192.0.2.1\n  AAAA 2001:db8::1\n\tTXT "x"\nmail A 192.0.2.2\n\tA 192.0.2.3');
    expect(r.errors).toEqual([]);
    expect(r.entries.map((e) => [e.line, e.owner, e.type])).toEqual([
      [1, 'www.example.com', 'A'],
      [2, 'www.example.com', 'AAAA'],
      [3, 'www.example.com', 'TXT'],
      [4, 'mail.example.com', 'A'],
      [5, 'mail.example.com', 'A'],
    ]);
  });

  it('the previous owner survives a $ORIGIN change (RFC 1035 §5.1: blank means the last stated owner)', () => {
    const r = parse('www A 192.0.2.1\n$ORIGIN sub.example.com.\n A 192.0.2.2');
    expect(r.entries.map((e) => e.owner)).toEqual(['www.example.com', 'www.example.com']);
  });

  it.each([
    ['another zone, absolute', 'www.example.org. A 192.0.2.1', 'outside_zone'],
    ['a parent of the zone', 'com. A 192.0.2.1', 'outside_zone'],
    ['the root', '. A 192.0.2.1', 'outside_zone'],
    ['a suffix that is not a label boundary', 'www.badexample.com. A 192.0.2.1', 'outside_zone'],
    ['relative to an $ORIGIN outside the zone', '$ORIGIN example.org.\nwww A 192.0.2.1', 'outside_zone'],
    ['@ under $ORIGIN .', '$ORIGIN .\n@ A 192.0.2.1', 'outside_zone'],
    ['an escaped dot inside a label', 'a\\.b A 192.0.2.1', 'invalid_character'],
    ['an escaped dot as \\046', 'a\\046b A 192.0.2.1', 'invalid_character'],
    ['an escaped space', 'a\\032b A 192.0.2.1', 'invalid_character'],
    ['two dots in a row', 'a..b A 192.0.2.1', 'empty_label'],
    ['a label of 64 octets', `${'a'.repeat(64)} A 192.0.2.1`, 'label_too_long'],
    ['a wildcard not leftmost', 'a.*.b A 192.0.2.1', 'invalid_wildcard'],
    ['a quoted owner', '"www" A 192.0.2.1', 'unexpected_quoted_string'],
    ['a blank owner on the first record', '   A 192.0.2.1', 'missing_owner'],
    ['a \\DDD above 255', 'a\\256 A 192.0.2.1', 'invalid_escape'],
    ['a \\D with fewer than three digits', 'a\\12b A 192.0.2.1', 'invalid_escape'],
  ])('refused: %s', (_, text, code) => {
    const lines = text.split('\n').length;
    expect(errorsOf(text)).toEqual([[lines, code]]);
  });

  it('every line inheriting a refused owner is reported on its own line', () => {
    expect(errorsOf('www.example.org. A 192.0.2.1\n A 192.0.2.2\nok A 192.0.2.3')).toEqual([
      [1, 'outside_zone'],
      [2, 'outside_zone'],
    ]);
  });

  it('an invalid zone name is one error on line 0', () => {
    expect(parse('www A 192.0.2.1', 'exa mple.com')).toEqual({
      entries: [],
      skipped: [],
      errors: [expect.objectContaining({ line: 0, code: 'invalid_character' })],
    });
  });

  it('the zone name may be given with a trailing dot and in any case', () => {
    expect(only('www A 192.0.2.1', 'Example.COM.').owner).toBe('www.example.com');
  });
});

describe('TTLs', () => {
  it.each([
    ['plain seconds', 'www 300 A 192.0.2.1', 300],
    ['hours', 'www 1h A 192.0.2.1', 3600],
    ['days', 'www 2d A 192.0.2.1', 172_800],
    ['weeks, upper case', 'www 1W A 192.0.2.1', 604_800],
    ['every unit', 'www 1w2d3h4m5s A 192.0.2.1', 604_800 + 2 * 86_400 + 3 * 3600 + 4 * 60 + 5],
    ['mixed case units', 'www 1H30M A 192.0.2.1', 5400],
    ['a unit twice (BIND adds them)', 'www 1h1h A 192.0.2.1', 7200],
    ['zero', 'www 0 A 192.0.2.1', 0],
    ['leading zeros', 'www 0300 A 192.0.2.1', 300],
    ['the largest (2^31 − 1, RFC 2181 §8)', 'www 2147483647 A 192.0.2.1', 2_147_483_647],
  ])('explicit: %s', (_, text, ttl) => {
    expect(only(text)).toMatchObject({ ttl, ttlSource: 'explicit' });
  });

  it.each([
    ['TTL then class', 'www 300 IN A 192.0.2.1'],
    ['class then TTL', 'www IN 300 A 192.0.2.1'],
    ['lower-case class', 'www 300 in a 192.0.2.1'],
    ['RFC 3597 CLASS1', 'www CLASS1 300 A 192.0.2.1'],
  ])('TTL and class in either order: %s', (_, text) => {
    expect(only(text)).toMatchObject({ owner: 'www.example.com', ttl: 300, type: 'A', data: { address: '192.0.2.1' } });
  });

  it('class without TTL and neither', () => {
    expect(only('www IN A 192.0.2.1')).toMatchObject({ ttl: null, ttlSource: 'none' });
    expect(only('www A 192.0.2.1')).toMatchObject({ ttl: null, ttlSource: 'none' });
  });

  it('$TTL applies to records without a TTL; an explicit TTL wins; a later $TTL replaces it', () => {
    const r = parse(['$TTL 1h', 'a A 192.0.2.1', 'b 300 A 192.0.2.2', 'c A 192.0.2.3', '$TTL 86400', 'd A 192.0.2.4'].join('\n'));
    expect(r.entries.map((e) => [e.owner.split('.')[0], e.ttl, e.ttlSource])).toEqual([
      ['a', 3600, 'directive'],
      ['b', 300, 'explicit'],
      ['c', 3600, 'directive'],
      ['d', 86_400, 'directive'],
    ]);
  });

  it('without $TTL the last explicit TTL applies (RFC 1035 §5.1), also one from a skipped record', () => {
    const r = parse(['a A 192.0.2.1', '@ 7200 SOA ns1 host 1 2 3 4 5', 'b A 192.0.2.2', 'c 300 A 192.0.2.3', 'd A 192.0.2.4'].join('\n'));
    expect(r.entries.map((e) => [e.owner.split('.')[0], e.ttl, e.ttlSource])).toEqual([
      ['a', null, 'none'],
      ['b', 7200, 'previous'],
      ['c', 300, 'explicit'],
      ['d', 300, 'previous'],
    ]);
  });

  it("our service bounds (60–604800) are the caller's: the parser returns what the file says", () => {
    expect(only('www 10 A 192.0.2.1').ttl).toBe(10);
  });

  it.each([
    ['an unknown unit', 'www 1x A 192.0.2.1', 'invalid_ttl'],
    ['a number after units', 'www 1h30 A 192.0.2.1', 'invalid_ttl'],
    ['above 2^31 − 1', 'www 2147483648 A 192.0.2.1', 'invalid_ttl'],
    ['a huge unit TTL', 'www 99999999w A 192.0.2.1', 'invalid_ttl'],
    ['an IP address where the type belongs', 'www 192.0.2.1', 'invalid_ttl'],
    ['CH', 'www CH A 192.0.2.1', 'unsupported_class'],
    ['HS', 'www 300 HS A 192.0.2.1', 'unsupported_class'],
    ['CLASS3', 'www CLASS3 A 192.0.2.1', 'unsupported_class'],
    ['a bad $TTL', '$TTL 1y', 'invalid_ttl'],
    ['$TTL without a value', '$TTL', 'invalid_directive'],
    ['$TTL with two values', '$TTL 1h 2h', 'invalid_directive'],
  ])('refused: %s', (_, text, code) => {
    expect(errorsOf(text)).toEqual([[1, code]]);
  });

  it('a refused $TTL leaves the previous one in force', () => {
    const r = parse('$TTL 1h\n$TTL bogus\nwww A 192.0.2.1');
    expect(r.errors.map((e) => e.code)).toEqual(['invalid_ttl']);
    expect(r.entries[0]).toMatchObject({ ttl: 3600, ttlSource: 'directive' });
  });
});

describe('lexical rules (RFC 1035 §5.1)', () => {
  it('comments anywhere outside quotes; ";" inside quotes is text', () => {
    const r = parse(
      ['; a comment line', 'www A 192.0.2.1 ; trailing comment', 'txt TXT "v=DKIM1; k=rsa" ;comment', '   ; indented comment line', ''].join('\n'),
    );
    expect(r.errors).toEqual([]);
    expect(brief(r.entries)).toEqual([
      ['www.example.com', null, 'A', { address: '192.0.2.1' }],
      ['txt.example.com', null, 'TXT', { text: 'v=DKIM1; k=rsa' }],
    ]);
  });

  it('parentheses join lines; comments and blank lines inside; the entry is on its first line', () => {
    const text = ['', 'www 300 IN MX ( ; opening', '   10 ; preference', '', '   mail.example.com. ) ; closing', 'next A 192.0.2.1'].join('\n');
    const r = parse(text);
    expect(r.errors).toEqual([]);
    expect(r.entries.map((e) => [e.line, e.type, e.data])).toEqual([
      [2, 'MX', { preference: 10, exchange: 'mail.example.com' }],
      [6, 'A', { address: '192.0.2.1' }],
    ]);
  });

  it('a record opened by "(" with blank space keeps the previous owner; nested parentheses balance', () => {
    const r = parse('www A 192.0.2.1\n  ( AAAA\n ((2001:db8::1)) )');
    expect(r.errors).toEqual([]);
    expect(r.entries[1]).toMatchObject({ line: 2, owner: 'www.example.com', type: 'AAAA', data: { address: '2001:db8::1' } });
  });

  it('parentheses and quotes end a word; a quote inside a word starts a string', () => {
    const r = parse('t TXT "a""b"c(d)');
    expect(r.entries[0]?.data).toEqual({ text: 'abcd' });
  });

  it('CRLF line ends, a UTF-8 byte order mark and tabs', () => {
    const text = '\uFEFF$TTL 3600\r\n$ORIGIN example.com.\r\nwww\tIN\tA\t192.0.2.1\r\n\tTXT\t"a b"\r\nmx\tMX\t(\r\n\t10\r\n\tmail )\r\n';
    const r = parse(text);
    expect(r.errors).toEqual([]);
    expect(r.entries.map((e) => [e.line, e.owner, e.ttl, e.type, e.data])).toEqual([
      [3, 'www.example.com', 3600, 'A', { address: '192.0.2.1' }],
      [4, 'www.example.com', 3600, 'TXT', { text: 'a b' }],
      [5, 'mx.example.com', 3600, 'MX', { preference: 10, exchange: 'mail.example.com' }],
    ]);
  });

  it('a file without a final newline, and an empty file', () => {
    expect(only('www A 192.0.2.1').data).toEqual({ address: '192.0.2.1' });
    expect(parse('')).toEqual({ entries: [], skipped: [], errors: [] });
    expect(parse('\n\n  \n; only comments\n')).toEqual({ entries: [], skipped: [], errors: [] });
  });

  it.each([
    ['"(" never closed: the line of the "("', 'a A 192.0.2.1\nb MX ( 10\n mail.example.com.\nc A 192.0.2.3', [[2, 'unbalanced_parentheses']]],
    ['")" without "("', 'a A 192.0.2.1\nb A 192.0.2.2 )\nc A 192.0.2.3', [[2, 'unbalanced_parentheses']]],
    ['an unterminated quote: its own line', 'a A 192.0.2.1\nb TXT "abc\nc A 192.0.2.3', [[2, 'unterminated_quote']]],
    ['an unterminated quote in a multi-line record: the line of the quote', 'a TXT (\n "ok"\n "not closed\n )\nc A 192.0.2.3', [[3, 'unterminated_quote']]],
    ['a backslash at the end of a line', 'a TXT abc\\\nc A 192.0.2.3', [[1, 'invalid_escape']]],
    ['a backslash before CRLF', 'a TXT "abc\\\r\nc A 192.0.2.3', [[1, 'unterminated_quote']]],
  ])('refused: %s', (_, text, errors) => {
    expect(errorsOf(text)).toEqual(errors);
  });

  it('records around a lexical error are still read', () => {
    const r = parse('a A 192.0.2.1\nb TXT "abc\nc A 192.0.2.3');
    expect(r.entries.map((e) => e.owner)).toEqual(['a.example.com', 'c.example.com']);
  });
});

describe('directives', () => {
  it.each([
    ['$INCLUDE', '$INCLUDE other.zone', 'include_not_supported'],
    ['$INCLUDE with an origin', '$INCLUDE other.zone example.com.', 'include_not_supported'],
    ['$GENERATE (BIND only)', '$GENERATE 1-10 host$ A 192.0.2.$', 'unknown_directive'],
    ['anything else', '$FOO bar', 'unknown_directive'],
    ['$ORIGIN without a name', '$ORIGIN', 'invalid_directive'],
    ['$ORIGIN with two names', '$ORIGIN a. b.', 'invalid_directive'],
    ['$ORIGIN with an escaped dot', '$ORIGIN a\\.b.example.com.', 'invalid_character'],
  ])('%s', (_, text, code) => {
    expect(errorsOf(text)).toEqual([[1, code]]);
  });

  it('after a refused $ORIGIN, relative names are refused (never resolved against a stale origin)', () => {
    expect(errorsOf('$ORIGIN a..b.\nwww A 192.0.2.1\nx.example.com. CNAME www\nok.example.com. A 192.0.2.1')).toEqual([
      [1, 'empty_label'],
      [2, 'invalid_origin'],
      [3, 'invalid_origin'],
    ]);
  });
});

describe('RDATA in presentation form', () => {
  it.each<[string, string, RecordType, Record<string, unknown>]>([
    ['A', 'www A 192.0.2.1', 'A', { address: '192.0.2.1' }],
    ['A (left for parseRecordData to judge)', 'www A 192.0.2.01', 'A', { address: '192.0.2.01' }],
    ['AAAA', 'www AAAA 2001:DB8::1', 'AAAA', { address: '2001:DB8::1' }],
    ['CNAME absolute', 'www CNAME target.example.net.', 'CNAME', { target: 'target.example.net' }],
    ['CNAME relative', 'www CNAME target', 'CNAME', { target: 'target.example.com' }],
    ['CNAME @', 'www CNAME @', 'CNAME', { target: 'example.com' }],
    ['CNAME upper case', 'www CNAME Target.Example.NET.', 'CNAME', { target: 'target.example.net' }],
    ['CNAME with \\DDD', 'www CNAME \\116arget.example.net.', 'CNAME', { target: 'target.example.net' }],
    ['MX', 'mx MX 10 mail.example.com.', 'MX', { preference: 10, exchange: 'mail.example.com' }],
    ['MX relative exchange', 'mx MX 10 mail', 'MX', { preference: 10, exchange: 'mail.example.com' }],
    ['null MX', '@ MX 0 .', 'MX', { preference: 0, exchange: '.' }],
    ['SRV', '_sip._tcp SRV 10 5 5060 sip.example.com.', 'SRV', { priority: 10, weight: 5, port: 5060, target: 'sip.example.com' }],
    ['SRV relative target', '_sip._tcp SRV 10 5 5060 sip', 'SRV', { priority: 10, weight: 5, port: 5060, target: 'sip.example.com' }],
    ['SRV "no service"', '_sip._tcp SRV 0 0 0 .', 'SRV', { priority: 0, weight: 0, port: 0, target: '.' }],
    ['NS below the apex', 'sub NS ns1.example.net.', 'NS', { nameserver: 'ns1.example.net' }],
    ['NS relative', 'sub NS ns1.sub', 'NS', { nameserver: 'ns1.sub.example.com' }],
    ['TXT one string', 't TXT "hello world"', 'TXT', { text: 'hello world' }],
    ['TXT strings joined with nothing between', 't TXT "v=spf1 " "-all"', 'TXT', { text: 'v=spf1 -all' }],
    ['TXT unquoted words are strings', 't TXT hello world', 'TXT', { text: 'helloworld' }],
    ['TXT quoted and unquoted mixed', 't TXT a "b c" d', 'TXT', { text: 'ab cd' }],
    ['TXT \\" and \\\\', 't TXT "say \\"hi\\" \\\\o/"', 'TXT', { text: 'say "hi" \\o/' }],
    ['TXT \\DDD', 't TXT "tab\\009end\\010"', 'TXT', { text: 'tab\tend\n' }],
    ['TXT \\DDD UTF-8 octets', 't TXT "caf\\195\\169"', 'TXT', { text: 'café' }],
    ['TXT a UTF-8 character split over two strings', 't TXT "caf\\195" "\\169"', 'TXT', { text: 'café' }],
    ['TXT raw UTF-8 in the file', 't TXT "café ✓"', 'TXT', { text: 'café ✓' }],
    ['TXT parentheses and ; in quotes', 't TXT "(a; b)"', 'TXT', { text: '(a; b)' }],
    ['TXT a leading byte order mark is data', 't TXT "\\239\\187\\191x"', 'TXT', { text: '\uFEFFx' }],
    ['TXT escaped characters outside quotes', 't TXT a\\ b\\;c', 'TXT', { text: 'a b;c' }],
    ['TXT the string "\\#" quoted is text', 't TXT "\\#"', 'TXT', { text: '#' }],
    ['TXT empty (parseRecordData refuses it)', 't TXT ""', 'TXT', { text: '' }],
    ['TXT over lines', 't TXT ( "a"\n "b" )', 'TXT', { text: 'ab' }],
    ['CAA', '@ CAA 0 issue "letsencrypt.org"', 'CAA', { flags: 0, tag: 'issue', value: 'letsencrypt.org' }],
    ['CAA unquoted value', '@ CAA 0 issue letsencrypt.org', 'CAA', { flags: 0, tag: 'issue', value: 'letsencrypt.org' }],
    ['CAA critical with parameters', '@ CAA 128 issue "ca.example; account=123"', 'CAA', { flags: 128, tag: 'issue', value: 'ca.example; account=123' }],
    ['CAA upper-case tag (kept; parseRecordData lowers it)', '@ CAA 0 ISSUEWILD ";"', 'CAA', { flags: 0, tag: 'ISSUEWILD', value: ';' }],
    ['CAA empty value', '@ CAA 0 issue ""', 'CAA', { flags: 0, tag: 'issue', value: '' }],
    ['CAA iodef', '@ CAA 0 iodef "mailto:security@example.com"', 'CAA', { flags: 0, tag: 'iodef', value: 'mailto:security@example.com' }],
    ['TLSA', `_443._tcp.www TLSA 3 1 1 ${sha256}`, 'TLSA', { usage: 3, selector: 1, matching_type: 1, certificate_data: sha256 }],
    [
      'TLSA hex split by blank space',
      `_443._tcp TLSA 3 1 1 ${sha256.slice(0, 10)} ${sha256.slice(10)}`,
      'TLSA',
      { usage: 3, selector: 1, matching_type: 1, certificate_data: sha256 },
    ],
    [
      'TLSA hex split over lines',
      `_443._tcp TLSA 2 0 2 (\n ${sha512.slice(0, 64)}\n ${sha512.slice(64)} )`,
      'TLSA',
      { usage: 2, selector: 0, matching_type: 2, certificate_data: sha512 },
    ],
    ['TYPEnnn of a known type with its own presentation', 'www TYPE1 192.0.2.1', 'A', { address: '192.0.2.1' }],
    ['type in lower case', 'www cname target.example.net.', 'CNAME', { target: 'target.example.net' }],
  ])('%s', (_, text, type, data) => {
    expect(only(text)).toMatchObject({ type, data });
  });

  it('PTR in a reverse zone, relative and absolute', () => {
    const r = parse('1 PTR host.example.com.\n2 IN PTR host\n$ORIGIN 0.2.0.192.in-addr.arpa.\n3 PTR host.example.com.', '2.0.192.in-addr.arpa');
    expect(r.errors).toEqual([]);
    expect(r.entries.map((e) => [e.owner, e.data])).toEqual([
      ['1.2.0.192.in-addr.arpa', { target: 'host.example.com' }],
      ['2.2.0.192.in-addr.arpa', { target: 'host.2.0.192.in-addr.arpa' }],
      ['3.0.2.0.192.in-addr.arpa', { target: 'host.example.com' }],
    ]);
  });

  it('names in RDATA are resolved against the $ORIGIN in force on their line', () => {
    const r = parse('$ORIGIN sub.example.com.\nwww CNAME web\n$ORIGIN .\nmx.example.com MX 10 mail.example.net');
    expect(brief(r.entries)).toEqual([
      ['www.sub.example.com', null, 'CNAME', { target: 'web.sub.example.com' }],
      ['mx.example.com', null, 'MX', { preference: 10, exchange: 'mail.example.net' }],
    ]);
  });

  it.each([
    ['A without address', 'www A', 'address'],
    ['A with two addresses', 'www A 192.0.2.1 192.0.2.2', 'address'],
    ['A quoted', 'www A "192.0.2.1"', 'address'],
    ['CNAME without target', 'www CNAME', 'target'],
    ['CNAME two targets', 'www CNAME a.example. b.example.', 'target'],
    ['CNAME quoted target', 'www CNAME "a.example."', 'target'],
    ['MX missing exchange', 'mx MX 10', 'exchange'],
    ['MX non-numeric preference', 'mx MX ten mail.example.com.', 'preference'],
    ['MX negative preference', 'mx MX -1 mail.example.com.', 'preference'],
    ['MX fields swapped', 'mx MX mail.example.com. 10', 'preference'],
    ['SRV missing fields', '_sip._tcp SRV 10 5 sip.example.com.', 'port'],
    ['SRV three numbers and nothing else', '_sip._tcp SRV 10 5 5060', 'target'],
    ['SRV non-numeric weight', '_sip._tcp SRV 10 x 5060 sip.example.com.', 'weight'],
    ['SRV decimal fraction', '_sip._tcp SRV 10 5 50.5 sip.example.com.', 'port'],
    ['TXT without strings', 't TXT', 'text'],
    ['TXT not UTF-8', 't TXT "\\255\\254"', 'text'],
    ['TXT a truncated UTF-8 sequence', 't TXT "caf\\195"', 'text'],
    ['CAA missing value', '@ CAA 0 issue', 'value'],
    ['CAA non-numeric flags', '@ CAA x issue "ca.example"', 'flags'],
    ['CAA two values', '@ CAA 0 issue "a.example" "b.example"', 'value'],
    ['TLSA missing data', '_443._tcp TLSA 3 1 1', 'certificate_data'],
    ['TLSA non-numeric usage', `_443._tcp TLSA DANE-EE 1 1 ${sha256}`, 'usage'],
    ['TLSA quoted hex', `_443._tcp TLSA 3 1 1 "${sha256}"`, 'certificate_data'],
  ])('invalid_rdata naming the field: %s', (_, text, field) => {
    const r = parse(text);
    expect(r.entries).toEqual([]);
    expect(r.errors).toEqual([{ line: 1, code: 'invalid_rdata', detail: expect.stringContaining(field) }]);
  });

  it.each([
    ['an escaped dot in a CNAME target', 'www CNAME a\\.b.example.net.', 'invalid_character'],
    ['an empty label in an MX exchange', 'mx MX 10 mail..example.net.', 'empty_label'],
    ['a bad escape in TXT', 't TXT "\\300"', 'invalid_escape'],
    ['a short \\DDD in TXT', 't TXT "\\9"', 'invalid_escape'],
  ])('refused: %s', (_, text, code) => {
    expect(errorsOf(text)).toEqual([[1, code]]);
  });

  it("host name rules are parseRecordData's: the parser passes single labels and addresses through", () => {
    const r = parse('$ORIGIN .\nmx.example.com MX 10 mail\nwww.example.com CNAME 192.0.2.1.');
    expect(r.errors).toEqual([]);
    expect(r.entries.map((e) => e.data)).toEqual([{ preference: 10, exchange: 'mail' }, { target: '192.0.2.1' }]);
    expect(parseRecordData('MX', r.entries[0]!.data)).toMatchObject({ ok: false, errors: [{ code: 'single_label' }] });
  });
});

describe('RFC 3597 generic RDATA (\\# length hex)', () => {
  it.each<[string, string, RecordType, Record<string, unknown>]>([
    ['A', 'www TYPE1 \\# 4 c0000201', 'A', { address: '192.0.2.1' }],
    ['A with the mnemonic', 'www A \\# 4 C0000201', 'A', { address: '192.0.2.1' }],
    ['AAAA', 'www TYPE28 \\# 16 20010db8000000000000000000000001', 'AAAA', { address: '2001:db8::1' }],
    ['AAAA IPv4-mapped', 'www AAAA \\# 16 00000000000000000000ffffc0000201', 'AAAA', { address: '::ffff:192.0.2.1' }],
    ['TXT two strings', 't TYPE16 \\# 12 0568656c6c6f05776f726c64', 'TXT', { text: 'helloworld' }],
    ['TXT one empty string', 't TYPE16 \\# 1 00', 'TXT', { text: '' }],
    ['TXT UTF-8', 't TXT \\# 6 05636166c3a9', 'TXT', { text: 'café' }],
    ['MX', 'mx TYPE15 \\# 20 000a046d61696c076578616d706c6503636f6d00', 'MX', { preference: 10, exchange: 'mail.example.com' }],
    ['null MX', 'mx TYPE15 \\# 3 000000', 'MX', { preference: 0, exchange: '.' }],
    ['CNAME', 'www TYPE5 \\# 17 03777777076578616d706c65036e657400', 'CNAME', { target: 'www.example.net' }],
    ['NS', 'sub TYPE2 \\# 17 036e7331076578616d706c65036e657400', 'NS', { nameserver: 'ns1.example.net' }],
    [
      'SRV',
      '_sip._tcp TYPE33 \\# 23 000a000513c403736970076578616d706c6503636f6d00',
      'SRV',
      { priority: 10, weight: 5, port: 5060, target: 'sip.example.com' },
    ],
    ['CAA', '@ TYPE257 \\# 22 000569737375656c657473656e63727970742e6f7267', 'CAA', { flags: 0, tag: 'issue', value: 'letsencrypt.org' }],
    ['TLSA', `_443._tcp TYPE52 \\# 35 030101${sha256}`, 'TLSA', { usage: 3, selector: 1, matching_type: 1, certificate_data: sha256 }],
    ['hex split over tokens and lines', 'www TYPE1 \\# 4 ( c000\n 02 01 )', 'A', { address: '192.0.2.1' }],
    ['names in the wire form are lowered', 'www TYPE5 \\# 17 03575757076578616d706c65036e657400', 'CNAME', { target: 'www.example.net' }],
  ])('%s', (_, text, type, data) => {
    expect(only(text)).toMatchObject({ type, data });
  });

  it('PTR', () => {
    expect(only('1 TYPE12 \\# 18 04686f7374076578616d706c6503636f6d00', '2.0.192.in-addr.arpa')).toMatchObject({
      type: 'PTR',
      data: { target: 'host.example.com' },
    });
  });

  it.each([
    ['a length that does not match the hex', 'www TYPE1 \\# 5 c0000201', 'invalid_rdata'],
    ['an odd number of hex digits', 'www TYPE1 \\# 4 c000020', 'invalid_rdata'],
    ['non-hex', 'www TYPE1 \\# 4 c00002zz', 'invalid_rdata'],
    ['no length', 'www TYPE1 \\#', 'invalid_rdata'],
    ['a non-numeric length', 'www TYPE1 \\# four c0000201', 'invalid_rdata'],
    ['A of 5 octets', 'www TYPE1 \\# 5 c000020101', 'invalid_rdata'],
    ['a compressed name (RFC 3597 §4: never compressed)', 'mx TYPE15 \\# 4 000ac00c', 'invalid_rdata'],
    ['a truncated name', 'www TYPE5 \\# 4 03777777', 'invalid_rdata'],
    ['octets after the name', 'www TYPE5 \\# 3 000000', 'invalid_rdata'],
    ['a wire label containing a dot (complete name)', 'www TYPE5 \\# 7 03612e620163 00', 'invalid_character'],
    ['TXT string longer than the RDATA', 't TYPE16 \\# 2 0561', 'invalid_rdata'],
    ['TXT of no string', 't TYPE16 \\# 0', 'invalid_rdata'],
    ['CAA tag longer than the RDATA', '@ TYPE257 \\# 3 000961', 'invalid_rdata'],
  ])('refused: %s', (_, text, code) => {
    expect(errorsOf(text)).toEqual([[1, code]]);
  });

  it('unknown TYPEnnn in the generic form is imported as opaque RDATA (RFC 3597)', () => {
    const r = parse('x TYPE65534 \\# 4 01020304\ny TYPE999 \\# 0\nz type64000 \\# 2 ( 01\n 02 )');
    expect(r.errors).toEqual([]);
    expect(r.skipped).toEqual([]);
    expect(r.entries.map((e) => [e.line, e.owner, e.type, e.data])).toEqual([
      [1, 'x.example.com', 'TYPE65534', { rdata: '01020304' }],
      [2, 'y.example.com', 'TYPE999', { rdata: '' }],
      [3, 'z.example.com', 'TYPE64000', { rdata: '0102' }],
    ]);
  });

  it('an unknown TYPEnnn has no other form; meta types and reserved numbers are no record type', () => {
    expect(errorsOf('x TYPE65534 01020304')).toEqual([[1, 'invalid_rdata']]);
    expect(parse('x TYPE200 \\# 0\ny TYPE65535 \\# 0').skipped.map((s) => [s.type, s.reason])).toEqual([
      ['TYPE200', 'unsupported_type'],
      ['TYPE65535', 'unsupported_type'],
    ]);
  });

  it('TYPEnnn of registered types are reported with their mnemonic', () => {
    const r = parse('@ TYPE6 \\# 0\n@ TYPE2 \\# 0\n@ TYPE48 \\# 0\n@ TYPE99 \\# 0');
    expect(r.skipped.map((s) => [s.type, s.reason])).toEqual([
      ['SOA', 'soa'],
      ['NS', 'apex_ns'],
      ['DNSKEY', 'dnssec'],
      ['SPF', 'unsupported_type'],
    ]);
  });

  it('TYPE numbers above 65535 are no type', () => {
    expect(errorsOf('x TYPE65536 \\# 0')).toEqual([[1, 'unknown_type']]);
  });
});

describe('types that are skipped, not imported', () => {
  it.each([
    ['SOA', 'SOA', '@ SOA ns1.example.com. hostmaster.example.com. 1 7200 3600 1209600 300', 'soa'],
    ['apex NS', 'NS', '@ NS ns1.example.net.', 'apex_ns'],
    ['apex NS, absolute', 'NS', 'example.com. 3600 IN NS ns1.example.net.', 'apex_ns'],
    ...['DNSKEY', 'RRSIG', 'NSEC', 'NSEC3', 'NSEC3PARAM', 'CDS', 'CDNSKEY'].map((t) => [t, t, `@ ${t} anything at all`, 'dnssec']),
    ...['SPF', 'DNAME', 'KEY', 'ZONEMD', 'AFSDB'].map((t) => [t, t, `@ ${t} whatever`, 'unsupported_type']),
    ['lower-case mnemonic', 'SPF', '@ spf "v=spf1 -all"', 'unsupported_type'],
  ])('%s', (_, type, text, reason) => {
    const r = parse(text);
    expect(r.errors).toEqual([]);
    expect(r.entries).toEqual([]);
    expect(r.skipped).toEqual([{ line: 1, owner: 'example.com', type, reason }]);
  });

  it('NS below the apex is imported (a delegation)', () => {
    expect(only('sub NS ns1.example.net.').type).toBe('NS');
  });

  it("DS is imported: the parent side of a secure delegation, not the signer's own data", () => {
    expect(only(`sub DS 12345 13 2 ${'ab'.repeat(32)}`).type).toBe('DS');
  });

  it('an owner outside the zone is an error even for a skipped type', () => {
    expect(errorsOf('example.org. SOA a. b. 1 2 3 4 5')).toEqual([[1, 'outside_zone']]);
  });

  it("an SOA at the root (Cloudflare's older exports: `@` under `$ORIGIN .`) is skipped; other records there are refused", () => {
    const r = parse('$ORIGIN .\n@\t3600\tIN\tSOA\texample.com.\troot.example.com.\t(\n\t\t1 7200 3600 86400\n\t\t3600)\n. IN A 192.0.2.1\n@ IN TXT "x"\n');
    expect(r.skipped).toEqual([{ line: 2, owner: '.', type: 'SOA', reason: 'soa' }]);
    expect(r.errors.map((e) => [e.line, e.code])).toEqual([
      [5, 'outside_zone'],
      [6, 'outside_zone'],
    ]);
  });

  it.each([
    ['a misspelt type', 'www CNAEM target.example.net.', 'unknown_type'],
    ['a missing type', 'www 300 IN', 'missing_type'],
    ['only an owner', 'www', 'missing_type'],
    ['a quoted type', 'www "A" 192.0.2.1', 'unexpected_quoted_string'],
    ['owner forgotten (the type is read as the owner)', 'A 192.0.2.1', 'invalid_ttl'],
  ])('refused: %s', (_, text, code) => {
    expect(errorsOf(text)).toEqual([[1, code]]);
  });
});

// The records both real-server files below hold, as the parser returns them.
const SERVER_FILE_ENTRIES = [
  ['example.com', 3600, 'MX', { preference: 10, exchange: 'mail.example.com' }],
  ['example.com', 3600, 'TXT', { text: 'v=spf1 mx -all' }],
  ['example.com', 3600, 'CAA', { flags: 0, tag: 'issue', value: 'letsencrypt.org' }],
  ['_sip._tcp.example.com', 3600, 'SRV', { priority: 10, weight: 5, port: 5060, target: 'sip.example.com' }],
  ['_443._tcp.mail.example.com', 3600, 'TLSA', { usage: 3, selector: 1, matching_type: 1, certificate_data: sha256 }],
  ['mail.example.com', 3600, 'A', { address: '192.0.2.25' }],
  ['sub.example.com', 3600, 'NS', { nameserver: 'ns1.sub.example.com' }],
  ['ns1.sub.example.com', 3600, 'A', { address: '192.0.2.53' }],
  ['www.example.com', 300, 'A', { address: '192.0.2.80' }],
  ['www.example.com', 300, 'AAAA', { address: '2001:db8::80' }],
  ['www.example.com', 300, 'TXT', { text: `${'k'.repeat(255)}tail` }],
];

describe('files as real servers write them', () => {
  const assertServerFile = (text: string) => {
    const r = parse(text);
    expect(r.errors).toEqual([]);
    // Compared in the stored form: what the import will write.
    const stored = r.entries.map((e) => {
      const result = parseRecordData(e.type, e.data);
      return [e.owner, e.ttl, e.type, result.ok ? result.data : result.errors];
    });
    expect(stored).toEqual(SERVER_FILE_ENTRIES);
    return r;
  };

  it('BIND named-compilezone, full style (absolute names, class IN, TTLs in seconds)', () => {
    const text = [
      'example.com.\t\t\t\t      3600 IN SOA\tns1.example.com. hostmaster.example.com. 2024010101 10800 3600 1209600 300',
      'example.com.\t\t\t\t      3600 IN NS\tns1.example.com.',
      'example.com.\t\t\t\t      3600 IN NS\tns2.example.net.',
      'example.com.\t\t\t\t      3600 IN MX\t10 mail.example.com.',
      'example.com.\t\t\t\t      3600 IN TXT\t"v=spf1 mx -all"',
      'example.com.\t\t\t\t      3600 IN CAA\t0 issue "letsencrypt.org"',
      '_sip._tcp.example.com.\t\t\t      3600 IN SRV\t10 5 5060 sip.example.com.',
      `_443._tcp.mail.example.com.\t\t      3600 IN TLSA\t3 1 1 ${sha256.slice(0, 56).toUpperCase()} ${sha256.slice(56).toUpperCase()}`,
      'mail.example.com.\t\t\t      3600 IN A\t192.0.2.25',
      'sub.example.com.\t\t\t      3600 IN NS\tns1.sub.example.com.',
      'ns1.sub.example.com.\t\t\t      3600 IN A\t192.0.2.53',
      'www.example.com.\t\t\t      300 IN A\t192.0.2.80',
      'www.example.com.\t\t\t      300 IN AAAA\t2001:db8::80',
      `www.example.com.\t\t\t      300 IN TXT\t"${'k'.repeat(255)}" "tail"`,
      '',
    ].join('\n');
    const r = assertServerFile(text);
    expect(r.skipped.map((s) => [s.line, s.type, s.reason])).toEqual([
      [1, 'SOA', 'soa'],
      [2, 'NS', 'apex_ns'],
      [3, 'NS', 'apex_ns'],
    ]);
    for (const e of r.entries) expect(e.ttlSource).toBe('explicit');
    // named-compilezone writes TLSA hex in upper case; parseRecordData lowers it.
    expect(r.entries[4]!.data.certificate_data).toBe(sha256.toUpperCase());
  });

  it('BIND relative style ($ORIGIN . then $ORIGIN example.com. blocks, SOA in parentheses with comments), signed', () => {
    const text = [
      '$ORIGIN .',
      '$TTL 3600\t; 1 hour',
      'example.com\t\tIN SOA\tns1.example.com. hostmaster.example.com. (',
      '\t\t\t\t2024010101 ; serial',
      '\t\t\t\t10800      ; refresh (3 hours)',
      '\t\t\t\t3600       ; retry (1 hour)',
      '\t\t\t\t1209600    ; expire (2 weeks)',
      '\t\t\t\t300        ; minimum (5 minutes)',
      '\t\t\t\t)',
      '\t\t\tRRSIG\tSOA 13 2 3600 (',
      '\t\t\t\t20240201000000 20240101000000 12345 example.com.',
      '\t\t\t\tq2VmW2Zc7p9vYk1h0F0n8xXkq3l5n0m2g6y0mJmE2oQ= )',
      '\t\t\tNS\tns1.example.com.',
      '\t\t\tNS\tns2.example.net.',
      '\t\t\tMX\t10 mail.example.com.',
      '\t\t\tTXT\t"v=spf1 mx -all"',
      '\t\t\tCAA\t0 issue "letsencrypt.org"',
      '\t\t\tDNSKEY\t257 3 13 (',
      '\t\t\t\tmdsswUyr3DPW132mOi8V9xESWE8jTo0dxCjjnopKl+GqJxpVXckHAeF+',
      '\t\t\t\tKkxLbxILfDLUT0rAK9iUzy1L53eKGQ==',
      '\t\t\t\t) ; KSK; alg = ECDSAP256SHA256 ; key id = 12345',
      '\t\t\tNSEC\t_sip._tcp.example.com. NS SOA MX TXT CAA RRSIG NSEC DNSKEY',
      '$ORIGIN example.com.',
      '_sip._tcp\t\tSRV\t10 5 5060 sip',
      '$ORIGIN _tcp.mail.example.com.',
      '_443\t\t\tTLSA\t3 1 1 (',
      `\t\t\t\t${sha256.slice(0, 56)}`,
      `\t\t\t\t${sha256.slice(56)} )`,
      '$ORIGIN example.com.',
      'mail\t\t\tA\t192.0.2.25',
      'sub\t\t\tNS\tns1.sub',
      '$ORIGIN sub.example.com.',
      'ns1\t\t\tA\t192.0.2.53',
      '$ORIGIN example.com.',
      '$TTL 300\t; 5 minutes',
      'www\t\t\tA\t192.0.2.80',
      '\t\t\tAAAA\t2001:db8::80',
      `\t\t\tTXT\t"${'k'.repeat(255)}" "tail"`,
      '\t\t\tCDS\t12345 13 2 (',
      `\t\t\t\t${sha256} )`,
    ].join('\n');
    const r = assertServerFile(text);
    expect(r.skipped.map((s) => [s.line, s.owner, s.type, s.reason])).toEqual([
      [3, 'example.com', 'SOA', 'soa'],
      [10, 'example.com', 'RRSIG', 'dnssec'],
      [13, 'example.com', 'NS', 'apex_ns'],
      [14, 'example.com', 'NS', 'apex_ns'],
      [18, 'example.com', 'DNSKEY', 'dnssec'],
      [22, 'example.com', 'NSEC', 'dnssec'],
      [39, 'www.example.com', 'CDS', 'dnssec'],
    ]);
    for (const e of r.entries) expect(e.ttlSource).toBe('directive');
    expect(r.entries.find((e) => e.type === 'TLSA')?.line).toBe(26);
  });

  it('Knot DNS zone dump (owner, TTL, type; no class; header and footer comments)', () => {
    const text = [
      ';; Zone dump (Knot DNS 3.3.4)',
      'example.com.        \t3600\tSOA\tns1.example.com. hostmaster.example.com. 2024010101 10800 3600 1209600 300',
      'example.com.        \t3600\tNS\tns1.example.com.',
      'example.com.        \t3600\tNS\tns2.example.net.',
      'example.com.        \t3600\tMX\t10 mail.example.com.',
      'example.com.        \t3600\tTXT\t"v=spf1 mx -all"',
      'example.com.        \t3600\tCAA\t0 issue "letsencrypt.org"',
      '_sip._tcp.example.com.\t3600\tSRV\t10 5 5060 sip.example.com.',
      `_443._tcp.mail.example.com.\t3600\tTLSA\t3 1 1 ${sha256}`,
      'mail.example.com.   \t3600\tA\t192.0.2.25',
      'sub.example.com.    \t3600\tNS\tns1.sub.example.com.',
      'ns1.sub.example.com.\t3600\tA\t192.0.2.53',
      'www.example.com.    \t300\tA\t192.0.2.80',
      'www.example.com.    \t300\tAAAA\t2001:db8::80',
      `www.example.com.    \t300\tTXT\t"${'k'.repeat(255)}" "tail"`,
      ';; Written 15 records',
      ';; Time 2024-01-01 00:00:00 UTC',
    ].join('\n');
    const r = assertServerFile(text);
    expect(r.skipped.map((s) => s.reason)).toEqual(['soa', 'apex_ns', 'apex_ns']);
  });

  it('Knot with human-readable TTLs and the class shown', () => {
    const r = parse('example.com. 1h IN MX 10 mail.example.com.\nwww.example.com. 5m IN A 192.0.2.80\nexample.com. 1D IN SOA a. b. 1 2 3 4 5');
    expect(r.errors).toEqual([]);
    expect(r.entries.map((e) => e.ttl)).toEqual([3600, 300]);
  });

  it('a hand-written zone in the RFC 1035 §5.3 style', () => {
    const text = [
      '$ORIGIN example.com.',
      '@   IN  SOA     VENERA      Action\\.domains (',
      '                                 20     ; SERIAL',
      '                                 7200   ; REFRESH',
      '                                 600    ; RETRY',
      '                                 3600000; EXPIRE',
      '                                 60)    ; MINIMUM',
      '',
      '        NS      A.ISI.EDU.',
      '        MX      10      VENERA',
      '        MX      20      VAXA',
      '',
      'A       A       26.3.0.103',
      '',
      'VENERA  A       10.1.0.52',
      '        A       128.9.0.32',
      '',
      'VAXA    A       10.2.0.27',
      '        A       128.9.0.33',
    ].join('\n');
    const r = parse(text);
    expect(r.errors).toEqual([]);
    expect(r.skipped.map((s) => s.reason)).toEqual(['soa', 'apex_ns']);
    expect(r.entries.map((e) => [e.owner, e.type, e.data])).toEqual([
      ['example.com', 'MX', { preference: 10, exchange: 'venera.example.com' }],
      ['example.com', 'MX', { preference: 20, exchange: 'vaxa.example.com' }],
      ['a.example.com', 'A', { address: '26.3.0.103' }],
      ['venera.example.com', 'A', { address: '10.1.0.52' }],
      ['venera.example.com', 'A', { address: '128.9.0.32' }],
      ['vaxa.example.com', 'A', { address: '10.2.0.27' }],
      ['vaxa.example.com', 'A', { address: '128.9.0.33' }],
    ]);
  });
});

describe('our own export parses back to the same data', () => {
  // Stored records (name relative, '@' = apex) in the canonical form parseRecordData returns.
  const dkim = `v=DKIM1; k=rsa; p=${'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA'.repeat(10)}`;
  const awkward = `quote " backslash \\ semicolon ; paren ( ) tab \t newline \n del \u007f café ✓ 😀 ${'é'.repeat(200)}`;
  const records: [string, RecordType, number | null, unknown][] = [
    ['@', 'MX', 3600, { preference: 10, exchange: 'mail.example.com' }],
    ['@', 'TXT', 3600, { text: 'v=spf1 mx -all' }],
    ['@', 'TXT', 3600, { text: dkim }],
    ['@', 'TXT', 3600, { text: awkward }],
    ['@', 'TXT', 3600, { text: 'x'.repeat(8192) }],
    ['@', 'TXT', 3600, { text: ' leading and trailing spaces ' }],
    ['@', 'CAA', 3600, { flags: 0, tag: 'issue', value: 'letsencrypt.org' }],
    ['@', 'CAA', 3600, { flags: 128, tag: 'issuewild', value: ';' }],
    ['@', 'CAA', 3600, { flags: 0, tag: 'issue', value: 'ca.example; account=123; validationmethods=dns-01' }],
    ['@', 'CAA', 3600, { flags: 0, tag: 'iodef', value: 'mailto:security@example.com' }],
    ['www', 'A', 300, { address: '192.0.2.1' }],
    ['www', 'AAAA', 300, { address: '2001:db8::1' }],
    ['www', 'AAAA', 300, { address: '::ffff:192.0.2.1' }],
    ['alias', 'CNAME', 60, { target: 'www.example.com' }],
    ['nomail', 'MX', 3600, { preference: 0, exchange: '.' }],
    ['_sip._tcp', 'SRV', 3600, { priority: 10, weight: 5, port: 5060, target: 'sip.example.com' }],
    ['_imaps._tcp.mail', 'SRV', 3600, { priority: 0, weight: 0, port: 0, target: '.' }],
    ['_443._tcp.www', 'TLSA', 3600, { usage: 3, selector: 1, matching_type: 1, certificate_data: sha256 }],
    ['_25._tcp.mail', 'TLSA', 3600, { usage: 2, selector: 0, matching_type: 2, certificate_data: sha512 }],
    ['_443._tcp.big', 'TLSA', 3600, { usage: 3, selector: 0, matching_type: 0, certificate_data: 'ab'.repeat(8192) }],
    ['sub', 'NS', 86400, { nameserver: 'ns1.example.net' }],
    ['*.dev', 'A', 3600, { address: '192.0.2.9' }],
    ['xn--bcher-kva', 'A', 3600, { address: '192.0.2.10' }],
    ['_dmarc', 'TXT', 3600, { text: 'v=DMARC1; p=reject; rua=mailto:d@example.com' }],
  ];

  /** One export line as src/services/zoneExport.ts writes it. */
  const exportLine = (zone: string, name: string, type: RecordType, ttl: number, data: unknown) => {
    const result = parseRecordData(type, data);
    if (!result.ok) throw new Error(`fixture ${type} ${JSON.stringify(data)} is not canonical: ${JSON.stringify(result.errors)}`);
    expect(result.data).toEqual(data);
    return `${absoluteName(name, zone)}.\t${ttl}\tIN\t${type}\t${ruleOf(type).presentation(result.data)}`;
  };

  it('every type, with the SOA and apex NS of include_system=true', () => {
    const system = [
      `${ZONE}.\t3600\tIN\tSOA\t${soaPresentation(soaData(['ns1.provider.example', 'ns2.provider.example'], 'host.master@example.com', 2024010101))}`,
      `${ZONE}.\t3600\tIN\tNS\tns1.provider.example.`,
      `${ZONE}.\t3600\tIN\tNS\tns2.provider.example.`,
    ];
    const lines = [...system, ...records.map(([name, type, ttl, data]) => exportLine(ZONE, name, type, ttl ?? 3600, data))];
    const text = `; ${ZONE} — exported by the managed DNS service\n${lines.join('\n')}\n`;
    const r = parse(text);
    expect(r.errors).toEqual([]);
    expect(r.skipped.map((s) => s.reason)).toEqual(['soa', 'apex_ns', 'apex_ns']);
    expect(r.entries).toHaveLength(records.length);
    r.entries.forEach((e, k) => {
      const [name, type, ttl, data] = records[k]!;
      expect(e).toMatchObject({ line: k + system.length + 2, owner: absoluteName(name, ZONE), ttl, ttlSource: 'explicit', type });
      expect(parseRecordData(e.type, e.data)).toEqual({ ok: true, data });
    });
  });

  it('the TXT presentation of txt.ts (255-octet strings, \\DDD escapes) gives the exact text back', () => {
    for (const [, type, , data] of records.filter(([, t]) => t === 'TXT')) {
      const presentation = ruleOf(type).presentation(data as Record<string, unknown>);
      expect(only(`t TXT ${presentation}`).data).toEqual(data);
    }
    // A cut inside a multi-byte character: the two strings are joined as octets before decoding.
    const text = `${'a'.repeat(254)}é`;
    expect(presentData('TXT', { text })).toMatch(/\\195" "\\169"$/);
    expect(only(`t TXT ${presentData('TXT', { text })}`).data).toEqual({ text });
  });

  it('a PTR in a reverse zone', () => {
    const zone = '2.0.192.in-addr.arpa';
    const r = parse(
      `${exportLine(zone, '1', 'PTR', 3600, { target: 'host.example.com' })}\n${exportLine(zone, 'sub', 'CNAME', 3600, { target: '1.sub.2.0.192.in-addr.arpa' })}\n`,
      zone,
    );
    expect(r.errors).toEqual([]);
    expect(brief(r.entries)).toEqual([
      ['1.2.0.192.in-addr.arpa', 3600, 'PTR', { target: 'host.example.com' }],
      ['sub.2.0.192.in-addr.arpa', 3600, 'CNAME', { target: '1.sub.2.0.192.in-addr.arpa' }],
    ]);
  });
});

describe('totality: any string gives a result, never an exception', () => {
  const CORPUS = [
    '$ORIGIN example.com.\n$TTL 1h\n@ IN SOA ns1 host ( 1 2 3 4 5 ) ; c\n  NS ns1\nwww 300 IN A 192.0.2.1\n\tAAAA 2001:db8::1',
    't TXT "a\\"b" "c\\\\d" e\\195\\169 ( "x" ; y\n "z" )\n_443._tcp TLSA 3 1 1 ( ab\n cd )',
    'g TYPE1 \\# 4 c0000201\nu TYPE65534 \\# 0\nmx TYPE15 \\# 20 000a046d61696c076578616d706c6503636f6d00',
    '@ CAA 0 issue "letsencrypt.org"\n_sip._tcp SRV 10 5 5060 sip\n$ORIGIN .\nexample.com MX 0 .',
    '\uFEFFa\\.b A 1.2.3.4\r\n$INCLUDE x\r\n$GENERATE 1-2 a$ A 1.2.3.$\r\nb CH A 1\r\n" unterminated\r\n)(',
  ];
  const ALPHABET = [
    'a',
    'Z',
    '0',
    '9',
    '.',
    '@',
    '$',
    '*',
    '-',
    '_',
    ' ',
    '\t',
    '\n',
    '\r',
    '\r\n',
    ';',
    '(',
    ')',
    '"',
    '\\',
    '\\#',
    '\\.',
    '\\0',
    '\\255',
    '\\999',
    'é',
    '😀',
    '\uFEFF',
    '\uD800',
    '\u0000',
    'IN',
    'CH',
    'A',
    'TXT',
    'MX',
    'TYPE1',
    'TYPE99999',
    '1h',
    '$ORIGIN',
    '$TTL',
    '$INCLUDE',
    'example.com.',
    'ff',
  ];

  const check = (text: string) => {
    let r: ReturnType<typeof parseZoneFile> | undefined;
    expect(() => (r = parseZoneFile(text, ZONE))).not.toThrow();
    const lines = text.split('\n').length;
    for (const e of r!.errors) {
      expect(e.code).not.toBe('internal_error');
      expect(e.line).toBeGreaterThanOrEqual(1);
      expect(e.line).toBeLessThanOrEqual(lines);
      expect(typeof e.detail).toBe('string');
    }
    for (const e of r!.entries) {
      expect(isRecordType(e.type), e.type).toBe(true);
      expect(e.owner === ZONE || e.owner.endsWith(`.${ZONE}`)).toBe(true);
      expect(e.line).toBeGreaterThanOrEqual(1);
    }
    for (const s of r!.skipped) expect(s.owner === ZONE || s.owner.endsWith(`.${ZONE}`)).toBe(true);
  };

  it('4000 random strings of zone-file fragments', () => {
    const random = mulberry32(1035);
    for (let n = 0; n < 4000; n++) {
      const parts: string[] = [];
      const length = Math.floor(random() * 60);
      for (let k = 0; k < length; k++) parts.push(ALPHABET[Math.floor(random() * ALPHABET.length)]!);
      check(parts.join(''));
    }
  });

  it('4000 mutations of valid files (insert, delete, replace, duplicate, truncate)', () => {
    const random = mulberry32(3597);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
    for (let n = 0; n < 4000; n++) {
      let text = pick(CORPUS);
      const edits = 1 + Math.floor(random() * 6);
      for (let k = 0; k < edits; k++) {
        const at = Math.floor(random() * (text.length + 1));
        switch (Math.floor(random() * 5)) {
          case 0:
            text = text.slice(0, at) + pick(ALPHABET) + text.slice(at);
            break;
          case 1:
            text = text.slice(0, at) + text.slice(at + 1 + Math.floor(random() * 5));
            break;
          case 2:
            text = text.slice(0, at) + String.fromCharCode(Math.floor(random() * 0x10000)) + text.slice(at + 1);
            break;
          case 3:
            text = text.slice(0, at) + text.slice(Math.floor(random() * text.length));
            break;
          default:
            text = text.slice(0, at);
        }
      }
      check(text);
    }
  });

  it('random bytes decoded as text, and pathological shapes', () => {
    const random = mulberry32(2181);
    for (let n = 0; n < 500; n++) {
      const bytes = Uint8Array.from({ length: Math.floor(random() * 200) }, () => Math.floor(random() * 256));
      check(new TextDecoder().decode(bytes));
    }
    check('('.repeat(10_000));
    check(')'.repeat(10_000));
    check('"'.repeat(10_001));
    check('\\'.repeat(10_001));
    check(`a TXT ${'"x" '.repeat(10_000)}`);
    check(`${'a.'.repeat(200)} A 192.0.2.1`);
  });
});

describe('size', () => {
  it('a 1 MiB file (~20,000 records) parses completely', () => {
    const lines = ['$ORIGIN example.com.', '$TTL 3600', '@ IN SOA ns1 hostmaster ( 2024010101 10800 3600 1209600 300 )'];
    let size = lines.join('\n').length;
    let n = 0;
    while (size < 1024 * 1024 - 200) {
      const line = [
        `host${n} 300 IN A 192.0.${(n >> 8) & 255}.${n & 255}`,
        `host${n} IN AAAA 2001:db8::${n.toString(16)}`,
        `_sip._tcp.host${n} SRV 10 5 5060 host${n}`,
        `txt${n} TXT "v=spf1 include:_spf.example.net ~all" "record ${n}"`,
        `mx${n}.example.com. 3600 IN MX 10 mail${n}.example.net.`,
      ][n % 5]!;
      lines.push(line);
      size += line.length + 1;
      n++;
    }
    const text = `${lines.join('\n')}\n`;
    expect(text.length).toBeGreaterThan(1000 * 1024);
    const r = parse(text);
    expect(r.errors).toEqual([]);
    expect(r.entries).toHaveLength(n);
    expect(n).toBeGreaterThan(20_000);
  });
});
