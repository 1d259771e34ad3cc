// The names of a zone and their RRsets, packed: every node encoded into one buffer (the slab) and
// found through an open-addressing hash index of slab offsets. A node as objects — the node, its
// sets, each RRset, the arrays and a Buffer per RDATA — costs about 550 octets for a name holding
// one A record; packed it costs its name, its RDATA and about 30 octets more. Knot and NSD keep a
// zone in C structures for the same reason. A node is decoded into objects when it is asked for: a
// query that misses the response cache pays a few small allocations, which the young generation
// collects cheaply, instead of the zone holding them for as long as it is served.
//
// Versions still share structure: a table is its packed part plus an overlay, a persistent map
// (./persistentMap.ts) of the nodes changed since it was packed (DELETED for names removed). A
// one-record change writes one path of the overlay, whatever the zone's size; when the overlay has
// grown to a fraction of the packed part, the next version repacks in steps (./steps.ts), copying
// unchanged nodes as octets.
//
// Layout of a node in the slab (little-endian):
//   u16 name length, name (ASCII), u32 descendants, u16 set count, then per set:
//   u32 key, u16 type, u32 TTL, u8 flags, u32 record count, then per record:
//   u16 RDATA length, RDATA, [u32 TTL if flags & OWN_TTLS], [u16 target length, target if flags & TARGETS]
// Names and targets are presentation text, which escapes every octet that is not printable ASCII;
// a node whose text is not ASCII all the same stays in the overlay, as objects.
import type { RRset } from '../types.js';
import { FNV_BASIS, fnvStep, PersistentMap, type MapEditor, stringHash } from './persistentMap.js';

/** One RRset of a node, ready to be put into an answer. */
export interface StoredRRset {
  /** The RRset's type, or SIGNATURES + covered type for RRSIGs. */
  readonly key: number;
  /** Owner = the node's name; TTL = the lowest of the records' TTLs. */
  readonly rrset: RRset;
  /**
   * Each record's own TTL, beside `rrset.rdatas`, kept so that removing one recomputes the lowest;
   * null when they are all `rrset.ttl` (the usual case).
   */
  readonly ttls: readonly number[] | null;
  /**
   * The lower-case name each RDATA points at (NS, CNAME, PTR, MX, SRV, SVCB; decoded when the record
   * enters the zone so that no query decodes RDATA), null for other types.
   */
  readonly targets: readonly (string | null)[] | null;
}

/** A name that exists in the zone: with data, or an empty non-terminal (no sets, descendants > 0). */
export interface ZoneNode {
  readonly name: string;
  /** Sorted by key: plain types first, then signatures. */
  readonly sets: readonly StoredRRset[];
  /** How many names with data lie below this one. */
  readonly descendants: number;
}

const OWN_TTLS = 1;
const TARGETS = 2;
const NO_TARGET = 0xffff;
const EMPTY = 0;

/** A name removed since the table was packed. */
const DELETED = null;
type Overlaid = ZoneNode | typeof DELETED;

const isAscii = (text: string) => {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
};

function packable(node: ZoneNode): boolean {
  if (node.name.length > 0xfffe || !isAscii(node.name)) return false;
  for (const set of node.sets) for (const target of set.targets ?? []) if (target !== null && (target.length >= NO_TARGET || !isAscii(target))) return false;
  return true;
}

function encodedLength(node: ZoneNode): number {
  let n = 2 + node.name.length + 4 + 2;
  for (const set of node.sets) {
    n += 4 + 2 + 4 + 1 + 4;
    const { rdatas } = set.rrset;
    for (let i = 0; i < rdatas.length; i++) {
      n += 2 + rdatas[i]!.length;
      if (set.ttls) n += 4;
      if (set.targets) n += 2 + (set.targets[i]?.length ?? 0);
    }
  }
  return n;
}

