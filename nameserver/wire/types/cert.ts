// CERT (RFC 4398 §2): certificate type, key tag, algorithm, certificate or CRL in base64. The
// master-file form may name the type by its mnemonic (§2.2); we print the number, as Knot does.
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

/** A certificate type given as a number or a mnemonic (any case); null when it is neither. */
export function certTypeCode(value: unknown): number | null {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 0 && value <= 0xffff ? value : null;
  if (typeof value !== 'string') return null;
  if (/^[0-9]{1,5}$/.test(value)) return certTypeCode(Number(value));
  return CERT_TYPES[value.toUpperCase()] ?? null;
}

function certType(b: RdataBuilder): void {
  const code = certTypeCode(b.value('cert_type'));
  if (code === null) b.fail('cert_type', `expected 0–65535 or one of ${Object.keys(CERT_TYPES).join(', ')} (RFC 4398 §2.1)`);
  b.octet(code >> 8);
  b.octet(code & 0xff);
}

export const cert: RecordCodec = {
  type: 'CERT',
  fields: [
    ['cert_type', 'word'],
    ['key_tag', 'uint'],
    ['algorithm', 'uint'],
    ['certificate', 'base64'],
  ],
  encode: (b) => {
    certType(b);
    b.u16('key_tag');
    b.u8('algorithm');
    b.base64('certificate', { allowEmpty: false });
  },
  decode: (r) => ({ cert_type: r.u16(), key_tag: r.u16(), algorithm: r.u8(), certificate: r.restNonEmpty().toString('base64') }),
  format: (r) => `${r.u16()} ${r.u16()} ${r.u8()} ${r.restNonEmpty().toString('base64')}`,
};
