// A whole zone signed in one pass: from the unsigned records to the records a nameserver serves
// (docs/dnssec.md, "Signing"). Pure: keys, policy and the previous output come in, records go out.
//
// What is signed follows RFC 4035 §2.2: every authoritative RRset, where a delegation's NS set and
// everything below a zone cut (glue, occluded data) is not authoritative; the DS set at a cut is.
// Denial of existence is an NSEC chain (RFC 4035 §2.3) or an NSEC3 chain with RFC 9276's
// parameters (SHA-1, no extra iterations, no salt, no opt-out), both with the TTL of RFC 9077.
import { TYPE, type ZoneRecord } from '../types.js';
import { encodeBase32Hex } from '../wire/base32hex.js';
import { isAtOrBelow, parentName } from '../wire/name.js';
import { encodeRdata, rdataToData } from '../wire/rdata.js';
import { compareCanonical } from '../zone/canonicalOrder.js';
import { finish } from '../zone/steps.js';
import { dnskeyRdata, dsRdata, type ZoneKey } from './keys.js';
import { nsec3Digest } from '../wire/nsec3Hash.js';
import { DNSSEC_TYPE_CODES } from '../wire/rrTypes.js';
import { canonicalRdatas, signRRset, type SignatureWindow } from './sign.js';

export interface SignPolicy {
  /** nsec3 (the default): RFC 9276 (SHA-1, 0 iterations, empty salt, no opt-out). */
  denial: 'nsec3' | 'nsec';
  window: SignatureWindow;
  /** Reuse an earlier signature only while it is valid beyond this time (seconds since epoch). */
  refreshBefore: number;
  dnskeyTtl: number;
  /** CDS/CDNSKEY to publish at the apex: 'keys' (RFC 7344, for the KSKs), 'delete' (RFC 8078 delete form), 'none'. */
  cds: 'keys' | 'delete' | 'none';
}

export interface SigningKeys {
  ksks: ZoneKey[];
  /** Empty: the KSKs sign everything (a combined signing key). */
  zsks: ZoneKey[];
  /** DNSKEYs published but not signing (pre-published ZSK, retiring keys) */
  publishedOnly?: Buffer[];
}

/**
 * The types the signer makes: any in the input are dropped and made anew. The key sets (DNSKEY,
 * CDS, CDNSKEY) are not among them: they are the zone's data, made from the keys and the policy
 * by keySets (the build renders them as a record source), and signed by the KSKs like any apex set.
 */
export const GENERATED: ReadonlySet<number> = new Set([TYPE.RRSIG, TYPE.NSEC, TYPE.NSEC3, TYPE.NSEC3PARAM]);
/** The apex sets made from the keys and the policy, not by the signer (keySets). */
const KEY_SET_TYPES: ReadonlySet<number> = new Set([...DNSSEC_TYPE_CODES].filter((t) => !GENERATED.has(t)));
/** Signed by the KSKs at the apex (RFC 6781 §3.1, RFC 7344 §4.1); all else by the ZSKs. */
const KSK_SIGNED: ReadonlySet<number> = new Set([TYPE.DNSKEY, TYPE.CDS, TYPE.CDNSKEY]);

/** RFC 8078 §4: the CDS and CDNSKEY that ask the parent to remove the DS set. */
const DELETE_CDS = encodeRdata('CDS', { key_tag: 0, algorithm: 0, digest_type: 0, digest: '00' });
const DELETE_CDNSKEY = encodeRdata('CDNSKEY', { flags: 0, protocol: 3, algorithm: 0, public_key: 'AA==' });

/** RFC 9276 §3.1: hash 1 (SHA-1), no flags, no iterations, no salt. */
const NSEC3_SALT = Buffer.alloc(0);
const NSEC3_ITERATIONS = 0;
const NSEC3PARAM = encodeRdata('NSEC3PARAM', { hash_algorithm: 1, flags: 0, iterations: NSEC3_ITERATIONS, salt: '-' });

export interface RRsetData {
  ttl: number;
  rdatas: Buffer[];
}
/** owner → type → RRset. */
export type Nodes = Map<string, Map<number, RRsetData>>;

export function addRRset(nodes: Nodes, name: string, type: number, ttl: number, rdatas: Buffer[]): void {
  let node = nodes.get(name);
  if (!node) nodes.set(name, (node = new Map()));
  node.set(type, { ttl, rdatas });
}