function encodeNode(node: ZoneNode, slab: Buffer, at: number): number {
  let p = slab.writeUInt16LE(node.name.length, at);
  p += slab.write(node.name, p, 'latin1');
  p = slab.writeUInt32LE(node.descendants, p);
  p = slab.writeUInt16LE(node.sets.length, p);
  for (const set of node.sets) {
    const { type, ttl, rdatas } = set.rrset;
    p = slab.writeUInt32LE(set.key, p);
    p = slab.writeUInt16LE(type, p);
    p = slab.writeUInt32LE(ttl, p);
    p = slab.writeUInt8((set.ttls ? OWN_TTLS : 0) | (set.targets ? TARGETS : 0), p);
    p = slab.writeUInt32LE(rdatas.length, p);
    for (let i = 0; i < rdatas.length; i++) {
      const rdata = rdatas[i]!;
      p = slab.writeUInt16LE(rdata.length, p);
      p += rdata.copy(slab, p);
      if (set.ttls) p = slab.writeUInt32LE(set.ttls[i]!, p);
      if (set.targets) {
        const target = set.targets[i] ?? null;
        p = slab.writeUInt16LE(target === null ? NO_TARGET : target.length, p);
        if (target !== null) p += slab.write(target, p, 'latin1');
      }
    }
  }
  return p;
}

/** The node at `at`; `name` is its name when the caller holds it already (a lookup), saving a string. */
function decodeNode(slab: Buffer, at: number, name?: string): ZoneNode {
  const nameLength = slab.readUInt16LE(at);
  const owner = name ?? slab.toString('latin1', at + 2, at + 2 + nameLength);
  const sets: StoredRRset[] = new Array(slab.readUInt16LE(at + 2 + nameLength + 4));
  walkNode(slab, at, owner, sets);
  return { name: owner, sets, descendants: slab.readUInt32LE(at + 2 + nameLength) };
}

/** Where the node after the one at `at` begins. */
function endOfNode(slab: Buffer, at: number): number {
  return walkNode(slab, at, '', null);
}

/**
 * The one reader of the node layout: walks the node at `at` field by field to its end, which it
 * returns, and with `sets` (sized to the set count) decodes each RRset, owned by `owner`, into it.
 */
function walkNode(slab: Buffer, at: number, owner: string, sets: StoredRRset[] | null): number {
  let p = at + 2 + slab.readUInt16LE(at) + 4;
  const setCount = slab.readUInt16LE(p);
  p += 2;
  for (let s = 0; s < setCount; s++) {
    const flags = slab[p + 10]!;
    const count = slab.readUInt32LE(p + 11);
    const rdatas: Buffer[] | null = sets && new Array(count);
    const ttls: number[] | null = sets && flags & OWN_TTLS ? new Array(count) : null;
    const targets: (string | null)[] | null = sets && flags & TARGETS ? new Array(count) : null;
    if (sets) {
      const rrset = { name: owner, type: slab.readUInt16LE(p + 4), ttl: slab.readUInt32LE(p + 6), rdatas: rdatas! };
      sets[s] = { key: slab.readUInt32LE(p), rrset, ttls, targets };
    }
    p += 15;
    for (let i = 0; i < count; i++) {
      const length = slab.readUInt16LE(p);
      if (rdatas) rdatas[i] = slab.subarray(p + 2, p + 2 + length);
      p += 2 + length;
      if (flags & OWN_TTLS) {
        if (ttls) ttls[i] = slab.readUInt32LE(p);
        p += 4;
      }
      if (flags & TARGETS) {
        const targetLength = slab.readUInt16LE(p);
        p += 2;
        if (targetLength === NO_TARGET) {
          if (targets) targets[i] = null;
        } else {
          if (targets) targets[i] = slab.toString('latin1', p, p + targetLength);
          p += targetLength;
        }
      }
    }
  }
  return p;
}

function nameEquals(slab: Buffer, at: number, name: string): boolean {
  if (slab.readUInt16LE(at) !== name.length) return false;
  for (let i = 0, p = at + 2; i < name.length; i++, p++) if (slab[p] !== name.charCodeAt(i)) return false;
  return true;
}

const CHUNK_OCTETS = 1 << 20;

/** stringHash of the name of the node at `at`: the same octets as char codes, names being ASCII. */
function nameHash(slab: Buffer, at: number): number {
  let h = FNV_BASIS;
  for (let p = at + 2, end = p + slab.readUInt16LE(at); p < end; p++) h = fnvStep(h, slab[p]!);
  return h >>> 0;
}

