// The fast path: encoded responses to plain queries, reused for every later query that asks the
// same question under the same conditions. A hit costs one walk over the question, a Map lookup
// and a copy with the ID, RD, CD and the question's case patched in — no parsing, no lookup, no
// encoding.
//
// Key: the question octets with the name lower-cased (ASCII only, RFC 4343 §3) + QTYPE + QCLASS,
// then the DO bit, EDNS presence, transport and the response size limit (min(client EDNS size or
// 512, 1232) on UDP, 65535 on TCP). Those are everything encodeResponse's output depends on besides
// the ID, RD and CD (copied from the query) and the question's case (echoed as sent).
//
// Validity: an entry remembers the store generation it was made at and the snapshot of the zone
// that answered (store.find of the name). While the generation is unchanged the entry is good; once
// it moved (any zone changed), the entry is still good if its zone's snapshot is the same object —
// a change to another zone leaves it alone — and is dropped otherwise. DS at a zone apex may be
// answered by the parent zone (RFC 4035 §3.1.4.1), so those entries live for one generation only.
//
// Bounds: at most `maxEntries` entries and `maxBytes` octets of responses; the oldest entries go
// first (insertion order, FIFO: cheaper than LRU bookkeeping on every hit, and a hot name that is
// evicted comes straight back on its next miss).
import { TYPE } from '../types.js';
import { CLASSIC_UDP_PAYLOAD, SERVER_UDP_PAYLOAD, wellFormedOptions } from '../wire/edns.js';
import { HEADER_OCTETS } from '../wire/header.js';
import { MAX_LABEL_OCTETS, MAX_NAME_OCTETS } from '../wire/name.js';
import type { ZoneSnapshot } from '../zone/snapshot.js';
import type { ZoneStore } from '../zone/store.js';

export interface ResponseCacheOptions {
  /** Default 20,000 entries. */
  maxEntries?: number;
  /** Default 32 MiB of encoded responses. */
  maxBytes?: number;
}

/** Where a query may be served from the cache: its key and where its question name ends. */
export interface CacheProbe {
  key: string;
  /** Offset just after the question name: octets [12, nameEnd) are patched into a hit. */
  nameEnd: number;
}

interface Entry {
  response: Buffer;
  generation: number;
  /** The zone that answered (store.find(name)), undefined for REFUSED. */
  zone: ZoneSnapshot | undefined;
  /** Lower-case question name, for store.find when the generation moved. */
  name: string;
  qtype: number;
}

const TCP_LIMIT = 0xffff;
// Question (≤ 255 + 4) + flags (1) + size limit (2): built here, read out as a latin1 string.
const keyScratch = Buffer.allocUnsafe(MAX_NAME_OCTETS + 4 + 3);

/**
 * The cache key of `buf`, or null when the message is not a plain query the cache serves: it must
 * be opcode QUERY with exactly one question, no answer or authority records, and at most one
 * additional record, an OPT of version 0 with well-formed options, nothing after it. Transfers
 * (AXFR, IXFR) and the meta-types parseQuery rejects go the slow way. Never throws; reads only
 * inside `buf`.
 */