/**
 * The complete signed zone for the unsigned `records` of `zone`: those records plus the key sets
 * the keys and policy make (any key sets in `records` are replaced), NSEC3PARAM, the NSEC or NSEC3
 * chain and the RRSIGs, in canonical order. An RRSIG of `previous` is kept instead of made anew
 * while its RRset is unchanged, its key still signs that set and it expires after
 * `policy.refreshBefore`. For callers that hold the keys alone (tests, benches); the build renders
 * the key sets itself and signs with signZoneSteps.
 */
export function signZone(zone: string, records: ZoneRecord[], keys: SigningKeys, policy: SignPolicy, previous?: ZoneRecord[]): ZoneRecord[] {
  const data = [...records.filter((r) => !(r.name === zone && KEY_SET_TYPES.has(r.type))), ...keySets(zone, keys, policy)];
  return finish(signZoneSteps(zone, data, keys, policy, previous));
}

/**
 * The apex key sets of a zone signed with `keys` under `policy`, absolute owners: the DNSKEY set
 * (every key, signing or only published), and CDS/CDNSKEY per policy (RFC 7344 for the KSKs, or
 * RFC 8078's delete form).
 */
export function keySets(zone: string, keys: SigningKeys, policy: Pick<SignPolicy, 'cds' | 'dnskeyTtl'>): ZoneRecord[] {
  const ksks = keys.ksks.map((k) => dnskeyRdata(k));
  const published = [...ksks, ...keys.zsks.map((k) => dnskeyRdata(k)), ...(keys.publishedOnly ?? [])];
  const set = (type: number, rdatas: Buffer[]) => rdatas.map((rdata) => ({ name: zone, type, ttl: policy.dnskeyTtl, rdata }));
  const cds = policy.cds === 'keys' ? ksks.map((k) => dsRdata(zone, k)) : policy.cds === 'delete' ? [DELETE_CDS] : [];
  const cdnskey = policy.cds === 'keys' ? ksks : policy.cds === 'delete' ? [DELETE_CDNSKEY] : [];
  return [
    ...set(
      TYPE.DNSKEY,
      published.filter((k, i) => published.findIndex((o) => o.equals(k)) === i),
    ),
    ...set(TYPE.CDS, cds),
    ...set(TYPE.CDNSKEY, cdnskey),
  ];
}

/**
 * A whole zone signed in steps: `records` hold the zone's data with its key sets (keySets); it
 * pauses (yields) after every few hundred signatures and hashes, so that a caller that serves
 * others meanwhile can hand its thread back between them (signing a large zone whole takes
 * seconds; the build does so, docs/dnssec.md "Signing in the build").
 */
export function* signZoneSteps(
  zone: string,
  records: ZoneRecord[],
  keys: SigningKeys,
  policy: SignPolicy,
  previous?: ZoneRecord[],
  /** false: owners in no particular order (sorting 200,000 owners holds the thread for most of a second). */
  ordered = true,
): Generator<void, ZoneRecord[]> {
  if (keys.ksks.length === 0) throw new RangeError('signing needs at least one KSK');
  const nodes = unsignedNodes(zone, records);
  const denialTtl = denialTtlOf(zone, nodes);
  checkKeysPublished(zone, nodes, keys);
  addDenialParameters(zone, nodes, policy, denialTtl);
  const roles = nameRoles(zone, nodes);
  if (policy.denial === 'nsec') addNsecChain(zone, nodes, roles, denialTtl);
  else yield* addNsec3Chain(zone, nodes, roles, denialTtl);
  yield;
  const reuse = new SignatureReuse(previous, policy.refreshBefore);
  yield;
  return yield* signNodes(zone, nodes, roles, keys, policy, reuse, ordered);
}

/** How many RRsets are signed, or names hashed, between two pauses. */
const STEP = 256;

/** RFC 9077 §3.3: the TTL of NSEC and NSEC3 records, min(SOA TTL, SOA minimum). */
export function denialTtlOf(zone: string, nodes: Nodes): number {
  const apex = nodes.get(zone)?.get(TYPE.SOA);
  if (apex?.rdatas.length !== 1) throw new RangeError(`the zone "${zone}" has no SOA record (or more than one)`);
  const soaMinimum = rdataToData('SOA', apex.rdatas[0]!)?.minimum as number;
  return Math.min(apex.ttl, soaMinimum);
}

