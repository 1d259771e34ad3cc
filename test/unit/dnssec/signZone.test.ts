// Whole zones signed by signZone, checked by three validators nobody here wrote (ldns, BIND, Knot)
// for both denial chains and both algorithms; the shape of what is signed and denied; and the
// reuse of earlier signatures, counted.
import { describe, expect, it } from 'vitest';
import { TYPE, type ZoneRecord } from '../../../nameserver/types.js';
import { rdataToData } from '../../../nameserver/wire/rdata.js';
import { typeCode } from '../../../nameserver/wire/rrTypes.js';
import { dnskeyRdata, generateZoneKey, keyTag, type DnssecAlgorithm } from '../../../nameserver/dnssec/keys.js';
import { nsec3HashLabel as nsec3Label } from '../../../nameserver/wire/nsec3Hash.js';
import { verifyRRsig } from '../../../nameserver/dnssec/sign.js';
import { signZone, type SignPolicy, type SigningKeys } from '../../../nameserver/dnssec/signZone.js';
import { requireTool, runTool, tempFile } from '../../helpers/dnsTools.js';
import { record, variedZone, zoneFileText } from '../../helpers/zoneText.js';
import { mulberry32 } from '../../helpers/seededRandom.js';

const zone = 'example.test';
const now = Math.floor(Date.now() / 1000);
const DAY = 86400;
const policyOf = (denial: SignPolicy['denial'], over: Partial<SignPolicy> = {}): SignPolicy => ({
  denial,
  window: { inception: now - 3600, expiration: now + 14 * DAY },
  refreshBefore: now + 7 * DAY,
  dnskeyTtl: 3600,
  cds: 'keys',
  ...over,
});
const keysOf = (algorithm: DnssecAlgorithm): SigningKeys => ({ ksks: [generateZoneKey('ksk', algorithm)], zsks: [generateZoneKey('zsk', algorithm)] });

/** The RRSIGs of a signed zone as "owner TYPE-covered", one per signature. */
const covered = (r: ZoneRecord) => `${r.name} ${rdataToData('RRSIG', r.rdata)!.type_covered as string}`;
const rrsigs = (records: readonly ZoneRecord[]) => records.filter((r) => r.type === TYPE.RRSIG);
/** The RRSIGs of `after` that are (kept) or are not (remade) byte for byte in `before`, as "owner TYPE". */
function partition(before: readonly ZoneRecord[], after: readonly ZoneRecord[], kept: boolean): string[] {
  const old = new Set(rrsigs(before).map((r) => r.rdata.toString('hex')));
  return rrsigs(after)
    .filter((r) => old.has(r.rdata.toString('hex')) === kept)
    .map(covered)
    .sort();
}
const remade = (before: readonly ZoneRecord[], after: readonly ZoneRecord[]) => partition(before, after, false);
const kept = (before: readonly ZoneRecord[], after: readonly ZoneRecord[]) => partition(before, after, true);
const bitmapOf = (r: ZoneRecord, type: 'NSEC' | 'NSEC3') => (rdataToData(type, r.rdata)!.types as string[]).slice().sort();

/** Every RRSIG of `signed` checked with verifyRRsig against the key its tag names. */
function everySignatureVerifies(signed: readonly ZoneRecord[]): void {
  const dnskeys = signed.filter((r) => r.type === TYPE.DNSKEY).map((r) => r.rdata);
  const sets = new Map<string, Buffer[]>();
  const ttls = new Map<string, number>();
  for (const r of signed) {
    if (r.type === TYPE.RRSIG) continue;
    const key = `${r.name} ${r.type}`;
    sets.set(key, [...(sets.get(key) ?? []), r.rdata]);
    ttls.set(key, r.ttl);
  }
  for (const sig of rrsigs(signed)) {
    const data = rdataToData('RRSIG', sig.rdata)!;
    const type = typeCode(data.type_covered as string)!;
    const key = dnskeys.find((k) => keyTag(k) === data.key_tag)!;
    const rdatas = sets.get(`${sig.name} ${type}`)!;
    expect(verifyRRsig({ name: sig.name, type, ttl: ttls.get(`${sig.name} ${type}`)!, rdatas }, sig.rdata, key), covered(sig)).toBe(true);
  }
}

