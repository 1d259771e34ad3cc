// Authenticated denial of existence for DO queries to signed zones: which NSEC or NSEC3 records
// (each with its RRSIGs) go in the authority section, so that a validator can prove the answer.
// The zone was signed elsewhere; the records are in the snapshot, found through its canonical-order
// indexes in O(log n). A zone is NSEC3-signed when its apex holds an NSEC3PARAM (RFC 5155 §7.2:
// the server uses the chain those parameters name), NSEC-signed when it holds NSEC records, and
// otherwise unsigned: no proofs (RRSIGs, where there are any, still follow their RRsets).
//
// The proofs, by case (RFC 4035 §3.1.3 for NSEC, RFC 5155 §7.2 for NSEC3):
// - NODATA: the record matching the name (§3.1.3.1; §7.2.3). At an empty non-terminal an NSEC
//   chain has no record of its own: the one covering it, whose next name lies below it, proves it
//   empty; an NSEC3 chain has the ENT's own. DS at a delegation, and a referral to an unsigned
//   child (§3.1.4; §7.2.4, §7.2.7), are NODATA at the cut.
// - NXDOMAIN: NSEC covering the name and NSEC covering the wildcard at the closest encloser
//   (§3.1.3.2); NSEC3 matching the closest encloser, covering the next closer name, covering the
//   wildcard at the closest encloser (§7.2.2).
// - A wildcard answer: NSEC covering the query name; NSEC3 covering the next closer name
//   (§3.1.3.3; §7.2.6). The RRSIG itself is the wildcard's, its labels field tells the validator.
// - A wildcard NODATA: the wildcard answer's proof plus the record matching the wildcard (§3.1.3.4);
//   NSEC3 adds the closest encloser's match (§7.2.5).
// A record serving two roles goes in once. TTLs are as stored: the signer gives NSEC and NSEC3 the
// negative TTL (RFC 4035 §2.3, RFC 5155 §3).
import { TYPE, type RRset } from '../types.js';
import { parentName } from '../wire/name.js';
import { NSEC3_SHA1, nsec3HashLabel } from '../wire/nsec3Hash.js';
import { childTowards, wildcardBelow } from '../zone/names.js';
import { rrsetAt, signaturesAt, type ChainLink, type ZoneSnapshot } from '../zone/snapshot.js';

/** The proofs of one signed zone, appended to an authority section. */
export interface DenialProofs {
  /** The name exists (with data or as an empty non-terminal) but not with the type asked for. */
  noData(out: RRset[], name: string): void;
  /** Nothing at `name` nor at the wildcard below its closest encloser `encloser`. */
  nxDomain(out: RRset[], name: string, encloser: string): void;
  /** `name` was answered from the wildcard below `encloser`: no closer name exists. */
  wildcardAnswer(out: RRset[], name: string, encloser: string): void;
  /** `name` would be answered by `wildcard` (below `encloser`), which lacks the type. */
  wildcardNoData(out: RRset[], name: string, encloser: string, wildcard: string): void;
}

/** The proofs for `zone`, or null when it is unsigned (holds neither NSEC3PARAM nor NSEC). */
export function denialProofs(zone: ZoneSnapshot): DenialProofs | null {
  // The common case first, before any map lookup: an unsigned zone has empty chain indexes.
  if (zone.nsec3Owners.size === 0 && zone.nsecOwners.size === 0) return null;
  let proofs = madeProofs.get(zone);
  if (proofs === undefined) {
    proofs = makeProofs(zone);
    madeProofs.set(zone, proofs);
  }
  return proofs;
}

/** One per snapshot: the NSEC3 parameters read once, the chain records of the zone's own names kept. */
const madeProofs = new WeakMap<ZoneSnapshot, DenialProofs | null>();

function makeProofs(zone: ZoneSnapshot): DenialProofs | null {
  const params = rrsetAt(zone.apex, TYPE.NSEC3PARAM);
  if (params) {
    const chosen = params.rrset.rdatas.map(nsec3Parameters).find((p) => p !== null);
    // An NSEC3PARAM of an unknown hash algorithm names no chain we can search: unsigned for us.
    return chosen && zone.nsec3Owners.size > 0 ? new Nsec3Proofs(zone, chosen.salt, chosen.iterations) : null;
  }
  return zone.nsecOwners.size > 0 ? new NsecProofs(zone) : null;
}

/** RFC 5155 §4.2: hash algorithm (1 octet), flags (1), iterations (2), salt length (1), salt. */
function nsec3Parameters(rdata: Buffer): { salt: Buffer; iterations: number } | null {
  if (rdata.length < 5 || rdata[0] !== NSEC3_SHA1) return null;
  const saltLength = rdata[4]!;
  if (rdata.length !== 5 + saltLength) return null;
  return { iterations: rdata.readUInt16BE(2), salt: Buffer.from(rdata.subarray(5)) };
}

