// Writes one DNS message into a preallocated buffer, compressing owner names (RFC 1035 §4.1.4).
//
// For responses use encodeResponse (response.ts); this class is for messages built record by
// record, such as zone transfers (RFC 5936 §2.2: AXFR answers are a series of messages of up to
// 65535 octets over TCP, each with the transfer's records in the answer section, the question in
// the first message only). A transfer writes them like this:
//
//   let w = new MessageWriter(65535 - tsigRecordSize(key.name), { id, opcode: OPCODE.QUERY, qr: true, aa: true, rcode: 0 });
//   w.addQuestion(query.question);            // first message only; echoes the case sent
//   for (const rr of records) {
//     if (w.addRecord('answer', rr)) continue;
//     send(w.finish());                        // then sign: tsig.ts signMessage
//     w = new MessageWriter(...same header...);
//     if (!w.addRecord('answer', rr)) throw new RangeError('record larger than a message');
//   }
//   send(w.finish());
//
// Rules the writer keeps: sections go answer → authority → additional (going back throws); an
// addRecord/addRRset that does not fit under `limit` returns false and leaves the message as it
// was (an RRset is never split); every method that writes a name throws a RangeError for a
// malformed one, again leaving the message as it was. `finish()` returns a copy of exactly the
// message's octets.
//
// Names inside RDATA: RFC 3597 §4 allows compressing them only for the types of RFC 1035 (of those
// we serve: NS, CNAME, SOA, PTR, MX); every other type's RDATA is copied as given (uncompressed
// wire form, see rdata.ts). Those five are compressed against every name already in the message,
// and their names become targets for later ones. Zones hold RDATA in uncompressed wire form, so
// the names' compression keys are read from it once per RDATA buffer answered and remembered
// beside it (a WeakMap: gone with the snapshot), which keeps the answer path free of decoding;
// records added one by one (transfers) are read each time, as a whole zone would not be worth
// remembering.
import type { RRset } from '../types.js';
import { CLASS, TYPE } from '../types.js';
import { COUNT_OFFSET, FLAG, flagsWord, HEADER_OCTETS, type HeaderFlags } from './header.js';
import { decodeName, labelEnd, MAX_NAME_OCTETS, presentationEnd, writeLabel } from './name.js';

export type Section = 'answer' | 'authority' | 'additional';

export interface HeaderFields extends HeaderFlags {
  id: number;
}

/** One record to write: the owner as a name string, RDATA in wire form. */
export interface RecordToWrite {
  name: string;
  type: number;
  ttl: number;
  rdata: Buffer;
  /** Default IN. */
  klass?: number;
}

export interface OptFields {
  udpSize: number;
  extendedRcode?: number;
  version?: number;
  dnssecOk?: boolean;
  options?: Buffer;
}

/** Most a failing write runs past `limit` before the check that rejects it: a name, fixed fields. */
export const WRITER_SLACK = 512;
/** RFC 1035 §4.1.4: a pointer holds a 14-bit offset. */
const MAX_POINTER = 0x3fff;
const SECTION_INDEX: Record<Section, number> = { answer: 0, authority: 1, additional: 2 };

// Integers are written octet by octet and short RDATA copied in a loop: Buffer's writeUInt*BE
// and copy() check their arguments and cross into C++, which dominates for 2- to 16-octet fields.
function put16(b: Buffer, pos: number, value: number): number {
  b[pos] = value >>> 8;
  b[pos + 1] = value;
  return pos + 2;
}

function put32(b: Buffer, pos: number, value: number): number {
  b[pos] = value >>> 24;
  b[pos + 1] = value >>> 16;
  b[pos + 2] = value >>> 8;
  b[pos + 3] = value;
  return pos + 4;
}

function putOctets(b: Buffer, pos: number, octets: Uint8Array): number {
  const n = octets.length;
  if (n > 32) b.set(octets, pos);
  else for (let i = 0; i < n; i++) b[pos + i] = octets[i]!;
  return pos + n;
}

