// DNSSEC answers checked by validators nobody here wrote. A zone with every case a denial proof
// has (NXDOMAIN, NODATA, an empty non-terminal, a wildcard, secure and insecure delegations, a
// CNAME) is signed by ldns-signzone, once with NSEC and once with NSEC3 (SHA-1, 0 iterations, no
// salt), loaded into a snapshot and served by our server on a free port. BIND's delv, trusting the
// zone's KSK, must call every answer "fully validated" — positive and negative — and must not for
// a zone whose signature was spoiled or whose proofs are missing. kdig shows the sections' record
// types, the flags (no AD: we are authoritative), and truncation at 512 octets. Where knotd is
// installed it serves the same signed file, and the two servers' sections must be the same.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DnsServer } from '../../nameserver/server.js';
import { TYPE, type ZoneRecord } from '../../nameserver/types.js';
import { typeCode } from '../../nameserver/wire/rrTypes.js';
import { buildZoneSnapshot } from '../../nameserver/zone/snapshot.js';
import { ZoneStore } from '../../nameserver/zone/store.js';
import { requireTool } from '../helpers/dnsTools.js';
import { startKnotPrimary, type KnotPrimary } from '../helpers/knot.js';
import { digQuery, runAsync, type DigResult } from '../helpers/digClient.js';
import { freeDualPort, startTestServer } from '../helpers/fixtureZones.js';
import { delvAnchors, signZone, type SignedZone } from '../helpers/signedZones.js';
import { buildQuery } from '../helpers/tcpClient.js';

const ORIGIN = 'signed.test';
/** 80 characters: five of these fit in 512 octets, their RRSIG does not fit beside them. */
const line80 = (c: string) => c.repeat(80);

const UNSIGNED = `$ORIGIN ${ORIGIN}.
$TTL 3600
@        SOA   ns1 hostmaster 1 7200 3600 1209600 300
@        NS    ns1
@        NS    ns2
@        MX    10 mail
@        TXT   "v=spf1 mx -all"
ns1      A     192.0.2.1
ns2      AAAA  2001:db8::2
mail     A     192.0.2.25
www  300 A     192.0.2.80
www  300 AAAA  2001:db8::80
*.w  300 A     192.0.2.99
*.w  300 TXT   "wild"
x.y.z 300 A    192.0.2.7
secure   NS    ns.secure
ns.secure A    192.0.2.53
insecure NS    ns.insecure
ns.insecure A  192.0.2.54
alias 300 CNAME www
towild 300 CNAME a.w
dangling 300 CNAME nothing
${['a', 'b', 'c', 'd', 'e'].map((c) => `big 300 TXT "${line80(c)}"`).join('\n')}
`;

const tools = ['ldns-keygen', 'ldns-signzone', 'delv', 'kdig', 'knsec3hash'].every((tool) => requireTool(tool) !== null);

async function serve(records: ZoneRecord[]): Promise<DnsServer> {
  const store = new ZoneStore();
  store.set(buildZoneSnapshot(ORIGIN, records));
  return (await startTestServer(store)).server;
}

/** The zone with one byte of www's A signature changed. */
function spoiledSignature(records: ZoneRecord[]): ZoneRecord[] {
  return records.map((r) => {
    if (r.name !== `www.${ORIGIN}` || r.type !== TYPE.RRSIG || r.rdata.readUInt16BE(0) !== TYPE.A) return r;
    const rdata = Buffer.from(r.rdata);
    rdata[rdata.length - 1]! ^= 0x01;
    return { ...r, rdata };
  });
}

/** The zone without its NSEC, NSEC3 and NSEC3PARAM records (and their signatures): no proofs. */
function withoutProofs(records: ZoneRecord[]): ZoneRecord[] {
  const chain = new Set<number>([TYPE.NSEC, TYPE.NSEC3, TYPE.NSEC3PARAM]);
  return records.filter((r) => !chain.has(r.type) && !(r.type === TYPE.RRSIG && chain.has(r.rdata.readUInt16BE(0))));
}

