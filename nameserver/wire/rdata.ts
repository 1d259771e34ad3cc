// RDATA in wire form from the service's record data (the JSON each record row holds).
//
// Names inside RDATA are written uncompressed and lower case: RFC 3597 §4 forbids compression in
// RDATA of types it does not list, and for the listed ones it is optional; never compressing keeps
// one RDATA buffer valid at any message offset and equal to its DNSSEC canonical form (RFC 4034
// §6.2), so the signer signs exactly the bytes the server sends.
//
// Data shapes (names absolute, without the trailing dot; "" or "." is the root):
//   A {address}  AAAA {address}  NS {nameserver}  CNAME {target}  PTR {target}
//   MX {preference, exchange}  TXT {text}  SRV {priority, weight, port, target}
//   CAA {flags, tag, value}  TLSA {usage, selector, matching_type, certificate_data (hex)}
//   SOA {mname, rname, serial, refresh, retry, expire, minimum}
//   DNSKEY, CDNSKEY {flags, protocol, algorithm, public_key (base64)}
//   DS, CDS {key_tag, algorithm, digest_type, digest (hex)}
//   RRSIG {type_covered, algorithm, labels, original_ttl, expiration, inception, key_tag,
//          signer_name, signature (base64; "" gives the prefix a signature is computed over,
//          RFC 4034 §3.1.8.1)}
//   NSEC {next_domain_name, types}
//   NSEC3 {hash_algorithm, flags, iterations, salt (hex, "" or "-" for none),
//          next_hashed_owner_name (base32hex), types}
//   NSEC3PARAM {hash_algorithm, flags, iterations, salt}
// `types` is a list of mnemonics ("A", "TYPE65280") or codes. Times are uint32 seconds.
import { TYPE } from '../types.js';
import { decodeBase32Hex } from './base32hex.js';
import { writeIpv4, writeIpv6 } from './address.js';
import { decodeName, writeName } from './name.js';
import { encodeTypeBitmap } from './typeBitmap.js';
import { typeCode } from './typeMnemonic.js';

/** RFC 1035 §3.2.1: RDLENGTH is 16 bits. */
export const MAX_RDATA_OCTETS = 65535;
/** RFC 1035 §3.3: a <character-string> holds at most 255 octets. */
export const MAX_CHARACTER_STRING_OCTETS = 255;

// One scratch buffer for every encoding (encodeRdata runs to completion synchronously); the slack
// lets a name or fixed field be written before the length check that rejects it.
const scratch = Buffer.allocUnsafe(MAX_RDATA_OCTETS + 1024);

const HEX = /^(?:[0-9a-fA-F]{2})*$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
// With the u flag a surrogate code unit matches only when it is unpaired (no UTF-8 encoding).
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
// RFC 8659 §4.1: the property tag is 1–15 ASCII letters and digits.
const CAA_TAG = /^[a-zA-Z0-9]{1,15}$/;

/** Writes RDATA fields into the scratch buffer, checking each value; RangeError on bad input. */
class RdataBuilder {
  pos = 0;
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