export class MessageWriter {
  readonly maxSize: number;
  private cap: number;
  private readonly buf: Buffer;
  private pos = HEADER_OCTETS;
  private questions = 0;
  private answers = 0;
  private authorities = 0;
  private additionals = 0;
  private section = 0;
  /** Lower-case presentation suffix → offset of a copy of it in the message. */
  private readonly names = new Map<string, number>();
  /** Suffixes added by the write in progress (the first `addedCount`), forgotten on rollback. */
  private readonly added: string[] = [];
  private addedCount = 0;

  /**
   * `buffer`, when given, is used as working space (at least maxSize + WRITER_SLACK octets) and
   * must not be shared with a writer still in use; otherwise the writer allocates its own.
   */
  constructor(maxSize: number, header: HeaderFields, buffer?: Buffer) {
    if (!Number.isInteger(maxSize) || maxSize < HEADER_OCTETS || maxSize > 0xffff) throw new RangeError(`message size ${maxSize}`);
    this.maxSize = maxSize;
    this.cap = maxSize;
    this.buf = buffer && buffer.length >= maxSize + WRITER_SLACK ? buffer : Buffer.allocUnsafe(maxSize + WRITER_SLACK);
    put16(this.buf, 0, header.id);
    put16(this.buf, 2, flagsWord(header));
  }

  /**
   * Records are only added while the message stays within `limit` octets (at most maxSize). Lower
   * it to keep room for records appended after the fact (OPT, TSIG); raise it back to add them.
   */
  get limit(): number {
    return this.cap;
  }
  set limit(octets: number) {
    this.cap = Math.min(octets, this.maxSize);
  }

  /** Octets written so far. */
  get length(): number {
    return this.pos;
  }

  /** Records in the answer, authority and additional sections. */
  get recordCount(): number {
    return this.answers + this.authorities + this.additionals;
  }

  setTruncated(): void {
    this.buf[2]! |= FLAG.TC >> 8;
  }

  /**
   * Writes the question; with `nameWire` (the octets a query sent) they are copied unchanged so the
   * reply repeats the requester's case (RFC 1035 §7.3 matching, DNS 0x20), and every suffix of
   * `name` points there afterwards: an owner equal to the question name becomes a pointer to 12.
   */
  addQuestion(question: { name: string; nameWire?: Buffer; qtype: number; qclass: number }): boolean {
    if (this.recordCount > 0) throw new Error('the question goes before any record');
    const start = this.pos;
    const wire = question.nameWire;
    if (wire) {
      if (start + wire.length + 4 > this.cap) return false;
      putOctets(this.buf, start, wire);
      const key = lowerKey(question.name);
      let k = 0;
      let w = 0;
      while (k < key.length && w < wire.length && wire[w]! !== 0) {
        if (start + w <= MAX_POINTER) this.names.set(k === 0 ? key : key.slice(k), start + w);
        w += wire[w]! + 1;
        k = labelEnd(key, k) + 1;
      }
      this.pos += wire.length;
    } else {
      this.addedCount = 0;
      let fits: boolean;
      try {
        fits = this.writeOwner(lowerKey(question.name));
      } catch (e) {
        throw this.undo(start, e);
      }
      if (!fits || this.pos + 4 > this.cap) return this.rollback(start);
    }
    this.pos = put16(this.buf, this.pos, question.qtype);
    this.pos = put16(this.buf, this.pos, question.qclass);
    this.questions++;
    return true;
  }

  /** Adds one record; false (nothing written) when it does not fit under `limit`. */
  addRecord(section: Section, record: RecordToWrite): boolean {
    this.enter(section);
    const start = this.pos;
    let fits: boolean;
    try {
      fits = this.writeOwner(lowerKey(record.name));
    } catch (e) {
      throw this.undo(start, e);
    }
    if (!fits || !this.writeFields(record.type, record.klass ?? CLASS.IN, record.ttl, record.rdata, false)) return this.rollback(start);
    this.count(section, 1);
    return true;
  }

