// A signed zone brought up to date by its changed names only (docs/dnssec.md, "Signing a change"):
// what signZone would make anew for a change, without reading or walking the zone. Given the
// names a change touched, what was served at them, at their ancestors and at the NSEC3 owners of
// those names, and what the zone holds there now, it re-signs the RRsets that changed, the apex
// sets that always change (the SOA), the NSEC or NSEC3 records whose bitmaps change, and — where
// names enter or leave the NSEC3 chain (new names, names emptied, empty non-terminals coming or
// going) — the new or removed NSEC3 records and their predecessors in hash order, found by the
// caller's lookup in the served chain. Pure: the lookup is handed in.
//
// It answers null where a change reaches further than the names it touched, and the caller signs
// the zone whole: a name becoming or ceasing to be a zone cut (every name below changes role), a
// changed denial TTL (every NSEC/NSEC3 changes), and a name entering or leaving an NSEC chain (its
// predecessor in canonical order is not found by a lookup here).
import { TYPE, type ZoneRecord } from '../types.js';
import { decodeBase32Hex, encodeBase32Hex } from '../wire/base32hex.js';
import { decodeUncompressedName, parentName } from '../wire/name.js';
import { finish } from '../zone/steps.js';
import {
  addDenialParameters,
  addRRset,
  checkKeysPublished,
  denialTtlOf,
  GENERATED,
  type NameRole,
  type Nodes,
  nsec3Hash,
  nsec3Owner,
  nsec3Rdata,
  nsec3Types,
  nsecRdata,
  nsecTypes,
  roleOf,
  SignatureReuse,
  type SigningKeys,
  type SignPolicy,
  signNodes,
  unsignedNodes,
} from './signZone.js';

export interface ChainLookup {
  /** Of `names` (absolute, below the apex), those that have a record of the zone strictly below them now. */
  withDescendants(names: string[]): Promise<Set<string>>;
  /**
   * For each NSEC3 hash label (lower-case base32hex), the labels of the `count` served NSEC3
   * records that precede it in hash order, nearest first, wrapping around past the first; and
   * every served record at their owners (the NSEC3 and its RRSIGs).
   */
  nsec3Predecessors(labels: string[], count: number): Promise<{ preceding: Map<string, string[]>; records: ZoneRecord[] }>;
}

export interface SignUpdateInput {
  zone: string;
  keys: SigningKeys;
  policy: SignPolicy;
  /** The names whose records may have changed (absolute); the apex is always one. */
  touched: readonly string[];
  /** What was served at updateOwners(…).names and .nsec3Owners: the zone's records and its DNSSEC records. */
  before: readonly ZoneRecord[];
  /** The zone's unsigned records now at updateOwners(…).names. */
  after: readonly ZoneRecord[];
}

/** The DNSSEC records of the zone to remove and to add. */
export interface SignedUpdate {
  removed: ZoneRecord[];
  added: ZoneRecord[];
}

/**
 * Where the update reads: the touched names, the apex and every name between them (`names`), and
 * for NSEC3 the owners of those names' NSEC3 records (`nsec3Owners`).
 */
export function updateOwners(zone: string, touched: readonly string[], denial: SignPolicy['denial']): { names: string[]; nsec3Owners: string[] } {
  const names = new Set<string>([zone]);
  for (const name of touched) for (let up = name; !names.has(up); up = parentName(up)) names.add(up);
  return { names: [...names], nsec3Owners: denial === 'nsec3' ? [...names].map((n) => nsec3Owner(zone, nsec3Hash(n))) : [] };
}

const labelsOf = (name: string) => (name === '' ? 0 : name.split('.').length);
const recordKey = (r: ZoneRecord) => `${r.name}\u0000${r.type}\u0000${r.ttl}\u0000${r.rdata.toString('hex')}`;

