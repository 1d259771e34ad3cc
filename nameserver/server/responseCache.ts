// The fast path: encoded responses to plain queries, reused for every later query that asks the
// same question under the same conditions. A hit costs one walk over the question, a hash-table
// lookup and a copy with the ID, RD, CD and the question's case patched in — no parsing, no
// lookup, no encoding, and nothing allocated but the response itself.
//
// Key: the question octets with the name lower-cased (ASCII only, RFC 4343 §3) + QTYPE + QCLASS,
// then the DO bit, EDNS presence, transport and the response size limit (min(client EDNS size or
// 512, 1232) on UDP, 65535 on TCP). Those are everything encodeResponse's output depends on besides
// the ID, RD and CD (copied from the query) and the question's case (echoed as sent). The key is
// built in a scratch buffer reused from query to query and hashed (FNV-1a, 32 bits) in the same
// walk, so a query costs no string. The table is chained by hash; an entry keeps its key octets
// and is found only when they equal the query's, so keys whose hashes collide never share an
// answer.
//
// Validity: an entry remembers the store generation it was made at and the snapshot of the zone
// that answered (store.find of the name). While the generation is unchanged the entry is good; once
// it moved (any zone changed), the entry is still good if its zone's snapshot is the same object —
// a change to another zone leaves it alone. When its own zone changed, a positive answer that only
// its name decides (the name's own RRsets, below the apex, no CNAME, wildcard or additional
// section) stays good across one diff that touched neither the name nor an ancestor below the apex
// (a delegation added above it would turn the answer into a referral): a busy zone's unchanged
// names keep their encoded answers. Every other entry of a changed zone is dropped: negative
// answers carry the SOA, whose serial changed.
// DS at a zone apex may be answered by the parent zone (RFC 4035 §3.1.4.1), so those entries live
// for one generation only.
//
// Bounds: at most `maxEntries` entries and `maxBytes` octets of responses; the oldest entries go
// first (insertion order, FIFO: cheaper than LRU bookkeeping on every hit, and a hot name that is
// evicted comes straight back on its next miss).
import { type Answer, RCODE, TYPE } from '../types.js';
import { CLASSIC_UDP_PAYLOAD, SERVER_UDP_PAYLOAD, wellFormedOptions } from '../wire/edns.js';
import { HEADER_OCTETS } from '../wire/header.js';
import { MAX_LABEL_OCTETS, MAX_NAME_OCTETS, parentName } from '../wire/name.js';
import type { ZoneSnapshot } from '../zone/snapshot.js';
import type { ZoneStore } from '../zone/store.js';

export interface ResponseCacheOptions {
  /** Default 20,000 entries. */
  maxEntries?: number;
  /** Default 32 MiB of encoded responses. */
  maxBytes?: number;
}

const TCP_LIMIT = 0xffff;
// Question (≤ 255 + 4) + flags (1) + size limit (2).
const MAX_KEY_OCTETS = MAX_NAME_OCTETS + 4 + 3;
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
// Buckets to start with; the table doubles whenever it holds more entries than buckets.
const INITIAL_BUCKETS = 1024;

/**
 * Where a query may be served from the cache: its key octets, their hash and where its question
 * name ends. One object read again for every query (a cache has one: ResponseCache.probe), so what
 * it says holds until the next read.
 */
export class CacheProbe {
  /** The key is octets [0, length). */
  readonly octets = Buffer.allocUnsafe(MAX_KEY_OCTETS);
  length = 0;
  /** FNV-1a of the key octets. */
  hash = 0;
  /** Offset just after the question name: octets [12, nameEnd) are patched into a hit. */
  nameEnd = 0;

