// RFC 2136 as the service applies it, without a database (src/domain/dnsUpdate/): the
// prerequisites of §3.2 and the update section of §3.4 against a zone of records written as in a
// zone file, each case a message and what it leaves — the rcode, the replace_rrset items, or the
// reason it is refused. The real service applies the same through the write seam
// (test/integration/dynamicUpdate.test.ts).
import { describe, expect, it } from 'vitest';
import { CLASS, TYPE } from '../../nameserver/types.js';
import { typeCode } from '../../nameserver/wire/rrTypes.js';
import type { UpdateRecord } from '../../nameserver/wire/update.js';
import { applyUpdates } from '../../src/domain/dnsUpdate/applyUpdates.js';
import { evaluatePrerequisites } from '../../src/domain/dnsUpdate/prerequisites.js';
import { readPrerequisite, readUpdate } from '../../src/domain/dnsUpdate/updateRecords.js';
import { ZoneRRsets, type ZoneRecordInput } from '../../src/domain/dnsUpdate/zoneRRsets.js';
import { changeSetSource } from '../../src/domain/model/changeSet.js';
import { rdataFromText } from '../../src/domain/zonefile/rdataFromPresentation.js';
import { rdataToData } from '../../nameserver/wire/rdata.js';
import { UpdatesInFlight } from '../../src/services/dnsUpdate/retransmissions.js';

const ZONE = { name: 'example.com', defaultTtl: 3600 };

/** A zone record from `name ttl type rdata` ('-' for a TTL that follows the default; names relative). */
function stored(line: string, system = false): ZoneRecordInput {
  const [name, ttl, type, ...rest] = line.split(' ');
  const wire = rdataFromText(type!, rest.join(' '));
  if (!wire.ok) throw new Error(wire.detail);
  return { name: name!, type: type!, ttl: ttl === '-' ? null : Number(ttl), data: rdataToData(type!, wire.value)!, system };
}

const apex = [
  stored('@ - SOA ns1.example.net. hostmaster.example.com. 2024010101 10800 3600 1209600 300', true),
  stored('@ - NS ns1.example.net.', true),
  stored('@ - NS ns2.example.net.', true),
];

const zoneWith = (...lines: string[]) => new ZoneRRsets(ZONE, [...apex, ...lines.map((l) => stored(l))]);

/**
 * A record of a prerequisite or update section as nsupdate writes it: `[CLASS] name [ttl] TYPE
 * [rdata]` with CLASS one of IN (default), ANY, NONE; names absolute without the dot.
 */
function rr(text: string): UpdateRecord {
  const words = text.split(' ');
  const klass = ['ANY', 'NONE', 'IN'].includes(words[0]!) ? CLASS[words.shift() as 'ANY' | 'NONE' | 'IN'] : CLASS.IN;
  const name = words.shift()!;
  const ttl = /^\d+$/.test(words[0]!) ? Number(words.shift()) : 0;
  const type = words.shift()!;
  let rdata: Buffer = Buffer.alloc(0);
  if (words.length) {
    const wire = rdataFromText(type, words.join(' '));
    rdata = wire.ok ? wire.value : Buffer.from(words.join(' '));
  }
  return { name, type: typeCode(type)!, klass, ttl, rdata };
}

const prerequisites = (zone: ZoneRRsets, ...texts: string[]) =>
  evaluatePrerequisites(
    zone,
    texts.map((t) => readPrerequisite(rr(t))),
  );
const apply = (zone: ZoneRRsets, ...texts: string[]) =>
  applyUpdates(
    zone,
    texts.map((t) => readUpdate(rr(t))),
  );

