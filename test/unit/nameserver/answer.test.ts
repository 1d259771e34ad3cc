// The answer logic, case by case in presentation format (CoreDNS's file plugin tests are the
// model): a zone in master-file text, then rows of question → rcode, AA and the three sections.
// Records go on the wire through the wire codec (encodeRdata) and come back as text through
// decodeRdata, so a row reads like dig output.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { answerQuery } from '../../../nameserver/answer/answerQuery.js';
import { MAX_CNAME_CHAIN } from '../../../nameserver/answer/lookup.js';
import { RCODE, TYPE, type Answer, type RRset, type ZoneRecord } from '../../../nameserver/types.js';
import { encodeRdata } from '../../../nameserver/wire/rdata.js';
import { decodeRdata } from '../../../nameserver/wire/rdataPresentation.js';
import { typeCode, typeName } from '../../../nameserver/wire/rrTypes.js';
import { applyZoneDiff, buildZoneSnapshot, type ZoneSnapshot } from '../../../nameserver/zone/snapshot.js';
import { ZoneStore } from '../../../nameserver/zone/store.js';

// ---- presentation format, just enough for these tests ----------------------------------------

/** Whitespace-separated tokens; "quoted strings" are one token (quotes dropped); ';' starts a comment. */
function tokenize(line: string): string[] {
  const tokens: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|;.*$|(\S+)/g;
  for (const m of line.matchAll(re)) {
    if (m[1] !== undefined) tokens.push(m[1]);
    else if (m[2] !== undefined) tokens.push(m[2]);
  }
  return tokens;
}

const absolute = (name: string) => (name === '.' ? '' : name.replace(/\.$/, ''));
const rrsigTime = (t: string) => Date.UTC(+t.slice(0, 4), +t.slice(4, 6) - 1, +t.slice(6, 8), +t.slice(8, 10), +t.slice(10, 12), +t.slice(12, 14)) / 1000;

/** The service's data object (what encodeRdata takes) from presentation fields. */
function dataOf(type: string, f: string[]): Record<string, unknown> {
  const n = (i: number) => Number(f[i]);
  switch (type) {
    case 'A':
    case 'AAAA':
      return { address: f[0] };
    case 'NS':
      return { nameserver: absolute(f[0]!) };
    case 'CNAME':
    case 'PTR':
      return { target: absolute(f[0]!) };
    case 'MX':
      return { preference: n(0), exchange: absolute(f[1]!) };
    case 'TXT':
      return { text: f.join('') };
    case 'SRV':
      return { priority: n(0), weight: n(1), port: n(2), target: absolute(f[3]!) };
    case 'CAA':
      return { flags: n(0), tag: f[1], value: f[2] };
    case 'TLSA':
      return { usage: n(0), selector: n(1), matching_type: n(2), certificate_data: f[3] };
    case 'SOA':
      return { mname: absolute(f[0]!), rname: absolute(f[1]!), serial: n(2), refresh: n(3), retry: n(4), expire: n(5), minimum: n(6) };
    case 'DS':
      return { key_tag: n(0), algorithm: n(1), digest_type: n(2), digest: f[3] };
    case 'RRSIG':
      return {
        type_covered: f[0],
        algorithm: n(1),
        labels: n(2),
        original_ttl: n(3),
        expiration: rrsigTime(f[4]!),
        inception: rrsigTime(f[5]!),
        key_tag: n(6),
        signer_name: absolute(f[7]!),
        signature: f[8],
      };
    default:
      throw new Error(`test parser: no type ${type}`);
  }
}

/** One record: `owner ttl [IN] TYPE rdata…`, owner absolute. */
function record(line: string): ZoneRecord {
  const t = tokenize(line);
  const [owner, ttl] = t;
  const rest = t[2]?.toUpperCase() === 'IN' ? t.slice(3) : t.slice(2);
  const [mnemonic, ...fields] = rest;
  const type = typeCode(mnemonic!);
  if (!owner || !ttl || type === null) throw new Error(`test parser: cannot read "${line}"`);
  return { name: absolute(owner).toLowerCase(), type, ttl: Number(ttl), rdata: encodeRdata(mnemonic!.toUpperCase(), dataOf(mnemonic!.toUpperCase(), fields)) };
}

function records(text: string): ZoneRecord[] {
  return text
    .split('\n')
    .filter((line) => tokenize(line).length > 0)
    .map(record);
}

const zone = (origin: string, text: string) => buildZoneSnapshot(origin, records(text));

function storeOf(...zones: ZoneSnapshot[]): ZoneStore {
  const store = new ZoneStore();
  for (const z of zones) store.set(z);
  return store;
}