/** The zone as it was before signing: without what the signer added (DS records are the zone's own). */
function unsignedPart(records: ZoneRecord[]): ZoneRecord[] {
  const added = new Set<number>([TYPE.RRSIG, TYPE.NSEC, TYPE.NSEC3, TYPE.NSEC3PARAM, TYPE.DNSKEY]);
  return records.filter((r) => !added.has(r.type));
}

/** Each record's type, RRSIGs as "RRSIG <covered>", once each and sorted. */
const typesOf = (lines: string[]) =>
  [
    ...new Set(
      lines.map((l) =>
        l
          .split(' ')
          .slice(3, l.split(' ')[3] === 'RRSIG' ? 5 : 4)
          .join(' '),
      ),
    ),
  ].sort();
const ofType = (lines: string[], type: string) => lines.filter((l) => l.split(' ')[3] === type);
const owners = (lines: string[]) => lines.map((l) => l.split(' ')[0]!.replace(/\.$/, '').toLowerCase());
/** The types in an NSEC or NSEC3 record's bitmap. */
const bitmapOf = (line: string) => {
  const f = line.split(' ');
  return f[3] === 'NSEC' ? f.slice(5) : f.slice(9);
};

describe.skipIf(!tools).each(['NSEC', 'NSEC3'] as const)('DNSSEC answers from a zone signed with %s by ldns-signzone', (chain) => {
  let zone: SignedZone;
  let server: DnsServer;
  let spoiled: DnsServer;
  let unproven: DnsServer;
  let anchors: string;

  beforeAll(async () => {
    zone = signZone(ORIGIN, UNSIGNED, { nsec3: chain === 'NSEC3', childDs: [`secure.${ORIGIN}`] });
    anchors = delvAnchors(zone);
    [server, spoiled, unproven] = await Promise.all([serve(zone.records), serve(spoiledSignature(zone.records)), serve(withoutProofs(zone.records))]);
  });
  afterAll(async () => {
    await Promise.all([server?.close(), spoiled?.close(), unproven?.close()]);
    zone?.remove();
  });

  const delv = async (port: number, name: string, type: string) => {
    const run = await runAsync('delv', [`@127.0.0.1`, '-p', String(port), '-a', anchors, `+root=${ORIGIN}`, name, type]);
    return run.stdout + run.stderr;
  };
  const kdig = (name: string, type: string, extra: string[] = ['+dnssec']) => digQuery(requireTool('kdig')!, server.port, name, type, extra);
  const nsec3Hash = async (name: string) => (await runAsync('knsec3hash', ['-', '1', '0', name])).stdout.split(' ')[0]!.trim();

  describe('delv validates with the KSK as its only trust anchor', () => {
    it.each([
      ['www', 'A'],
      ['www', 'AAAA'],
      ['', 'MX'],
      ['', 'TXT'],
      ['', 'DNSKEY'],
      ['alias', 'A'],
      ['towild', 'A'],
      ['a.w', 'A'],
      ['b.a.w', 'TXT'],
      ['secure', 'DS'],
    ])('positive: %s %s is fully validated', async (label, type) => {
      const out = await delv(server.port, label ? `${label}.${ORIGIN}` : ORIGIN, type);
      expect(out).toMatch(/^; fully validated$/m);
    });

    it.each([
      ['nx', 'A', 'NXDOMAIN', 'nxdomain'],
      ['a.b.nx', 'A', 'NXDOMAIN below a missing name', 'nxdomain'],
      ['nx.y.z', 'A', 'NXDOMAIN below an empty non-terminal', 'nxdomain'],
      ['www', 'TXT', 'NODATA', 'nxrrset'],
      ['y.z', 'A', 'NODATA at an empty non-terminal', 'nxrrset'],
      ['z', 'AAAA', 'NODATA at an empty non-terminal next to the apex', 'nxrrset'],
      ['a.w', 'MX', 'NODATA from a wildcard', 'nxrrset'],
      ['insecure', 'DS', 'no DS at an insecure delegation', 'nxrrset'],
    ])('negative: %s %s (%s) is fully validated', async (label, type, _what, kind) => {
      const out = await delv(server.port, `${label}.${ORIGIN}`, type);
      expect(out, out).toMatch(/^; negative response, fully validated$/m);
      expect(out).toContain(`ncache ${kind}`);
    });

    // delv reports the chain as a whole: the signed CNAME, then the validated negative answer at
    // its end — which it asks for itself, so the proofs inside our chained answer are checked by
    // kdig and knotd below.
    it.each([
      ['dangling', 'A', 'a CNAME to a missing name', 'nxdomain'],
      ['towild', 'MX', 'a CNAME to a wildcard without the type', 'nxrrset'],
    ])('negative at the end of a CNAME: %s %s (%s) is fully validated', async (label, type, _what, kind) => {
      const out = await delv(server.port, `${label}.${ORIGIN}`, type);
      expect(out, out).toMatch(/^; fully validated$/m);
      expect(out).toMatch(new RegExp(`^${label}\\.${ORIGIN.replace('.', '\\.')}\\.\\s+300\\s+IN\\s+RRSIG\\s+CNAME `, 'm'));
      expect(out).toContain(`ncache ${kind}`);
    });

    it('does not validate a spoiled signature, nor negative answers without their proofs', async () => {
      expect(await delv(spoiled.port, `www.${ORIGIN}`, 'A')).not.toMatch(/fully validated/);
      // The same zone, less its NSEC or NSEC3 chain: the server gives no proof, delv accepts none.
      expect(await delv(unproven.port, `nx.${ORIGIN}`, 'A')).not.toMatch(/fully validated/);
      expect(await delv(unproven.port, `www.${ORIGIN}`, 'TXT')).not.toMatch(/fully validated/);
      expect(await delv(unproven.port, `a.w.${ORIGIN}`, 'A')).not.toMatch(/fully validated/);
    });
  });

  it('without DO answers byte for byte as the same zone unsigned', async () => {
    const plain = await serve(unsignedPart(zone.records));
    try {
      const questions: [string, string][] = [
        ['www', 'A'],
        ['', 'MX'],
        ['', 'NS'],
        ['nx', 'A'],
        ['a.b.nx', 'A'],
        ['www', 'TXT'],
        ['y.z', 'A'],
        ['a.w', 'A'],
        ['a.w', 'MX'],
        ['b.a.w', 'TXT'],
        ['alias', 'A'],
        ['towild', 'A'],
        ['dangling', 'A'],
        ['secure', 'DS'],
        ['insecure', 'DS'],
        ['host.secure', 'A'],
        ['host.insecure', 'A'],
        ['big', 'TXT'],
      ];
      for (const [label, type] of questions) {
        for (const edns of [undefined, 1232, 512]) {
          const query = buildQuery(4711, label ? `${label}.${ORIGIN}` : ORIGIN, typeCode(type)!, { edns });
          const context = { transport: 'udp' as const, remoteAddress: '127.0.0.1' };
          const [signed, unsigned] = [server.handler.handleQuery(query, context), plain.handler.handleQuery(query, context)];
          expect(Buffer.isBuffer(signed) && Buffer.isBuffer(unsigned) && signed.equals(unsigned), `${label} ${type} EDNS ${edns}`).toBe(true);
        }
      }
    } finally {
      await plain.close();
    }
  });

  describe('sections as kdig reads them', () => {
    const noDuplicates = (r: DigResult) => {
      for (const section of [r.answer, r.authority, r.additional]) expect(new Set(section).size).toBe(section.length);
    };
    const proofOwners = async (r: DigResult) => owners(ofType(r.authority, chain));

    it('NXDOMAIN: SOA and the chain records, each signed, no record twice', async () => {
      const r = await kdig(`nx.${ORIGIN}`, 'A');
      expect(r.status).toBe('NXDOMAIN');
      expect(typesOf(r.authority)).toEqual(['RRSIG SOA', `RRSIG ${chain}`, chain, 'SOA'].sort());
      noDuplicates(r);
      const proofs = ofType(r.authority, chain).length;
      // NSEC: the name's cover and the wildcard's; NSEC3: closest encloser, next closer, wildcard (RFC 5155 §7.2.2).
      if (chain === 'NSEC') expect(proofs).toBeGreaterThanOrEqual(1);
      else expect(await proofOwners(r)).toContain(`${await nsec3Hash(ORIGIN)}.${ORIGIN}`);
      expect(ofType(r.authority, 'RRSIG').length).toBe(proofs + 1);
    });

    it('NODATA: the record of the name itself, whose bitmap lacks the type', async () => {
      const r = await kdig(`www.${ORIGIN}`, 'TXT');
      expect(r.status).toBe('NOERROR');
      expect(r.answer).toEqual([]);
      expect(typesOf(r.authority)).toEqual(['RRSIG SOA', `RRSIG ${chain}`, chain, 'SOA'].sort());
      const [proof] = ofType(r.authority, chain);
      expect(ofType(r.authority, chain)).toHaveLength(1);
      expect(owners([proof!])).toEqual([chain === 'NSEC' ? `www.${ORIGIN}` : `${await nsec3Hash(`www.${ORIGIN}`)}.${ORIGIN}`]);
      expect(bitmapOf(proof!)).toEqual(expect.arrayContaining(['A', 'AAAA']));
      expect(bitmapOf(proof!)).not.toContain('TXT');
    });

    it('a CNAME chain ending in NXDOMAIN carries the proof for the target, as the answer for the target itself does', async () => {
      const [chained, direct] = await Promise.all([kdig(`dangling.${ORIGIN}`, 'A'), kdig(`nothing.${ORIGIN}`, 'A')]);
      expect(chained.status).toBe('NXDOMAIN');
      expect(typesOf(chained.answer)).toEqual(['CNAME', 'RRSIG CNAME']);
      expect([...chained.authority].sort()).toEqual([...direct.authority].sort());
    });

    it('a wildcard answer: the wildcard RRset and RRSIG under the query name, one chain record in authority', async () => {
      const r = await kdig(`a.w.${ORIGIN}`, 'A');
      expect(typesOf(r.answer)).toEqual(['A', 'RRSIG A']);
      expect(owners(r.answer)).toEqual([`a.w.${ORIGIN}`, `a.w.${ORIGIN}`]);
      expect(typesOf(r.authority)).toEqual([`RRSIG ${chain}`, chain].sort());
      expect(ofType(r.authority, chain)).toHaveLength(1);
    });

    it('a referral to an insecure delegation proves there is no DS; a secure one carries the signed DS', async () => {
      const insecure = await kdig(`host.insecure.${ORIGIN}`, 'A');
      expect(insecure.flags).not.toContain('aa');
      expect(typesOf(insecure.authority)).toEqual(['NS', `RRSIG ${chain}`, chain].sort());
      const [proof] = ofType(insecure.authority, chain);
      expect(owners([proof!])).toEqual([chain === 'NSEC' ? `insecure.${ORIGIN}` : `${await nsec3Hash(`insecure.${ORIGIN}`)}.${ORIGIN}`]);
      expect(bitmapOf(proof!)).toContain('NS');
      expect(bitmapOf(proof!)).not.toContain('DS');
      expect(owners(insecure.additional)).toEqual([`ns.insecure.${ORIGIN}`]);

      const secure = await kdig(`host.secure.${ORIGIN}`, 'A');
      expect(typesOf(secure.authority)).toEqual(['DS', 'NS', 'RRSIG DS']);
      expect(owners(secure.additional)).toEqual([`ns.secure.${ORIGIN}`]);
    });

    it('without DO: no RRSIG, NSEC or NSEC3 anywhere', async () => {
      for (const [name, type] of [
        [`nx.${ORIGIN}`, 'A'],
        [`www.${ORIGIN}`, 'TXT'],
        [`a.w.${ORIGIN}`, 'A'],
        [`host.insecure.${ORIGIN}`, 'A'],
      ] as const) {
        const r = await kdig(name, type, []);
        for (const section of [r.answer, r.authority, r.additional]) for (const t of typesOf(section)) expect(t).toMatch(/^(A|NS|SOA)$/);
      }
    });

    it('never sets AD (RFC 4035 §3.1.6), even when asked to; echoes CD', async () => {
      const asked = await kdig(`www.${ORIGIN}`, 'A', ['+dnssec', '+adflag', '+cdflag']);
      expect(asked.flags).toContain('aa');
      expect(asked.flags).not.toContain('ad');
      expect(asked.flags).toContain('cd');
    });

    it('truncates at 512 octets rather than send an RRset without its RRSIG; TCP gets it all', async () => {
      const tcp = await kdig(`big.${ORIGIN}`, 'TXT', ['+dnssec', '+tcp']);
      expect(typesOf(tcp.answer)).toEqual(['RRSIG TXT', 'TXT']);
      expect(ofType(tcp.answer, 'TXT')).toHaveLength(5);
      const unsignedFits = await kdig(`big.${ORIGIN}`, 'TXT', ['+bufsize=512', '+ignore']);
      expect(unsignedFits.flags).not.toContain('tc');
      expect(ofType(unsignedFits.answer, 'TXT')).toHaveLength(5);
      const udp = await kdig(`big.${ORIGIN}`, 'TXT', ['+dnssec', '+bufsize=512', '+ignore']);
      expect(udp.flags).toContain('tc');
    });

    it('truncates a negative answer whose proofs do not fit in 512 octets', async () => {
      const tcp = await digQuery(requireTool('kdig')!, server.port, `nx.${ORIGIN}`, 'A', ['+dnssec', '+tcp']);
      const size = Number(/Received (\d+) B/.exec(tcp.output)?.[1]);
      const udp = await kdig(`nx.${ORIGIN}`, 'A', ['+dnssec', '+bufsize=512', '+ignore']);
      // NSEC's two proofs may fit; NSEC3's three do not. Either way TC says exactly whether all fit.
      expect(udp.flags.includes('tc')).toBe(size > 512);
      if (size > 512) expect(ofType(udp.authority, chain).length).toBeLessThan(ofType(tcp.authority, chain).length);
      else expect(udp.authority).toEqual(tcp.authority);
    });
  });

  describe.skipIf(!requireTool('knotd'))('the same signed file served by knotd', () => {
    let knot: KnotPrimary;

    beforeAll(async () => {
      knot = await startKnotPrimary({ port: freeDualPort, zones: [{ origin: ORIGIN, text: zone.text }] });
      // knotd loads the zone after it starts listening.
      for (let i = 0; i < 50; i++) {
        const soa = await digQuery(requireTool('kdig')!, knot.port, ORIGIN, 'SOA');
        if (soa.status === 'NOERROR') return;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`knotd did not load the zone:\n${knot.log()}`);
    });
    afterAll(() => knot?.close());

    // ANY (Knot answers minimally, RFC 8482) and RRSIG queries (Knot gives one) differ by design.
    it.each([
      ['www', 'A'],
      ['', 'MX'],
      ['', 'NS'],
      ['', 'DNSKEY'],
      ['alias', 'A'],
      ['nx', 'A'],
      ['a.b.nx', 'A'],
      ['nx.y.z', 'A'],
      ['www', 'TXT'],
      ['y.z', 'A'],
      ['z', 'AAAA'],
      ['a.w', 'A'],
      ['b.a.w', 'TXT'],
      ['a.w', 'MX'],
      ['secure', 'DS'],
      ['insecure', 'DS'],
      ['host.secure', 'A'],
      ['host.insecure', 'A'],
      ['zzz', 'A'],
      ['0', 'A'],
      ['towild', 'A'],
      ['towild', 'MX'],
      ['dangling', 'A'],
    ])('%s %s: the same records in each section', async (label, type) => {
      const name = label ? `${label}.${ORIGIN}` : ORIGIN;
      const [ours, theirs] = await Promise.all([
        digQuery(requireTool('kdig')!, server.port, name, type, ['+dnssec']),
        digQuery(requireTool('kdig')!, knot.port, name, type, ['+dnssec']),
      ]);
      const sections = (r: DigResult) => ({
        status: r.status,
        flags: r.flags,
        answer: [...r.answer].sort(),
        authority: [...r.authority].sort(),
        additional: [...r.additional].sort(),
      });
      expect(sections(ours)).toEqual(sections(theirs));
    });
  });
});