describe('prerequisites (RFC 2136 §3.2)', () => {
  const zone = zoneWith('www 300 A 192.0.2.1', 'www 300 A 192.0.2.2', 'txt - TXT "hello"');
  const cases: [string, string[], string][] = [
    ['name in use', ['ANY www.example.com ANY'], 'NOERROR'],
    ['name in use: absent', ['ANY nobody.example.com ANY'], 'NXDOMAIN'],
    ['name in use: the apex (SOA, NS)', ['ANY example.com ANY'], 'NOERROR'],
    ['name not in use', ['NONE nobody.example.com ANY'], 'NOERROR'],
    ['name not in use: present', ['NONE www.example.com ANY'], 'YXDOMAIN'],
    ['RRset exists', ['ANY www.example.com A'], 'NOERROR'],
    ['RRset exists: absent', ['ANY www.example.com AAAA'], 'NXRRSET'],
    ['RRset exists: the apex SOA', ['ANY example.com SOA'], 'NOERROR'],
    ['RRset does not exist', ['NONE www.example.com AAAA'], 'NOERROR'],
    ['RRset does not exist: present', ['NONE txt.example.com TXT'], 'YXRRSET'],
    ['RRset equals, in any order', ['www.example.com A 192.0.2.2', 'www.example.com A 192.0.2.1'], 'NOERROR'],
    ['RRset equals: one record missing', ['www.example.com A 192.0.2.1'], 'NXRRSET'],
    ['RRset equals: one record too many', ['www.example.com A 192.0.2.1', 'www.example.com A 192.0.2.2', 'www.example.com A 192.0.2.3'], 'NXRRSET'],
    ['RRset equals: the same record twice is one', ['www.example.com A 192.0.2.1', 'www.example.com A 192.0.2.1', 'www.example.com A 192.0.2.2'], 'NOERROR'],
    ['RRset equals: the apex NS set (rendered), names in RDATA in any case', ['example.com NS ns2.example.net.', 'example.com NS NS1.Example.NET.'], 'NOERROR'],
    ['RRset equals: TXT by its text', ['txt.example.com TXT "hel" "lo"'], 'NOERROR'],
    ['RRset equals: RDATA the service cannot read', ['www.example.com A 192.0.2'], 'NXRRSET'],
    ['the first that fails, in order', ['ANY nobody.example.com ANY', 'NONE www.example.com ANY'], 'NXDOMAIN'],
    ['value-dependent sets are compared after the rest', ['www.example.com A 192.0.2.9', 'NONE www.example.com ANY'], 'YXDOMAIN'],
  ];
  for (const [what, texts, rcode] of cases) {
    it(`${what} → ${rcode}`, () => {
      expect(prerequisites(zone, ...texts)).toBe(rcode);
    });
  }
});