  /** Adds every record of `rrset`, or none of them (false) when they do not all fit. */
  addRRset(section: Section, rrset: RRset, klass: number = CLASS.IN): boolean {
    this.enter(section);
    const start = this.pos;
    const rdatas = rrset.rdatas;
    let ownerPointer = -1;
    for (let i = 0; i < rdatas.length; i++) {
      const ownerStart = this.pos;
      if (ownerPointer >= 0) {
        // Every record after the first names the same owner: point at the first one's.
        if (ownerStart > this.cap) return this.rollback(start);
        this.pos = put16(this.buf, ownerStart, 0xc000 | ownerPointer);
      } else {
        let fits: boolean;
        try {
          fits = this.writeOwner(lowerKey(rrset.name));
        } catch (e) {
          throw this.undo(start, e);
        }
        if (!fits) return this.rollback(start);
        const first = this.buf[ownerStart]!;
        if (first >= 0xc0) ownerPointer = ((first & 0x3f) << 8) | this.buf[ownerStart + 1]!;
        else if (ownerStart <= MAX_POINTER && first !== 0) ownerPointer = ownerStart;
      }
      if (!this.writeFields(rrset.type, klass, rrset.ttl, rdatas[i]!, true)) return this.rollback(start);
    }
    this.count(section, rdatas.length);
    return true;
  }

  /** Adds the OPT pseudo-RR (RFC 6891 §6.1.2) to the additional section. */
  addOpt(opt: OptFields): boolean {
    this.enter('additional');
    const options = opt.options ?? EMPTY;
    if (this.pos + 11 + options.length > this.cap) return false;
    const ttl = (((opt.extendedRcode ?? 0) & 0xff) << 24) | (((opt.version ?? 0) & 0xff) << 16) | (opt.dnssecOk ? 0x8000 : 0);
    const b = this.buf;
    b[this.pos] = 0;
    let pos = put16(b, this.pos + 1, TYPE.OPT);
    pos = put16(b, pos, opt.udpSize);
    pos = put32(b, pos, ttl);
    pos = put16(b, pos, options.length);
    this.pos = putOctets(b, pos, options);
    this.additionals++;
    return true;
  }

  /** The message: a copy of exactly its octets, with the section counts filled in. */
  finish(): Buffer {
    const b = this.buf;
    put16(b, 4, this.questions);
    put16(b, 6, this.answers);
    put16(b, 8, this.authorities);
    put16(b, 10, this.additionals);
    const out = Buffer.allocUnsafe(this.pos);
    b.copy(out, 0, 0, this.pos);
    return out;
  }

  private enter(section: Section): void {
    const index = SECTION_INDEX[section];
    if (index < this.section) throw new Error(`cannot add to ${section} after a later section`);
    this.section = index;
    this.addedCount = 0;
  }

  private count(section: Section, records: number): void {
    if (section === 'answer') this.answers += records;
    else if (section === 'authority') this.authorities += records;
    else this.additionals += records;
  }

  private rollback(position: number): false {
    this.pos = position;
    for (let i = 0; i < this.addedCount; i++) this.names.delete(this.added[i]!);
    this.addedCount = 0;
    return false;
  }

  /** After a write threw (a malformed name): back to `start`, and the error to rethrow. */
  private undo(start: number, error: unknown): unknown {
    this.rollback(start);
    return error;
  }

  /**
   * TYPE, CLASS, TTL, RDLENGTH and RDATA after an owner; false when past `limit`. `remember`: keep
   * the compression keys of RDATA names beside the buffer for the next time it is written.
   */
  private writeFields(type: number, klass: number, ttl: number, rdata: Buffer, remember: boolean): boolean {
    const layout = type < RDATA_NAMES.length ? RDATA_NAMES[type] : undefined;
    if (layout !== undefined) {
      const keys = remember ? rememberedKeys(rdata, layout) : rdataNameKeys(rdata, layout);
      if (keys) return this.writeCompressedFields(type, klass, ttl, rdata, layout, keys);
    }
    if (this.pos + 10 + rdata.length > this.cap) return false;
    const b = this.buf;
    let pos = put16(b, this.pos, type);
    pos = put16(b, pos, klass);
    pos = put32(b, pos, ttl);
    pos = put16(b, pos, rdata.length);
    this.pos = putOctets(b, pos, rdata);
    return true;
  }

