// The machinery every per-type codec (./types/<type>.ts) is written with: a builder that writes
// RDATA fields from the service's data (checking each value), a reader that reads them back, and
// the shape of a codec. Nothing here knows a type.
//
// The data of a record is the JSON object each record row holds: names absolute, lower case,
// without the trailing dot ('.' is the root; '' is accepted for it), numbers as numbers, octet
// strings as hex or base64 text. Names inside RDATA are written uncompressed and lower case:
// RFC 3597 §4 forbids compression in RDATA of types it does not list, and for the listed ones it
// is optional; never compressing keeps one RDATA buffer valid at any message offset and equal to
// its DNSSEC canonical form (RFC 4034 §6.2), so the signer signs exactly the bytes the server sends.
import { decodeUncompressedName, writeName } from './name.js';
import { decodeTypeBitmap, encodeTypeBitmap } from './typeBitmap.js';
import { typeCode, typeName } from './rrTypes.js';

/** RFC 1035 §3.2.1: RDLENGTH is 16 bits. */
const MAX_RDATA_OCTETS = 65535;
/** RFC 1035 §3.3: a <character-string> holds at most 255 octets. */
const MAX_CHARACTER_STRING_OCTETS = 255;

// One scratch buffer for every encoding (encoding runs to completion synchronously); the slack
// lets a name or fixed field be written before the length check that rejects it.
const scratch = Buffer.allocUnsafe(MAX_RDATA_OCTETS + 1024);

const HEX = /^(?:[0-9a-fA-F]{2})*$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
// With the u flag a surrogate code unit matches only when it is unpaired (no UTF-8 encoding).
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** Writes RDATA fields into the scratch buffer, checking each value; RangeError on bad input. */
export class RdataBuilder {
  pos = 0;
  readonly scratch = scratch;
  constructor(
    private readonly type: string,
    private readonly data: Record<string, unknown>,
  ) {}

  fail(field: string, problem: string): never {
    throw new RangeError(`${this.type} ${field}: ${problem}`);
  }

  private room(octets: number, field: string): void {
    if (this.pos + octets > MAX_RDATA_OCTETS) this.fail(field, `RDATA would exceed ${MAX_RDATA_OCTETS} octets`);
  }

  value(field: string): unknown {
    return this.data[field];
  }

  string(field: string): string {
    const v = this.data[field];
    if (typeof v !== 'string') this.fail(field, `expected a string, got ${v === null ? 'null' : typeof v}`);
    return v;
  }

