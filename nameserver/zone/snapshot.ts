// A zone as the nameserver answers from it: an immutable snapshot, built once from records or
// derived from the previous snapshot and one diff, and swapped into the zone store in one step.
//
// Shape: one node per name that exists, in a node table (./nodeTable.ts: packed into one buffer,
// with a persistent overlay of later changes) keyed by the owner name. A node holds its RRsets
// (RDATA as given, targets decoded here so that no query decodes RDATA) and the number of names
// with data below it. That count is what makes empty non-terminals exist (RFC 8020, RFC 4592
// §2.2.2): a name with no data stays in the table while something below it holds data, and each
// change adjusts the counts along one path to the apex. Delegation points (NS below the apex) are
// also kept in a set of their own: it is small, so the lookup can check every ancestor of a query
// name against it and then fetch the name itself with one lookup in the large table. NSEC3
// records (and their RRSIGs) live in a second table: their hashed owner names are not names of
// the zone's tree (RFC 5155 §7.1) and must not turn NXDOMAIN into NODATA.
//
// Beside the tables, persistent sorted sets (./persistentSortedSet.ts) keep names in DNSSEC's
// canonical order (RFC 4034 §6.1, ./canonicalOrder.ts): the owners of NSEC records and the owners
// of NSEC3 records, kept with every change, and the owner names of the tree (names that hold
// records; empty non-terminals own nothing), made on first use. The first two let a denial proof
// find the NSEC or NSEC3 that matches or covers a name in O(log n) rather than by walking the zone
// (CoreDNS's `tree.Prev` and Knot's ordered zone tree serve the same purpose); they are empty, and
// cost a diff nothing, in an unsigned zone. No answer needs the third (a signed zone's NSEC owners
// are its owners, less glue): it is for whoever asks — tools, tests, a signer — and once made, later
// versions keep it up to date; until then a diff pays nothing for it.
//
// Because the tables and sets share structure between versions, applyZoneDiff copies only the
// paths it touches: a snapshot that is answering queries is never changed, and a one-record change
// costs the same in a zone of a million records as in one of a hundred.
import { finish } from './steps.js';
import { TYPE, type RRset, type ZoneDiff, type ZoneRecord } from '../types.js';
import { rdataTarget } from '../wire/rdata.js';
import { canonicalOrderBelow, compareCanonical } from './canonicalOrder.js';
import { isAtOrBelow, parentName } from '../wire/name.js';
import { NodeTable, type NodeTableEditor, type StoredRRset, type ZoneNode } from './nodeTable.js';
import { PersistentMap, type MapEditor } from './persistentMap.js';
import { type KeyOrder, PersistentSortedSet, type SortedSetEditor } from './persistentSortedSet.js';
import { RdataError, soaCounters, type SoaCounters, typeCovered } from './rdataFields.js';

/** A zone that cannot be built, or a diff that does not fit the snapshot it is applied to. */
export class ZoneError extends Error {
  override readonly name = 'ZoneError';
}

/**
 * Sets of a node are keyed by type; RRSIGs by SIGNATURES + the type they cover (RFC 4034 §3.1.1),
 * because that is how they are looked up: next to the RRset they sign.
 */
const SIGNATURES = 0x10000;

export type { StoredRRset, ZoneNode } from './nodeTable.js';

export function rrsetAt(node: ZoneNode, type: number): StoredRRset | undefined {
  for (const set of node.sets) if (set.key === type) return set;
  return undefined;
}

/** The RRSIGs at `node` that cover `type` (the type the signer signed), if any. */
export function signaturesAt(node: ZoneNode, type: number): StoredRRset | undefined {
  return rrsetAt(node, SIGNATURES + type);
}

export function isSignatureSet(set: StoredRRset): boolean {
  return set.key >= SIGNATURES;
}

/**
 * Names of a snapshot in canonical order (RFC 4034 §6.1). Searches compare in that order, so the
 * case and the escaping of the name sought do not matter; `has` asks for the exact string.
 */
export type CanonicalNames = Pick<PersistentSortedSet<string>, 'size' | 'has' | 'atOrBefore' | 'before' | 'atOrAfter' | 'after' | 'first' | 'last' | 'values'>;

