// TLSA (RFC 6698 §2.1): usage, selector, matching type, certificate association data.
import { hexTailCodec } from './hexTail.js';

export const tlsa = hexTailCodec(
  'TLSA',
  [
    ['usage', 1],
    ['selector', 1],
    ['matching_type', 1],
  ],
  'certificate_data',
);

// SMIMEA (RFC 8162 §2): the TLSA RDATA layout for S/MIME certificates.
export const smimea = { ...tlsa, type: 'SMIMEA' };