/** The chain record at `link` (type NSEC or NSEC3) and its RRSIGs, unless already in `out`. */
function appendLink(out: RRset[], link: ChainLink | undefined, type: number): void {
  const set = link && rrsetAt(link.node, type);
  // By owner and type: each lookup decodes the node anew, so the same RRset is not the same object.
  if (!set || out.some((r) => r.type === type && r.name === set.rrset.name)) return;
  out.push(set.rrset);
  const signatures = signaturesAt(link.node, type);
  if (signatures) out.push(signatures.rrset);
}

class NsecProofs implements DenialProofs {
  constructor(private readonly zone: ZoneSnapshot) {}

  noData(out: RRset[], name: string): void {
    // Matching for a name with data; covering for an empty non-terminal.
    appendLink(out, this.zone.coveringNsec(name), TYPE.NSEC);
  }

  nxDomain(out: RRset[], name: string, encloser: string): void {
    appendLink(out, this.zone.coveringNsec(name), TYPE.NSEC);
    appendLink(out, this.zone.coveringNsec(wildcardBelow(encloser)), TYPE.NSEC);
  }

  wildcardAnswer(out: RRset[], name: string): void {
    appendLink(out, this.zone.coveringNsec(name), TYPE.NSEC);
  }

  wildcardNoData(out: RRset[], name: string, _encloser: string, wildcard: string): void {
    appendLink(out, this.zone.coveringNsec(name), TYPE.NSEC);
    appendLink(out, this.zone.coveringNsec(wildcard), TYPE.NSEC);
  }
}

/**
 * The chain records of the zone's own names are kept per snapshot: closest enclosers and the
 * wildcards below them recur from query to query (under a flood of random names, the apex and its
 * wildcard every time); query names do not, and are hashed and looked up each time.
 */
const MAX_KNOWN_LINKS = 10_000;

class Nsec3Proofs implements DenialProofs {
  private readonly known = new Map<string, ChainLink | undefined>();

  constructor(
    private readonly zone: ZoneSnapshot,
    private readonly salt: Buffer,
    private readonly iterations: number,
  ) {}

  noData(out: RRset[], name: string): void {
    const link = this.linkOf(name, true);
    if (link?.matches) appendLink(out, link, TYPE.NSEC3);
    // An opted-out delegation has no NSEC3 of its own (RFC 5155 §7.2.4, §7.2.7): the closest
    // provable encloser proof instead.
    else this.closestProvableEncloser(out, name);
  }

  nxDomain(out: RRset[], name: string, encloser: string): void {
    this.closestEncloserProof(out, name, encloser);
    appendLink(out, this.linkOf(wildcardBelow(encloser), true), TYPE.NSEC3);
  }

  wildcardAnswer(out: RRset[], name: string, encloser: string): void {
    appendLink(out, this.linkOf(childTowards(name, encloser), false), TYPE.NSEC3);
  }

  wildcardNoData(out: RRset[], name: string, encloser: string, wildcard: string): void {
    this.closestEncloserProof(out, name, encloser);
    appendLink(out, this.linkOf(wildcard, true), TYPE.NSEC3);
  }

  /** RFC 5155 §7.2.1: the NSEC3 matching the closest encloser and the one covering the next closer name. */
  private closestEncloserProof(out: RRset[], name: string, encloser: string): void {
    appendLink(out, this.linkOf(encloser, true), TYPE.NSEC3);
    appendLink(out, this.linkOf(childTowards(name, encloser), false), TYPE.NSEC3);
  }

  /** The closest ancestor of `name` whose hash has an NSEC3 of its own, and the proof from it (opt-out). */
  private closestProvableEncloser(out: RRset[], name: string): void {
    const origin = this.zone.origin;
    for (let child = name; child !== origin; ) {
      const parent = parentName(child);
      const link = this.linkOf(parent, true);
      if (link?.matches) {
        appendLink(out, link, TYPE.NSEC3);
        appendLink(out, this.linkOf(child, false), TYPE.NSEC3);
        return;
      }
      child = parent;
    }
  }

  /** The NSEC3 matching or covering `name`'s hash; `remember` for names of the zone (bounded), not query names. */
  private linkOf(name: string, remember: boolean): ChainLink | undefined {
    if (remember && this.known.has(name)) return this.known.get(name);
    const link = this.zone.coveringNsec3(nsec3HashLabel(name, this.salt, this.iterations));
    if (remember) {
      if (this.known.size >= MAX_KNOWN_LINKS) this.known.clear();
      this.known.set(name, link);
    }
    return link;
  }
}