/** The NSEC or NSEC3 record a denial proof needs for a name, and whether it is the name's own. */
export interface ChainLink {
  /** The node holding the NSEC (or NSEC3) RRset, with its signatures beside it. */
  readonly node: ZoneNode;
  /**
   * True when the node's owner is the name (or hash) sought: the record matches it, a proof that
   * the name exists (and which types it has, RFC 4035 §3.1.3.1, RFC 5155 §7.2.3). False when it
   * covers it: the name lies strictly between the owner and the next name of the chain, a proof
   * that it does not exist (RFC 4035 §3.1.3.2, RFC 5155 §7.2.1).
   */
  readonly matches: boolean;
}

/** What made a snapshot from the one before it: a diff from `fromSerial` that touched `owners`. */
export interface ZoneChanges {
  readonly fromSerial: number;
  /** Every owner name the diff removed or added records at (NSEC3 owners included). */
  readonly owners: ReadonlySet<string>;
}

export interface ZoneSnapshot {
  readonly origin: string;
  /** How this snapshot differs from its predecessor; null for a snapshot built whole. */
  readonly changes: ZoneChanges | null;
  /** SERIAL of the apex SOA. */
  readonly serial: number;
  /** RFC 2308 §5: the TTL of negative answers, min(SOA TTL, SOA MINIMUM). */
  readonly negativeTtl: number;
  readonly recordCount: number;
  /** How many delegation points (names with NS below the apex) the zone holds. */
  readonly delegationCount: number;
  readonly apex: ZoneNode;
  /** The apex SOA RRset. */
  readonly soa: RRset;
  /** The apex SOA with the negative TTL: what NXDOMAIN and NODATA answers carry (RFC 2308 §3). */
  readonly negativeSoa: RRset;
  /** The node of an existing name of the zone's tree (NSEC3 owners excluded), else undefined. */
  node(name: string): ZoneNode | undefined;
  /** Whether `name` exists in the zone's tree (as `node`, without decoding the node). */
  hasName(name: string): boolean;
  /** True for a delegation point: a name below the apex that holds NS. */
  isDelegation(name: string): boolean;
  /** Every record, the SOA first (AXFR order, RFC 5936 §2.2); TTLs are the RRsets' TTLs. */
  records(): IterableIterator<ZoneRecord>;
  /**
   * The names of the tree that own records, in canonical order (the apex first). Empty
   * non-terminals own nothing and NSEC3 owners are not names of the tree, so neither is here; names
   * below a delegation point (glue) are, though an NSEC chain skips them (RFC 4035 §2.3). Made
   * on the first use in a lineage of versions (a sort of every owner), kept by later diffs; no
   * answer uses it, so the query path never waits for it.
   */
  readonly owners: CanonicalNames;
  /** The names that own an NSEC RRset, in canonical order: the zone's NSEC chain. */
  readonly nsecOwners: CanonicalNames;
  /** The owners of NSEC3 RRsets (hash label + origin), in canonical order: the NSEC3 chain. */
  readonly nsec3Owners: CanonicalNames;
  /**
   * The owner name that precedes `name` in canonical order (`name` need not exist); for the apex,
   * or anything before it, the last one: the order wraps around as NSEC chains do (RFC 4034 §4.1.1).
   */
  previousOwner(name: string): string;
  /** The owner name that follows `name` in canonical order; after the last one, the apex. */
  nextOwner(name: string): string;
  /**
   * The NSEC that matches `name` or covers it: the one at the greatest NSEC owner at or before
   * `name` in canonical order; before the first one, the last (whose next name is the apex, RFC
   * 4034 §4.1.1). Undefined when the zone holds no NSEC. O(log n).
   */
  coveringNsec(name: string): ChainLink | undefined;
  /**
   * The NSEC3 that matches or covers the hashed name whose first label is `hashLabel` (base32hex,
   * RFC 5155 §3; either case): the one at the greatest hash at or before it, wrapping around from
   * the first to the last (RFC 5155 §3.1.7: the last record's next hash is the first). Undefined
   * when the zone holds no NSEC3. O(log n).
   */
  coveringNsec3(hashLabel: string): ChainLink | undefined;
}

