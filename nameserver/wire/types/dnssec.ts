// The DNSSEC types the zone's signer writes (users never do): DNSKEY and CDNSKEY (RFC 4034 §2.1,
// RFC 7344 §3.2), DS and CDS (RFC 4034 §5.1, RFC 7344 §3.1), RRSIG (RFC 4034 §3.1), NSEC
// (RFC 4034 §4.1), NSEC3 and NSEC3PARAM (RFC 5155 §3.2, §4.2). Data: keys and signatures in
// base64, digests and salts in hex ("" or "-" for no salt), times as uint32 seconds, types as
// mnemonics; an RRSIG with signature "" is the prefix a signature is computed over (RFC 4034 §3.1.8.1).
import { decodeBase32Hex, encodeBase32Hex } from '../base32hex.js';
import { Malformed, type RdataBuilder, type RdataReader, type RecordCodec } from '../rdataCodec.js';
import { typeName } from '../rrTypes.js';
import { hexTailCodec } from './hexTail.js';

function dnskeyLike(type: string): RecordCodec {
  return {
    type,
    fields: [
      ['flags', 'uint'],
      ['protocol', 'uint'],
      ['algorithm', 'uint'],
      ['public_key', 'base64'],
    ],
    encode: (b) => {
      b.u16('flags');
      // RFC 4034 §2.1.2: the protocol field MUST be 3.
      if (b.uint('protocol', 0xff) !== 3) b.fail('protocol', 'must be 3 (RFC 4034 §2.1.2)');
      b.octet(3);
      b.u8('algorithm');
      b.base64('public_key', { allowEmpty: false });
    },
    decode: (r) => ({ flags: r.u16(), protocol: r.u8(), algorithm: r.u8(), public_key: r.restNonEmpty().toString('base64') }),
    format: (r) => `${r.u16()} ${r.u8()} ${r.u8()} ${r.restNonEmpty().toString('base64')}`,
  };
}

const DS_HEAD = [
  ['key_tag', 2],
  ['algorithm', 1],
  ['digest_type', 1],
] as const;

export const dnskey = dnskeyLike('DNSKEY');
export const cdnskey = dnskeyLike('CDNSKEY');
export const ds = hexTailCodec('DS', DS_HEAD, 'digest');
export const cds = hexTailCodec('CDS', DS_HEAD, 'digest');

/** RFC 4034 §3.2: RRSIG times as YYYYMMDDHHmmSS (UTC). */
function rrsigTime(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

export const rrsig: RecordCodec = {
  type: 'RRSIG',
  fields: [
    ['type_covered', 'word'],
    ['algorithm', 'uint'],
    ['labels', 'uint'],
    ['original_ttl', 'uint'],
    ['expiration', 'time'],
    ['inception', 'time'],
    ['key_tag', 'uint'],
    ['signer_name', 'name'],
    ['signature', 'base64'],
  ],
  encode: (b) => {
    b.typeField('type_covered');
    b.u8('algorithm');
    b.u8('labels');
    b.u32('original_ttl');
    b.u32('expiration');
    b.u32('inception');
    b.u16('key_tag');
    b.name('signer_name');
    b.base64('signature', { allowEmpty: true });
  },
  decode: (r) => ({
    type_covered: typeName(r.u16()),
    algorithm: r.u8(),
    labels: r.u8(),
    original_ttl: r.u32(),
    expiration: r.u32(),
    inception: r.u32(),
    key_tag: r.u16(),
    signer_name: r.name(),
    signature: r.rest().toString('base64'),
  }),
  format: (r) =>
    `${typeName(r.u16())} ${r.u8()} ${r.u8()} ${r.u32()} ${rrsigTime(r.u32())} ${rrsigTime(r.u32())} ${r.u16()} ${r.presentationName()} ${r.restNonEmpty().toString('base64')}`,
};

export const nsec: RecordCodec = {
  type: 'NSEC',
  fields: [
    ['next_domain_name', 'name'],
    ['types', 'types'],
  ],
  encode: (b) => {
    b.name('next_domain_name');
    b.typeBitmap('types', { allowEmpty: false });
  },
  decode: (r) => ({ next_domain_name: r.name(), types: r.types() }),
  format: (r) => [r.presentationName(), ...r.types()].join(' '),
};

function nsec3Parameters(b: RdataBuilder): void {
  b.u8('hash_algorithm');
  b.u8('flags');
  b.u16('iterations');
  b.hex('salt', { allowEmpty: true, lengthOctet: true });
}

const salt = (r: RdataReader) => {
  const octets = r.characterString();
  return octets.length === 0 ? '-' : r.hex(octets);
};

const NSEC3PARAM_FIELDS = [
  ['hash_algorithm', 'uint'],
  ['flags', 'uint'],
  ['iterations', 'uint'],
  ['salt', 'word'],
] as const;

export const nsec3: RecordCodec = {
  type: 'NSEC3',
  fields: [...NSEC3PARAM_FIELDS, ['next_hashed_owner_name', 'word'], ['types', 'types']],
  encode: (b) => {
    nsec3Parameters(b);
    const hashed = b.string('next_hashed_owner_name');
    const octets = decodeBase32Hex(hashed);
    if (!octets || octets.length === 0) return b.fail('next_hashed_owner_name', 'expected base32hex (RFC 4648 §7) without padding');
    b.octets('next_hashed_owner_name', octets, true);
    // RFC 5155 §3.2.1: an empty bitmap is fine here (an empty non-terminal).
    b.typeBitmap('types', { allowEmpty: true });
  },
  decode: (r) => {
    const data = { hash_algorithm: r.u8(), flags: r.u8(), iterations: r.u16(), salt: r.characterString().toString('hex') };
    const hashed = r.characterString();
    if (hashed.length === 0) throw new Malformed();
    return { ...data, next_hashed_owner_name: encodeBase32Hex(hashed), types: r.types() };
  },
  format: (r) => {
    const head = `${r.u8()} ${r.u8()} ${r.u16()} ${salt(r)}`;
    const hashed = r.characterString();
    if (hashed.length === 0) throw new Malformed();
    return [head, encodeBase32Hex(hashed), ...r.types()].join(' ');
  },
};

export const nsec3param: RecordCodec = {
  type: 'NSEC3PARAM',
  fields: NSEC3PARAM_FIELDS,
  encode: nsec3Parameters,
  decode: (r) => ({ hash_algorithm: r.u8(), flags: r.u8(), iterations: r.u16(), salt: r.characterString().toString('hex') }),
  format: (r) => `${r.u8()} ${r.u8()} ${r.u16()} ${salt(r)}`,
};