/** A record as dig prints it. */
const line = (name: string, ttl: number, type: number, rdata: Buffer) => `${name}. ${ttl} IN ${typeName(type)} ${decodeRdata(type, rdata)}`;
const lines = (rrsets: RRset[]) => rrsets.flatMap((s) => s.rdatas.map((rdata) => line(s.name, s.ttl, s.type, rdata)));
const normalized = (text: string[]) => text.map(record).map((r) => line(r.name, r.ttl, r.type, r.rdata));

const RCODE_NAME = new Map<number, string>(Object.entries(RCODE).map(([name, code]) => [code, name]));

interface Row {
  q: string;
  do?: boolean;
  rcode: keyof typeof RCODE;
  aa: boolean;
  answer?: string[];
  authority?: string[];
  additional?: string[];
}

/** Runs the rows: "q" is "name TYPE", as one would type it into dig. */
function table(store: ZoneStore, rows: Row[]) {
  it.each(rows.map((row) => [`${row.q}${row.do ? ' +dnssec' : ''}`, row] as const))('%s', (_, row) => {
    const [name, type] = row.q.split(/\s+/);
    const got = answerQuery(store, { name: absolute(name!), type: typeCode(type!)! }, { dnssecOk: row.do ?? false });
    expect({
      rcode: RCODE_NAME.get(got.rcode),
      aa: got.aa,
      answer: lines(got.answer),
      authority: lines(got.authority),
      additional: lines(got.additional),
    }).toEqual({
      rcode: row.rcode,
      aa: row.aa,
      answer: normalized(row.answer ?? []),
      authority: normalized(row.authority ?? []),
      additional: normalized(row.additional ?? []),
    });
  });
}

// ---- the zones ------------------------------------------------------------------------------

const EXAMPLE = `
example.com.               3600 IN SOA   ns1.example.com. hostmaster.example.com. 2024010101 7200 3600 1209600 300
example.com.               3600 IN NS    ns1.example.com.
example.com.               3600 IN NS    ns2.example.com.
example.com.               3600 IN MX    10 mail.example.com.
example.com.               3600 IN MX    20 mx.example.net.
example.com.               3600 IN TXT   "v=spf1 mx -all"
example.com.               3600 IN CAA   0 issue "letsencrypt.org"
ns1.example.com.           3600 IN A     192.0.2.1
ns2.example.com.           3600 IN AAAA  2001:db8::2
mail.example.com.          3600 IN A     192.0.2.25
mail.example.com.          3600 IN AAAA  2001:db8::25
_25._tcp.mail.example.com. 3600 IN TLSA  3 1 1 0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF
www.example.com.           300  IN A     192.0.2.80
www.example.com.           300  IN AAAA  2001:db8::80
_sip._tcp.example.com.     300  IN SRV   10 60 5060 sip.example.com.
sip.example.com.           300  IN A     192.0.2.60
ptr.example.com.           300  IN PTR   www.example.com.
alias.example.com.         300  IN CNAME www.example.com.
chain.example.com.         300  IN CNAME alias.example.com.
outside.example.com.       300  IN CNAME www.example.org.
dangling.example.com.      300  IN CNAME nothing.example.com.
loop1.example.com.         300  IN CNAME loop2.example.com.
loop2.example.com.         300  IN CNAME loop1.example.com.
todeleg.example.com.       300  IN CNAME host.sub.example.com.
a.b.c.example.com.         300  IN A     192.0.2.3
*.wild.example.com.        300  IN A     192.0.2.99
*.wild.example.com.        300  IN MX    10 mail.example.com.
host.wild.example.com.     300  IN AAAA  2001:db8::99
*.cname.example.com.       300  IN CNAME www.example.com.
sub.example.com.           3600 IN NS    ns.sub.example.com.
sub.example.com.           3600 IN NS    ns1.example.com.
sub.example.com.           3600 IN DS    12345 13 2 2BB183AF5F22588179A53B0A98631FAD1A292118AFFE4FDB9DBEE3E5E3D9F7B0
ns.sub.example.com.        3600 IN A     192.0.2.53
nods.example.com.          3600 IN NS    ns.nods.example.com.
ns.nods.example.com.       3600 IN A     192.0.2.54
ns.nods.example.com.       3600 IN AAAA  2001:db8::54
`;

// Served beside EXAMPLE: the child zone of the delegation sub.example.com.
const SUB = `
sub.example.com.      3600 IN SOA ns.sub.example.com. hostmaster.example.com. 7 3600 600 86400 60
sub.example.com.      3600 IN NS  ns.sub.example.com.
sub.example.com.      3600 IN NS  ns1.example.com.
ns.sub.example.com.   3600 IN A   192.0.2.53
host.sub.example.com. 60   IN A   192.0.2.154
`;

const SOA = 'example.com. 300 IN SOA ns1.example.com. hostmaster.example.com. 2024010101 7200 3600 1209600 300';