/** NSEC3PARAM at the apex where the denial is NSEC3 (RFC 5155 §4), at the denial TTL. */
export function addDenialParameters(zone: string, nodes: Nodes, policy: Pick<SignPolicy, 'denial'>, denialTtl: number): void {
  if (policy.denial === 'nsec3') addRRset(nodes, zone, TYPE.NSEC3PARAM, denialTtl, [NSEC3PARAM]);
}

/** A signing key missing from the apex DNSKEY set would make signatures no resolver can verify: refuse to sign. */
export function checkKeysPublished(zone: string, nodes: Nodes, keys: SigningKeys): void {
  const published = nodes.get(zone)?.get(TYPE.DNSKEY)?.rdatas ?? [];
  for (const key of [...keys.ksks, ...keys.zsks]) {
    const rdata = dnskeyRdata(key);
    if (!published.some((p) => p.equals(rdata))) throw new RangeError(`the DNSKEY set of "${zone}" does not hold the signing key ${key.keyTag}`);
  }
}

/**
 * The records of `nodes` with their RRSIGs, owners in canonical order, then type, then RDATA: one
 * output for one input. Names a role does not name (the NSEC3 owners) are authoritative.
 */
export function* signNodes(
  zone: string,
  nodes: Nodes,
  roles: Map<string, NameRole>,
  keys: SigningKeys,
  policy: SignPolicy,
  reuse: SignatureReuse,
  ordered = true,
): Generator<void, ZoneRecord[]> {
  const zoneSigners = keys.zsks.length > 0 ? keys.zsks : keys.ksks;
  const out: ZoneRecord[] = [];
  const names = ordered ? [...nodes.keys()].sort(compareCanonical) : [...nodes.keys()];
  yield;
  for (const [i, name] of names.entries()) {
    if (i % STEP === STEP - 1) yield;
    const node = nodes.get(name)!;
    const role = roles.get(name) ?? 'authoritative';
    const own: ZoneRecord[] = [];
    for (const [type, set] of node) {
      for (const rdata of set.rdatas) own.push({ name, type, ttl: set.ttl, rdata });
      if (role === 'glue' || (role === 'cut' && type !== TYPE.DS && type !== TYPE.NSEC)) continue;
      const signers = name === zone && KSK_SIGNED.has(type) ? keys.ksks : zoneSigners;
      const rrset = { name, type, ttl: set.ttl, rdatas: set.rdatas };
      const canonical = canonicalRdatas(type, set.rdatas);
      for (const key of signers) {
        const rdata = reuse.find(name, type, set.ttl, canonical, key, signers) ?? signRRset(rrset, key, zone, policy.window);
        own.push({ name, type: TYPE.RRSIG, ttl: set.ttl, rdata });
      }
    }
    out.push(...own.sort((a, b) => a.type - b.type || Buffer.compare(a.rdata, b.rdata)));
  }
  return out;
}

/** The input records grouped into RRsets, the generated types and an apex DS left out. */
export function unsignedNodes(zone: string, records: readonly ZoneRecord[]): Nodes {
  const nodes: Nodes = new Map();
  for (const r of records) {
    if (GENERATED.has(r.type) || (r.type === TYPE.DS && r.name === zone)) continue;
    if (!isAtOrBelow(r.name, zone)) throw new RangeError(`"${r.name}" is not in the zone "${zone}"`);
    let node = nodes.get(r.name);
    if (!node) nodes.set(r.name, (node = new Map()));
    const set = node.get(r.type);
    if (!set) node.set(r.type, { ttl: r.ttl, rdatas: [r.rdata] });
    else if (set.ttl !== r.ttl)
      throw new RangeError(`the RRset ${r.name} type ${r.type} has records with different TTLs (${set.ttl}, ${r.ttl}); RFC 2181 §5.2`);
    else if (!set.rdatas.some((d) => d.equals(r.rdata))) set.rdatas.push(r.rdata);
  }
  return nodes;
}

/** What a name is to the signer: the apex and names in the zone are authoritative; a cut owns the delegation; below a cut is glue. */
export type NameRole = 'authoritative' | 'cut' | 'glue';

