// URI (RFC 7553 §4.5): priority, weight, and the target URI as the rest of the RDATA (no length
// octet), shown as one quoted <character-string>. An empty target is not a URI (§4.5).
import { Malformed, quoted, type RecordCodec } from '../rdataCodec.js';

export const uri: RecordCodec = {
  type: 'URI',
  fields: [
    ['priority', 'uint'],
    ['weight', 'uint'],
    ['target', 'string'],
  ],
  encode: (b) => {
    b.u16('priority');
    b.u16('weight');
    const target = b.string('target');
    if (!target) b.fail('target', 'must not be empty (RFC 7553 §4.5)');
    b.utf8('target', target);
  },
  decode: (r) => {
    const priority = r.u16();
    const weight = r.u16();
    const target = r.rest();
    if (!target.length) throw new Malformed();
    return { priority, weight, target: r.utf8(target) };
  },
  format: (r) => `${r.u16()} ${r.u16()} ${quoted(r.restNonEmpty())}`,
};