export async function signUpdate(input: SignUpdateInput, lookup: ChainLookup): Promise<SignedUpdate | null> {
  const { zone, keys, policy } = input;
  if (keys.ksks.length === 0) throw new RangeError('signing needs at least one KSK');
  const touched = new Set([zone, ...input.touched]);
  const { names } = updateOwners(zone, [...touched], policy.denial);
  const before = unsignedNodes(zone, input.before);
  const after = unsignedNodes(zone, input.after);
  const denialTtl = denialTtlOf(zone, after);
  if (denialTtl !== denialTtlOf(zone, before)) return null;
  const hasNs = (nodes: Nodes, name: string) => name !== zone && nodes.get(name)?.has(TYPE.NS) === true;
  for (const name of touched) if (hasNs(before, name) !== hasNs(after, name)) return null;
  const roles = new Map<string, NameRole>(names.map((n) => [n, roleOf(zone, n, (m) => hasNs(after, m))]));

  const served = new Map<string, ZoneRecord[]>();
  for (const r of input.before) if (GENERATED.has(r.type)) served.set(r.name, [...(served.get(r.name) ?? []), r]);
  const denialAt = (owner: string, type: number) => served.get(owner)?.find((r) => r.type === type);
  const hashes = new Map(names.map((n) => [n, policy.denial === 'nsec3' ? nsec3Hash(n) : Buffer.alloc(0)]));
  const denialOwner = (name: string) => (policy.denial === 'nsec3' ? nsec3Owner(zone, hashes.get(name)!) : name);
  const denialType = policy.denial === 'nsec3' ? TYPE.NSEC3 : TYPE.NSEC;
  const inBefore = (name: string) => denialAt(denialOwner(name), denialType) !== undefined;
  const hasData = (name: string) => roles.get(name) !== 'glue' && (after.get(name)?.size ?? 0) > 0;

  // Which names are in the chain now: with data, or (NSEC3) with a name in the chain below them.
  const inAfter = new Map<string, boolean>();
  if (policy.denial === 'nsec') {
    for (const name of names) if (hasData(name) !== inBefore(name)) return null;
    for (const name of names) inAfter.set(name, hasData(name));
  } else {
    // A name that was in the chain and keeps no data of its own stays as an empty non-terminal if
    // anything is left below it, which only the zone can say.
    const ask = names.filter((n) => n !== zone && roles.get(n) !== 'glue' && !hasData(n) && inBefore(n));
    const below = ask.length > 0 ? await lookup.withDescendants(ask) : new Set<string>();
    for (const name of [...names].sort((a, b) => labelsOf(b) - labelsOf(a))) {
      const inChain = name === zone || (roles.get(name) !== 'glue' && (hasData(name) || below.has(name) || inAfter.get(name) === true));
      if (inChain) for (let up = name; up !== zone; ) inAfter.set((up = parentName(up)), true);
      inAfter.set(name, inChain || inAfter.get(name) === true);
    }
    for (const name of names) if (roles.get(name) === 'glue') inAfter.set(name, false);
  }

  // Every name read is signed again (unchanged RRsets keep their signatures): its DNSSEC records
  // are then all among those compared.
  const out: Nodes = new Map();
  for (const name of names) {
    const node = after.get(name);
    if (node) out.set(name, new Map(node));
  }
  checkKeysPublished(zone, after, keys);
  addDenialParameters(zone, out, policy, denialTtl);
  const owners = new Set<string>(names);
  let previous = [...input.before];

  if (policy.denial === 'nsec') {
    for (const name of names) {
      if (inAfter.get(name))
        addRRset(out, name, TYPE.NSEC, denialTtl, [nsecRdata(nsecNext(denialAt(name, TYPE.NSEC)!.rdata), nsecTypes(out.get(name)!, roles.get(name)!))]);
    }
  } else {
    const label = (name: string) => encodeBase32Hex(hashes.get(name)!, true);
    /** NSEC3 records to write, by hash label: the next hash and the bitmap. */
    const made = new Map<string, { next: string; types: number[] }>();
    for (const name of names) {
      if (!inAfter.get(name)) continue;
      const old = denialAt(denialOwner(name), TYPE.NSEC3);
      const types = hasData(name) ? nsec3Types(out.get(name)!, roles.get(name)!) : [];
      made.set(label(name), { next: old ? nsec3Next(old.rdata) : '', types });
    }
    const entering = names
      .filter((n) => inAfter.get(n) && !inBefore(n))
      .map(label)
      .sort();
    const leaving = new Map(names.filter((n) => !inAfter.get(n) && inBefore(n)).map((n) => [label(n), nsec3Next(denialAt(denialOwner(n), TYPE.NSEC3)!.rdata)]));
    if (entering.length > 0 || leaving.size > 0) {
      const { preceding, records } = await lookup.nsec3Predecessors([...entering, ...leaving.keys()], leaving.size + 1);
      previous = [...previous, ...records];
      const servedNsec3 = new Map<string, Buffer>();
      for (const r of records) if (r.type === TYPE.NSEC3) servedNsec3.set(r.name.split('.', 1)[0]!, r.rdata);
      /** The successor of a kept NSEC3 in the served chain, past those leaving it. */
      const walk = (from: string) => {
        let next = nsec3Next(servedNsec3.get(from)!);
        for (let i = 0; leaving.has(next) && i <= leaving.size; i++) next = leaving.get(next)!;
        return next;
      };
      /** The first of `candidates` after `from` in the chain's cyclic order. */
      const firstAfter = (from: string, candidates: string[]) =>
        candidates.filter((c) => c > from).sort()[0] ?? candidates.filter((c) => c !== from).sort()[0] ?? from;
      for (const h of [...entering, ...leaving.keys()]) {
        const p = preceding.get(h)?.find((l) => !leaving.has(l));
        // The lookup did not find the chain it should (a zone changed under the build): sign whole.
        if (p === undefined || !servedNsec3.has(p)) return null;
        const successor = walk(p);
        const types = made.get(p)?.types ?? nsec3TypesOf(servedNsec3.get(p)!);
        made.set(p, { next: firstAfter(p, [successor, ...entering]), types });
        if (made.has(h) && !leaving.has(h)) made.set(h, { next: firstAfter(h, [successor, ...entering]), types: made.get(h)!.types });
      }
      for (const h of leaving.keys()) owners.add(nsec3Owner(zone, decodeBase32Hex(h)!));
    }
    for (const [l, { next, types }] of made) {
      const owner = nsec3Owner(zone, decodeBase32Hex(l)!);
      addRRset(out, owner, TYPE.NSEC3, denialTtl, [nsec3Rdata(decodeBase32Hex(next)!, types)]);
      owners.add(owner);
    }
  }
  previous = [...new Map(previous.map((r) => [recordKey(r), r])).values()];

  const signed = finish(signNodes(zone, out, roles, keys, policy, new SignatureReuse(previous, policy.refreshBefore))).filter((r) => GENERATED.has(r.type));
  const old = previous.filter((r) => GENERATED.has(r.type) && owners.has(r.name));
  const oldKeys = new Set(old.map(recordKey));
  const newKeys = new Set(signed.map(recordKey));
  return { removed: old.filter((r) => !newKeys.has(recordKey(r))), added: signed.filter((r) => !oldKeys.has(recordKey(r))) };
}