/**
 * A snapshot's data: the name tree, the NSEC3 owners apart, the set of delegation points, and the
 * canonical-order indexes over the tree's owners, the NSEC owners and the NSEC3 owners.
 */
interface ZoneMaps {
  readonly names: NodeTable;
  readonly hashed: NodeTable;
  readonly cuts: PersistentMap<true>;
  /** Null until first asked for (ownerIndex); then kept by every later diff. */
  readonly owners: PersistentSortedSet<string> | null;
  readonly nsecOwners: PersistentSortedSet<string>;
  readonly nsec3Owners: PersistentSortedSet<string>;
}

/**
 * The order of a zone's indexes. Keys — all at or below the origin — are placed by canonical order
 * of the parts before the origin, refined by the text (two spellings of one name are two keys, as
 * in the hash maps). Searches ask in plain canonical order, so any spelling of a name finds it, and
 * any name may be asked for, inside the zone or not.
 */
interface ZoneOrder extends KeyOrder<string> {
  /** Canonical order for names at or below the origin, spelled so: a cheaper `seek` for them. */
  readonly below: (a: string, b: string) => number;
}

function zoneOrder(origin: string): ZoneOrder {
  const below = canonicalOrderBelow(origin);
  return { compare: (a, b) => below(a, b) || (a < b ? -1 : a > b ? 1 : 0), seek: compareCanonical, below };
}

function emptyMaps(origin: string): ZoneMaps {
  const order = zoneOrder(origin);
  return {
    names: NodeTable.empty,
    hashed: NodeTable.empty,
    cuts: PersistentMap.empty(),
    owners: null,
    nsecOwners: PersistentSortedSet.empty(order),
    nsec3Owners: PersistentSortedSet.empty(order),
  };
}

class Snapshot implements ZoneSnapshot {
  readonly serial: number;
  readonly negativeTtl: number;
  readonly apex: ZoneNode;
  readonly soa: RRset;
  readonly negativeSoa: RRset;

  constructor(
    readonly origin: string,
    readonly maps: ZoneMaps,
    readonly recordCount: number,
    readonly changes: ZoneChanges | null,
  ) {
    const apex = maps.names.get(origin);
    const soa = apex && rrsetAt(apex, TYPE.SOA);
    if (!apex || !soa) throw new ZoneError(`zone "${origin}" has no SOA at its apex`);
    if (soa.rrset.rdatas.length !== 1) throw new ZoneError(`zone "${origin}" has ${soa.rrset.rdatas.length} SOA records at its apex; exactly one is required`);
    const { serial, minimum } = soaCountersOf(origin, soa.rrset.rdatas[0]!);
    // Every query at or below the apex may read it: decoded once and shared, so frozen.
    this.apex = deepFreeze(apex);
    this.soa = soa.rrset;
    this.serial = serial;
    this.negativeTtl = Math.min(soa.rrset.ttl, minimum);
    this.negativeSoa = Object.freeze({ ...soa.rrset, ttl: this.negativeTtl });
    Object.freeze(this);
  }

  get delegationCount(): number {
    return this.maps.cuts.size;
  }

  node(name: string): ZoneNode | undefined {
    return name === this.origin ? this.apex : this.maps.names.get(name);
  }

  hasName(name: string): boolean {
    // The apex first, as node() does: it is where most missing names' closest encloser is.
    return name === this.origin || this.maps.names.has(name);
  }

  isDelegation(name: string): boolean {
    return this.maps.cuts.has(name);
  }

  get owners(): CanonicalNames {
    return ownerIndex(this);
  }

  get nsecOwners(): CanonicalNames {
    return this.maps.nsecOwners;
  }

  get nsec3Owners(): CanonicalNames {
    return this.maps.nsec3Owners;
  }

  previousOwner(name: string): string {
    const owners = ownerIndex(this);
    return (owners.before(name, this.seekFor(name)) ?? owners.last())!;
  }

  nextOwner(name: string): string {
    const owners = ownerIndex(this);
    return (owners.after(name, this.seekFor(name)) ?? owners.first())!;
  }

