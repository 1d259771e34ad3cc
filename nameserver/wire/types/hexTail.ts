// RDATA that is a few fixed-width integers followed by an octet string, in hex, that fills the
// rest and is never empty: DS and CDS (RFC 4034 §5.1), TLSA and SMIMEA (RFC 6698 §2.1).
import type { RecordCodec } from '../rdataCodec.js';

/** A leading integer field and its width in octets. */
type HeadField = readonly [field: string, octets: 1 | 2];

export function hexTailCodec(type: string, head: readonly HeadField[], tail: string): RecordCodec {
  return {
    type,
    fields: [...head.map(([field]) => [field, 'uint'] as const), [tail, 'hex']],
    encode: (b) => {
      for (const [field, octets] of head) {
        if (octets === 1) b.u8(field);
        else b.u16(field);
      }
      b.hex(tail, { allowEmpty: false });
    },
    decode: (r) => {
      const data: Record<string, unknown> = {};
      for (const [field, octets] of head) data[field] = octets === 1 ? r.u8() : r.u16();
      data[tail] = r.restNonEmpty().toString('hex');
      return data;
    },
    format: (r) => {
      const values = head.map(([, octets]) => (octets === 1 ? r.u8() : r.u16()));
      return `${values.join(' ')} ${r.hex(r.restNonEmpty())}`;
    },
  };
}