/**
 * Collects node encodings one at a time — new nodes, or octets copied from another slab — so that a
 * zone being loaded never holds all its nodes as objects at once.
 */
class PackedBuilder {
  /** Filled chunks with the octets used in each, then the one being filled. */
  private readonly filled: [Buffer, number][] = [];
  private chunk = Buffer.allocUnsafeSlow(CHUNK_OCTETS);
  private used = 0;
  /** Octets in the filled chunks. */
  private before = 0;
  private offsets: number[] = [];

  add(node: ZoneNode): void {
    this.reserve(encodedLength(node));
    this.offsets.push(this.before + this.used);
    this.used = encodeNode(node, this.chunk, this.used);
  }

  copy(from: Buffer, start: number, end: number): void {
    this.reserve(end - start);
    this.offsets.push(this.before + this.used);
    this.used += from.copy(this.chunk, this.used, start, end);
  }

  /** The slab, the chunks joined, and where each node begins. */
  take(): { slab: Buffer; offsets: readonly number[] } {
    const slab = Buffer.allocUnsafeSlow(this.before + this.used);
    let at = 0;
    for (const [chunk, used] of [...this.filled, [this.chunk, this.used] as [Buffer, number]]) at += chunk.copy(slab, at, 0, used);
    return { slab, offsets: this.offsets };
  }

  /**
   * A node is never split between chunks. Chunks of one size, kept until the end, rather than a
   * buffer doubled and copied: each large buffer freed raises glibc's threshold for serving
   * allocations from its heap instead of fresh mappings, and memory freed there is seldom
   * returned (measured: about 25 MiB more RSS after loading a signed zone of 420,000 records).
   */
  private reserve(octets: number): void {
    if (this.used + octets <= this.chunk.length) return;
    this.filled.push([this.chunk, this.used]);
    this.before += this.used;
    this.chunk = Buffer.allocUnsafeSlow(Math.max(CHUNK_OCTETS, octets));
    this.used = 0;
  }
}

/** Nodes encoded in one slab, immutable; an index slot holds a node's offset + 1, 0 when empty. */
class Packed {
  static readonly empty = new Packed(Buffer.alloc(0), new Uint32Array(1), 0);

  private constructor(
    readonly slab: Buffer,
    private readonly index: Uint32Array,
    readonly count: number,
  ) {}

  /** Packs what `builder` holds; the index is made in steps. */
  static *of(builder: PackedBuilder): Generator<void, Packed> {
    const { slab, offsets } = builder.take();
    let capacity = 8;
    while (capacity < offsets.length * 2) capacity *= 2;
    const index = new Uint32Array(capacity);
    const mask = capacity - 1;
    for (let n = 0; n < offsets.length; n++) {
      const at = offsets[n]!;
      let slot = nameHash(slab, at) & mask;
      while (index[slot] !== EMPTY) slot = (slot + 1) & mask;
      index[slot] = at + 1;
      if (n % 4096 === 4095) yield;
    }
    return new Packed(slab, index, offsets.length);
  }

  /** The offset of `name`'s node, or -1. */
  find(name: string): number {
    const mask = this.index.length - 1;
    for (let slot = stringHash(name) & mask; ; slot = (slot + 1) & mask) {
      const entry = this.index[slot]!;
      if (entry === EMPTY) return -1;
      if (nameEquals(this.slab, entry - 1, name)) return entry - 1;
    }
  }

  get(name: string): ZoneNode | undefined {
    const at = this.find(name);
    return at < 0 ? undefined : decodeNode(this.slab, at, name);
  }

  /** Every node's offset and name, in slab order. */
  *entries(): IterableIterator<[number, string]> {
    for (let at = 0; at < this.slab.length; at = endOfNode(this.slab, at)) {
      yield [at, this.slab.toString('latin1', at + 2, at + 2 + this.slab.readUInt16LE(at))];
    }
  }
}

/** The overlay of a table or of an editor: what it says about a name wins over the packed part. */
interface Overlay {
  get(name: string): Overlaid | undefined;
}

