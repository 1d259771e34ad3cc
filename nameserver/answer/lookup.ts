// The answer logic of the authoritative server: a pure lookup in the zone store that returns what
// it found — a result kind and the records for each section — and nothing else. Flags and rcode
// are set by a separate small step (./answerQuery.ts); I/O and encoding happen elsewhere. The
// algorithm is RFC 1034 §4.3.2 for an authoritative-only server, with RFC 4592 wildcards, RFC 6604
// CNAME chains and RFC 2308 negative answers. With the DO bit (RFC 3225) RRSIGs follow the RRsets
// they cover, and in a signed zone the NSEC or NSEC3 records proving what is not there go in the
// authority section (./denial.ts, RFC 4035 §3.1, RFC 5155 §7.2); without DO, or in an unsigned
// zone, no proof is added and the answer is as before.
import { TYPE, type RRset } from '../types.js';
import { isAtOrBelow, parentName } from '../wire/name.js';
import { namesBelow, wildcardBelow } from '../zone/names.js';
import { isSignatureSet, rrsetAt, signaturesAt, type StoredRRset, type ZoneNode, type ZoneSnapshot } from '../zone/snapshot.js';
import type { ZoneStore } from '../zone/store.js';
import { denialProofs, type DenialProofs } from './denial.js';

/**
 * HIT: the answer is the data asked for (possibly at the end of a CNAME chain).
 * FOLLOW: a CNAME chain that leaves the zone (or loops, or grows too long); the resolver goes on.
 * NODATA: the name exists, the type does not (RFC 2308 §2.2).
 * NXDOMAIN: the name does not exist (RFC 2308 §2.1; after a chain, the rcode of its last step, RFC 6604).
 * DELEG: the name is at or below a zone cut: a referral (RFC 1034 §4.3.2 step 3b).
 * REFUSED: no zone served here encloses the name.
 */
export type ResultKind = 'HIT' | 'FOLLOW' | 'NODATA' | 'NXDOMAIN' | 'DELEG' | 'REFUSED';

export interface LookupResult {
  readonly kind: ResultKind;
  readonly answer: RRset[];
  readonly authority: RRset[];
  readonly additional: RRset[];
  /** DELEG: how many of the first `additional` RRsets are in-domain glue (RFC 9471 §2.1). */
  readonly requiredAdditional?: number;
}

export interface Question {
  /** Any case; compared case-insensitively (RFC 4343). */
  name: string;
  type: number;
}

export interface LookupOptions {
  /** The query's EDNS DO bit (RFC 3225): RRSIGs follow the RRsets they cover. */
  dnssecOk: boolean;
}

/** Names a chain may visit inside one zone before the rest is left to the resolver. */
export const MAX_CNAME_CHAIN = 8;

export function lookup(store: ZoneStore, question: Question, options: LookupOptions): LookupResult {
  const qtype = question.type;
  // Transfers (RFC 5936, RFC 1995) are the server's business and never an answer from here.
  if (qtype === TYPE.AXFR || qtype === TYPE.IXFR) return refused();
  const qname = question.name.toLowerCase();
  let zone = store.find(qname);
  if (!zone) return refused();
  // RFC 4035 §3.1.4.1: DS lives on the parent side of a cut. When the parent is served here too,
  // the parent answers for the child's apex.
  if (qtype === TYPE.DS && qname === zone.origin && qname !== '') zone = store.find(parentName(qname)) ?? zone;
  return lookupInZone(zone, qname, qtype, options.dnssecOk);
}

function lookupInZone(zone: ZoneSnapshot, qname: string, qtype: number, dnssecOk: boolean): LookupResult {
  const answer: RRset[] = [];
  // DO set and the zone signed: NSEC or NSEC3 records prove what the answer says is not there.
  const proofs = dnssecOk ? denialProofs(zone) : null;
  // The proofs that wildcard steps of a CNAME chain need, once there is one (RFC 4035 §3.1.3.3).
  let stepProofs: RRset[] | null = null;
  const visited = new Set<string>();
  for (let name = qname; ; ) {
    visited.add(name);
    const found = locate(zone, name, qtype);
    if (found.at === 'cut') return referral(zone, found.node, answer, dnssecOk, proofs, stepProofs);
    if (found.at === 'nothing') {
      const authority = negativeAuthority(zone, dnssecOk, stepProofs);
      proofs?.nxDomain(authority, name, found.encloser);
      return { kind: 'NXDOMAIN', answer, authority, additional: [] };
    }
    const { node, owner } = found;

    if (qtype === TYPE.ANY) return anyAt(zone, found, answer, dnssecOk, proofs, stepProofs);
    const sets = qtype === TYPE.RRSIG ? node.sets.filter(isSignatureSet) : setsOfType(node, qtype);
    if (sets.length > 0) {
      for (const set of sets) appendWithSignatures(answer, node, set, owner, dnssecOk);
      if (proofs && found.synthesized) proofs.wildcardAnswer((stepProofs ??= []), name, found.encloser);
      return { kind: 'HIT', answer, authority: stepProofs ?? [], additional: additionalFor(zone, sets, dnssecOk, found.synthesized ? null : owner) };
    }

    // RFC 1034 §3.6.2: a CNAME stands for every type the name does not hold itself (RRSIG and NSEC
    // may sit beside it, RFC 4035 §2.5, and answer their own queries above).
    const cname = rrsetAt(node, TYPE.CNAME);
    if (!cname) return noData(zone, found, answer, dnssecOk, proofs, stepProofs);
    appendWithSignatures(answer, node, cname, owner, dnssecOk);
    if (proofs && found.synthesized) proofs.wildcardAnswer((stepProofs ??= []), name, found.encloser);
    const target = cname.targets?.[0];
    // The chain is followed inside this zone only, loop-safe and bounded; the resolver does the rest.
    if (target == null || !isAtOrBelow(target, zone.origin) || visited.has(target) || visited.size >= MAX_CNAME_CHAIN) {
      return { kind: 'FOLLOW', answer, authority: stepProofs ?? [], additional: [] };
    }
    name = target;
  }
}

