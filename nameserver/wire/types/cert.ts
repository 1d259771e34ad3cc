// CERT (RFC 4398 §2): certificate type, key tag, algorithm, certificate or CRL in base64. The
// master-file form may name the type and the algorithm by their mnemonics (§2.2; BIND prints
// them so); we print numbers, as Knot does.
import type { RdataBuilder, RecordCodec } from '../rdataCodec.js';

/** RFC 4398 §2.1 certificate type mnemonics. */
export const CERT_TYPES: Readonly<Record<string, number>> = {
  PKIX: 1,
  SPKI: 2,
  PGP: 3,
  IPKIX: 4,
  ISPKI: 5,
  IPGP: 6,
  ACPKIX: 7,
  IACPKIX: 8,
  URI: 253,
  OID: 254,
};

/** DNSSEC algorithm mnemonics (RFC 4034 Appendix A.1 and the IANA registry), as BIND prints them in CERT. */
export const CERT_ALGORITHMS: Readonly<Record<string, number>> = {
  RSAMD5: 1,
  DH: 2,
  DSA: 3,
  ECC: 4,
  RSASHA1: 5,
  NSEC3DSA: 6,
  NSEC3RSASHA1: 7,
  RSASHA256: 8,
  RSASHA512: 10,
  ECCGOST: 12,
  ECDSAP256SHA256: 13,
  ECDSAP384SHA384: 14,
  ED25519: 15,
  ED448: 16,
  INDIRECT: 252,
  PRIVATEDNS: 253,
  PRIVATEOID: 254,
};

/** A number up to `max` (also as decimal text) or a mnemonic of `table` (any case); null when it is neither. */
function codeOf(table: Readonly<Record<string, number>>, max: number, value: unknown): number | null {
  if (typeof value === 'string' && /^[0-9]{1,5}$/.test(value)) return codeOf(table, max, Number(value));
  if (typeof value === 'number') return Number.isInteger(value) && value >= 0 && value <= max ? value : null;
  return typeof value === 'string' ? (table[value.toUpperCase()] ?? null) : null;
}

/** A certificate type given as a number or a mnemonic; null when it is neither. */
export const certTypeCode = (value: unknown): number | null => codeOf(CERT_TYPES, 0xffff, value);

/** A CERT algorithm given as a number or a mnemonic; null when it is neither. */
export const certAlgorithmCode = (value: unknown): number | null => codeOf(CERT_ALGORITHMS, 0xff, value);

function certType(b: RdataBuilder): void {
  const code = certTypeCode(b.value('cert_type'));
  if (code === null) b.fail('cert_type', `expected 0–65535 or one of ${Object.keys(CERT_TYPES).join(', ')} (RFC 4398 §2.1)`);
  b.octet(code >> 8);
  b.octet(code & 0xff);
}

function certAlgorithm(b: RdataBuilder): void {
  const code = certAlgorithmCode(b.value('algorithm'));
  if (code === null) b.fail('algorithm', `expected 0–255 or one of ${Object.keys(CERT_ALGORITHMS).join(', ')} (RFC 4398 §2.2)`);
  b.octet(code);
}

export const cert: RecordCodec = {
  type: 'CERT',
  fields: [
    ['cert_type', 'word'],
    ['key_tag', 'uint'],
    ['algorithm', 'word'],
    ['certificate', 'base64'],
  ],
  encode: (b) => {
    certType(b);
    b.u16('key_tag');
    certAlgorithm(b);
    b.base64('certificate', { allowEmpty: false });
  },
  decode: (r) => ({ cert_type: r.u16(), key_tag: r.u16(), algorithm: r.u8(), certificate: r.restNonEmpty().toString('base64') }),
  format: (r) => `${r.u16()} ${r.u16()} ${r.u8()} ${r.restNonEmpty().toString('base64')}`,
};
