// A snapshot's names in DNSSEC canonical order (RFC 4034 §6.1): the owners of the tree, the NSEC
// chain and the NSEC3 chain, found in O(log n) for denial proofs. The order must be the RFC's, it
// must follow every diff, and a diff must leave the snapshot it started from as it was.
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TYPE, type ZoneDiff, type ZoneRecord } from '../../../nameserver/types.js';
import { decodeName, encodeName } from '../../../nameserver/wire/name.js';
import { encodeRdata } from '../../../nameserver/wire/rdata.js';
import { applyZoneDiff, buildZoneSnapshot, rrsetAt, type ZoneSnapshot } from '../../../nameserver/zone/snapshot.js';
import { referenceCanonicalOrder } from '../../helpers/canonicalReference.js';

const rr = (name: string, type: keyof typeof TYPE, data: Record<string, unknown>, ttl = 300): ZoneRecord => ({
  name,
  type: TYPE[type],
  ttl,
  rdata: encodeRdata(type, data),
});
const soa = (origin: string, serial: number) =>
  rr(origin, 'SOA', { mname: `ns1.${origin}`, rname: `hostmaster.${origin}`, serial, refresh: 7200, retry: 3600, expire: 1209600, minimum: 300 }, 3600);
const a = (name: string, address = '192.0.2.1') => rr(name, 'A', { address });
const nsec = (name: string, next: string) => rr(name, 'NSEC', { next_domain_name: next, types: ['A', 'RRSIG', 'NSEC'] });
const nsec3 = (owner: string, next: string) =>
  rr(owner, 'NSEC3', { hash_algorithm: 1, flags: 0, iterations: 12, salt: 'aabbccdd', next_hashed_owner_name: next, types: ['A', 'RRSIG'] });

/** The Next Domain Name field of the NSEC that matches or covers `name` (RFC 4034 §4.1.1). */
const nsecNext = (snapshot: ZoneSnapshot, name: string) => decodeName(rrsetAt(snapshot.coveringNsec(name)!.node, TYPE.NSEC)!.rrset.rdatas[0]!, 0)!.name;

/** A diff from `serial` to `serial + 1` that also replaces the SOA. */
const diff = (origin: string, serial: number, removed: ZoneRecord[], added: ZoneRecord[]): ZoneDiff => ({
  fromSerial: serial,
  toSerial: serial + 1,
  removed: [soa(origin, serial), ...removed],
  added: [soa(origin, serial + 1), ...added],
});

// RFC 4034 §6.1's example, in the RFC's order, as the zone holds names (lower case).
const RFC_4034_ORDER = [
  'example',
  'a.example',
  'yljkjljk.a.example',
  'z.a.example',
  'zabc.a.example',
  'z.example',
  '\\001.z.example',
  '*.z.example',
  '\\200.z.example',
];

describe('the owner names of a snapshot in canonical order', () => {
  it("are RFC 4034 §6.1's example order, built whole or name by name in any order", () => {
    const whole = buildZoneSnapshot('example', [soa('example', 1), ...[...RFC_4034_ORDER.slice(1)].reverse().map((n) => a(n))]);
    expect([...whole.owners.values()]).toEqual(RFC_4034_ORDER);
    fc.assert(
      fc.property(fc.shuffledSubarray(RFC_4034_ORDER.slice(1), { minLength: 8 }), (order) => {
        let z = buildZoneSnapshot('example', [soa('example', 1)]);
        for (const [i, name] of order.entries()) z = applyZoneDiff(z, diff('example', 1 + i, [], [a(name)]));
        expect([...z.owners.values()]).toEqual(RFC_4034_ORDER);
      }),
      { numRuns: 30 },
    );
  });

  it('hold the names that own records: not empty non-terminals, not NSEC3 owners', () => {
    const z = buildZoneSnapshot('example', [
      soa('example', 1),
      a('x.y.w.example'),
      nsec3('0p9mhaveqvm6t7vbl5lop2u3t2rp3tom.example', '2t7b4g4vsa5smi47k61mv5bv1a22bojr'),
    ]);
    expect(z.node('w.example')).toBeDefined();
    expect([...z.owners.values()]).toEqual(['example', 'x.y.w.example']);
    expect([...z.nsec3Owners.values()]).toEqual(['0p9mhaveqvm6t7vbl5lop2u3t2rp3tom.example']);
    // A name gone from the tree leaves the index; a name that stays an empty non-terminal was never in it.
    const emptied = applyZoneDiff(z, diff('example', 1, [a('x.y.w.example')], [a('y.w.example')]));
    expect([...emptied.owners.values()]).toEqual(['example', 'y.w.example']);
  });

  it('give the previous and next owner of any name, wrapping around at both ends', () => {
    const z = buildZoneSnapshot('example', [soa('example', 1), ...RFC_4034_ORDER.slice(1).map((n) => a(n))]);
    expect(z.previousOwner('example')).toBe('\\200.z.example');
    expect(z.nextOwner('\\200.z.example')).toBe('example');
    expect(z.nextOwner('example')).toBe('a.example');
    // b (0x62) after * (0x2a), before \200: between the last two.
    expect(z.previousOwner('b.z.example')).toBe('*.z.example');
    expect(z.nextOwner('b.z.example')).toBe('\\200.z.example');
    // Any spelling of a name: case, \DDD of a letter, \DDD of the asterisk.
    expect(z.previousOwner('B.Z.EXAMPLE')).toBe('*.z.example');
    expect(z.previousOwner('\\098.z.example')).toBe('*.z.example');
    expect(z.previousOwner('\\042.z.example')).toBe('\\001.z.example');
    expect(z.nextOwner('\\042.z.example')).toBe('\\200.z.example');
    // Names outside the zone: before the apex (the root) or after everything in it.
    expect(z.previousOwner('')).toBe('\\200.z.example');
    expect(z.nextOwner('zz.example')).toBe('example');
    expect(z.previousOwner('zz.example')).toBe('\\200.z.example');
  });
});