  /**
   * The fields of a record whose RDATA names are compressed (RFC 3597 §4): octets before the names
   * copied, each name written label by label until a suffix already in the message becomes a
   * pointer, the octets after them copied, and RDLENGTH set to what was written. The checks
   * against `limit` come before each part; a part overruns by at most a name (WRITER_SLACK).
   */
  private writeCompressedFields(type: number, klass: number, ttl: number, rdata: Buffer, layout: RdataNames, keys: readonly (readonly string[])[]): boolean {
    if (this.pos + 10 + layout.before > this.cap) return false;
    const b = this.buf;
    let pos = put16(b, this.pos, type);
    pos = put16(b, pos, klass);
    pos = put32(b, pos, ttl);
    const lengthAt = pos;
    pos += 2;
    for (let i = 0; i < layout.before; i++) b[pos++] = rdata[i]!;
    let from = layout.before;
    for (let n = 0; n < keys.length; n++) {
      if (pos > this.cap) return false;
      const suffixes = keys[n]!;
      let label = 0;
      for (;;) {
        const length = rdata[from]!;
        if (length === 0) {
          b[pos++] = 0;
          from++;
          break;
        }
        const pointer = this.names.get(suffixes[label]!);
        if (pointer !== undefined) {
          pos = put16(b, pos, 0xc000 | pointer);
          from = skipLabels(rdata, from);
          break;
        }
        if (pos <= MAX_POINTER) {
          this.names.set(suffixes[label]!, pos);
          this.added[this.addedCount++] = suffixes[label]!;
        }
        for (let i = 0; i <= length; i++) b[pos + i] = rdata[from + i]!;
        pos += length + 1;
        from += length + 1;
        label++;
      }
    }
    const end = rdata.length;
    if (pos + end - from > this.cap) return false;
    // A loop, not subarray(): creating a Buffer view costs more than copying 20 octets.
    while (from < end) b[pos++] = rdata[from++]!;
    put16(b, lengthAt, pos - lengthAt - 2);
    this.pos = pos;
    return true;
  }

  /**
   * Writes the name whose compression key is `key` (lower case, see lowerKey) at the current
   * position: the longest suffix already in the message becomes a pointer, and each new suffix is
   * remembered. False when past `limit`; a RangeError for a malformed name (the caller's `undo`
   * removes the partial write).
   */
  private writeOwner(key: string): boolean {
    if (this.pos > this.cap) return false;
    const start = this.pos;
    let k = 0;
    while (k < key.length) {
      const suffix = k === 0 ? key : key.slice(k);
      const pointer = this.names.get(suffix);
      if (pointer !== undefined) {
        if (this.pos - start + wireLength(this.buf, pointer) > MAX_NAME_OCTETS) throw new RangeError(`name over ${MAX_NAME_OCTETS} octets: "${key}"`);
        this.pos = put16(this.buf, this.pos, 0xc000 | pointer);
        return this.pos <= this.cap;
      }
      if (this.pos <= MAX_POINTER) {
        this.names.set(suffix, this.pos);
        this.added[this.addedCount++] = suffix;
      }
      const stop = labelEnd(key, k);
      this.pos = writeLabel(this.buf, this.pos, key, k, stop);
      k = stop + 1;
      if (k === key.length && stop < key.length) throw new RangeError(`empty label in "${key}"`);
      if (this.pos - start + 1 > MAX_NAME_OCTETS) throw new RangeError(`name over ${MAX_NAME_OCTETS} octets: "${key}"`);
    }
    this.buf[this.pos++] = 0;
    return this.pos <= this.cap;
  }
}

const EMPTY = Buffer.alloc(0);