describe('answers from one zone', () => {
  const store = storeOf(zone('example.com', EXAMPLE));

  describe('exact matches', () => {
    table(store, [
      {
        q: 'example.com SOA',
        rcode: 'NOERROR',
        aa: true,
        answer: ['example.com. 3600 IN SOA ns1.example.com. hostmaster.example.com. 2024010101 7200 3600 1209600 300'],
      },
      {
        q: 'example.com NS',
        rcode: 'NOERROR',
        aa: true,
        answer: ['example.com. 3600 IN NS ns1.example.com.', 'example.com. 3600 IN NS ns2.example.com.'],
        additional: ['ns1.example.com. 3600 IN A 192.0.2.1', 'ns2.example.com. 3600 IN AAAA 2001:db8::2'],
      },
      {
        q: 'example.com MX',
        rcode: 'NOERROR',
        aa: true,
        answer: ['example.com. 3600 IN MX 10 mail.example.com.', 'example.com. 3600 IN MX 20 mx.example.net.'],
        additional: ['mail.example.com. 3600 IN A 192.0.2.25', 'mail.example.com. 3600 IN AAAA 2001:db8::25'],
      },
      { q: 'example.com TXT', rcode: 'NOERROR', aa: true, answer: ['example.com. 3600 IN TXT "v=spf1 mx -all"'] },
      { q: 'example.com CAA', rcode: 'NOERROR', aa: true, answer: ['example.com. 3600 IN CAA 0 issue "letsencrypt.org"'] },
      { q: 'www.example.com A', rcode: 'NOERROR', aa: true, answer: ['www.example.com. 300 IN A 192.0.2.80'] },
      { q: 'www.example.com AAAA', rcode: 'NOERROR', aa: true, answer: ['www.example.com. 300 IN AAAA 2001:db8::80'] },
      {
        q: '_sip._tcp.example.com SRV',
        rcode: 'NOERROR',
        aa: true,
        answer: ['_sip._tcp.example.com. 300 IN SRV 10 60 5060 sip.example.com.'],
        additional: ['sip.example.com. 300 IN A 192.0.2.60'],
      },
      {
        q: '_25._tcp.mail.example.com TLSA',
        rcode: 'NOERROR',
        aa: true,
        answer: ['_25._tcp.mail.example.com. 3600 IN TLSA 3 1 1 0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF'],
      },
      // RFC 1035 §3.3: additional-section processing is for NS, MX and SRV, not PTR.
      { q: 'ptr.example.com PTR', rcode: 'NOERROR', aa: true, answer: ['ptr.example.com. 300 IN PTR www.example.com.'] },
      // RFC 4343: names compare case-insensitively.
      { q: 'WWW.Example.COM A', rcode: 'NOERROR', aa: true, answer: ['www.example.com. 300 IN A 192.0.2.80'] },
    ]);
  });

  describe('negative answers carry the SOA with the negative TTL min(3600, 300) (RFC 2308)', () => {
    table(store, [
      { q: 'nope.example.com A', rcode: 'NXDOMAIN', aa: true, authority: [SOA] },
      { q: 'deeper.nope.example.com A', rcode: 'NXDOMAIN', aa: true, authority: [SOA] },
      { q: 'www.example.com TXT', rcode: 'NOERROR', aa: true, authority: [SOA] },
      { q: 'www.example.com MX', rcode: 'NOERROR', aa: true, authority: [SOA] },
      // RFC 8020: empty non-terminals exist.
      { q: 'c.example.com A', rcode: 'NOERROR', aa: true, authority: [SOA] },
      { q: 'b.c.example.com A', rcode: 'NOERROR', aa: true, authority: [SOA] },
      { q: '_tcp.example.com SRV', rcode: 'NOERROR', aa: true, authority: [SOA] },
      { q: 'x.b.c.example.com A', rcode: 'NXDOMAIN', aa: true, authority: [SOA] },
      { q: 'a.b.c.example.com A', rcode: 'NOERROR', aa: true, answer: ['a.b.c.example.com. 300 IN A 192.0.2.3'] },
    ]);
  });

  describe('CNAME', () => {
    table(store, [
      {
        q: 'alias.example.com A',
        rcode: 'NOERROR',
        aa: true,
        answer: ['alias.example.com. 300 IN CNAME www.example.com.', 'www.example.com. 300 IN A 192.0.2.80'],
      },
      {
        q: 'chain.example.com AAAA',
        rcode: 'NOERROR',
        aa: true,
        answer: [
          'chain.example.com. 300 IN CNAME alias.example.com.',
          'alias.example.com. 300 IN CNAME www.example.com.',
          'www.example.com. 300 IN AAAA 2001:db8::80',
        ],
      },
      { q: 'alias.example.com CNAME', rcode: 'NOERROR', aa: true, answer: ['alias.example.com. 300 IN CNAME www.example.com.'] },
      // The chain ends in NODATA: NOERROR with the SOA (RFC 6604 §3, RFC 2308 §2.2).
      {
        q: 'chain.example.com TXT',
        rcode: 'NOERROR',
        aa: true,
        answer: ['chain.example.com. 300 IN CNAME alias.example.com.', 'alias.example.com. 300 IN CNAME www.example.com.'],
        authority: [SOA],
      },
      // Leaves the zone: the resolver follows on.
      { q: 'outside.example.com A', rcode: 'NOERROR', aa: true, answer: ['outside.example.com. 300 IN CNAME www.example.org.'] },
      // The last step's rcode (RFC 6604): the target does not exist.
      { q: 'dangling.example.com A', rcode: 'NXDOMAIN', aa: true, answer: ['dangling.example.com. 300 IN CNAME nothing.example.com.'], authority: [SOA] },
      {
        q: 'loop1.example.com A',
        rcode: 'NOERROR',
        aa: true,
        answer: ['loop1.example.com. 300 IN CNAME loop2.example.com.', 'loop2.example.com. 300 IN CNAME loop1.example.com.'],
      },
      // Into a delegation: the CNAME (ours, so AA) and the referral (RFC 1034 §4.3.2).
      {
        q: 'todeleg.example.com A',
        rcode: 'NOERROR',
        aa: true,
        answer: ['todeleg.example.com. 300 IN CNAME host.sub.example.com.'],
        authority: ['sub.example.com. 3600 IN NS ns.sub.example.com.', 'sub.example.com. 3600 IN NS ns1.example.com.'],
        additional: ['ns.sub.example.com. 3600 IN A 192.0.2.53', 'ns1.example.com. 3600 IN A 192.0.2.1'],
      },
    ]);
  });

  describe('wildcards (RFC 4592)', () => {
    table(store, [
      { q: 'x.wild.example.com A', rcode: 'NOERROR', aa: true, answer: ['x.wild.example.com. 300 IN A 192.0.2.99'] },
      { q: 'deep.x.wild.example.com A', rcode: 'NOERROR', aa: true, answer: ['deep.x.wild.example.com. 300 IN A 192.0.2.99'] },
      {
        q: 'x.wild.example.com MX',
        rcode: 'NOERROR',
        aa: true,
        answer: ['x.wild.example.com. 300 IN MX 10 mail.example.com.'],
        additional: ['mail.example.com. 3600 IN A 192.0.2.25', 'mail.example.com. 3600 IN AAAA 2001:db8::25'],
      },
      // Wildcard NODATA.
      { q: 'x.wild.example.com TXT', rcode: 'NOERROR', aa: true, authority: [SOA] },
      // Existing names are never matched by the wildcard — nor is the empty non-terminal above it.
      { q: 'host.wild.example.com A', rcode: 'NOERROR', aa: true, authority: [SOA] },
      { q: 'wild.example.com A', rcode: 'NOERROR', aa: true, authority: [SOA] },
      { q: 'x.host.wild.example.com A', rcode: 'NXDOMAIN', aa: true, authority: [SOA] },
      // The wildcard itself is a name like any other.
      { q: '*.wild.example.com A', rcode: 'NOERROR', aa: true, answer: ['*.wild.example.com. 300 IN A 192.0.2.99'] },
      {
        q: 'foo.cname.example.com A',
        rcode: 'NOERROR',
        aa: true,
        answer: ['foo.cname.example.com. 300 IN CNAME www.example.com.', 'www.example.com. 300 IN A 192.0.2.80'],
      },
    ]);
  });

  describe('delegations', () => {
    const SUB_REFERRAL = {
      rcode: 'NOERROR' as const,
      aa: false,
      authority: ['sub.example.com. 3600 IN NS ns.sub.example.com.', 'sub.example.com. 3600 IN NS ns1.example.com.'],
      additional: ['ns.sub.example.com. 3600 IN A 192.0.2.53', 'ns1.example.com. 3600 IN A 192.0.2.1'],
    };
    table(store, [
      { q: 'www.sub.example.com A', ...SUB_REFERRAL },
      { q: 'sub.example.com A', ...SUB_REFERRAL },
      { q: 'sub.example.com NS', ...SUB_REFERRAL },
      { q: 'sub.example.com SOA', ...SUB_REFERRAL },
      // Glue is occluded: below the cut nothing is answered from here.
      { q: 'ns.sub.example.com A', ...SUB_REFERRAL },
      { q: 'a.b.sub.example.com DS', ...SUB_REFERRAL },
      // DS at the cut belongs to the parent (RFC 4035 §3.1.4.1).
      {
        q: 'sub.example.com DS',
        rcode: 'NOERROR',
        aa: true,
        answer: ['sub.example.com. 3600 IN DS 12345 13 2 2BB183AF5F22588179A53B0A98631FAD1A292118AFFE4FDB9DBEE3E5E3D9F7B0'],
      },
      { q: 'nods.example.com DS', rcode: 'NOERROR', aa: true, authority: [SOA] },
      {
        q: 'host.nods.example.com AAAA',
        rcode: 'NOERROR',
        aa: false,
        authority: ['nods.example.com. 3600 IN NS ns.nods.example.com.'],
        additional: ['ns.nods.example.com. 3600 IN A 192.0.2.54', 'ns.nods.example.com. 3600 IN AAAA 2001:db8::54'],
      },
    ]);
  });

  describe('ANY, transfers, other zones', () => {
    table(store, [
      {
        q: 'example.com ANY',
        rcode: 'NOERROR',
        aa: true,
        answer: [
          'example.com. 3600 IN NS ns1.example.com.',
          'example.com. 3600 IN NS ns2.example.com.',
          'example.com. 3600 IN SOA ns1.example.com. hostmaster.example.com. 2024010101 7200 3600 1209600 300',
          'example.com. 3600 IN MX 10 mail.example.com.',
          'example.com. 3600 IN MX 20 mx.example.net.',
          'example.com. 3600 IN TXT "v=spf1 mx -all"',
          'example.com. 3600 IN CAA 0 issue "letsencrypt.org"',
        ],
      },
      { q: 'alias.example.com ANY', rcode: 'NOERROR', aa: true, answer: ['alias.example.com. 300 IN CNAME www.example.com.'] },
      {
        q: 'x.wild.example.com ANY',
        rcode: 'NOERROR',
        aa: true,
        answer: ['x.wild.example.com. 300 IN A 192.0.2.99', 'x.wild.example.com. 300 IN MX 10 mail.example.com.'],
      },
      { q: 'c.example.com ANY', rcode: 'NOERROR', aa: true, authority: [SOA] },
      { q: 'nope.example.com ANY', rcode: 'NXDOMAIN', aa: true, authority: [SOA] },
      { q: 'example.com AXFR', rcode: 'REFUSED', aa: false },
      { q: 'example.com IXFR', rcode: 'REFUSED', aa: false },
      { q: 'www.example.org A', rcode: 'REFUSED', aa: false },
      { q: 'com SOA', rcode: 'REFUSED', aa: false },
      { q: '. NS', rcode: 'REFUSED', aa: false },
    ]);
  });

  it(`follows at most ${MAX_CNAME_CHAIN} names of a chain, then leaves the rest to the resolver`, () => {
    const hops = Array.from({ length: 12 }, (_, i) => `c${i}.example.com. 300 IN CNAME c${i + 1}.example.com.`);
    const store = storeOf(zone('example.com', `${SOA}\n${hops.join('\n')}\nc12.example.com. 300 IN A 192.0.2.12`));
    const got = answerQuery(store, { name: 'c0.example.com', type: TYPE.A }, { dnssecOk: false });
    expect(got.rcode).toBe(RCODE.NOERROR);
    expect(lines(got.answer)).toEqual(normalized(hops.slice(0, MAX_CNAME_CHAIN)));
  });
});

