// SSHFP (RFC 4255 §3.1): algorithm, fingerprint type, fingerprint. Algorithms 1 RSA, 2 DSA,
// 3 ECDSA (RFC 6594), 4 Ed25519 (RFC 7479), 6 Ed448 (RFC 8709); fingerprint types 1 SHA-1,
// 2 SHA-256 (RFC 6594). Which pairs and lengths are allowed is policy (src/domain/records/sshfp.ts).
import type { RecordCodec } from '../rdataCodec.js';

export const sshfp: RecordCodec = {
  type: 'SSHFP',
  fields: [
    ['algorithm', 'uint'],
    ['fingerprint_type', 'uint'],
    ['fingerprint', 'hex'],
  ],
  encode: (b) => {
    b.u8('algorithm');
    b.u8('fingerprint_type');
    b.hex('fingerprint', { allowEmpty: false });
  },
  decode: (r) => ({ algorithm: r.u8(), fingerprint_type: r.u8(), fingerprint: r.restNonEmpty().toString('hex') }),
  format: (r) => `${r.u8()} ${r.u8()} ${r.hex(r.restNonEmpty())}`,
};
