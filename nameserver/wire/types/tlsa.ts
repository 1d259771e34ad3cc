// TLSA (RFC 6698 §2.1): usage, selector, matching type, certificate association data.
import type { RecordCodec } from '../rdataCodec.js';

export const tlsa: RecordCodec = {
  type: 'TLSA',
  fields: [
    ['usage', 'uint'],
    ['selector', 'uint'],
    ['matching_type', 'uint'],
    ['certificate_data', 'hex'],
  ],
  encode: (b) => {
    b.u8('usage');
    b.u8('selector');
    b.u8('matching_type');
    b.hex('certificate_data', { allowEmpty: false });
  },
  decode: (r) => ({ usage: r.u8(), selector: r.u8(), matching_type: r.u8(), certificate_data: r.restNonEmpty().toString('hex') }),
  format: (r) => `${r.u8()} ${r.u8()} ${r.u8()} ${r.hex(r.restNonEmpty())}`,
};

// SMIMEA (RFC 8162 §2): the TLSA RDATA layout for S/MIME certificates.
export const smimea: RecordCodec = { ...tlsa, type: 'SMIMEA' };