  coveringNsec(name: string): ChainLink | undefined {
    const owners = this.maps.nsecOwners;
    const seek = this.seekFor(name);
    const owner = owners.atOrBefore(name, seek) ?? owners.last();
    return owner === undefined ? undefined : { node: this.maps.names.get(owner)!, matches: seek(owner, name) === 0 };
  }

  coveringNsec3(hashLabel: string): ChainLink | undefined {
    const hashed = this.origin === '' ? hashLabel : `${hashLabel}.${this.origin}`;
    const owners = this.maps.nsec3Owners;
    const seek = this.seekFor(hashed);
    const owner = owners.atOrBefore(hashed, seek) ?? owners.last();
    return owner === undefined ? undefined : { node: this.maps.hashed.get(owner)!, matches: seek(owner, hashed) === 0 };
  }

  /** The cheaper comparison when `name` is spelled as lying in the zone (the usual case), else the full one. */
  private seekFor(name: string): (a: string, b: string) => number {
    const order = this.maps.nsecOwners.order as ZoneOrder;
    return isAtOrBelow(name, this.origin) ? order.below : order.seek;
  }

  *records(): IterableIterator<ZoneRecord> {
    yield { name: this.origin, type: TYPE.SOA, ttl: this.soa.ttl, rdata: this.soa.rdatas[0]! };
    for (const map of [this.maps.names, this.maps.hashed]) {
      for (const node of map.values()) {
        for (const set of node.sets) {
          if (set.key === TYPE.SOA && node.name === this.origin) continue;
          const { name, type, ttl } = set.rrset;
          for (const rdata of set.rrset.rdatas) yield { name, type, ttl, rdata };
        }
      }
    }
  }
}

function deepFreeze(node: ZoneNode): ZoneNode {
  for (const set of node.sets) {
    Object.freeze(set.rrset.rdatas);
    Object.freeze(set.rrset);
    if (set.ttls) Object.freeze(set.ttls);
    if (set.targets) Object.freeze(set.targets);
    Object.freeze(set);
  }
  Object.freeze(node.sets);
  return Object.freeze(node);
}

/** Owner indexes made on first use, for snapshots whose maps came without one. */
const madeOwnerIndexes = new WeakMap<Snapshot, PersistentSortedSet<string>>();

/**
 * The snapshot's index of owner names: its own, or made now from the name map (a sort of every
 * owner: about a second for a million names, once per lineage of versions — the editor of the next
 * diff takes it over).
 */
function ownerIndex(snapshot: Snapshot): PersistentSortedSet<string> {
  const own = snapshot.maps.owners ?? madeOwnerIndexes.get(snapshot);
  if (own) return own;
  const order = snapshot.maps.nsecOwners.order;
  const owners: string[] = [];
  for (const node of snapshot.maps.names.values()) if (node.sets.length > 0) owners.push(node.name);
  const made = PersistentSortedSet.fromSorted(owners.sort(order.compare), order);
  madeOwnerIndexes.set(snapshot, made);
  return made;
}

function soaCountersOf(origin: string, rdata: Buffer): SoaCounters {
  try {
    return soaCounters(rdata);
  } catch (e) {
    if (e instanceof RdataError) throw new ZoneError(`zone "${origin}": ${e.message}`);
    throw e;
  }
}

/**
 * Builds the snapshot of the zone at `origin` from its records. Throws ZoneError unless there is
 * exactly one SOA, at the apex, and every record lies at or below the origin. Records of one RRset
 * that disagree on the TTL get the lowest (RFC 2181 §5.2 wants one TTL per RRset); duplicate
 * records count once (RFC 2181 §5).
 */
export function buildZoneSnapshot(origin: string, records: readonly ZoneRecord[]): ZoneSnapshot {
  if (origin !== origin.toLowerCase()) throw new ZoneError(`zone name "${origin}" is not lower case`);
  const editor = new ZoneEditor(ownString(origin), emptyMaps(origin), 0);
  editor.load(records);
  return editor.done();
}