interface Validator {
  tool: string;
  args: (file: string) => string[];
}
const VALIDATORS: Validator[] = [
  { tool: 'ldns-verify-zone', args: (file) => [file] },
  { tool: 'dnssec-verify', args: (file) => ['-o', zone, file] },
  { tool: 'kzonecheck', args: (file) => ['-d', 'on', '-o', zone, file] },
];

function validate(v: Validator, signed: readonly ZoneRecord[]): { status: number | null; output: string } {
  const file = tempFile(`${zone}.zone`, zoneFileText(signed));
  try {
    return runTool(v.tool, v.args(file.file), { timeoutMs: 60_000 });
  } finally {
    file.remove();
  }
}

describe.each([
  ['nsec3', 13],
  ['nsec3', 15],
  ['nsec', 13],
  ['nsec', 15],
] as const)('a varied zone signed with %s and algorithm %i', (denial, algorithm) => {
  const signed = signZone(zone, variedZone(zone), keysOf(algorithm), policyOf(denial));

  it.for(VALIDATORS)('passes $tool', (v, ctx) => {
    const tool = requireTool(v.tool, ctx);
    const run = validate({ ...v, tool }, signed);
    expect(run.status, run.output).toBe(0);
  });

  it('has signatures that verifyRRsig accepts, every one', () => {
    everySignatureVerifies(signed);
  });

  it('signs the authoritative data only: not the NS at a cut, not glue, but the DS', () => {
    const signedSets = new Set(rrsigs(signed).map(covered));
    expect(signedSets.has(`secure.${zone} DS`)).toBe(true);
    expect(signedSets.has(`secure.${zone} NS`)).toBe(false);
    expect(signedSets.has(`insecure.${zone} NS`)).toBe(false);
    expect(signedSets.has(`insecure.${zone} A`)).toBe(false);
    expect(signedSets.has(`ns.insecure.${zone} AAAA`)).toBe(false);
    expect(signedSets.has(`ns.deep.secure.${zone} A`)).toBe(false);
    expect(signedSets.has(`${zone} NS`)).toBe(true);
    // DNSKEY, CDS and CDNSKEY by the KSK only; the rest by the ZSK only.
    const ksk = signed
      .filter((r) => r.type === TYPE.DNSKEY)
      .map((r) => keyTag(r.rdata))
      .find((t) => rrsigs(signed).some((s) => covered(s) === `${zone} DNSKEY` && rdataToData('RRSIG', s.rdata)!.key_tag === t));
    for (const s of rrsigs(signed)) {
      const byKsk = rdataToData('RRSIG', s.rdata)!.key_tag === ksk;
      expect(byKsk, covered(s)).toBe(s.name === zone && /^(DNSKEY|CDS|CDNSKEY)$/.test(rdataToData('RRSIG', s.rdata)!.type_covered as string));
    }
    // RFC 4034 §3.1.3: the wildcard's labels field leaves out the '*'.
    const wildcardSig = rrsigs(signed).find((r) => r.name === `*.wild.${zone}`)!;
    expect(rdataToData('RRSIG', wildcardSig.rdata)!.labels).toBe(3);
  });

  it('publishes the DNSKEY set, CDS and CDNSKEY for the KSK, with the denial TTL of RFC 9077', () => {
    expect(signed.filter((r) => r.type === TYPE.DNSKEY)).toHaveLength(2);
    expect(signed.filter((r) => r.type === TYPE.CDS)).toHaveLength(1);
    expect(signed.filter((r) => r.type === TYPE.CDNSKEY).map((r) => rdataToData('CDNSKEY', r.rdata)!.flags)).toEqual([257]);
    const chain = signed.filter((r) => r.type === (denial === 'nsec' ? TYPE.NSEC : TYPE.NSEC3));
    expect(new Set(chain.map((r) => r.ttl))).toEqual(new Set([300])); // min(SOA TTL 3600, minimum 300)
  });

  if (denial === 'nsec') {
    it('chains the authoritative names and cuts, skipping the empty non-terminal and glue', () => {
      const owners = signed.filter((r) => r.type === TYPE.NSEC).map((r) => r.name);
      expect(owners).toContain(`a.b.c.${zone}`);
      expect(owners).not.toContain(`b.c.${zone}`);
      expect(owners).not.toContain(`ns.insecure.${zone}`);
      expect(owners).not.toContain(`ns.deep.secure.${zone}`);
      const nsecAt = (name: string) => bitmapOf(signed.find((r) => r.type === TYPE.NSEC && r.name === name)!, 'NSEC');
      expect(nsecAt(`insecure.${zone}`)).toEqual(['NS', 'NSEC', 'RRSIG']);
      expect(nsecAt(`secure.${zone}`)).toEqual(['DS', 'NS', 'NSEC', 'RRSIG']);
      expect(nsecAt(`mail.${zone}`)).toEqual(['A', 'AAAA', 'NSEC', 'RRSIG']);
      expect(nsecAt(`every.${zone}`)).toEqual(
        ['CAA', 'CERT', 'HINFO', 'LOC', 'MX', 'NAPTR', 'NSEC', 'PTR', 'RP', 'RRSIG', 'SRV', 'SSHFP', 'TYPE65400', 'URI'].sort(),
      );
    });
  } else {
    it('hashes every authoritative name, cut and empty non-terminal with RFC 9276 parameters', () => {
      const nsec3At = (name: string) => signed.find((r) => r.type === TYPE.NSEC3 && r.name === `${nsec3Label(name, Buffer.alloc(0), 0)}.${zone}`);
      expect(signed.filter((r) => r.type === TYPE.NSEC3PARAM).map((r) => rdataToData('NSEC3PARAM', r.rdata))).toEqual([
        { hash_algorithm: 1, flags: 0, iterations: 0, salt: '' },
      ]);
      expect(bitmapOf(nsec3At(`b.c.${zone}`)!, 'NSEC3')).toEqual([]);
      expect(bitmapOf(nsec3At(`c.${zone}`)!, 'NSEC3')).toEqual([]);
      expect(bitmapOf(nsec3At(`wild.${zone}`)!, 'NSEC3')).toEqual([]);
      expect(bitmapOf(nsec3At(`insecure.${zone}`)!, 'NSEC3')).toEqual(['NS']);
      expect(bitmapOf(nsec3At(`secure.${zone}`)!, 'NSEC3')).toEqual(['DS', 'NS', 'RRSIG']);
      expect(bitmapOf(nsec3At(zone)!, 'NSEC3')).toEqual(['A', 'CDNSKEY', 'CDS', 'DNSKEY', 'MX', 'NS', 'NSEC3PARAM', 'RRSIG', 'SOA', 'TXT'].sort());
      expect(nsec3At(`ns.insecure.${zone}`)).toBeUndefined();
      expect(nsec3At(`deep.secure.${zone}`)).toBeUndefined();
      expect(nsec3At(`ns.deep.secure.${zone}`)).toBeUndefined();
      expect(rdataToData('NSEC3', nsec3At(zone)!.rdata)).toMatchObject({ hash_algorithm: 1, flags: 0, iterations: 0, salt: '' });
    });
  }
});