describe('coveringNsec', () => {
  // The NSEC chain of RFC 4034 §6.1's names, each pointing at the next, the last at the apex.
  const chain = RFC_4034_ORDER.map((n, i) => nsec(n, RFC_4034_ORDER[(i + 1) % RFC_4034_ORDER.length]!));
  const signed = buildZoneSnapshot('example', [soa('example', 1), ...RFC_4034_ORDER.slice(1).map((n) => a(n)), ...chain, a('ns.sub.example')]);

  it.each([
    ['a name that exists: its own NSEC matches it', 'z.a.example', 'z.a.example', true],
    ['the apex', 'example', 'example', true],
    ['a name between two owners: the earlier one covers it', 'b.z.example', '*.z.example', false],
    ['a name below an owner: that owner covers it', 'x.yljkjljk.a.example', 'yljkjljk.a.example', false],
    ['a name after the last owner: the last NSEC (next: the apex) covers it', 'zz.example', '\\200.z.example', false],
    ['a name before the apex: the last NSEC covers it', 'com', '\\200.z.example', false],
    ['a name with data but no NSEC (glue): the NSEC before it', 'ns.sub.example', 'zabc.a.example', false],
    ['another spelling of an owner name matches', 'Z.\\065.EXAMPLE', 'z.a.example', true],
  ])('%s', (_, name, owner, matches) => {
    const link = signed.coveringNsec(name)!;
    expect(link.node.name).toBe(owner);
    expect(link.matches).toBe(matches);
    expect(rrsetAt(link.node, TYPE.NSEC)).toBeDefined();
  });

  it('is the NSEC whose owner and next name enclose a missing name (RFC 4034 §4.1.1)', () => {
    expect(nsecNext(signed, 'b.z.example')).toBe('\\200.z.example');
    expect(nsecNext(signed, 'zz.example')).toBe('example');
    expect(nsecNext(signed, 'z.a.example')).toBe('zabc.a.example');
  });

  it('is undefined in a zone without NSEC, and follows NSEC records in and out', () => {
    const unsigned = buildZoneSnapshot('example', [soa('example', 1), a('a.example')]);
    expect(unsigned.coveringNsec('b.example')).toBeUndefined();
    const one = applyZoneDiff(unsigned, diff('example', 1, [], [nsec('example', 'example')]));
    expect(one.coveringNsec('b.example')).toMatchObject({ node: { name: 'example' }, matches: false });
    expect(unsigned.coveringNsec('b.example')).toBeUndefined();
    expect(applyZoneDiff(one, diff('example', 2, [nsec('example', 'example')], [])).coveringNsec('b.example')).toBeUndefined();
  });
});

// ---- NSEC3 (RFC 5155) ----------------------------------------------------------------------------

const BASE32HEX = '0123456789abcdefghijklmnopqrstuv';
function base32hex(octets: Buffer): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const o of octets) {
    value = (value << 8) | o;
    bits += 8;
    while (bits >= 5) out += BASE32HEX[(value >>> (bits -= 5)) & 31];
  }
  return bits > 0 ? out + BASE32HEX[(value << (5 - bits)) & 31] : out;
}