/**
 * The snapshot after one diff: `removed` first, then `added`, as IXFR applies them (RFC 1995 §4),
 * SOA included — the diff removes the old SOA record and adds the new one. `snapshot` stays
 * unchanged and keeps answering. Throws ZoneError when the diff starts from another serial, removes
 * a record the zone does not hold, or does not end at `toSerial`; the caller then rebuilds the zone.
 */
export function applyZoneDiff(snapshot: ZoneSnapshot, diff: ZoneDiff): ZoneSnapshot {
  return finish(applyZoneDiffSteps(snapshot, diff));
}

/** applyZoneDiff in steps (nameserver/zone/steps.ts): a version of hundreds of thousands of records takes a second or two. */
export function* applyZoneDiffSteps(snapshot: ZoneSnapshot, diff: ZoneDiff): Generator<void, ZoneSnapshot> {
  if (!(snapshot instanceof Snapshot)) throw new TypeError('applyZoneDiff needs a snapshot made by buildZoneSnapshot');
  if (diff.fromSerial !== snapshot.serial) {
    throw new ZoneError(`diff from serial ${diff.fromSerial} does not apply to "${snapshot.origin}" at serial ${snapshot.serial}`);
  }
  const maps = snapshot.maps.owners === null && madeOwnerIndexes.has(snapshot) ? { ...snapshot.maps, owners: madeOwnerIndexes.get(snapshot)! } : snapshot.maps;
  const editor = new ZoneEditor(snapshot.origin, maps, snapshot.recordCount);
  const owners = yield* editor.apply(diff.removed, diff.added);
  // A large diff (a zone re-signed) is not worth remembering name by name: readers treat it as new.
  const next = editor.done(owners.size <= CHANGES_KEPT ? { fromSerial: diff.fromSerial, owners } : null);
  if (next.serial !== diff.toSerial) {
    throw new ZoneError(`diff to serial ${diff.toSerial} leaves "${snapshot.origin}" at serial ${next.serial} (the diff must replace the SOA record)`);
  }
  return next;
}

/** The most owners a snapshot remembers its diff touched (ZoneChanges). */
const CHANGES_KEPT = 4096;

/** What one diff does to one RRset. */
interface RRsetChange {
  type: number;
  remove: Buffer[];
  add: ZoneRecord[];
}

/** Changes grouped by owner, then by set key. */
type Changes = Map<string, Map<number, RRsetChange>>;

const NO_SETS: readonly StoredRRset[] = Object.freeze([]);

/** NSEC3 records and the RRSIGs covering them are kept apart from the name tree. */
const isHashedKey = (key: number) => key === TYPE.NSEC3 || key === SIGNATURES + TYPE.NSEC3;

/** One batch of changes on top of a snapshot's maps; the snapshot itself is never written. */
class ZoneEditor {
  private names: NodeTableEditor;
  private hashed: NodeTableEditor;
  private readonly cuts: MapEditor<true>;
  /** Null while no version of this lineage has been asked for its owner index. */
  private owners: SortedSetEditor<string> | null;
  private nsecOwners: SortedSetEditor<string>;
  private nsec3Owners: SortedSetEditor<string>;

  constructor(
    private readonly origin: string,
    maps: ZoneMaps,
    private recordCount: number,
  ) {
    this.names = maps.names.edit();
    this.hashed = maps.hashed.edit();
    this.cuts = maps.cuts.edit();
    this.owners = maps.owners?.edit() ?? null;
    this.nsecOwners = maps.nsecOwners.edit();
    this.nsec3Owners = maps.nsec3Owners.edit();
  }