function setsOfType(node: ZoneNode, type: number): StoredRRset[] {
  const set = rrsetAt(node, type);
  return set ? [set] : [];
}

type Located =
  /** The name itself. */
  | { at: 'name'; node: ZoneNode; owner: string; synthesized: false }
  /** A wildcard standing for the name: `owner` is the name, `node` the wildcard below `encloser`. */
  | Synthesized
  /** A delegation point at or above the name. */
  | { at: 'cut'; node: ZoneNode }
  /** No such name; `encloser` is its closest encloser (RFC 4592 §3.3.1). */
  | { at: 'nothing'; encloser: string };

type Synthesized = { at: 'name'; node: ZoneNode; owner: string; synthesized: true; encloser: string };
type AtName = Extract<Located, { at: 'name' }>;

/**
 * Where `name` lands in the zone. First the delegation points (a small set) are checked on the
 * way down from the apex: at or below a cut the child answers (RFC 1034 §4.3.2 step 3b), glue is
 * occluded — except DS at the cut itself, which is the parent's (RFC 4035 §3.1.4.1). Then the name
 * itself, one lookup. Failing that, every name that exists is stored, empty non-terminals included,
 * so the first ancestor found on the way up is the closest encloser, and only the wildcard right
 * below it can match (RFC 4592 §3.3.1). A name that exists, even empty, is never matched by a wildcard.
 */
function locate(zone: ZoneSnapshot, name: string, qtype: number): Located {
  if (zone.delegationCount > 0) {
    for (const below of namesBelow(name, zone.origin)) {
      if (zone.isDelegation(below) && !(below === name && qtype === TYPE.DS)) return { at: 'cut', node: zone.node(below)! };
    }
  }
  const node = zone.node(name);
  if (node) return { at: 'name', node, owner: name, synthesized: false };
  let encloser = parentName(name);
  // Terminates: the apex exists, and `name` is below it.
  while (!zone.hasName(encloser)) encloser = parentName(encloser);
  const wildcard = zone.node(wildcardBelow(encloser));
  return wildcard ? { at: 'name', node: wildcard, owner: name, synthesized: true, encloser } : { at: 'nothing', encloser };
}

/** The RRset under its owner (the query name for wildcard answers, RFC 4592 §3.3.1). */
function ownedBy(rrset: RRset, owner: string): RRset {
  return rrset.name === owner ? rrset : { ...rrset, name: owner };
}

/** An RRset, then (DO set) the RRSIGs covering it at the same owner (RFC 4035 §3.1.1). */
function appendWithSignatures(out: RRset[], node: ZoneNode, set: StoredRRset, owner: string, dnssecOk: boolean): void {
  out.push(ownedBy(set.rrset, owner));
  if (!dnssecOk) return;
  const signatures = signaturesAt(node, set.rrset.type);
  if (signatures) out.push(ownedBy(signatures.rrset, owner));
}

/**
 * ANY: every RRset at the name, each followed by its RRSIGs when DO is set; RRSIGs are not sets of
 * their own here (RFC 3225 §3: none without DO). No CNAME is followed and no additional section is
 * added. An empty non-terminal answers NODATA.
 */
function anyAt(zone: ZoneSnapshot, found: AtName, answer: RRset[], dnssecOk: boolean, proofs: DenialProofs | null, stepProofs: RRset[] | null): LookupResult {
  const { node, owner } = found;
  for (const set of node.sets) if (!isSignatureSet(set)) appendWithSignatures(answer, node, set, owner, dnssecOk);
  if (answer.length === 0) return noData(zone, found, answer, dnssecOk, proofs, stepProofs);
  if (proofs && found.synthesized) proofs.wildcardAnswer((stepProofs ??= []), owner, found.encloser);
  return { kind: 'HIT', answer, authority: stepProofs ?? [], additional: [] };
}

/**
 * RFC 2308 §3: NXDOMAIN and NODATA carry the SOA in the authority section, with the negative TTL
 * (§5), and its RRSIG when DO is set; then the proofs gathered so far.
 */