/** RFC 5155 §5: SHA-1 over the canonical wire name and the salt, then `iterations` more times. */
function nsec3Hash(name: string, salt: string, iterations: number): string {
  const s = Buffer.from(salt, 'hex');
  let h = createHash('sha1')
    .update(Buffer.concat([encodeName(name, true), s]))
    .digest();
  for (let i = 0; i < iterations; i++)
    h = createHash('sha1')
      .update(Buffer.concat([h, s]))
      .digest();
  return base32hex(h);
}

describe('coveringNsec3', () => {
  // The names of RFC 5155 Appendix A's zone that get NSEC3 records (salt aabbccdd, 12 iterations),
  // hashed here; the chain links each hash to the next in order, the last to the first.
  const names = [
    'example',
    'a.example',
    'ai.example',
    'ns1.example',
    'ns2.example',
    'w.example',
    '*.w.example',
    'x.w.example',
    'y.w.example',
    'x.y.w.example',
    'xx.example',
  ];
  const hashes = names.map((n) => nsec3Hash(n, 'aabbccdd', 12)).sort();
  const zone = buildZoneSnapshot('example', [soa('example', 1), ...hashes.map((h, i) => nsec3(`${h}.example`, hashes[(i + 1) % hashes.length]!))]);
  const nextHash = (link: { node: { sets: readonly { rrset: { type: number; rdatas: Buffer[] } }[] } }) => {
    const rdata = link.node.sets.find((s) => s.rrset.type === TYPE.NSEC3)!.rrset.rdatas[0]!;
    const saltLength = rdata[4]!;
    return base32hex(rdata.subarray(6 + saltLength, 6 + saltLength + rdata[5 + saltLength]!));
  };

  it('hashes as RFC 5155 Appendix B.1 says', () => {
    expect(nsec3Hash('example', 'aabbccdd', 12)).toBe('0p9mhaveqvm6t7vbl5lop2u3t2rp3tom');
    expect(nsec3Hash('c.x.w.example', 'aabbccdd', 12)).toBe('0va5bpr2ou0vk0lbqeeljri88laipsfh');
    expect(nsec3Hash('x.w.example', 'aabbccdd', 12)).toBe('b4um86eghhds6nea196smvmlo4ors995');
    expect(nsec3Hash('*.x.w.example', 'aabbccdd', 12)).toBe('92pqneegtaue7pjatc3l3qnk738c6v5m');
  });

  it("finds RFC 5155 Appendix B.1's three NSEC3 records for the name error a.c.x.w.example", () => {
    // "NSEC3 RR that covers the 'next closer' name (c.x.w.example)": next hash 2t7b4g4v…
    const nextCloser = zone.coveringNsec3('0va5bpr2ou0vk0lbqeeljri88laipsfh')!;
    expect(nextCloser).toMatchObject({ node: { name: '0p9mhaveqvm6t7vbl5lop2u3t2rp3tom.example' }, matches: false });
    expect(nextHash(nextCloser)).toBe('2t7b4g4vsa5smi47k61mv5bv1a22bojr');
    // "NSEC3 RR that matches the closest encloser (x.w.example)".
    expect(zone.coveringNsec3('b4um86eghhds6nea196smvmlo4ors995')).toMatchObject({ node: { name: 'b4um86eghhds6nea196smvmlo4ors995.example' }, matches: true });
    // "NSEC3 RR that covers wildcard at the closest encloser (*.x.w.example)": next hash b4um86eg…
    const wildcard = zone.coveringNsec3('92pqneegtaue7pjatc3l3qnk738c6v5m')!;
    expect(wildcard).toMatchObject({ node: { name: '35mthgpgcu1qg68fab165klnsnk3dpvl.example' }, matches: false });
    expect(nextHash(wildcard)).toBe('b4um86eghhds6nea196smvmlo4ors995');
  });

  it('wraps around: a hash before the first owner or after the last is covered by the last (RFC 5155 §3.1.7)', () => {
    const last = `${hashes.at(-1)}.example`;
    expect(zone.coveringNsec3('00000000000000000000000000000000')).toMatchObject({ node: { name: last }, matches: false });
    expect(zone.coveringNsec3('vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv')).toMatchObject({ node: { name: last }, matches: false });
    expect(nextHash(zone.coveringNsec3('vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv')!)).toBe(hashes[0]);
  });

  it('takes the hash in either case, and is undefined in a zone without NSEC3', () => {
    expect(zone.coveringNsec3('B4UM86EGHHDS6NEA196SMVMLO4ORS995')).toMatchObject({ matches: true });
    expect(buildZoneSnapshot('example', [soa('example', 1)]).coveringNsec3('b4um86eghhds6nea196smvmlo4ors995')).toBeUndefined();
  });

  it('finds every hash of the chain, and covers random hashes as a scan of the sorted hashes does', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...BASE32HEX), minLength: 32, maxLength: 32 }), (hash) => {
        const expected = hashes.filter((h) => h <= hash).at(-1) ?? hashes.at(-1)!;
        expect(zone.coveringNsec3(hash)).toMatchObject({ node: { name: `${expected}.example` }, matches: expected === hash });
      }),
      { numRuns: 500 },
    );
    for (const h of hashes) expect(zone.coveringNsec3(h)).toMatchObject({ node: { name: `${h}.example` }, matches: true });
  });
});