  /** A whole zone into empty maps: each node is made once, each ancestor's count set once. */
  load(records: readonly ZoneRecord[]): void {
    const byOwner = new Map<string, ZoneRecord[]>();
    const hashedByOwner = new Map<string, ZoneRecord[]>();
    for (const record of records) {
      const groups = isHashedKey(this.keyOf(record)) ? hashedByOwner : byOwner;
      const atOwner = groups.get(record.name);
      if (atOwner) atOwner.push(record);
      else groups.set(record.name, [record]);
    }
    // RFC 8020: every ancestor of a name with data exists, empty non-terminals included. Counted
    // first, so that each node is made with its count and packed at once: the zone is never held
    // as a million node objects.
    const below = new Map<string, number>();
    for (const owner of byOwner.keys()) {
      for (let ancestor = owner; ancestor !== this.origin; ) {
        ancestor = parentName(ancestor);
        below.set(ancestor, (below.get(ancestor) ?? 0) + 1);
      }
    }
    const nsecOwners: string[] = [];
    this.names = finish(NodeTable.of(this.treeNodes(byOwner, below, nsecOwners))).edit();
    const nsec3Owners: string[] = [];
    this.hashed = finish(NodeTable.of(this.hashedNodes(hashedByOwner, nsec3Owners))).edit();
    // Sorted once and built bottom-up rather than inserted one by one down the tree. Sorted in
    // place with the index's own comparison: sort keys would be faster on shuffled names but cost
    // about 100 MB for a million, which the process keeps as resident memory after the load.
    const order = this.nsecOwners.order;
    this.nsecOwners = PersistentSortedSet.fromSorted(nsecOwners.sort(order.compare), order).edit();
    this.nsec3Owners = PersistentSortedSet.fromSorted(nsec3Owners.sort(order.compare), order).edit();
  }

  /** The tree's nodes, each made as it is asked for; notes NSEC owners and delegation points on the way. */
  private *treeNodes(byOwner: Map<string, ZoneRecord[]>, below: Map<string, number>, nsecOwners: string[]): Generator<ZoneNode> {
    for (const [owner, atOwner] of byOwner) {
      const node = this.nodeOf(owner, atOwner, below.get(owner) ?? 0);
      if (rrsetAt(node, TYPE.NSEC)) nsecOwners.push(ownString(owner));
      if (owner !== this.origin && rrsetAt(node, TYPE.NS)) this.cuts.set(owner, true);
      yield node;
    }
    for (const [name, descendants] of below) if (!byOwner.has(name)) yield { name, sets: NO_SETS, descendants };
  }

  private *hashedNodes(byOwner: Map<string, ZoneRecord[]>, nsec3Owners: string[]): Generator<ZoneNode> {
    for (const [owner, atOwner] of byOwner) {
      const node = this.nodeOf(owner, atOwner, 0);
      if (rrsetAt(node, TYPE.NSEC3)) nsec3Owners.push(ownString(owner));
      yield node;
    }
  }

  /** Applies removals, then additions; returns the owners touched. */
  *apply(removed: readonly ZoneRecord[], added: readonly ZoneRecord[]): Generator<void, ReadonlySet<string>> {
    const inTree: Changes = new Map();
    const inHashed: Changes = new Map();
    let n = 0;
    const pause = () => ++n % 1024 === 0;
    for (const record of removed) {
      this.changeOf(record, inTree, inHashed).remove.push(record.rdata);
      if (pause()) yield;
    }
    for (const record of added) {
      this.changeOf(record, inTree, inHashed).add.push(record);
      if (pause()) yield;
    }
    for (const [owner, changes] of inTree) {
      this.applyAt(this.names, owner, changes, true);
      if (pause()) yield;
    }
    for (const [owner, changes] of inHashed) {
      this.applyAt(this.hashed, owner, changes, false);
      if (pause()) yield;
    }
    yield* this.names.compact();
    yield* this.hashed.compact();
    return new Set([...inTree.keys(), ...inHashed.keys()]);
  }

  done(changes: ZoneChanges | null = null): Snapshot {
    const maps: ZoneMaps = {
      names: this.names.done(),
      hashed: this.hashed.done(),
      cuts: this.cuts.done(),
      owners: this.owners?.done() ?? null,
      nsecOwners: this.nsecOwners.done(),
      nsec3Owners: this.nsec3Owners.done(),
    };
    return new Snapshot(this.origin, maps, this.recordCount, changes);
  }