// BIND's opt-out leaves unsigned delegations out of the NSEC3 chain (RFC 5155 §6): the proof that
// such a delegation has no DS is then the closest provable encloser's (§7.2.4, §7.2.7).
describe.skipIf(!tools || !requireTool('dnssec-signzone') || !requireTool('ldns-read-zone'))('NSEC3 with opt-out, signed by dnssec-signzone', () => {
  let zone: SignedZone;
  let server: DnsServer;
  let anchors: string;

  beforeAll(async () => {
    zone = signZone(ORIGIN, UNSIGNED, { nsec3: true, optOut: true, childDs: [`secure.${ORIGIN}`] });
    anchors = delvAnchors(zone);
    server = await serve(zone.records);
  });
  afterAll(async () => {
    await server?.close();
    zone?.remove();
  });

  const hashOf = async (name: string) => `${(await runAsync('knsec3hash', ['-', '1', '0', name])).stdout.split(' ')[0]!.trim()}.${ORIGIN}`;

  it('the unsigned delegation has no NSEC3 of its own', async () => {
    const insecure = await hashOf(`insecure.${ORIGIN}`);
    expect(zone.records.some((r) => r.name === insecure)).toBe(false);
  });

  it.each([
    [`insecure.${ORIGIN}`, 'DS', /^; negative response, fully validated$/m],
    [`nx.${ORIGIN}`, 'A', /^; negative response, fully validated$/m],
    [`www.${ORIGIN}`, 'TXT', /^; negative response, fully validated$/m],
    [`www.${ORIGIN}`, 'A', /^; fully validated$/m],
  ])('delv: %s %s', async (name, type, expected) => {
    const run = await runAsync('delv', ['@127.0.0.1', '-p', String(server.port), '-a', anchors, `+root=${ORIGIN}`, name, type]);
    expect(run.stdout + run.stderr).toMatch(expected);
  });

  it('a referral to it: the NSEC3 matching the closest provable encloser and the opt-out NSEC3 covering the cut', async () => {
    const r = await digQuery(requireTool('kdig')!, server.port, `host.insecure.${ORIGIN}`, 'A', ['+dnssec']);
    const proofs = ofType(r.authority, 'NSEC3');
    const apex = await hashOf(ORIGIN);
    expect(owners(proofs)).toContain(apex);
    expect(proofs).toHaveLength(2);
    // The other covers the cut's hash: it lies strictly between the record's owner hash and its next
    // one (base32hex keeps the order of the hashes, RFC 5155 §3.3).
    const cut = (await hashOf(`insecure.${ORIGIN}`)).split('.')[0]!;
    const cover = proofs.find((p) => owners([p])[0] !== apex)!;
    const [from, next] = [cover.split(' ')[0]!.split('.')[0]!.toLowerCase(), cover.split(' ')[8]!.toLowerCase()];
    expect(from < cut && cut < next).toBe(true);
    // The flags field of both: opt-out set (RFC 5155 §3.1.2.1).
    for (const p of proofs) expect(p.split(' ')[5]).toBe('1');
    expect(ofType(r.authority, 'RRSIG')).toHaveLength(2);
    expect(ofType(r.authority, 'DS')).toEqual([]);
  });

  describe.skipIf(!requireTool('knotd'))('the same signed file served by knotd', () => {
    let knot: KnotPrimary;
    beforeAll(async () => {
      knot = await startKnotPrimary({ port: freeDualPort, zones: [{ origin: ORIGIN, text: zone.text }] });
      for (let i = 0; i < 50; i++) {
        if ((await digQuery(requireTool('kdig')!, knot.port, ORIGIN, 'SOA')).status === 'NOERROR') return;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`knotd did not load the zone:\n${knot.log()}`);
    });
    afterAll(() => knot?.close());

    it.each([
      ['insecure', 'DS'],
      ['host.insecure', 'A'],
      ['nx', 'A'],
      ['a.w', 'A'],
      ['a.w', 'MX'],
      ['y.z', 'A'],
    ])('%s %s: the same records in each section', async (label, type) => {
      const name = `${label}.${ORIGIN}`;
      const [ours, theirs] = await Promise.all([
        digQuery(requireTool('kdig')!, server.port, name, type, ['+dnssec']),
        digQuery(requireTool('kdig')!, knot.port, name, type, ['+dnssec']),
      ]);
      const sections = (r: DigResult) => ({
        status: r.status,
        flags: r.flags,
        answer: [...r.answer].sort(),
        authority: [...r.authority].sort(),
        additional: [...r.additional].sort(),
      });
      expect(sections(ours)).toEqual(sections(theirs));
    });
  });
});