  /**
   * Reads the key of `buf`; false when the message is not a plain query the cache serves: it must
   * be opcode QUERY with exactly one question, no answer or authority records, and at most one
   * additional record, an OPT of version 0 with well-formed options, nothing after it. Transfers
   * (AXFR, IXFR) and the meta-types parseQuery rejects go the slow way. Never throws; reads only
   * inside `buf`.
   */
  read(buf: Buffer, tcp: boolean): boolean {
    const length = buf.length;
    if (length < HEADER_OCTETS + 5) return false;
    // QR clear, OPCODE 0 (QUERY).
    if ((buf[2]! & 0xf8) !== 0) return false;
    // QDCOUNT 1, ANCOUNT 0, NSCOUNT 0, ARCOUNT 0 or 1.
    if (buf[4] !== 0 || buf[5] !== 1 || buf[6] !== 0 || buf[7] !== 0 || buf[8] !== 0 || buf[9] !== 0 || buf[10] !== 0 || buf[11]! > 1) return false;
    const key = this.octets;
    let hash = FNV_OFFSET;
    let pos = HEADER_OCTETS;
    let k = 0;
    for (;;) {
      if (pos >= length) return false;
      const label = buf[pos]!;
      key[k++] = label;
      hash = Math.imul(hash ^ label, FNV_PRIME);
      pos++;
      if (label === 0) break;
      if (label > MAX_LABEL_OCTETS || pos + label > length || k + label > MAX_NAME_OCTETS) return false;
      for (let i = 0; i < label; i++) {
        const c = buf[pos++]!;
        const lower = c >= 0x41 && c <= 0x5a ? c | 0x20 : c;
        key[k++] = lower;
        hash = Math.imul(hash ^ lower, FNV_PRIME);
      }
    }
    const nameEnd = pos;
    if (pos + 4 > length) return false;
    const qtype = (buf[pos]! << 8) | buf[pos + 1]!;
    if (qtype === TYPE.AXFR || qtype === TYPE.IXFR || qtype === TYPE.OPT || qtype === TYPE.TSIG) return false;
    for (let i = 0; i < 4; i++) {
      const c = buf[pos++]!;
      key[k++] = c;
      hash = Math.imul(hash ^ c, FNV_PRIME);
    }

    let flags = tcp ? 4 : 0;
    let limit = tcp ? TCP_LIMIT : CLASSIC_UDP_PAYLOAD;
    if (buf[11] === 1) {
      // RFC 6891 §6.1.2: root owner, TYPE 41, CLASS = payload size, TTL = ext-rcode, version, DO, Z.
      if (pos + 11 > length || buf[pos] !== 0 || buf[pos + 1] !== 0 || buf[pos + 2] !== TYPE.OPT) return false;
      const udpSize = (buf[pos + 3]! << 8) | buf[pos + 4]!;
      if (buf[pos + 6] !== 0) return false; // version > 0: BADVERS, the slow way
      const dnssecOk = (buf[pos + 7]! & 0x80) !== 0;
      const rdLength = (buf[pos + 9]! << 8) | buf[pos + 10]!;
      const end = pos + 11 + rdLength;
      if (end !== length) return false;
      if (rdLength > 0 && !wellFormedOptions(buf, pos + 11, end)) return false;
      flags |= 2 | (dnssecOk ? 1 : 0);
      if (!tcp) limit = Math.min(Math.max(udpSize, CLASSIC_UDP_PAYLOAD), SERVER_UDP_PAYLOAD);
    } else if (pos !== length) return false;
    key[k++] = flags;
    key[k++] = limit >> 8;
    key[k++] = limit & 0xff;
    hash = Math.imul(Math.imul(Math.imul(hash ^ flags, FNV_PRIME) ^ (limit >> 8), FNV_PRIME) ^ (limit & 0xff), FNV_PRIME);
    this.length = k;
    this.hash = hash;
    this.nameEnd = nameEnd;
    return true;
  }

  /** Is `key` this probe's key? */
  matches(key: Buffer): boolean {
    const length = this.length;
    if (key.length !== length) return false;
    const octets = this.octets;
    for (let i = 0; i < length; i++) if (key[i] !== octets[i]) return false;
    return true;
  }

  /** The key octets, copied for an entry to keep. */
  keyCopy(): Buffer {
    return Buffer.from(this.octets.subarray(0, this.length));
  }
}

interface Entry {
  readonly key: Buffer;
  readonly hash: number;
  readonly response: Buffer;
  generation: number;
  /** The zone that answered (store.find(name)), undefined for REFUSED; moved on when the entry outlives a diff. */
  zone: ZoneSnapshot | undefined;
  /** Whether the answer is decided by the name's own node alone (see the top of this file). */
  readonly ownNodeOnly: boolean;
  /** Lower-case question name, for store.find when the generation moved. */
  readonly name: string;
  readonly qtype: number;
  /** The next entry in the same bucket. */
  chained: Entry | null;
  /** Insertion order: the entries made just before and just after this one. */
  older: Entry | null;
  newer: Entry | null;
}

export class ResponseCache {
  private readonly reusedProbe = new CacheProbe();
  private buckets: (Entry | null)[] = new Array<Entry | null>(INITIAL_BUCKETS).fill(null);
  private oldest: Entry | null = null;
  private newest: Entry | null = null;
  private count = 0;
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  private bytes = 0;

  constructor(
    private readonly store: ZoneStore,
    options: ResponseCacheOptions = {},
  ) {
    this.maxEntries = options.maxEntries ?? 20_000;
    this.maxBytes = options.maxBytes ?? 32 * 1024 * 1024;
  }

  get size(): number {
    return this.count;
  }

  /** The key of `buf` (CacheProbe.read), null when the cache does not serve it. Good until the next call. */
  probe(buf: Buffer, tcp: boolean): CacheProbe | null {
    return this.reusedProbe.read(buf, tcp) ? this.reusedProbe : null;
  }