/** The next owner name an NSEC names, as stored ('' the root). */
const nsecNext = (rdata: Buffer): string => decodeUncompressedName(rdata, 0)!.name;

/** The fields of NSEC3 RDATA after the salt (RFC 5155 §3.2): the next hash's offset and length. */
function nsec3HashField(rdata: Buffer): { at: number; length: number } {
  const saltLength = rdata[4]!;
  return { at: 5 + saltLength + 1, length: rdata[5 + saltLength]! };
}

/** The next hashed owner of NSEC3 RDATA, as a lower-case base32hex label. */
function nsec3Next(rdata: Buffer): string {
  const { at, length } = nsec3HashField(rdata);
  return encodeBase32Hex(rdata.subarray(at, at + length), true);
}

/** The types in the bitmap of NSEC3 RDATA (RFC 4034 §4.1.2 windows). */
function nsec3TypesOf(rdata: Buffer): number[] {
  const { at, length } = nsec3HashField(rdata);
  const types: number[] = [];
  for (let i = at + length; i + 2 <= rdata.length; ) {
    const window = rdata[i]!;
    const octets = rdata[i + 1]!;
    for (let j = 0; j < octets; j++) for (let b = 0; b < 8; b++) if (rdata[i + 2 + j]! & (0x80 >> b)) types.push(window * 256 + j * 8 + b);
    i += 2 + octets;
  }
  return types;
}