describe('nested zones in one store: the closest enclosing zone answers', () => {
  const CHILD_SOA = 'sub.example.com. 60 IN SOA ns.sub.example.com. hostmaster.example.com. 7 3600 600 86400 60';
  const store = storeOf(zone('example.com', EXAMPLE), zone('sub.example.com', SUB));
  table(store, [
    { q: 'host.sub.example.com A', rcode: 'NOERROR', aa: true, answer: ['host.sub.example.com. 60 IN A 192.0.2.154'] },
    {
      q: 'sub.example.com SOA',
      rcode: 'NOERROR',
      aa: true,
      answer: ['sub.example.com. 3600 IN SOA ns.sub.example.com. hostmaster.example.com. 7 3600 600 86400 60'],
    },
    {
      q: 'sub.example.com NS',
      rcode: 'NOERROR',
      aa: true,
      answer: ['sub.example.com. 3600 IN NS ns.sub.example.com.', 'sub.example.com. 3600 IN NS ns1.example.com.'],
      additional: ['ns.sub.example.com. 3600 IN A 192.0.2.53'],
    },
    { q: 'nothing.sub.example.com A', rcode: 'NXDOMAIN', aa: true, authority: [CHILD_SOA] },
    // The child's apex DS is the parent's to answer.
    {
      q: 'sub.example.com DS',
      rcode: 'NOERROR',
      aa: true,
      answer: ['sub.example.com. 3600 IN DS 12345 13 2 2BB183AF5F22588179A53B0A98631FAD1A292118AFFE4FDB9DBEE3E5E3D9F7B0'],
    },
    { q: 'www.example.com A', rcode: 'NOERROR', aa: true, answer: ['www.example.com. 300 IN A 192.0.2.80'] },
  ]);

  describe('a TLD and a zone below it', () => {
    const store = storeOf(
      zone('test', 'test. 3600 IN SOA ns.test. hostmaster.test. 1 3600 600 86400 300\ntest. 3600 IN NS ns.test.\nns.test. 3600 IN A 192.0.2.10'),
      zone(
        'lab.test',
        'lab.test. 3600 IN SOA ns.test. hostmaster.test. 5 3600 600 86400 120\nlab.test. 3600 IN NS ns.test.\nhost.lab.test. 300 IN A 192.0.2.11',
      ),
    );
    table(store, [
      { q: 'host.lab.test A', rcode: 'NOERROR', aa: true, answer: ['host.lab.test. 300 IN A 192.0.2.11'] },
      { q: 'ns.test A', rcode: 'NOERROR', aa: true, answer: ['ns.test. 3600 IN A 192.0.2.10'] },
      { q: 'x.lab.test A', rcode: 'NXDOMAIN', aa: true, authority: ['lab.test. 120 IN SOA ns.test. hostmaster.test. 5 3600 600 86400 120'] },
      { q: 'x.test A', rcode: 'NXDOMAIN', aa: true, authority: ['test. 300 IN SOA ns.test. hostmaster.test. 1 3600 600 86400 300'] },
      { q: 'lab.example A', rcode: 'REFUSED', aa: false },
    ]);
  });
});