describe('a signed zone', () => {
  it('with one flipped signature octet fails ldns-verify-zone (the negative control)', (ctx) => {
    const tool = requireTool('ldns-verify-zone', ctx);
    const signed = signZone(zone, variedZone(zone), keysOf(13), policyOf('nsec3'));
    const i = signed.findIndex((r) => r.type === TYPE.RRSIG && r.name === `mail.${zone}`);
    const rdata = Buffer.from(signed[i]!.rdata);
    rdata[rdata.length - 5]! ^= 0x01;
    const tampered = signed.map((r, j) => (j === i ? { ...r, rdata } : r));
    expect(validate({ tool, args: (file) => [file] }, signed).status).toBe(0);
    const run = validate({ tool, args: (file) => [file] }, tampered);
    expect(run.status, run.output).not.toBe(0);
    expect(run.output).toMatch(/mail\.example\.test/);
  });

  // The codecs write every name inside RDATA in lower case, and the signer signs those octets. For
  // the types RFC 4034 §6.2 lists (with RFC 6840 §5.1) the validators lower-case the names before
  // checking, so a zone file with those names re-cased still verifies: our canonical form is
  // theirs. SVCB is not listed (RFC 9460): re-cased, its signature fails, so only the lower-case
  // octets we serve are the ones signed.
  it('verifies with RDATA names re-cased in the types RFC 4034 §6.2 lists, and not in SVCB', (ctx) => {
    const tools = VALIDATORS.map((v) => ({ ...v, tool: requireTool(v.tool, ctx) }));
    const signed = signZone(zone, variedZone(zone), keysOf(13), policyOf('nsec3'));
    const recased = (types: string[]) =>
      zoneFileText(signed)
        .split('\n')
        .map((line) => {
          const fields = line.split(' ');
          if (!types.includes(fields[3]!)) return line;
          return [...fields.slice(0, 4), fields.slice(4).join(' ').replaceAll(`${zone}.`, 'EXAMPLE.Test.')].join(' ');
        })
        .join('\n');
    const listed = recased(['NS', 'SOA', 'MX', 'CNAME', 'PTR', 'SRV', 'RP', 'NAPTR']);
    expect(listed.match(/EXAMPLE\.Test\./g)?.length).toBeGreaterThanOrEqual(10);
    const svcb = recased(['SVCB']);
    expect(svcb).toContain(' SVCB 2 ns1.EXAMPLE.Test. ');
    for (const v of tools) {
      const run = (text: string) => {
        const file = tempFile(`${zone}.zone`, text);
        try {
          return runTool(v.tool, v.args(file.file), { timeoutMs: 60_000 });
        } finally {
          file.remove();
        }
      };
      const ok = run(listed);
      expect(ok.status, `${v.tool}: ${ok.output}`).toBe(0);
      expect(run(svcb).status, v.tool).not.toBe(0);
    }
  });

  it('replaces DNSSEC records in its input and publishes the RFC 8078 delete form when asked', () => {
    const first = signZone(zone, variedZone(zone), keysOf(13), policyOf('nsec'));
    const again = signZone(zone, first, keysOf(15), policyOf('nsec3', { cds: 'delete' }));
    expect(again.filter((r) => r.type === TYPE.NSEC)).toEqual([]);
    expect(new Set(again.filter((r) => r.type === TYPE.DNSKEY).map((r) => r.rdata[3]))).toEqual(new Set([15]));
    expect(again.filter((r) => r.type === TYPE.CDS).map((r) => rdataToData('CDS', r.rdata))).toEqual([
      { key_tag: 0, algorithm: 0, digest_type: 0, digest: '00' },
    ]);
    expect(again.filter((r) => r.type === TYPE.CDNSKEY).map((r) => rdataToData('CDNSKEY', r.rdata))).toEqual([
      { flags: 0, protocol: 3, algorithm: 0, public_key: 'AA==' },
    ]);
    everySignatureVerifies(again);
  });

  it('publishes keys that do not sign and signs with the KSK alone when there is no ZSK', () => {
    const standby = dnskeyRdata(generateZoneKey('zsk'));
    const keys = { ksks: [generateZoneKey('ksk')], zsks: [], publishedOnly: [standby] };
    const signed = signZone(zone, variedZone(zone), keys, policyOf('nsec3', { cds: 'none' }));
    expect(signed.filter((r) => r.type === TYPE.DNSKEY)).toHaveLength(2);
    expect(signed.some((r) => r.type === TYPE.DNSKEY && r.rdata.equals(standby))).toBe(true);
    // A signing key listed as published too is published once.
    const twice = signZone(
      zone,
      variedZone(zone),
      { ...keys, publishedOnly: [...keys.publishedOnly, dnskeyRdata(keys.ksks[0]!)] },
      policyOf('nsec3', { cds: 'none' }),
    );
    expect(twice.filter((r) => r.type === TYPE.DNSKEY)).toHaveLength(2);
    expect(new Set(rrsigs(signed).map((r) => rdataToData('RRSIG', r.rdata)!.key_tag))).toEqual(new Set([keys.ksks[0]!.keyTag]));
    expect(signed.some((r) => r.type === TYPE.CDS || r.type === TYPE.CDNSKEY)).toBe(false);
  });
});

