// signUpdate against signZone: a zone is signed whole, then changed step by step (names added at
// every depth, emptied, data changed, delegations given and losing DS, glue, the apex); after each
// step the incremental result applied to what was served must be the zone the whole signer makes
// from the same records — the same records and NSEC/NSEC3 chain, a signature for the same RRsets
// by the same keys, every signature valid — and it must touch only a handful of signatures.
import { describe, expect, it } from 'vitest';
import { TYPE, type ZoneRecord } from '../../../nameserver/types.js';
import { isAtOrBelow } from '../../../nameserver/wire/name.js';
import { rdataToData } from '../../../nameserver/wire/rdata.js';
import { typeCode } from '../../../nameserver/wire/rrTypes.js';
import { generateZoneKey, keyTag } from '../../../nameserver/dnssec/keys.js';
import { verifyRRsig } from '../../../nameserver/dnssec/sign.js';
import { type ChainLookup, signUpdate, updateOwners } from '../../../nameserver/dnssec/signUpdate.js';
import { GENERATED, keySets, type SignPolicy, type SigningKeys, signZone } from '../../../nameserver/dnssec/signZone.js';
import { requireTool, runTool, tempFile } from '../../helpers/dnsTools.js';
import { record, zoneFileText } from '../../helpers/zoneText.js';
import { mulberry32 } from '../../helpers/seededRandom.js';

const zone = 'update.test';
const now = Math.floor(Date.now() / 1000);
const policyOf = (denial: SignPolicy['denial']): SignPolicy => ({
  denial,
  window: { inception: now - 3600, expiration: now + 14 * 86400 },
  refreshBefore: now + 7 * 86400,
  dnskeyTtl: 3600,
  cds: 'keys',
});
const keys: SigningKeys = { ksks: [generateZoneKey('ksk')], zsks: [generateZoneKey('zsk')] };

/** A small deterministic generator (mulberry32), so a failing sequence can be replayed by its seed. */
function random(seed: number) {
  const next = mulberry32(seed);
  return { next, pick: <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]! };
}

const soa = (serial: number) =>
  record(zone, 'SOA', { mname: `ns1.${zone}`, rname: `hostmaster.${zone}`, serial, refresh: 7200, retry: 3600, expire: 1209600, minimum: 300 });
const at = (label: string) => `${label}.${zone}`;
const key = (r: ZoneRecord) => `${r.name} ${r.type} ${r.ttl} ${r.rdata.toString('hex')}`;
const covered = (r: ZoneRecord) => {
  const data = rdataToData('RRSIG', r.rdata)!;
  return `${r.name} ${data.type_covered as string} ${data.key_tag as number}`;
};

function startZone(): ZoneRecord[] {
  const records = [soa(1), record(zone, 'NS', { nameserver: at('ns1') }), record(at('ns1'), 'A', { address: '192.0.2.53' })];
  for (let i = 0; i < 40; i++) records.push(record(at(`h${i}`), 'A', { address: `192.0.2.${i + 1}` }));
  records.push(record(at('x.y.deep'), 'TXT', { text: 'deep' }), record(at('*.wild'), 'TXT', { text: 'w' }));
  records.push(record(at('sub'), 'NS', { nameserver: at('ns.sub') }), record(at('ns.sub'), 'A', { address: '192.0.2.99' }));
  return records;
}

