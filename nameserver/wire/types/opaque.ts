// RFC 3597 §5: the RDATA of a type the service has no codec for, held as opaque octets. Data:
// `rdata` in hex (empty for no RDATA); presentation `\# <length> <hex>`, the only form such a type
// has in a master file.
import type { RecordCodec } from '../rdataCodec.js';

export function opaqueCodec(type: string): RecordCodec {
  return {
    type,
    fields: [['rdata', 'hex']],
    encode: (b) => b.hex('rdata', { allowEmpty: true }),
    decode: (r) => ({ rdata: r.rest().toString('hex') }),
    format: (r) => {
      const octets = r.rest();
      return octets.length ? `\\# ${octets.length} ${r.hex(octets)}` : '\\# 0';
    },
    readPresentation: () => 'is a type without a presentation of its own: write its RDATA as "\\# <length> <hex>" (RFC 3597 §5)',
  };
}