describe.each(['nsec3', 'nsec'] as const)('signing again with the previous output (%s)', (denial) => {
  const keys = keysOf(13);
  const policy = policyOf(denial);
  const v1 = signZone(zone, variedZone(zone, 1), keys, policy);
  /** The zone at serial 2 with `change` applied to its records. */
  const changed = (change: (records: ZoneRecord[]) => ZoneRecord[]) => change(variedZone(zone, 2));

  it('gives the same output for the same input', () => {
    expect(signZone(zone, variedZone(zone, 1), keys, policy, v1)).toEqual(v1);
  });

  it('re-signs only the changed RRset and the SOA when one record changes its data', (ctx) => {
    const records = changed((rs) => rs.map((r) => (r.name === `mail.${zone}` && r.type === TYPE.A ? record(r.name, 'A', { address: '192.0.2.26' }) : r)));
    const v2 = signZone(zone, records, keys, policy, v1);
    expect(remade(v1, v2)).toEqual([`${zone} SOA`, `mail.${zone} A`].sort());
    everySignatureVerifies(v2);
    const tool = requireTool('ldns-verify-zone', ctx);
    const run = validate({ tool, args: (file) => [file] }, v2);
    expect(run.status, run.output).toBe(0);
  });

  it('re-signs a new name, the SOA and the two denial records whose content changed', () => {
    const v2 = signZone(
      zone,
      changed((rs) => [...rs, record(`new.${zone}`, 'A', { address: '192.0.2.99' })]),
      keys,
      policy,
      v1,
    );
    const denialType = denial === 'nsec' ? 'NSEC' : 'NSEC3';
    const got = remade(v1, v2);
    expect(got.filter((c) => !c.endsWith(` ${denialType}`))).toEqual([`${zone} SOA`, `new.${zone} A`].sort());
    // The new name's own NSEC/NSEC3 and its predecessor's, whose next name is now the new one.
    expect(got.filter((c) => c.endsWith(` ${denialType}`))).toHaveLength(2);
    const newOwner = denial === 'nsec' ? `new.${zone}` : `${nsec3Label(`new.${zone}`, Buffer.alloc(0), 0)}.${zone}`;
    expect(got).toContain(`${newOwner} ${denialType}`);
    everySignatureVerifies(v2);
  });

  it('re-signs a set whose TTL changed, though its data did not', () => {
    const v2 = signZone(
      zone,
      changed((rs) => rs.map((r) => (r.name === `mail.${zone}` && r.type === TYPE.AAAA ? { ...r, ttl: 60 } : r))),
      keys,
      policy,
      v1,
    );
    expect(remade(v1, v2)).toEqual([`${zone} SOA`, `mail.${zone} AAAA`].sort());
  });

  it('re-signs everything when the old signatures expire before refreshBefore', () => {
    const v2 = signZone(zone, variedZone(zone, 1), keys, { ...policy, refreshBefore: now + 15 * DAY }, v1);
    expect(kept(v1, v2)).toEqual([]);
    expect(remade(v1, v2)).toHaveLength(rrsigs(v1).length);
  });

  it('re-signs what a replaced ZSK signed, and the DNSKEY set, but keeps nothing of the old ZSK', () => {
    const rolled = { ksks: keys.ksks, zsks: [generateZoneKey('zsk')] };
    const v2 = signZone(zone, variedZone(zone, 1), rolled, policy, v1);
    // Only the CDS and CDNSKEY signatures (KSK, unchanged sets) stand.
    expect(kept(v1, v2)).toEqual([`${zone} CDNSKEY`, `${zone} CDS`]);
    expect(rrsigs(v2).every((r) => [rolled.zsks[0]!.keyTag, keys.ksks[0]!.keyTag].includes(rdataToData('RRSIG', r.rdata)!.key_tag as number))).toBe(true);
  });
});