function nameRoles(zone: string, nodes: Nodes): Map<string, NameRole> {
  const cuts = new Set<string>();
  for (const [name, node] of nodes) if (name !== zone && node.has(TYPE.NS)) cuts.add(name);
  const isCut = (name: string) => cuts.has(name);
  return new Map([...nodes.keys()].map((name) => [name, cuts.size === 0 ? 'authoritative' : roleOf(zone, name, isCut)]));
}

/** The role of `name`: glue below a cut, a cut where a name other than the apex owns NS, else authoritative. */
export function roleOf(zone: string, name: string, isCut: (name: string) => boolean): NameRole {
  for (let up = name; up !== zone; ) {
    up = parentName(up);
    if (up !== zone && isCut(up)) return 'glue';
  }
  return name !== zone && isCut(name) ? 'cut' : 'authoritative';
}

/** The types an NSEC or NSEC3 lists for the data at a name (without RRSIG and NSEC). */
function ownTypes(node: Map<number, RRsetData>, role: NameRole): number[] {
  if (role !== 'cut') return [...node.keys()];
  return node.has(TYPE.DS) ? [TYPE.NS, TYPE.DS] : [TYPE.NS];
}

/** RFC 4034 §4: one NSEC per authoritative name and cut, in canonical order, the last pointing to the apex. */
function addNsecChain(zone: string, nodes: Nodes, roles: Map<string, NameRole>, ttl: number): void {
  const owners = [...roles]
    .filter(([, role]) => role !== 'glue')
    .map(([name]) => name)
    .sort(compareCanonical);
  owners.forEach((name, i) => {
    const next = owners[(i + 1) % owners.length]!;
    addRRset(nodes, name, TYPE.NSEC, ttl, [nsecRdata(next, nsecTypes(nodes.get(name)!, roles.get(name)!))]);
  });
}

/** The NSEC bitmap of a name in the chain: its types (at a cut NS and DS), RRSIG and NSEC. */
export const nsecTypes = (node: Map<number, RRsetData>, role: NameRole): number[] => [...ownTypes(node, role), TYPE.RRSIG, TYPE.NSEC];
export const nsecRdata = (next: string, types: number[]): Buffer => encodeRdata('NSEC', { next_domain_name: next === '' ? '.' : next, types });

/** The NSEC3 bitmap of a name with data (RFC 5155 §7.1): its types and RRSIG; an insecure cut NS alone. Empty non-terminals have []. */
export function nsec3Types(node: Map<number, RRsetData>, role: NameRole): number[] {
  const types = ownTypes(node, role);
  return role === 'cut' && types.length === 1 ? types : [...types, TYPE.RRSIG];
}

/** NSEC3 RDATA with RFC 9276's parameters. */
export function nsec3Rdata(next: Buffer, types: number[]): Buffer {
  return encodeRdata('NSEC3', { hash_algorithm: 1, flags: 0, iterations: NSEC3_ITERATIONS, salt: '-', next_hashed_owner_name: encodeBase32Hex(next), types });
}

/** The NSEC3 hash of `name` with RFC 9276's parameters. */
export const nsec3Hash = (name: string): Buffer => nsec3Digest(name, NSEC3_SALT, NSEC3_ITERATIONS);
/** The owner of the NSEC3 record whose hash is `hash`. */
export function nsec3Owner(zone: string, hash: Buffer): string {
  const label = encodeBase32Hex(hash).toLowerCase();
  return zone === '' ? label : `${label}.${zone}`;
}

/**
 * RFC 5155 §7.1: one NSEC3 per authoritative name, cut and empty non-terminal (the names between
 * those and the apex that own nothing), hashed, in hash order, the last pointing to the first.
 * Without opt-out every delegation has one; an insecure one lists only NS (§7.1: an unsigned
 * delegation has no RRSIG there).
 */