  uint(field: string, max: number): number {
    const v = this.data[field];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max) this.fail(field, `expected an integer 0–${max}, got ${String(v)}`);
    return v;
  }

  u8(field: string): void {
    this.room(1, field);
    scratch[this.pos++] = this.uint(field, 0xff);
  }

  u16(field: string): void {
    this.room(2, field);
    this.pos = scratch.writeUInt16BE(this.uint(field, 0xffff), this.pos);
  }

  u32(field: string): void {
    this.room(4, field);
    this.pos = scratch.writeUInt32BE(this.uint(field, 0xffffffff), this.pos);
  }

  octet(value: number): void {
    scratch[this.pos++] = value;
  }

  name(field: string): void {
    const text = this.string(field);
    this.room(0, field);
    try {
      this.pos = writeName(scratch, this.pos, text, true);
    } catch (e) {
      this.fail(field, e instanceof Error ? e.message : String(e));
    }
    this.room(0, field);
  }

  hex(field: string, options: { allowEmpty: boolean; lengthOctet?: boolean }): void {
    let text = this.string(field);
    if (options.lengthOctet && text === '-') text = ''; // RFC 5155 §3.3: "-" is the empty salt
    if (!HEX.test(text)) this.fail(field, 'expected hexadecimal digits, an even number of them');
    if (!text && !options.allowEmpty) this.fail(field, 'must not be empty');
    this.bytes(field, text, 'hex', text.length / 2, options.lengthOctet);
  }

  base64(field: string, options: { allowEmpty: boolean }): void {
    const text = this.string(field);
    if (!BASE64.test(text)) this.fail(field, 'expected base64 (RFC 4648 §4, padded, no whitespace)');
    if (!text && !options.allowEmpty) this.fail(field, 'must not be empty');
    this.room(Buffer.byteLength(text, 'base64'), field);
    this.pos += scratch.write(text, this.pos, 'base64');
  }

  /** `octets` octets of `text` in `encoding`, preceded by their count when `lengthOctet`. */
  bytes(field: string, text: string, encoding: 'hex' | 'utf8' | 'latin1', octets: number, lengthOctet = false): void {
    if (lengthOctet && octets > 255) this.fail(field, 'longer than 255 octets');
    this.room(octets + (lengthOctet ? 1 : 0), field);
    if (lengthOctet) scratch[this.pos++] = octets;
    this.pos += scratch.write(text, this.pos, encoding);
  }

  /** Text as UTF-8 octets to the end of the RDATA (or with a length octet). */
  utf8(field: string, text: string, lengthOctet = false): void {
    if (LONE_SURROGATE.test(text)) this.fail(field, 'contains an unpaired UTF-16 surrogate');
    this.bytes(field, text, 'utf8', Buffer.byteLength(text, 'utf8'), lengthOctet);
  }

  octets(field: string, octets: Buffer, lengthOctet = false): void {
    if (lengthOctet && octets.length > 255) this.fail(field, 'longer than 255 octets');
    this.room(octets.length + (lengthOctet ? 1 : 0), field);
    if (lengthOctet) scratch[this.pos++] = octets.length;
    this.pos += octets.copy(scratch, this.pos);
  }

  /** A type given as a mnemonic ("A", "TYPE65280") or a code, as 16 bits. */
  typeField(field: string): void {
    const v = this.data[field];
    const code = typeof v === 'number' ? v : typeof v === 'string' ? typeCode(v) : null;
    if (code === null || !Number.isInteger(code) || code < 0 || code > 0xffff) this.fail(field, `"${String(v)}" is not a type`);
    this.room(2, field);
    this.pos = scratch.writeUInt16BE(code, this.pos);
  }

  typeBitmap(field: string, options: { allowEmpty: boolean }): void {
    const v = this.data[field];
    if (!Array.isArray(v)) this.fail(field, 'expected a list of types');
    if (v.length === 0 && !options.allowEmpty) this.fail(field, 'must list at least the NSEC type itself (RFC 4034 §4.1.2)');
    const codes = v.map((t) => {
      const code = typeof t === 'number' ? t : typeof t === 'string' ? typeCode(t) : null;
      if (code === null || !Number.isInteger(code) || code < 1 || code > 0xffff) this.fail(field, `"${String(t)}" is not a type`);
      return code;
    });
    this.octets(field, encodeTypeBitmap(codes));
  }

  /** RFC 1035 §3.3.14: the text's UTF-8 octets cut into character-strings of at most 255. */
  characterStrings(field: string): void {
    const text = this.string(field);
    if (LONE_SURROGATE.test(text)) this.fail(field, 'contains an unpaired UTF-16 surrogate');
    const octets = Buffer.byteLength(text, 'utf8');
    const count = Math.max(1, Math.ceil(octets / MAX_CHARACTER_STRING_OCTETS));
    this.room(octets + count, field);
    // Write the octets once, after room for the length octets, then slide each chunk down to its
    // place: chunk i moves from start + count + 255·i to start + 256·i + 1, never forward.
    const start = this.pos;
    scratch.write(text, start + count, 'utf8');
    for (let i = 0; i < count; i++) {
      const from = start + count + i * MAX_CHARACTER_STRING_OCTETS;
      const length = Math.min(MAX_CHARACTER_STRING_OCTETS, octets - i * MAX_CHARACTER_STRING_OCTETS);
      const to = start + i * (MAX_CHARACTER_STRING_OCTETS + 1);
      scratch[to] = length;
      scratch.copyWithin(to + 1, from, from + length);
    }
    this.pos = start + octets + count;
  }

  result(): Buffer {
    return Buffer.from(scratch.subarray(0, this.pos));
  }
}

/** RDATA that does not have the layout of its type; readers throw it, callers catch it. */
export class Malformed extends Error {}

// fatal: refuse invalid UTF-8 instead of replacing it; ignoreBOM: an EF BB BF is data.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Reads RDATA fields front to back; any overrun or malformed field throws Malformed. */
export class RdataReader {
  pos = 0;
  constructor(
    readonly buf: Buffer,
    /** Hex digits in lower case (the API's stored form) rather than upper case (dig's). */
    readonly lowerHex = false,
  ) {}

  /** Offset of the next `octets` octets, consumed. */
  take(octets: number): number {
    const at = this.pos;
    if (at + octets > this.buf.length) throw new Malformed();
    this.pos += octets;
    return at;
  }