/** Where the names sit in the RDATA of a type whose names may be compressed. */
interface RdataNames {
  /** Octets before the first name (MX: PREFERENCE). */
  readonly before: number;
  /** Names, one after the other. */
  readonly names: number;
  /** Octets after the last name (SOA: the five counters). */
  readonly after: number;
}

/**
 * RFC 3597 §4: the RFC 1035 types whose RDATA names may be compressed, by type code. (MD, MF, MB,
 * MG, MR and MINFO would qualify too; no zone here holds them.)
 */
const RDATA_NAMES: readonly (RdataNames | undefined)[] = (() => {
  const table: (RdataNames | undefined)[] = [];
  const oneName: RdataNames = { before: 0, names: 1, after: 0 };
  table[TYPE.NS] = oneName;
  table[TYPE.CNAME] = oneName;
  table[TYPE.PTR] = oneName;
  table[TYPE.MX] = { before: 2, names: 1, after: 0 };
  table[TYPE.SOA] = { before: 0, names: 2, after: 20 };
  return table;
})();

/** Compression keys of RDATA buffers already written, null for RDATA that is not as its type says. */
const rdataKeys = new WeakMap<Buffer, readonly (readonly string[])[] | null>();
// The last one looked up, checked before the WeakMap: negative answers of one zone, the bulk of
// uncached answers under a random-name flood, write the same SOA RDATA again and again.
let lastRdata: Buffer | null = null;
let lastKeys: readonly (readonly string[])[] | null = null;

function rememberedKeys(rdata: Buffer, layout: RdataNames): readonly (readonly string[])[] | null {
  if (rdata === lastRdata) return lastKeys;
  let keys = rdataKeys.get(rdata);
  if (keys === undefined) {
    keys = rdataNameKeys(rdata, layout);
    rdataKeys.set(rdata, keys);
  }
  lastRdata = rdata;
  lastKeys = keys;
  return keys;
}

/**
 * For each name in `rdata`, the compression key (see lowerKey) of every suffix that starts with a
 * label, longest first. Null when the RDATA does not have the type's shape (uncompressed names at
 * the expected places, the fixed fields' length): such RDATA is written as it is.
 */
function rdataNameKeys(rdata: Buffer, layout: RdataNames): readonly (readonly string[])[] | null {
  const keys: string[][] = [];
  let pos = layout.before;
  for (let n = 0; n < layout.names; n++) {
    if (skipLabels(rdata, pos) < 0) return null;
    const decoded = decodeName(rdata, pos, true);
    if (!decoded) return null;
    const key = decoded.name;
    const suffixes: string[] = [];
    for (let k = 0; k < key.length; k = labelEnd(key, k) + 1) suffixes.push(k === 0 ? key : key.slice(k));
    keys.push(suffixes);
    pos = decoded.end;
  }
  return rdata.length - pos === layout.after ? keys : null;
}

/** Offset after the uncompressed name at `pos` in `rdata`; -1 for a pointer or a name running past the end. */
function skipLabels(rdata: Buffer, pos: number): number {
  for (;;) {
    if (pos >= rdata.length) return -1;
    const length = rdata[pos]!;
    if (length === 0) return pos + 1;
    if (length > 63) return -1;
    pos += length + 1;
  }
}

/** The compression key of a name: lower case, without the trailing dot. */
function lowerKey(name: string): string {
  const end = presentationEnd(name);
  const key = name.toLowerCase();
  return end === name.length ? key : key.slice(0, end);
}

/** Uncompressed length of the name written at `offset` (following pointers of our own making). */
function wireLength(buf: Buffer, offset: number): number {
  let length = 1;
  let pos = offset;
  for (let hops = 0; hops < 128; ) {
    const octet = buf[pos]!;
    if (octet === 0) return length;
    if (octet >= 0xc0) {
      pos = ((octet & 0x3f) << 8) | buf[pos + 1]!;
      hops++;
      continue;
    }
    length += octet + 1;
    pos += octet + 1;
  }
  return Infinity;
}