  octets(field: string, octets: Buffer, lengthOctet = false): void {
    if (lengthOctet && octets.length > 255) this.fail(field, 'longer than 255 octets');
    this.room(octets.length + (lengthOctet ? 1 : 0), field);
    if (lengthOctet) scratch[this.pos++] = octets.length;
    this.pos += octets.copy(scratch, this.pos);
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

type Encoder = (b: RdataBuilder) => void;

const dnskey: Encoder = (b) => {
  b.u16('flags');
  // RFC 4034 §2.1.2: the protocol field MUST be 3.
  if (b.uint('protocol', 0xff) !== 3) b.fail('protocol', 'must be 3 (RFC 4034 §2.1.2)');
  b.octet(3);
  b.u8('algorithm');
  b.base64('public_key', { allowEmpty: false });
};

const ds: Encoder = (b) => {
  b.u16('key_tag');
  b.u8('algorithm');
  b.u8('digest_type');
  b.hex('digest', { allowEmpty: false });
};

const nsec3Parameters: Encoder = (b) => {
  b.u8('hash_algorithm');
  b.u8('flags');
  b.u16('iterations');
  b.hex('salt', { allowEmpty: true, lengthOctet: true });
};

const ENCODERS: Record<string, Encoder> = {
  // RFC 1035 §3.4.1
  A: (b) => {
    const address = b.string('address');
    if (!writeIpv4(scratch, 0, address)) b.fail('address', `"${address}" is not an IPv4 address`);
    b.pos = 4;
  },
  // RFC 3596 §2.2
  AAAA: (b) => {
    const address = b.string('address');
    if (!writeIpv6(scratch, 0, address)) b.fail('address', `"${address}" is not an IPv6 address`);
    b.pos = 16;
  },
  NS: (b) => b.name('nameserver'),
  CNAME: (b) => b.name('target'),
  PTR: (b) => b.name('target'),
  // RFC 1035 §3.3.9
  MX: (b) => {
    b.u16('preference');
    b.name('exchange');
  },
  TXT: (b) => b.characterStrings('text'),
  // RFC 2782
  SRV: (b) => {
    b.u16('priority');
    b.u16('weight');
    b.u16('port');
    b.name('target');
  },
  // RFC 8659 §4.1: flags, tag length, tag, value (the rest of the RDATA).
  CAA: (b) => {
    b.u8('flags');
    const tag = b.string('tag');
    if (!CAA_TAG.test(tag)) b.fail('tag', 'expected 1 to 15 ASCII letters and digits (RFC 8659 §4.1)');
    b.bytes('tag', tag, 'latin1', tag.length, true);
    const value = b.string('value');
    if (LONE_SURROGATE.test(value)) b.fail('value', 'contains an unpaired UTF-16 surrogate');
    b.bytes('value', value, 'utf8', Buffer.byteLength(value, 'utf8'));
  },
  // RFC 6698 §2.1
  TLSA: (b) => {
    b.u8('usage');
    b.u8('selector');
    b.u8('matching_type');
    b.hex('certificate_data', { allowEmpty: false });
  },
  // RFC 1035 §3.3.13
  SOA: (b) => {
    b.name('mname');
    b.name('rname');
    b.u32('serial');
    b.u32('refresh');
    b.u32('retry');
    b.u32('expire');
    b.u32('minimum');
  },
  // RFC 4034 §2.1, RFC 7344 §3.2 (CDNSKEY has the DNSKEY format)
  DNSKEY: dnskey,
  CDNSKEY: dnskey,
  // RFC 4034 §5.1, RFC 7344 §3.1 (CDS has the DS format)
  DS: ds,
  CDS: ds,
  // RFC 4034 §3.1
  RRSIG: (b) => {
    const covered = b.value('type_covered');
    const code = typeof covered === 'number' ? covered : typeof covered === 'string' ? typeCode(covered) : null;
    if (code === null || !Number.isInteger(code) || code < 0 || code > 0xffff) return b.fail('type_covered', `"${String(covered)}" is not a type`);
    b.pos = scratch.writeUInt16BE(code, 0);
    b.u8('algorithm');
    b.u8('labels');
    b.u32('original_ttl');
    b.u32('expiration');
    b.u32('inception');
    b.u16('key_tag');
    b.name('signer_name');
    b.base64('signature', { allowEmpty: true });
  },
  // RFC 4034 §4.1
  NSEC: (b) => {
    b.name('next_domain_name');
    b.typeBitmap('types', { allowEmpty: false });
  },
  // RFC 5155 §3.2
  NSEC3: (b) => {
    nsec3Parameters(b);
    const hashed = b.string('next_hashed_owner_name');
    const octets = decodeBase32Hex(hashed);
    if (!octets || octets.length === 0) return b.fail('next_hashed_owner_name', 'expected base32hex (RFC 4648 §7) without padding');
    b.octets('next_hashed_owner_name', octets, true);
    // RFC 5155 §3.2.1: an empty bitmap is fine here (an empty non-terminal).
    b.typeBitmap('types', { allowEmpty: true });
  },
  // RFC 5155 §4.2
  NSEC3PARAM: nsec3Parameters,
};

/**
 * The wire RDATA of a record of `type` (mnemonic, as in TYPE) with the service's `data`. Throws a
 * RangeError for an unknown type or any invalid value: nothing malformed is ever written.
 */
export function encodeRdata(type: string, data: Record<string, unknown>): Buffer {
  const encoder = ENCODERS[type];
  if (!encoder) throw new RangeError(`no RDATA encoder for type "${type}"`);
  if (typeof data !== 'object' || data === null) throw new RangeError(`${type}: expected an object of fields`);
  const builder = new RdataBuilder(type, data);
  encoder(builder);
  return builder.result();
}

/** Offset of the name in RDATA of the types whose RDATA ends in a host name to chase. */
const TARGET_OFFSET: ReadonlyMap<number, number> = new Map([
  [TYPE.NS, 0],
  [TYPE.CNAME, 0],
  [TYPE.PTR, 0],
  [TYPE.MX, 2],
  [TYPE.SRV, 6],
]);

/**
 * The target name in NS, CNAME, PTR, MX and SRV RDATA, lower case without the trailing dot ("" for
 * the root of a null MX or SRV): what CNAME chasing and additional-section processing look up
 * (RFC 1034 §3.6.2, §4.3.2; RFC 2782). Null for other types or malformed RDATA.
 */
export function rdataTarget(type: number, rdata: Buffer): string | null {
  const offset = TARGET_OFFSET.get(type);
  if (offset === undefined) return null;
  const decoded = decodeName(rdata, offset);
  if (!decoded || decoded.end !== rdata.length) return null;
  return decoded.name.toLowerCase();
}