function* addNsec3Chain(zone: string, nodes: Nodes, roles: Map<string, NameRole>, ttl: number): Generator<void, void> {
  const bitmaps = new Map<string, number[]>();
  for (const [name, role] of roles) if (role !== 'glue') bitmaps.set(name, nsec3Types(nodes.get(name)!, role));
  for (const name of [...bitmaps.keys()]) {
    for (let up = name; up !== zone; ) {
      up = parentName(up);
      if (bitmaps.has(up)) break;
      bitmaps.set(up, []);
    }
  }
  const hashed: { hash: Buffer; types: number[] }[] = [];
  for (const [name, types] of bitmaps) {
    if (hashed.length % (4 * STEP) === 0) yield;
    hashed.push({ hash: nsec3Hash(name), types });
  }
  hashed.sort((a, b) => Buffer.compare(a.hash, b.hash));
  hashed.forEach(({ hash, types }, i) => {
    const next = hashed[(i + 1) % hashed.length]!.hash;
    if (next.equals(hash) && hashed.length > 1) throw new RangeError('two names of the zone have the same NSEC3 hash');
    addRRset(nodes, nsec3Owner(zone, hash), TYPE.NSEC3, ttl, [nsec3Rdata(next, types)]);
  });
}

interface RrsigHead {
  covered: number;
  algorithm: number;
  ttl: number;
  expiration: number;
  keyTag: number;
  rdata: Buffer;
}

/**
 * The fixed fields that open RRSIG RDATA (RFC 4034 §3.1: type covered, algorithm, labels, original
 * TTL, expiration, inception, key tag; nameserver/wire/types/dnssec.ts has the whole codec), read
 * in place: a previous zone holds tens of thousands, and decoding each to data costs more than
 * the comparison they are read for. Null when the RDATA is too short to be an RRSIG.
 */
function rrsigHead(rdata: Buffer): RrsigHead | null {
  if (rdata.length < 18) return null;
  return {
    covered: rdata.readUInt16BE(0),
    algorithm: rdata[2]!,
    ttl: rdata.readUInt32BE(4),
    expiration: rdata.readUInt32BE(8),
    keyTag: rdata.readUInt16BE(16),
    rdata,
  };
}

/**
 * The RRSIGs of the previous output that may stand: found by owner, type covered, algorithm and
 * key tag, kept when the RRset they cover is byte for byte the one to sign now and they stay
 * valid beyond `refreshBefore`.
 */
export class SignatureReuse {
  private readonly sets = new Map<string, RRsetData>();
  private readonly sigs = new Map<string, RrsigHead[]>();
  /** The DNSKEYs the previous output published: a key not among them made none of its signatures. */
  private readonly previousKeys: Buffer[] = [];

  constructor(
    previous: readonly ZoneRecord[] | undefined,
    private readonly refreshBefore: number,
  ) {
    if (!previous) return;
    for (const r of previous) {
      if (r.type === TYPE.RRSIG) {
        const sig = rrsigHead(r.rdata);
        if (!sig) continue;
        const key = `${r.name}\0${sig.covered}`;
        const list = this.sigs.get(key);
        if (list) list.push(sig);
        else this.sigs.set(key, [sig]);
      } else {
        if (r.type === TYPE.DNSKEY) this.previousKeys.push(r.rdata);
        const key = `${r.name}\0${r.type}`;
        const set = this.sets.get(key);
        if (set) set.rdatas.push(r.rdata);
        else this.sets.set(key, { ttl: r.ttl, rdatas: [r.rdata] });
      }
    }
    for (const [key, set] of this.sets) set.rdatas = canonicalRdatas(Number(key.slice(key.indexOf('\0') + 1)), set.rdatas);
  }

  find(name: string, type: number, ttl: number, canonical: readonly Buffer[], key: ZoneKey, signers: readonly ZoneKey[]): Buffer | undefined {
    const sigs = this.sigs.get(`${name}\0${type}`);
    if (!sigs) return undefined;
    const old = this.sets.get(`${name}\0${type}`);
    if (!old || old.ttl !== ttl || old.rdatas.length !== canonical.length || !old.rdatas.every((r, i) => r.equals(canonical[i]!))) return undefined;
    // Two signing keys with one tag and algorithm: an old signature cannot say which one made it.
    if (signers.some((k) => k !== key && k.keyTag === key.keyTag && k.algorithm === key.algorithm)) return undefined;
    if (!this.previousKeys.some((k) => k.subarray(4).equals(key.publicKey))) return undefined;
    return sigs.find((s) => s.algorithm === key.algorithm && s.keyTag === key.keyTag && s.ttl === ttl && s.expiration > this.refreshBefore)?.rdata;
  }
}