export function cacheProbe(buf: Buffer, tcp: boolean): CacheProbe | null {
  const length = buf.length;
  if (length < HEADER_OCTETS + 5) return null;
  // QR clear, OPCODE 0 (QUERY).
  if ((buf[2]! & 0xf8) !== 0) return null;
  // QDCOUNT 1, ANCOUNT 0, NSCOUNT 0, ARCOUNT 0 or 1.
  if (buf[4] !== 0 || buf[5] !== 1 || buf[6] !== 0 || buf[7] !== 0 || buf[8] !== 0 || buf[9] !== 0 || buf[10] !== 0 || buf[11]! > 1) return null;
  let pos = HEADER_OCTETS;
  let k = 0;
  for (;;) {
    if (pos >= length) return null;
    const label = buf[pos]!;
    keyScratch[k++] = label;
    pos++;
    if (label === 0) break;
    if (label > MAX_LABEL_OCTETS || pos + label > length || k + label > MAX_NAME_OCTETS) return null;
    for (let i = 0; i < label; i++) {
      const c = buf[pos++]!;
      keyScratch[k++] = c >= 0x41 && c <= 0x5a ? c | 0x20 : c;
    }
  }
  const nameEnd = pos;
  if (pos + 4 > length) return null;
  const qtype = (buf[pos]! << 8) | buf[pos + 1]!;
  if (qtype === TYPE.AXFR || qtype === TYPE.IXFR || qtype === TYPE.OPT || qtype === TYPE.TSIG) return null;
  for (let i = 0; i < 4; i++) keyScratch[k++] = buf[pos++]!;

  let flags = tcp ? 4 : 0;
  let limit = tcp ? TCP_LIMIT : CLASSIC_UDP_PAYLOAD;
  if (buf[11] === 1) {
    // RFC 6891 §6.1.2: root owner, TYPE 41, CLASS = payload size, TTL = ext-rcode, version, DO, Z.
    if (pos + 11 > length || buf[pos] !== 0 || buf[pos + 1] !== 0 || buf[pos + 2] !== TYPE.OPT) return null;
    const udpSize = (buf[pos + 3]! << 8) | buf[pos + 4]!;
    if (buf[pos + 6] !== 0) return null; // version > 0: BADVERS, the slow way
    const dnssecOk = (buf[pos + 7]! & 0x80) !== 0;
    const rdLength = (buf[pos + 9]! << 8) | buf[pos + 10]!;
    const end = pos + 11 + rdLength;
    if (end !== length) return null;
    if (rdLength > 0 && !wellFormedOptions(buf.subarray(pos + 11, end))) return null;
    flags |= 2 | (dnssecOk ? 1 : 0);
    if (!tcp) limit = Math.min(Math.max(udpSize, CLASSIC_UDP_PAYLOAD), SERVER_UDP_PAYLOAD);
  } else if (pos !== length) return null;
  keyScratch[k++] = flags;
  keyScratch[k++] = limit >> 8;
  keyScratch[k++] = limit & 0xff;
  return { key: keyScratch.toString('latin1', 0, k), nameEnd };
}

export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
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
    return this.entries.size;
  }

  /**
   * The cached response for `query` (probed as `probe`), ready to send: a fresh buffer with the
   * query's ID, RD and CD and the question name as the query spelt it. Null on a miss.
   */
  answer(query: Buffer, probe: CacheProbe): Buffer | null {
    const entry = this.entries.get(probe.key);
    if (!entry) return null;
    const generation = this.store.generation;
    if (entry.generation !== generation) {
      if (entry.qtype === TYPE.DS || this.store.find(entry.name) !== entry.zone) {
        this.delete(probe.key, entry);
        return null;
      }
      entry.generation = generation;
    }
    const cached = entry.response;
    const out = Buffer.allocUnsafe(cached.length);
    cached.copy(out);
    out[0] = query[0]!;
    out[1] = query[1]!;
    // RD is bit 0 of octet 2, CD bit 4 of octet 3 (RFC 1035 §4.1.1, RFC 4035 §3.2): both echoed.
    out[2] = (cached[2]! & 0xfe) | (query[2]! & 0x01);
    out[3] = (cached[3]! & 0xef) | (query[3]! & 0x10);
    query.copy(out, HEADER_OCTETS, HEADER_OCTETS, probe.nameEnd);
    return out;
  }

  /** Remembers `response`, made from the current store for the query probed as `probe`. */
  remember(probe: CacheProbe, name: string, qtype: number, response: Buffer): void {
    if (response.length > this.maxBytes) return;
    const old = this.entries.get(probe.key);
    if (old) this.delete(probe.key, old);
    while (this.entries.size >= this.maxEntries || this.bytes + response.length > this.maxBytes) {
      const oldest = this.entries.entries().next().value;
      if (!oldest) break;
      this.delete(oldest[0], oldest[1]);
    }
    this.entries.set(probe.key, { response, generation: this.store.generation, zone: this.store.find(name), name, qtype });
    this.bytes += response.length;
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  private delete(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.bytes -= entry.response.length;
  }
}