  /** Where a record goes in its owner's node; checks that it belongs to this zone. */
  private keyOf(record: ZoneRecord): number {
    const { name, type } = record;
    if (!isAtOrBelow(name, this.origin)) throw new ZoneError(`${name || '.'} is outside zone "${this.origin}"`);
    if (name !== name.toLowerCase()) throw new ZoneError(`owner name "${name}" is not lower case`);
    if (type === TYPE.SOA && name !== this.origin) throw new ZoneError(`SOA at ${name}: only the apex of "${this.origin}" may hold one`);
    return type === TYPE.RRSIG ? SIGNATURES + this.checked(name, () => typeCovered(record.rdata)) : type;
  }

  private nodeOf(owner: string, records: readonly ZoneRecord[], descendants: number): ZoneNode {
    if (records.length === 1) {
      // Most names hold one record: no grouping needed.
      const record = records[0]!;
      const target = rdataTarget(record.type, record.rdata);
      const set: StoredRRset = Object.freeze({
        key: this.keyOf(record),
        rrset: Object.freeze({ name: owner, type: record.type, ttl: record.ttl, rdatas: Object.freeze([record.rdata]) as Buffer[] }),
        ttls: null,
        targets: target === null ? null : Object.freeze([target]),
      });
      this.recordCount++;
      return Object.freeze({ name: owner, sets: Object.freeze([set]), descendants });
    }
    const byKey = new Map<number, ZoneRecord[]>();
    for (const record of records) {
      const key = this.keyOf(record);
      const atKey = byKey.get(key);
      if (atKey) atKey.push(record);
      else byKey.set(key, [record]);
    }
    const sets: StoredRRset[] = [];
    for (const [key, atKey] of byKey) {
      const set = storedRRset(owner, key, atKey[0]!.type, atKey.length === 1 ? [entryOf(atKey[0]!)] : [...withoutDuplicates(atKey.map(entryOf)).values()]);
      this.recordCount += set.rrset.rdatas.length;
      sets.push(set);
    }
    sets.sort((a, b) => a.key - b.key);
    return Object.freeze({ name: owner, sets: Object.freeze(sets), descendants });
  }

  private changeOf(record: ZoneRecord, inTree: Changes, inHashed: Changes): RRsetChange {
    const key = this.keyOf(record);
    const changes = isHashedKey(key) ? inHashed : inTree;
    let atOwner = changes.get(record.name);
    if (!atOwner) changes.set(record.name, (atOwner = new Map()));
    let change = atOwner.get(key);
    if (!change) atOwner.set(key, (change = { type: record.type, remove: [], add: [] }));
    return change;
  }

  private applyAt(map: NodeTableEditor, name: string, changes: Map<number, RRsetChange>, inTree: boolean): void {
    const old = map.get(name);
    const sets = old ? old.sets.slice() : [];
    for (const [key, change] of changes) {
      const at = sets.findIndex((s) => s.key === key);
      const before = at >= 0 ? sets[at] : undefined;
      const after = changedRRset(name, key, change, before);
      this.recordCount += (after?.rrset.rdatas.length ?? 0) - (before?.rrset.rdatas.length ?? 0);
      if (after && before) sets[at] = after;
      else if (before) sets.splice(at, 1);
      else if (after) sets.push(after);
    }
    sets.sort((a, b) => a.key - b.key);
    put(map, name, sets, old?.descendants ?? 0);
    const had = (old?.sets.length ?? 0) > 0;
    if (!inTree) {
      indexBy(this.nsec3Owners, name, hasKey(old?.sets, TYPE.NSEC3), hasKey(sets, TYPE.NSEC3));
      return;
    }
    if (this.owners) indexBy(this.owners, name, had, sets.length > 0);
    indexBy(this.nsecOwners, name, hasKey(old?.sets, TYPE.NSEC), hasKey(sets, TYPE.NSEC));
    if (name === this.origin) return;
    if (had !== sets.length > 0) this.countBelowAncestors(name, sets.length > 0 ? 1 : -1);
    const isCut = sets.some((set) => set.key === TYPE.NS);
    if (isCut && !this.cuts.has(name)) this.cuts.set(name, true);
    else if (!isCut && this.cuts.has(name)) this.cuts.delete(name);
  }