describe('the update section (RFC 2136 §3.4.2) and what the service decides', () => {
  /** The items a message leaves, as `name type ttl [data…]` (an RRset deleted: `- []`), or the refusal. */
  function outcome(zone: ZoneRRsets, ...texts: string[]) {
    const result = apply(zone, ...texts);
    if (result.refused !== null) return { refused: result.refused };
    return {
      items: zone
        .changeItems()
        .map((i) => (i.op === 'replace_rrset' ? `${i.name} ${i.type} ${i.ttl ?? '-'} [${i.records.map((d) => JSON.stringify(d)).join(', ')}]` : i.op)),
      ignored: result.ignored.length,
    };
  }

  it('adds a record, a second one to the RRset, and the same one again changes nothing', () => {
    const zone = zoneWith('www 300 A 192.0.2.1');
    expect(outcome(zone, 'www.example.com 300 A 192.0.2.2', 'www.example.com 300 A 192.0.2.1', 'new.example.com 120 TXT "x"')).toEqual({
      items: ['www.example.com. A 300 [{"address":"192.0.2.1"}, {"address":"192.0.2.2"}]', 'new.example.com. TXT 120 [{"text":"x"}]'],
      ignored: 0,
    });
    expect(outcome(zoneWith('www 300 A 192.0.2.1'), 'www.example.com 300 A 192.0.2.1').items).toEqual([]);
  });

  it('an add with another TTL sets the RRset’s (RFC 2181 §5.2); one equal to the served TTL keeps a default TTL as it is', () => {
    expect(outcome(zoneWith('www 300 A 192.0.2.1'), 'www.example.com 60 A 192.0.2.1').items).toEqual(['www.example.com. A 60 [{"address":"192.0.2.1"}]']);
    expect(outcome(zoneWith('www - A 192.0.2.1'), 'www.example.com 3600 A 192.0.2.2').items).toEqual([
      'www.example.com. A - [{"address":"192.0.2.1"}, {"address":"192.0.2.2"}]',
    ]);
  });

  it('deletes an RRset, every RRset of a name, one record; deleting what is not there changes nothing', () => {
    const zone = zoneWith('www 300 A 192.0.2.1', 'www 300 A 192.0.2.2', 'www 300 TXT "t"', 'mail 300 MX 10 mx.example.net.');
    expect(
      outcome(zone, 'ANY www.example.com A', 'NONE mail.example.com MX 10 MX.example.net.', 'ANY gone.example.com ANY', 'NONE www.example.com TXT "other"'),
    ).toEqual({
      items: ['www.example.com. A - []', 'mail.example.com. MX - []'],
      ignored: 0,
    });
    expect(outcome(zoneWith('www 300 A 192.0.2.1', 'www 300 TXT "t"'), 'ANY www.example.com ANY').items).toEqual([
      'www.example.com. A - []',
      'www.example.com. TXT - []',
    ]);
  });

  it('in order: a delete then an add of one RRset in one message (lego) leaves the add; an add then a delete leaves nothing', () => {
    const zone = zoneWith('_acme-challenge 120 TXT "old"');
    expect(outcome(zone, 'ANY _acme-challenge.example.com TXT', '_acme-challenge.example.com 120 TXT "new"').items).toEqual([
      '_acme-challenge.example.com. TXT 120 [{"text":"new"}]',
    ]);
    expect(outcome(zoneWith(), 'x.example.com 120 TXT "a"', 'ANY x.example.com TXT').items).toEqual([]);
  });

  it('the SOA is ignored; the apex NS set is kept: deletions ignored, an NS it holds changes nothing, another is REFUSED', () => {
    expect(
      outcome(
        zoneWith(),
        'example.com 300 SOA ns1.example.net. h.example.com. 2099010101 1 1 1 1',
        'ANY example.com SOA',
        'NONE example.com SOA ns1.example.net. h.example.com. 1 1 1 1 1',
      ),
    ).toEqual({ items: [], ignored: 3 });
    expect(outcome(zoneWith(), 'ANY example.com NS', 'NONE example.com NS ns1.example.net.')).toEqual({ items: [], ignored: 2 });
    expect(outcome(zoneWith(), 'example.com 300 NS ns2.example.net.')).toEqual({ items: [], ignored: 0 });
    expect(outcome(zoneWith(), 'example.com 300 NS ns9.example.net.').refused).toMatch(/apex NS/);
  });

  it('every RRset at the apex but the SOA and NS goes with a delete of the name (§3.4.2.3)', () => {
    expect(outcome(zoneWith('@ 300 TXT "apex"', '@ 300 MX 10 mx.example.net.'), 'ANY example.com ANY').items).toEqual([
      'example.com. TXT - []',
      'example.com. MX - []',
    ]);
  });

  it('CNAME exclusivity: a conflicting add is ignored (BIND, Knot); a CNAME replaces the CNAME; a delete first makes room', () => {
    expect(
      outcome(
        zoneWith('www 300 A 192.0.2.1', 'alias 300 CNAME www.example.com.'),
        'www.example.com 300 CNAME other.example.net.',
        'alias.example.com 300 TXT "x"',
        'example.com 300 CNAME other.example.net.',
      ),
    ).toEqual({ items: [], ignored: 3 });
    expect(outcome(zoneWith('alias 300 CNAME www.example.com.'), 'alias.example.com 300 CNAME other.example.net.').items).toEqual([
      'alias.example.com. CNAME 300 [{"target":"other.example.net"}]',
    ]);
    expect(outcome(zoneWith('www 300 A 192.0.2.1'), 'ANY www.example.com A', 'www.example.com 300 CNAME other.example.net.').items).toEqual([
      'www.example.com. A - []',
      'www.example.com. CNAME 300 [{"target":"other.example.net"}]',
    ]);
  });

  it('DNSSEC types are REFUSED, added or deleted; a type the service does not hold is REFUSED when added, nothing when deleted', () => {
    for (const text of ['x.example.com 300 DNSKEY 257 3 13 AQID', 'ANY example.com RRSIG', 'NONE example.com NSEC3PARAM 1 0 0 -', 'ANY x.example.com CDS']) {
      expect(outcome(zoneWith(), text).refused, text).toMatch(/DNSSEC/);
    }
    expect(outcome(zoneWith(), 'x.example.com 300 AFSDB 1 afs.example.net.').refused).toMatch(/AFSDB/);
    expect(outcome(zoneWith(), 'ANY x.example.com AFSDB')).toEqual({ items: [], ignored: 0 });
  });

  it('adds an RFC 3597 type as opaque RDATA and an SSHFP from its presentation on the wire', () => {
    expect(outcome(zoneWith(), 'x.example.com 300 TYPE65534 \\# 2 abcd')).toEqual({ items: ['x.example.com. TYPE65534 300 [{"rdata":"abcd"}]'], ignored: 0 });
    expect(outcome(zoneWith(), `x.example.com 300 SSHFP 1 1 ${'ab'.repeat(20)}`)).toEqual({
      items: [`x.example.com. SSHFP 300 [{"algorithm":1,"fingerprint_type":1,"fingerprint":"${'ab'.repeat(20)}"}]`],
      ignored: 0,
    });
  });

  it('an add whose RDATA the service cannot hold is REFUSED (a TXT that is not UTF-8, malformed RDATA)', () => {
    const notUtf8: UpdateRecord = { name: 'x.example.com', type: TYPE.TXT, klass: CLASS.IN, ttl: 300, rdata: Buffer.from([2, 0xff, 0xfe]) };
    expect(applyUpdates(zoneWith(), [readUpdate(notUtf8)]).refused).toMatch(/TXT/);
    expect(outcome(zoneWith(), 'x.example.com 300 A 192.0.2').refused).toMatch(/A/);
  });
});