describe('random zones', () => {
  /** A failing seed can be replayed; each draw is mulberry32's uint32 modulo n. */
  const generator = (seed: number) => {
    const next = mulberry32(seed);
    return (n: number) => (next() * 4294967296) % n;
  };
  const LABELS = ['a', 'b', 'c', 'd', 'e', 'mail', 'www', '-', 'z0', '*', 'x\\.y', '\\200', '\\032'];

  /** 300 names up to four labels deep: A, AAAA and TXT data, wildcards, delegations with and without DS and glue. */
  function randomZone(seed: number): ZoneRecord[] {
    const rnd = generator(seed);
    const records = [
      record(zone, 'SOA', { mname: `ns.${zone}`, rname: `h.${zone}`, serial: 1, refresh: 7200, retry: 3600, expire: 1209600, minimum: 60 }),
      record(zone, 'NS', { nameserver: 'ns.other.test' }),
    ];
    const ttls = new Map<string, number>();
    for (let i = 0; i < 300; i++) {
      const labels = Array.from({ length: 1 + rnd(4) }, () => LABELS[rnd(LABELS.length)]!);
      if (labels.slice(1).includes('*')) continue; // "*" only as the leftmost label
      const name = `${labels.join('.')}.${zone}`;
      const kind = rnd(25);
      if (kind === 0 && labels[0] !== '*') {
        records.push(record(name, 'NS', { nameserver: `ns.${name}` }), record(`ns.${name}`, 'A', { address: '192.0.2.53' }));
        if (rnd(2)) records.push(record(name, 'DS', { key_tag: i, algorithm: 13, digest_type: 2, digest: 'ab'.repeat(32) }));
      } else if (kind === 1) {
        const ttl = ttls.get(name) ?? 100 + rnd(3);
        ttls.set(name, ttl);
        records.push(record(name, 'TXT', { text: `t${i}` }, ttl));
      } else if (kind === 2) {
        records.push(record(name, 'AAAA', { address: `2001:db8::${i.toString(16)}` }));
      } else {
        records.push(record(name, 'A', { address: `192.0.2.${rnd(250)}` }));
      }
    }
    return records;
  }

  it.for(['nsec3', 'nsec'] as const)('signed with %s, pass ldns-verify-zone, dnssec-verify and kzonecheck', (denial, ctx) => {
    const tools = VALIDATORS.map((v) => ({ ...v, tool: requireTool(v.tool, ctx) }));
    for (let round = 0; round < 3; round++) {
      const seed = Math.floor(Math.random() * 2 ** 31);
      const signed = signZone(zone, randomZone(seed), keysOf(13), policyOf(denial));
      for (const v of tools) {
        const run = validate(v, signed);
        expect(run.status, `${v.tool}, seed ${seed}: ${run.output}`).toBe(0);
      }
    }
  });
});