// ---- the indexes under random diffs -----------------------------------------------------------

describe('the canonical indexes under random diffs', () => {
  const ORIGIN = 'example';
  // Names with escapes and several levels (so that diffs make and remove empty non-terminals).
  const label = fc.constantFrom('a', 'b', 'z', '0', '-', '*', '\\001', '\\200', '\\.', '\\\\', 'xn--bcher-kva');
  const name = fc.array(label, { minLength: 1, maxLength: 3 }).map((ls) => [...ls, ORIGIN].join('.'));
  const hashOwner = fc.string({ unit: fc.constantFrom('0', '9', 'a', 'k', 'v'), minLength: 1, maxLength: 3 }).map((h) => `${h}.${ORIGIN}`);
  const record = fc.oneof(
    fc.tuple(name, fc.constantFrom('192.0.2.1', '192.0.2.2')).map(([n, address]) => a(n, address)),
    name.map((n) => nsec(n, ORIGIN)),
    hashOwner.map((owner) => nsec3(owner, '2t7b4g4vsa5smi47k61mv5bv1a22bojr')),
  );
  const step = fc.array(fc.record({ remove: fc.boolean(), record, pick: fc.nat() }), { minLength: 1, maxLength: 12 });

  /** What the indexes must hold for these records, each sorted the obvious way. */
  function expectedIndexes(records: Map<string, ZoneRecord>) {
    const owners = new Set<string>([ORIGIN]);
    const nsecOwners = new Set<string>();
    const nsec3Owners = new Set<string>();
    for (const r of records.values()) {
      if (r.type === TYPE.NSEC3) nsec3Owners.add(r.name);
      else owners.add(r.name);
      if (r.type === TYPE.NSEC) nsecOwners.add(r.name);
    }
    const sorted = (s: Set<string>) => [...s].sort(referenceCanonicalOrder);
    return { owners: sorted(owners), nsecOwners: sorted(nsecOwners), nsec3Owners: sorted(nsec3Owners) };
  }

  const indexesOf = (z: ZoneSnapshot) => ({ owners: [...z.owners.values()], nsecOwners: [...z.nsecOwners.values()], nsec3Owners: [...z.nsec3Owners.values()] });
  const keyOf = (r: ZoneRecord) => `${r.name}/${r.type}/${r.rdata.toString('hex')}`;

  it('equal a plain sort of the names after every diff, and every earlier snapshot keeps its own', () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 20 }), fc.array(step, { minLength: 1, maxLength: 12 }), name, (initial, steps, probe) => {
        const records = new Map(initial.map((r) => [keyOf(r), r]));
        let z = buildZoneSnapshot(ORIGIN, [soa(ORIGIN, 1), ...records.values()]);
        expect(indexesOf(z)).toEqual(expectedIndexes(records));
        const history: [ZoneSnapshot, ReturnType<typeof indexesOf>][] = [[z, indexesOf(z)]];
        for (const [i, changes] of steps.entries()) {
          const removed = new Map<string, ZoneRecord>();
          const added = new Map<string, ZoneRecord>();
          for (const { remove, record: r, pick } of changes) {
            const present = [...records.values()].filter((p) => !removed.has(keyOf(p)));
            if (remove && present.length > 0) {
              const gone = present[pick % present.length]!;
              if (added.has(keyOf(gone))) continue;
              removed.set(keyOf(gone), gone);
            } else if (!records.has(keyOf(r))) added.set(keyOf(r), r);
          }
          for (const k of removed.keys()) records.delete(k);
          for (const [k, r] of added) records.set(k, r);
          z = applyZoneDiff(z, diff(ORIGIN, 1 + i, [...removed.values()], [...added.values()]));
          const expected = expectedIndexes(records);
          expect(indexesOf(z)).toEqual(expected);
          // The neighbour of a random name, against a scan of the sorted owners.
          const before = expected.owners.filter((o) => referenceCanonicalOrder(o, probe) < 0).at(-1) ?? expected.owners.at(-1);
          expect(z.previousOwner(probe)).toBe(before);
          history.push([z, expected]);
        }
        for (const [snapshot, indexes] of history) expect(indexesOf(snapshot)).toEqual(indexes);
      }),
      { numRuns: 150 },
    );
  });
});