describe('who wrote a change set', () => {
  it('by its writer’s id: an API client, a DynDNS host, a TSIG key, or the service', () => {
    expect(changeSetSource('cli_abc')).toEqual({ source: 'api', sourceId: 'cli_abc' });
    expect(changeSetSource('dyn_abc')).toEqual({ source: 'dyndns', sourceId: 'dyn_abc' });
    expect(changeSetSource('tsk_abc')).toEqual({ source: 'rfc2136', sourceId: 'tsk_abc' });
    for (const id of ['lab-registry', 'rdns-forward-records', null]) expect(changeSetSource(id)).toEqual({ source: 'service', sourceId: null });
  });
});

describe('UPDATEs sent again over UDP while applied', () => {
  const request = (over: Partial<Parameters<UpdatesInFlight['run']>[0]> = {}) => ({
    zone: 'example.com',
    prerequisites: [rr('NONE x.example.com ANY')],
    updates: [rr('x.example.com 300 A 192.0.2.1')],
    key: { name: 'k.example', owner: 'tsk_1' },
    transport: 'udp' as const,
    remoteAddress: '192.0.2.10',
    ...over,
  });

  it('share the first’s answer while it runs; a later one, another client’s, another message’s or one over TCP runs on its own', async () => {
    const inFlight = new UpdatesInFlight();
    let runs = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const apply = async () => {
      const n = ++runs;
      await gate;
      return n;
    };
    const first = inFlight.run(request(), apply);
    const copy = inFlight.run(request(), apply);
    const others = [
      inFlight.run(request({ remoteAddress: '192.0.2.11' }), apply),
      inFlight.run(request({ updates: [rr('x.example.com 300 A 192.0.2.2')] }), apply),
      inFlight.run(request({ transport: 'tcp' }), apply),
      inFlight.run(request({ transport: 'tcp' }), apply),
    ];
    release();
    expect(await first).toEqual({ value: 1, copy: false });
    expect(await copy).toEqual({ value: 1, copy: true });
    expect((await Promise.all(others)).map((o) => o.copy)).toEqual([false, false, false, false]);
    expect(runs).toBe(5);
    expect(inFlight.size).toBe(0);
    expect(await inFlight.run(request(), apply)).toEqual({ value: 6, copy: false });
  });
});