function negativeAuthority(zone: ZoneSnapshot, dnssecOk: boolean, stepProofs: RRset[] | null): RRset[] {
  const authority = [zone.negativeSoa];
  if (dnssecOk) {
    const signatures = signaturesAt(zone.apex, TYPE.SOA);
    if (signatures) authority.push({ ...signatures.rrset, ttl: zone.negativeTtl });
    if (stepProofs) authority.push(...stepProofs);
  }
  return authority;
}

/** The name exists (or a wildcard stands for it) without the type: RFC 2308 §2.2, with its proof. */
function noData(zone: ZoneSnapshot, found: AtName, answer: RRset[], dnssecOk: boolean, proofs: DenialProofs | null, stepProofs: RRset[] | null): LookupResult {
  const authority = negativeAuthority(zone, dnssecOk, stepProofs);
  if (proofs) {
    if (found.synthesized) proofs.wildcardNoData(authority, found.owner, found.encloser, found.node.name);
    else proofs.noData(authority, found.owner);
  }
  return { kind: 'NODATA', answer, authority, additional: [] };
}

/**
 * RFC 1034 §4.3.2 step 3b: the cut's NS set in the authority section (with the signed DS set when
 * DO is set, RFC 4035 §3.1.4), and the addresses of its name servers that this zone holds (glue).
 * RFC 9471 §2.1: the glue of in-domain name servers (at or below the cut) is required, so it goes
 * first and is counted; sibling glue (elsewhere in this zone) follows and is optional (§2.2).
 */
function referral(
  zone: ZoneSnapshot,
  cut: ZoneNode,
  answer: RRset[],
  dnssecOk: boolean,
  proofs: DenialProofs | null,
  stepProofs: RRset[] | null,
): LookupResult {
  const ns = rrsetAt(cut, TYPE.NS)!;
  const authority = [ns.rrset];
  const ds = dnssecOk ? rrsetAt(cut, TYPE.DS) : undefined;
  if (ds) appendWithSignatures(authority, cut, ds, cut.name, true);
  // RFC 4035 §3.1.4, RFC 5155 §7.2.7: an unsigned child is proven so by the cut's NSEC or NSEC3,
  // whose type bitmap has NS and no DS.
  else if (proofs) proofs.noData(authority, cut.name);
  if (stepProofs) authority.push(...stepProofs);
  const glue = additionalFor(zone, [ns], dnssecOk);
  const inDomain = glue.filter((rrset) => isAtOrBelow(rrset.name, cut.name));
  const additional = inDomain.length === glue.length ? glue : [...inDomain, ...glue.filter((rrset) => !isAtOrBelow(rrset.name, cut.name))];
  return { kind: 'DELEG', answer, authority, additional, requiredAdditional: inDomain.length };
}

/**
 * RFC 1035 §3.3 (NS, MX) and RFC 2782 (SRV): the A and AAAA records of the targets, when they are
 * names of this zone. NS targets may be glue below a cut; MX and SRV targets must be data this zone
 * answers for. Exact names only: a wildcard does not produce additional data.
 * RFC 9460 §4.1: for SVCB and HTTPS also the target's own SVCB/HTTPS set (an AliasMode chain's next
 * step); a target of "." is the owner itself in ServiceMode (§2.5), `owner` (null when the answer
 * came from a wildcard), and no service at all in AliasMode.
 */
function additionalFor(zone: ZoneSnapshot, sets: readonly StoredRRset[], dnssecOk: boolean, owner: string | null = null): RRset[] {
  const additional: RRset[] = [];
  for (const set of sets) {
    const type = set.rrset.type;
    const serviceBinding = type === TYPE.SVCB || type === TYPE.HTTPS;
    if (type !== TYPE.NS && type !== TYPE.MX && type !== TYPE.SRV && !serviceBinding) continue;
    const seen = new Set<string>();
    const targets = set.targets ?? [];
    for (let i = 0; i < targets.length; i++) {
      let target: string | null = targets[i] ?? null;
      if (serviceBinding && target === '') target = set.rrset.rdatas[i]!.readUInt16BE(0) > 0 ? owner : null;
      if (target === null || seen.has(target) || !isAtOrBelow(target, zone.origin)) continue;
      seen.add(target);
      const node = type === TYPE.NS ? zone.node(target) : authoritativeNode(zone, target);
      if (!node) continue;
      for (const addressType of serviceBinding && target !== owner ? [type, TYPE.A, TYPE.AAAA] : [TYPE.A, TYPE.AAAA]) {
        const addresses = rrsetAt(node, addressType);
        if (addresses) appendWithSignatures(additional, node, addresses, node.name, dnssecOk);
      }
    }
  }
  return additional;
}

function authoritativeNode(zone: ZoneSnapshot, name: string): ZoneNode | undefined {
  const found = locate(zone, name, TYPE.A);
  return found.at === 'name' && !found.synthesized ? found.node : undefined;
}

function refused(): LookupResult {
  return { kind: 'REFUSED', answer: [], authority: [], additional: [] };
}