/** One random change: the records after it and the names it touched. */
function change(rng: ReturnType<typeof random>, records: ZoneRecord[], serial: number): { records: ZoneRecord[]; touched: string[] } {
  const names = [...new Set(records.map((r) => r.name))].filter((n) => n !== zone);
  const without = (name: string, type?: number) => records.filter((r) => r.name !== name || (type !== undefined && r.type !== type));
  let next: ZoneRecord[];
  let touched: string[];
  const op = rng.pick(['add', 'addDeep', 'remove', 'edit', 'ds', 'glue', 'apex', 'emptyEnt'] as const);
  if (op === 'add' || op === 'addDeep') {
    const label = op === 'add' ? `n${Math.floor(rng.next() * 1e6)}` : `a${Math.floor(rng.next() * 100)}.b${Math.floor(rng.next() * 3)}.c`;
    touched = [at(label)];
    next = [...records, record(at(label), 'AAAA', { address: `2001:db8::${Math.floor(rng.next() * 65535).toString(16)}` })];
  } else if (op === 'remove' || op === 'emptyEnt') {
    const candidates = names.filter((n) => n !== at('ns1') && n !== at('sub') && !isAtOrBelow(n, at('sub')) && (op === 'remove' || n.split('.').length > 3));
    const name = rng.pick(candidates.length > 0 ? candidates : [at('h0')]);
    touched = [name];
    next = without(name);
  } else if (op === 'edit') {
    const name = rng.pick(names.filter((n) => !isAtOrBelow(n, at('sub'))));
    touched = [name];
    next = [...without(name, TYPE.TXT), record(name, 'TXT', { text: `edit ${serial}` })];
  } else if (op === 'ds') {
    touched = [at('sub')];
    const has = records.some((r) => r.name === at('sub') && r.type === TYPE.DS);
    next = has
      ? without(at('sub'), TYPE.DS)
      : [...records, record(at('sub'), 'DS', { key_tag: serial % 65535, algorithm: 13, digest_type: 2, digest: 'cd'.repeat(32) })];
  } else if (op === 'glue') {
    const name = at(`g${serial}.ns.sub`);
    touched = [name];
    next = [...records, record(name, 'A', { address: '192.0.2.100' })];
  } else {
    touched = [zone];
    const has = records.some((r) => r.name === zone && r.type === TYPE.MX);
    next = has ? without(zone, TYPE.MX) : [...records, record(zone, 'MX', { preference: 10, exchange: at('h1') })];
  }
  return { records: [...next.filter((r) => r.type !== TYPE.SOA), soa(serial)], touched };
}

/** The lookups answered from whole zones: what is stored now and what was served. */
function memoryLookup(unsigned: ZoneRecord[], served: ZoneRecord[]): ChainLookup {
  return {
    withDescendants: async (names) => new Set(names.filter((n) => unsigned.some((r) => r.name !== n && isAtOrBelow(r.name, n)))),
    nsec3Predecessors: async (labels, count) => {
      const chain = served
        .filter((r) => r.type === TYPE.NSEC3)
        .map((r) => r.name.split('.', 1)[0]!)
        .sort();
      const preceding = new Map<string, string[]>();
      for (const h of labels) {
        const below = chain.filter((l) => l < h).reverse();
        preceding.set(h, [...below, ...chain.slice().reverse()].slice(0, count));
      }
      const owners = new Set([...preceding.values()].flat().map((l) => `${l}.${zone}`));
      return { preceding, records: served.filter((r) => owners.has(r.name)) };
    },
  };
}

function everySignatureVerifies(signed: readonly ZoneRecord[]): void {
  const dnskeys = signed.filter((r) => r.type === TYPE.DNSKEY).map((r) => r.rdata);
  const sets = new Map<string, { ttl: number; rdatas: Buffer[] }>();
  for (const r of signed) {
    if (r.type === TYPE.RRSIG) continue;
    const k = `${r.name} ${r.type}`;
    sets.set(k, { ttl: r.ttl, rdatas: [...(sets.get(k)?.rdatas ?? []), r.rdata] });
  }
  for (const sig of signed.filter((r) => r.type === TYPE.RRSIG)) {
    const data = rdataToData('RRSIG', sig.rdata)!;
    const type = typeCode(data.type_covered as string)!;
    const set = sets.get(`${sig.name} ${type}`)!;
    expect(
      verifyRRsig({ name: sig.name, type, ttl: set.ttl, rdatas: set.rdatas }, sig.rdata, dnskeys.find((k) => keyTag(k) === data.key_tag)!),
      covered(sig),
    ).toBe(true);
  }
}