  /** RFC 8020: every ancestor of a name with data exists; keep each ancestor's count up to date. */
  private countBelowAncestors(name: string, delta: 1 | -1): void {
    let ancestor = name;
    do {
      ancestor = parentName(ancestor);
      const node = this.names.get(ancestor);
      put(this.names, ancestor, node?.sets ?? NO_SETS, (node?.descendants ?? 0) + delta);
    } while (ancestor !== this.origin);
  }

  private checked<T>(owner: string, read: () => T): T {
    try {
      return read();
    } catch (e) {
      if (e instanceof RdataError) throw new ZoneError(`${owner || '.'}: ${e.message}`);
      throw e;
    }
  }
}

/**
 * A copy of `name` that holds nothing else: a name read out of a larger text may be a slice that
 * keeps the whole text alive (a zone file's), and the canonical indexes keep their names for as long
 * as the zone is served.
 */
const ownString = (name: string): string => Buffer.from(name, 'utf8').toString('utf8');

const hasKey = (sets: readonly StoredRRset[] | undefined, key: number) => sets !== undefined && sets.some((set) => set.key === key);

/** Keeps `name` in a canonical-order index exactly while it holds what the index is about. */
function indexBy(index: SortedSetEditor<string>, name: string, was: boolean, is: boolean): void {
  if (is && !was) index.add(name);
  else if (was && !is) index.delete(name);
}

function put(map: NodeTableEditor, name: string, sets: readonly StoredRRset[], descendants: number): void {
  if (sets.length === 0 && descendants === 0) map.delete(name);
  else map.set(name, Object.freeze({ name, sets: Object.freeze(sets), descendants }));
}

interface Entry {
  rdata: Buffer;
  ttl: number;
  target: string | null;
}

const entryOf = (record: ZoneRecord): Entry => ({ rdata: record.rdata, ttl: record.ttl, target: rdataTarget(record.type, record.rdata) });

/**
 * Entries keyed by their RDATA octets, in order of arrival: an RRset holds each record once
 * (RFC 2181 §5); a duplicate keeps the lower TTL.
 */
function withoutDuplicates(entries: Iterable<Entry>, into = new Map<string, Entry>()): Map<string, Entry> {
  for (const entry of entries) {
    const id = entry.rdata.toString('latin1');
    const present = into.get(id);
    if (present) into.set(id, { ...present, ttl: Math.min(present.ttl, entry.ttl) });
    else into.set(id, entry);
  }
  return into;
}

/** The RRset after removals, then additions; undefined when nothing is left. */
function changedRRset(owner: string, key: number, change: RRsetChange, before: StoredRRset | undefined): StoredRRset | undefined {
  const entries = new Map<string, Entry>();
  if (before) {
    before.rrset.rdatas.forEach((rdata, i) => {
      entries.set(rdata.toString('latin1'), { rdata, ttl: before.ttls?.[i] ?? before.rrset.ttl, target: before.targets?.[i] ?? null });
    });
  }
  for (const rdata of change.remove) {
    if (!entries.delete(rdata.toString('latin1'))) throw new ZoneError(`${owner || '.'} holds no such type ${change.type} record to remove`);
  }
  withoutDuplicates(change.add.map(entryOf), entries);
  return entries.size === 0 ? undefined : storedRRset(owner, key, change.type, [...entries.values()]);
}

function storedRRset(owner: string, key: number, type: number, entries: readonly Entry[]): StoredRRset {
  const rdatas: Buffer[] = [];
  const ttls: number[] = [];
  const targets: (string | null)[] = [];
  let anyTarget = false;
  let lowest = Infinity;
  let highest = -Infinity;
  for (const entry of entries) {
    rdatas.push(entry.rdata);
    ttls.push(entry.ttl);
    targets.push(entry.target);
    lowest = Math.min(lowest, entry.ttl);
    highest = Math.max(highest, entry.ttl);
    anyTarget ||= entry.target !== null;
  }
  return Object.freeze({
    key,
    rrset: Object.freeze({ name: owner, type, ttl: lowest, rdatas: Object.freeze(rdatas) as Buffer[] }),
    ttls: lowest === highest ? null : Object.freeze(ttls),
    targets: anyTarget ? Object.freeze(targets) : null,
  });
}