describe('DNSSEC: RRSIGs follow the RRsets they cover when DO is set', () => {
  const SIG = '13 2 300 20300101000000 20240101000000 4711 signed.example. c2lnbmF0dXJl';
  const store = storeOf(
    zone(
      'signed.example',
      `
signed.example.      3600 IN SOA   ns.signed.example. hostmaster.signed.example. 1 3600 600 86400 300
signed.example.      3600 IN RRSIG SOA 13 1 3600 20300101000000 20240101000000 4711 signed.example. c29h
signed.example.      3600 IN NS    ns.signed.example.
signed.example.      3600 IN RRSIG NS 13 1 3600 20300101000000 20240101000000 4711 signed.example. bnM=
ns.signed.example.   3600 IN A     192.0.2.1
www.signed.example.  300  IN A     192.0.2.80
www.signed.example.  300  IN RRSIG A ${SIG}
www.signed.example.  300  IN RRSIG AAAA ${SIG}
www.signed.example.  300  IN AAAA  2001:db8::80
*.signed.example.    300  IN TXT   "wild"
*.signed.example.    300  IN RRSIG TXT 13 2 300 20300101000000 20240101000000 4711 signed.example. d2lsZA==
child.signed.example.    3600 IN NS    ns.child.signed.example.
child.signed.example.    3600 IN DS    4242 13 2 ${'AB'.repeat(32)}
child.signed.example.    3600 IN RRSIG DS 13 2 3600 20300101000000 20240101000000 4711 signed.example. ZHM=
ns.child.signed.example. 3600 IN A     192.0.2.53
`,
    ),
  );
  const NEGATIVE = [
    'signed.example. 300 IN SOA ns.signed.example. hostmaster.signed.example. 1 3600 600 86400 300',
    'signed.example. 300 IN RRSIG SOA 13 1 3600 20300101000000 20240101000000 4711 signed.example. c29h',
  ];
  table(store, [
    {
      q: 'www.signed.example A',
      do: true,
      rcode: 'NOERROR',
      aa: true,
      answer: ['www.signed.example. 300 IN A 192.0.2.80', `www.signed.example. 300 IN RRSIG A ${SIG}`],
    },
    { q: 'www.signed.example A', rcode: 'NOERROR', aa: true, answer: ['www.signed.example. 300 IN A 192.0.2.80'] },
    // The signature of a wildcard answer is the wildcard's, under the query name (RFC 4035 §3.1.3.3).
    {
      q: 'x.signed.example TXT',
      do: true,
      rcode: 'NOERROR',
      aa: true,
      answer: [
        'x.signed.example. 300 IN TXT "wild"',
        'x.signed.example. 300 IN RRSIG TXT 13 2 300 20300101000000 20240101000000 4711 signed.example. d2lsZA==',
      ],
    },
    { q: 'www.signed.example TXT', do: true, rcode: 'NOERROR', aa: true, authority: NEGATIVE },
    { q: 'www.signed.example TXT', rcode: 'NOERROR', aa: true, authority: [NEGATIVE[0]!] },
    // Asked for explicitly, RRSIGs are data (all of them at the name).
    {
      q: 'www.signed.example RRSIG',
      rcode: 'NOERROR',
      aa: true,
      answer: [`www.signed.example. 300 IN RRSIG A ${SIG}`, `www.signed.example. 300 IN RRSIG AAAA ${SIG}`],
    },
    // A signed referral carries the DS and its RRSIG (RFC 4035 §3.1.4); glue is never signed.
    {
      q: 'www.child.signed.example A',
      do: true,
      rcode: 'NOERROR',
      aa: false,
      authority: [
        'child.signed.example. 3600 IN NS ns.child.signed.example.',
        `child.signed.example. 3600 IN DS 4242 13 2 ${'AB'.repeat(32)}`,
        'child.signed.example. 3600 IN RRSIG DS 13 2 3600 20300101000000 20240101000000 4711 signed.example. ZHM=',
      ],
      additional: ['ns.child.signed.example. 3600 IN A 192.0.2.53'],
    },
    {
      q: 'www.child.signed.example A',
      rcode: 'NOERROR',
      aa: false,
      authority: ['child.signed.example. 3600 IN NS ns.child.signed.example.'],
      additional: ['ns.child.signed.example. 3600 IN A 192.0.2.53'],
    },
    {
      q: 'child.signed.example DS',
      do: true,
      rcode: 'NOERROR',
      aa: true,
      answer: [
        `child.signed.example. 3600 IN DS 4242 13 2 ${'AB'.repeat(32)}`,
        'child.signed.example. 3600 IN RRSIG DS 13 2 3600 20300101000000 20240101000000 4711 signed.example. ZHM=',
      ],
    },
    {
      q: 'signed.example ANY',
      do: true,
      rcode: 'NOERROR',
      aa: true,
      answer: [
        'signed.example. 3600 IN NS ns.signed.example.',
        'signed.example. 3600 IN RRSIG NS 13 1 3600 20300101000000 20240101000000 4711 signed.example. bnM=',
        'signed.example. 3600 IN SOA ns.signed.example. hostmaster.signed.example. 1 3600 600 86400 300',
        'signed.example. 3600 IN RRSIG SOA 13 1 3600 20300101000000 20240101000000 4711 signed.example. c29h',
      ],
      additional: [],
    },
    {
      q: 'signed.example ANY',
      rcode: 'NOERROR',
      aa: true,
      answer: [
        'signed.example. 3600 IN NS ns.signed.example.',
        'signed.example. 3600 IN SOA ns.signed.example. hostmaster.signed.example. 1 3600 600 86400 300',
      ],
    },
  ]);
});