/** One change signed by its names: the update (null: to be signed whole) and the served zone with it applied. */
async function signStep(policy: SignPolicy, served: ZoneRecord[], step: { records: ZoneRecord[]; touched: string[] }) {
  const { names, nsec3Owners } = updateOwners(zone, step.touched, policy.denial);
  const read = new Set([...names, ...nsec3Owners]);
  // The key sets are the zone's data to the signer, as the build renders them.
  const data = [...step.records, ...keySets(zone, keys, policy)];
  const update = await signUpdate(
    { zone, keys, policy, touched: step.touched, before: served.filter((r) => read.has(r.name)), after: data.filter((r) => read.has(r.name)) },
    memoryLookup(step.records, served),
  );
  if (!update) return { update, applied: null };
  const gone = new Set(update.removed.map(key));
  return { update, applied: [...data, ...served.filter((r) => GENERATED.has(r.type) && !gone.has(key(r))), ...update.added] };
}

describe.each(['nsec3', 'nsec'] as const)('signUpdate (%s)', (denial) => {
  const policy = policyOf(denial);

  it.each([1, 2, 3])('matches the whole signer over 40 random changes (seed %i)', async (seed) => {
    const rng = random(seed);
    let unsigned = startZone();
    let served = signZone(zone, unsigned, keys, policy);
    let incremental = 0;
    for (let serial = 2; serial <= 41; serial++) {
      const step = change(rng, unsigned, serial);
      const { update, applied } = await signStep(policy, served, step);
      const whole = signZone(zone, step.records, keys, policy, served);
      if (update && applied) {
        incremental++;
        const unsignedOf = (rs: ZoneRecord[]) =>
          rs
            .filter((r) => r.type !== TYPE.RRSIG)
            .map(key)
            .sort();
        expect(unsignedOf(applied), `step ${serial}: ${step.touched.join(' ')}`).toEqual(unsignedOf(whole));
        expect(
          applied
            .filter((r) => r.type === TYPE.RRSIG)
            .map(covered)
            .sort(),
        ).toEqual(
          whole
            .filter((r) => r.type === TYPE.RRSIG)
            .map(covered)
            .sort(),
        );
        everySignatureVerifies(applied);
        // What changed: the touched RRsets, the SOA, a few denial records and their signatures.
        expect(update.added.length, `step ${serial}`).toBeLessThanOrEqual(20);
        served = applied;
      } else {
        served = whole;
      }
      unsigned = step.records;
    }
    // NSEC3 signs every one of these changes incrementally; NSEC only those that keep the chain's names.
    if (denial === 'nsec3') expect(incremental).toBe(40);
    else expect(incremental).toBeGreaterThan(5);
  });

  it('leaves a zone the outside validators accept', async (ctx) => {
    requireTool('ldns-verify-zone', ctx);
    const rng = random(7);
    let unsigned = startZone();
    let served = signZone(zone, unsigned, keys, policy);
    for (let serial = 2; serial <= 21; serial++) {
      const step = change(rng, unsigned, serial);
      served = (await signStep(policy, served, step)).applied ?? signZone(zone, step.records, keys, policy, served);
      unsigned = step.records;
    }
    const file = tempFile(`${zone}.zone`, zoneFileText(served));
    try {
      const result = runTool('ldns-verify-zone', [file.file], { timeoutMs: 60_000 });
      expect(result.status, result.output).toBe(0);
    } finally {
      file.remove();
    }
  });

  it('answers null where a change reaches beyond its names: a new zone cut', async () => {
    const unsigned = startZone();
    const served = signZone(zone, unsigned, keys, policy);
    const after = [
      ...unsigned.filter((r) => r.type !== TYPE.SOA),
      soa(2),
      record(at('h3'), 'NS', { nameserver: 'ns.elsewhere.test' }),
      ...keySets(zone, keys, policy),
    ];
    const { names, nsec3Owners } = updateOwners(zone, [at('h3')], denial);
    const read = new Set([...names, ...nsec3Owners]);
    const update = await signUpdate(
      { zone, keys, policy, touched: [at('h3')], before: served.filter((r) => read.has(r.name)), after: after.filter((r) => read.has(r.name)) },
      memoryLookup(after, served),
    );
    expect(update).toBeNull();
  });
});