  u8(): number {
    return this.buf[this.take(1)]!;
  }
  u16(): number {
    return this.buf.readUInt16BE(this.take(2));
  }
  u32(): number {
    return this.buf.readUInt32BE(this.take(4));
  }
  octets(length: number): Buffer {
    const at = this.take(length);
    return this.buf.subarray(at, at + length);
  }
  rest(): Buffer {
    return this.octets(this.buf.length - this.pos);
  }
  /** A non-empty rest of the RDATA (digests, keys, certificate data). */
  restNonEmpty(): Buffer {
    if (this.pos >= this.buf.length) throw new Malformed();
    return this.rest();
  }
  hex(octets: Buffer): string {
    const text = octets.toString('hex');
    return this.lowerHex ? text : text.toUpperCase();
  }
  /**
   * An uncompressed name (RFC 3597 §4) in the data form: no trailing dot, '.' for the root, lower
   * case as encodeRdata writes it (RFC 4034 §6.2), so data → wire → data is the identity.
   */
  name(lowerCase = true): string {
    const decoded = decodeUncompressedName(this.buf, this.pos, lowerCase);
    if (!decoded) throw new Malformed();
    this.pos = decoded.end;
    return decoded.name === '' ? '.' : decoded.name;
  }
  /** The name in presentation: absolute, with the trailing dot, its case kept (as dig prints it). */
  presentationName(): string {
    const name = this.name(false);
    return name === '.' ? '.' : `${name}.`;
  }
  /** Octets as UTF-8 text; Malformed when they are not UTF-8. */
  utf8(octets: Uint8Array): string {
    try {
      return utf8.decode(octets);
    } catch {
      throw new Malformed();
    }
  }
  characterString(): Buffer {
    return this.octets(this.u8());
  }
  types(): string[] {
    const types = decodeTypeBitmap(this.buf, this.pos, this.buf.length);
    if (!types) throw new Malformed();
    this.pos = this.buf.length;
    return types.map(typeName);
  }
  done(): boolean {
    return this.pos === this.buf.length;
  }
}

/**
 * How one field is written in a master file (RFC 1035 §5.1), for a zone-file reader:
 * word: one unquoted token, escapes decoded (addresses, CAA tags); uint: one decimal number;
 * name: one domain name, relative to the origin; string: one <character-string>, quoted or not;
 * strings: the rest, <character-string>s joined with nothing between (TXT); hex: the rest, hex
 * digits with blank space allowed between them (RFC 6698 §2.2, RFC 4034 §5.3); base64: the rest,
 * the same for base64 (RFC 4034 §2.2); time: YYYYMMDDHHmmSS or seconds (RFC 4034 §3.2); types:
 * the rest, type mnemonics (RFC 4034 §4.2); svcparams: the rest, SvcParams `key=value` (RFC 9460
 * §2.1; a quoted value is the token after `key=`); decimal: a number with a fraction, in a layout
 * of its own that the codec's readPresentation reads (LOC, RFC 1876 §3).
 */
export type FieldKind = 'word' | 'uint' | 'name' | 'string' | 'strings' | 'hex' | 'base64' | 'time' | 'types' | 'svcparams' | 'decimal';

/** One RR type: its data fields and the three forms — data, wire, presentation — in one place. */
export interface RecordCodec {
  /** Mnemonic in the type table (./rrTypes.ts). */
  readonly type: string;
  /** The data fields in presentation (and wire) order, with their master-file form. */
  readonly fields: readonly (readonly [field: string, kind: FieldKind])[];
  /** data → wire: writes the fields with the builder; throws RangeError on any bad value. */
  encode(b: RdataBuilder): void;
  /** wire → data; throws Malformed. */
  decode(r: RdataReader): Record<string, unknown>;
  /** wire → presentation (after the type mnemonic); throws Malformed. */
  format(r: RdataReader): string;
  /**
   * master-file tokens (unquoted, after the type) → data, or what is wrong with them: for a type
   * whose presentation is not one token per field (LOC); the others are read by their field kinds.
   */
  readPresentation?(tokens: readonly string[]): Record<string, unknown> | string;
}

/**
 * One quoted <character-string> (RFC 1035 §5.1): `"` and `\` escaped with a backslash, octets
 * outside printable ASCII (0x20–0x7e) as \DDD in decimal.
 */
export function quoted(octets: Uint8Array): string {
  let out = '"';
  for (const b of octets) {
    if (b === 0x22 || b === 0x5c) out += `\\${String.fromCharCode(b)}`;
    else if (b >= 0x20 && b <= 0x7e) out += String.fromCharCode(b);
    else out += `\\${String(b).padStart(3, '0')}`;
  }
  return `${out}"`;
}