  /**
   * The cached response for `query` (probed as `probe`), ready to send: a fresh buffer with the
   * query's ID, RD and CD and the question name as the query spelt it. Null on a miss.
   */
  answer(query: Buffer, probe: CacheProbe): Buffer | null {
    const entry = this.lookup(probe);
    if (!entry) return null;
    const generation = this.store.generation;
    if (entry.generation !== generation) {
      if (!this.stillGood(entry)) {
        this.delete(entry);
        return null;
      }
      entry.generation = generation;
    }
    const cached = entry.response;
    const out = Buffer.allocUnsafe(cached.length);
    // TypedArray set and an octet loop: Buffer.copy's argument checks cost more than these short copies.
    out.set(cached);
    out[0] = query[0]!;
    out[1] = query[1]!;
    // RD is bit 0 of octet 2, CD bit 4 of octet 3 (RFC 1035 §4.1.1, RFC 4035 §3.2): both echoed.
    out[2] = (cached[2]! & 0xfe) | (query[2]! & 0x01);
    out[3] = (cached[3]! & 0xef) | (query[3]! & 0x10);
    const nameEnd = probe.nameEnd;
    for (let i = HEADER_OCTETS; i < nameEnd; i++) out[i] = query[i]!;
    return out;
  }

  /** Remembers `response`, encoded from `answer` made from the current store for the query probed as `probe`. */
  remember(probe: CacheProbe, name: string, qtype: number, answer: Answer, response: Buffer): void {
    if (response.length > this.maxBytes) return;
    const old = this.lookup(probe);
    if (old) this.delete(old);
    while (this.count >= this.maxEntries || this.bytes + response.length > this.maxBytes) {
      const oldest = this.oldest;
      if (!oldest) break;
      this.delete(oldest);
    }
    const zone = this.store.find(name);
    const entry: Entry = {
      key: probe.keyCopy(),
      hash: probe.hash,
      response,
      generation: this.store.generation,
      zone,
      ownNodeOnly: decidedByItsNode(answer, name, qtype, zone),
      name,
      qtype,
      chained: null,
      older: this.newest,
      newer: null,
    };
    if (this.newest) this.newest.newer = entry;
    else this.oldest = entry;
    this.newest = entry;
    this.count++;
    this.bytes += response.length;
    if (this.count > this.buckets.length) this.grow();
    else this.link(entry);
  }

  clear(): void {
    this.buckets.fill(null);
    this.oldest = null;
    this.newest = null;
    this.count = 0;
    this.bytes = 0;
  }

  /** After the store changed: is the entry's answer still what its zone would give? */
  private stillGood(entry: Entry): boolean {
    if (entry.qtype === TYPE.DS) return false;
    const zone = this.store.find(entry.name);
    if (zone === entry.zone) return true;
    const before = entry.zone;
    const changes = zone?.changes;
    if (!entry.ownNodeOnly || !zone || !before || !changes || zone.origin !== before.origin || changes.fromSerial !== before.serial) return false;
    for (let name = entry.name; name !== zone.origin; name = parentName(name)) if (changes.owners.has(name)) return false;
    entry.zone = zone;
    return true;
  }

  private lookup(probe: CacheProbe): Entry | null {
    const hash = probe.hash;
    for (let entry = this.buckets[hash & (this.buckets.length - 1)] ?? null; entry; entry = entry.chained)
      if (entry.hash === hash && probe.matches(entry.key)) return entry;
    return null;
  }

  private link(entry: Entry): void {
    const at = entry.hash & (this.buckets.length - 1);
    entry.chained = this.buckets[at] ?? null;
    this.buckets[at] = entry;
  }

  /** Twice the buckets, every entry linked again (oldest first, as remember would have). */
  private grow(): void {
    this.buckets = new Array<Entry | null>(this.buckets.length * 2).fill(null);
    for (let entry = this.oldest; entry; entry = entry.newer) this.link(entry);
  }

  private delete(entry: Entry): void {
    const at = entry.hash & (this.buckets.length - 1);
    let before: Entry | null = null;
    for (let e = this.buckets[at]!; e !== entry; e = e.chained!) before = e;
    if (before) before.chained = entry.chained;
    else this.buckets[at] = entry.chained;
    if (entry.older) entry.older.newer = entry.newer;
    else this.oldest = entry.newer;
    if (entry.newer) entry.newer.older = entry.older;
    else this.newest = entry.older;
    this.count--;
    this.bytes -= entry.response.length;
  }
}

/** Types whose answers carry the A/AAAA of their targets (nameserver/answer/lookup.ts): other names decide those. */
const WITH_ADDITIONAL: ReadonlySet<number> = new Set([TYPE.NS, TYPE.MX, TYPE.SRV, TYPE.SVCB, TYPE.HTTPS]);

/** A positive answer made of the name's own RRsets (no CNAME, no wildcard, nothing in authority or additional), below the apex. */
function decidedByItsNode(answer: Answer, name: string, qtype: number, zone: ZoneSnapshot | undefined): boolean {
  if (!zone || name === zone.origin || answer.rcode !== RCODE.NOERROR || !answer.aa || WITH_ADDITIONAL.has(qtype)) return false;
  if (answer.answer.length === 0 || answer.authority.length > 0 || answer.additional.length > 0) return false;
  for (const rrset of answer.answer) if (rrset.name !== name || rrset.type === TYPE.CNAME) return false;
  // A wildcard's answer carries the name too; only a name that exists is its own.
  return zone.hasName(name);
}