// ---- applyZoneDiff against building from scratch ---------------------------------------------

describe('a snapshot after diffs answers like the same zone built from scratch', () => {
  const ORIGIN = 'example.com';
  const OWNERS = ['@', 'a', 'b', 'a.b', 'c.a.b', '*', '*.b', 'x.c', 'sub', 'ns.sub', 'deep.ns.sub', 'mail'];
  const QUERY_NAMES = [...OWNERS, 'zzz', 'q.b', 'q.c.a.b', 'q.x.c', 'c', 'x.ns.sub', 'q.mail'].map((o) => (o === '@' ? ORIGIN : `${o}.${ORIGIN}`));
  const QUERY_TYPES = [TYPE.A, TYPE.AAAA, TYPE.TXT, TYPE.MX, TYPE.NS, TYPE.CNAME, TYPE.DS, TYPE.SOA, TYPE.RRSIG, TYPE.ANY];
  const TARGETS = ['mail.example.com.', 'a.example.com.', 'c.a.b.example.com.', 'zzz.example.com.', 'ns.sub.example.com.', 'x.example.net.'];

  const soa = (serial: number, minimum: number) => record(`${ORIGIN}. 3600 IN SOA ns.${ORIGIN}. hostmaster.${ORIGIN}. ${serial} 3600 600 86400 ${minimum}`);
  const owner = fc.constantFrom(...OWNERS).map((o) => (o === '@' ? `${ORIGIN}.` : `${o}.${ORIGIN}.`));
  const ttl = fc.constantFrom(60, 300);
  const target = fc.constantFrom(...TARGETS);
  const recordText = fc.oneof(
    fc.tuple(owner, ttl, fc.integer({ min: 1, max: 3 })).map(([o, t, n]) => `${o} ${t} IN A 192.0.2.${n}`),
    fc.tuple(owner, ttl, fc.integer({ min: 1, max: 2 })).map(([o, t, n]) => `${o} ${t} IN AAAA 2001:db8::${n}`),
    fc.tuple(owner, ttl, fc.constantFrom('t1', 't2')).map(([o, t, s]) => `${o} ${t} IN TXT "${s}"`),
    fc.tuple(owner, ttl, target).map(([o, t, x]) => `${o} ${t} IN MX 10 ${x}`),
    fc.tuple(owner, ttl, target).map(([o, t, x]) => `${o} ${t} IN CNAME ${x}`),
    fc
      .tuple(fc.constantFrom(`sub.${ORIGIN}.`, `b.${ORIGIN}.`), ttl, fc.constantFrom('ns.sub.example.com.', 'ns.example.net.'))
      .map(([o, t, x]) => `${o} ${t} IN NS ${x}`),
    fc.tuple(ttl, fc.integer({ min: 1, max: 2 })).map(([t, n]) => `sub.${ORIGIN}. ${t} IN DS ${n} 13 2 ${'AB'.repeat(32)}`),
    fc
      .tuple(owner, fc.constantFrom('A', 'TXT', 'CNAME'))
      .map(([o, covered]) => `${o} 300 IN RRSIG ${covered} 13 3 300 20300101000000 20240101000000 1 ${ORIGIN}. AAAA`),
  );
  const diffPlan = fc.record({
    removals: fc.array(fc.nat(), { maxLength: 4 }),
    additions: fc.array(recordText, { maxLength: 4 }),
    ttlChanges: fc.array(fc.nat(), { maxLength: 2 }),
    minimum: fc.constantFrom(60, 300, 7200),
  });

  const key = (r: ZoneRecord) => `${r.name}|${r.type}|${r.rdata.toString('hex')}`;
  const hasCname = (model: Map<string, ZoneRecord>, name: string) => [...model.values()].some((r) => r.name === name && r.type === TYPE.CNAME);

  /** Adds to the model, keeping at most one CNAME per name (more would make the chain ambiguous). */
  function addTo(model: Map<string, ZoneRecord>, r: ZoneRecord): boolean {
    if (model.has(key(r)) || (r.type === TYPE.CNAME && hasCname(model, r.name))) return false;
    model.set(key(r), r);
    return true;
  }

  /** Every query's answer as text, rdatas sorted within an RRset and the additional section sorted. */
  function answersOf(snapshot: ZoneSnapshot): string[] {
    const store = storeOf(snapshot);
    const text = (sets: RRset[]) =>
      sets.map(
        (s) =>
          `${s.name} ${s.ttl} ${s.type} ${s.rdatas
            .map((r) => r.toString('hex'))
            .sort()
            .join(',')}`,
      );
    const out: string[] = [];
    for (const name of QUERY_NAMES) {
      for (const type of QUERY_TYPES) {
        for (const dnssecOk of [false, true]) {
          const a: Answer = answerQuery(store, { name, type }, { dnssecOk });
          out.push(JSON.stringify([name, type, dnssecOk, a.rcode, a.aa, text(a.answer), text(a.authority), text(a.additional).sort()]));
        }
      }
    }
    return out;
  }

  const recordLines = (s: ZoneSnapshot) => [...s.records()].map((r) => `${key(r)}|${r.ttl}`).sort();

  it('for random zones and random diffs; the previous snapshot keeps answering as before', () => {
    fc.assert(
      fc.property(fc.array(recordText, { maxLength: 25 }), fc.array(diffPlan, { minLength: 1, maxLength: 4 }), (initial, plans) => {
        const model = new Map<string, ZoneRecord>();
        let serial = 1;
        let soaRecord = soa(serial, 300);
        model.set(key(soaRecord), soaRecord);
        for (const text of initial) addTo(model, record(text));
        let snapshot = buildZoneSnapshot(ORIGIN, [...model.values()]);

        for (const plan of plans) {
          const removed: ZoneRecord[] = [soaRecord];
          const added: ZoneRecord[] = [];
          model.delete(key(soaRecord));
          const others = [...model.values()];
          for (const i of new Set(plan.removals.map((n) => n % Math.max(1, others.length)))) {
            const r = others[i];
            if (!r) continue;
            removed.push(r);
            model.delete(key(r));
          }
          // A TTL change is a removal and an addition of the same RDATA.
          const changedKeys = new Set<string>();
          for (const i of plan.ttlChanges) {
            const r = [...model.values()][i % Math.max(1, model.size)];
            if (!r || changedKeys.has(key(r))) continue;
            changedKeys.add(key(r));
            model.delete(key(r));
            removed.push(r);
            const changed = { ...r, ttl: r.ttl === 60 ? 300 : 60 };
            model.set(key(changed), changed);
            added.push(changed);
          }
          for (const text of plan.additions) {
            const r = record(text);
            if (addTo(model, r)) added.push(r);
          }
          soaRecord = soa(++serial, plan.minimum);
          model.set(key(soaRecord), soaRecord);
          added.push(soaRecord);

          const before = answersOf(snapshot);
          const beforeRecords = recordLines(snapshot);
          const next = applyZoneDiff(snapshot, { fromSerial: serial - 1, toSerial: serial, removed, added });
          const rebuilt = buildZoneSnapshot(ORIGIN, [...model.values()]);

          expect(next.serial).toBe(serial);
          expect(next.recordCount).toBe(model.size);
          expect(recordLines(next)).toEqual(recordLines(rebuilt));
          expect(answersOf(next)).toEqual(answersOf(rebuilt));
          expect(answersOf(snapshot)).toEqual(before);
          expect(recordLines(snapshot)).toEqual(beforeRecords);
          snapshot = next;
        }
      }),
      { numRuns: 100 },
    );
  });
});