function nodeIn(packed: Packed, overlay: Overlay, name: string): ZoneNode | undefined {
  const over = overlay.get(name);
  if (over !== undefined) return over ?? undefined;
  return packed.get(name);
}

function isIn(packed: Packed, overlay: Overlay, name: string): boolean {
  const over = overlay.get(name);
  if (over !== undefined) return over !== DELETED;
  return packed.find(name) >= 0;
}

/** The overlay is repacked when it holds more than this share of the packed nodes (and at least OVERLAY_FLOOR). */
const OVERLAY_SHARE = 1 / 8;
const OVERLAY_FLOOR = 1024;

/** An immutable table of a zone's nodes by name. */
export class NodeTable {
  private constructor(
    private readonly packed: Packed,
    private readonly overlay: PersistentMap<Overlaid>,
    readonly size: number,
  ) {
    Object.freeze(this);
  }

  static readonly empty = new NodeTable(Packed.empty, PersistentMap.empty(), 0);

  /** A table of `nodes` (distinct names), packed but for those whose text is not ASCII; each node is encoded as it comes. */
  static *of(nodes: Iterable<ZoneNode>): Generator<void, NodeTable> {
    const builder = new PackedBuilder();
    const overlay = PersistentMap.empty<Overlaid>().edit();
    for (const node of nodes) {
      if (packable(node)) builder.add(node);
      else overlay.set(node.name, node);
    }
    const packed = yield* Packed.of(builder);
    return new NodeTable(packed, overlay.done(), packed.count + overlay.size);
  }

  get(name: string): ZoneNode | undefined {
    return nodeIn(this.packed, this.overlay, name);
  }

  has(name: string): boolean {
    return isIn(this.packed, this.overlay, name);
  }

  /** Every node: the packed ones not changed since, then the overlay's (hash order). */
  *values(): IterableIterator<ZoneNode> {
    for (const [at, name] of this.packed.entries()) if (this.overlay.get(name) === undefined) yield decodeNode(this.packed.slab, at, name);
    for (const node of this.overlay.values()) if (node !== DELETED) yield node;
  }

  edit(): NodeTableEditor {
    return new NodeTableEditor(this.packed, this.overlay.edit(), this.size, (packed, overlay, size) => new NodeTable(packed, overlay, size));
  }
}

/** Changes to a table until `done()`; the table it started from stays as it was. */
export class NodeTableEditor {
  constructor(
    private packed: Packed,
    private overlay: MapEditor<Overlaid>,
    private count: number,
    private readonly seal: (packed: Packed, overlay: PersistentMap<Overlaid>, size: number) => NodeTable,
  ) {}

  get size(): number {
    return this.count;
  }

  get(name: string): ZoneNode | undefined {
    return nodeIn(this.packed, this.overlay, name);
  }

  has(name: string): boolean {
    return isIn(this.packed, this.overlay, name);
  }

  set(name: string, node: ZoneNode): this {
    if (!this.has(name)) this.count++;
    this.overlay.set(name, node);
    return this;
  }

  delete(name: string): this {
    if (!this.has(name)) return this;
    this.count--;
    if (this.packed.find(name) >= 0) this.overlay.set(name, DELETED);
    else this.overlay.delete(name);
    return this;
  }

  /** Repacks when the overlay has outgrown its share: unchanged nodes copied as octets, in steps. */
  *compact(): Generator<void, void> {
    if (this.overlay.size <= Math.max(OVERLAY_FLOOR, this.packed.count * OVERLAY_SHARE)) return;
    const overlay = this.overlay.done();
    const builder = new PackedBuilder();
    let n = 0;
    for (const [at, name] of this.packed.entries()) {
      if (overlay.get(name) === undefined) builder.copy(this.packed.slab, at, endOfNode(this.packed.slab, at));
      if (++n % 4096 === 0) yield;
    }
    const kept = PersistentMap.empty<Overlaid>().edit();
    for (const node of overlay.values()) {
      if (node === DELETED) continue;
      if (packable(node)) builder.add(node);
      else kept.set(node.name, node);
    }
    this.packed = yield* Packed.of(builder);
    this.overlay = kept;
  }

  done(): NodeTable {
    return this.seal(this.packed, this.overlay.done(), this.count);
  }
}
