// RDATA in presentation form (RFC 1035 §5.1 master-file syntax) for tests, logs and transfer
// debugging. The output matches what `dig +nosplit` prints (hex and base32hex upper case, names
// absolute with the trailing dot) so the two can be compared directly.
import { TYPE } from '../types.js';
import { formatIpv4, formatIpv6 } from './address.js';
import { encodeBase32Hex } from './base32hex.js';
import { decodeUncompressedName } from './name.js';
import { decodeTypeBitmap } from './typeBitmap.js';
import { typeName } from './typeMnemonic.js';

class Malformed extends Error {}

/** Reads RDATA fields front to back; any overrun throws Malformed (caught by decodeRdata). */
class RdataReader {
  pos = 0;
  constructor(readonly buf: Buffer) {}

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
  /** RDATA names are never compressed (RFC 3597 §4), so a pointer is malformed here. */
  name(): string {
    const decoded = decodeUncompressedName(this.buf, this.pos);
    if (!decoded) throw new Malformed();
    this.pos = decoded.end;
    return decoded.name === '' ? '.' : `${decoded.name}.`;
  }
  characterString(): string {
    return quoted(this.octets(this.u8()));
  }
  done(): boolean {
    return this.pos === this.buf.length;
  }
}

/**
 * One quoted <character-string> (RFC 1035 §5.1): `"` and `\` escaped with a backslash, octets
 * outside printable ASCII (0x20–0x7e) as \DDD in decimal. Also the API's presentation of TXT.
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

const hex = (octets: Buffer) => octets.toString('hex').toUpperCase();

/** RFC 4034 §3.2: RRSIG times as YYYYMMDDHHmmSS (UTC). */
function timestamp(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

function typeList(r: RdataReader): string {
  const types = decodeTypeBitmap(r.buf, r.pos, r.buf.length);
  if (!types) throw new Malformed();
  r.pos = r.buf.length;
  return types.map((t) => ` ${typeName(t)}`).join('');
}

function salt(r: RdataReader): string {
  const length = r.u8();
  return length === 0 ? '-' : hex(r.octets(length));
}

type Formatter = (r: RdataReader) => string;

const dnskey: Formatter = (r) => `${r.u16()} ${r.u8()} ${r.u8()} ${r.restNonEmpty().toString('base64')}`;
const ds: Formatter = (r) => `${r.u16()} ${r.u8()} ${r.u8()} ${hex(r.restNonEmpty())}`;
const nsec3param: Formatter = (r) => `${r.u8()} ${r.u8()} ${r.u16()} ${salt(r)}`;

const FORMATTERS: ReadonlyMap<number, Formatter> = new Map<number, Formatter>([
  [TYPE.A, (r) => formatIpv4(r.buf, r.take(4))],
  [TYPE.AAAA, (r) => formatIpv6(r.buf, r.take(16))],
  [TYPE.NS, (r) => r.name()],
  [TYPE.CNAME, (r) => r.name()],
  [TYPE.PTR, (r) => r.name()],
  [TYPE.MX, (r) => `${r.u16()} ${r.name()}`],
  [
    TYPE.TXT,
    (r) => {
      const strings: string[] = [];
      do strings.push(r.characterString());
      while (!r.done());
      return strings.join(' ');
    },
  ],
  [TYPE.SRV, (r) => `${r.u16()} ${r.u16()} ${r.u16()} ${r.name()}`],
  [TYPE.CAA, (r) => `${r.u8()} ${r.octets(r.u8()).toString('latin1')} ${quoted(r.rest())}`],
  [TYPE.TLSA, (r) => `${r.u8()} ${r.u8()} ${r.u8()} ${hex(r.restNonEmpty())}`],
  [TYPE.SOA, (r) => `${r.name()} ${r.name()} ${r.u32()} ${r.u32()} ${r.u32()} ${r.u32()} ${r.u32()}`],
  [TYPE.DNSKEY, dnskey],
  [TYPE.CDNSKEY, dnskey],
  [TYPE.DS, ds],
  [TYPE.CDS, ds],
  [
    TYPE.RRSIG,
    (r) =>
      `${typeName(r.u16())} ${r.u8()} ${r.u8()} ${r.u32()} ${timestamp(r.u32())} ${timestamp(r.u32())} ${r.u16()} ${r.name()} ${r.restNonEmpty().toString('base64')}`,
  ],
  [TYPE.NSEC, (r) => `${r.name()}${typeList(r)}`],
  [TYPE.NSEC3, (r) => `${nsec3param(r)} ${encodeBase32Hex(r.octets(r.u8()))}${typeList(r)}`],
  [TYPE.NSEC3PARAM, nsec3param],
]);

/** RFC 3597 §5: the generic form, valid for any type. */
function generic(rdata: Buffer): string {
  return rdata.length === 0 ? '\\# 0' : `\\# ${rdata.length} ${hex(rdata)}`;
}

/**
 * The presentation form of `rdata` of type `type`, as in a zone file after the type mnemonic.
 * Never throws: unknown types and RDATA malformed for its type come out in the RFC 3597 generic
 * form (`\# 4 C0000201`), which any zone-file parser also accepts.
 */
export function decodeRdata(type: number, rdata: Buffer): string {
  const formatter = FORMATTERS.get(type);
  if (!formatter) return generic(rdata);
  const reader = new RdataReader(rdata);
  try {
    const text = formatter(reader);
    return reader.done() ? text : generic(rdata);
  } catch (e) {
    if (e instanceof Malformed) return generic(rdata);
    throw e;
  }
}
