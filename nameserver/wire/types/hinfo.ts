// HINFO (RFC 1035 §3.3.2): two <character-string>s, CPU and OS. RFC 8482 §4.2 answers ANY with
// a synthesised HINFO "RFC8482" ""; users write it for the same purpose or to describe a host.
import { quoted, type RecordCodec } from '../rdataCodec.js';

export const hinfo: RecordCodec = {
  type: 'HINFO',
  fields: [
    ['cpu', 'string'],
    ['os', 'string'],
  ],
  encode: (b) => {
    b.utf8('cpu', b.string('cpu'), true);
    b.utf8('os', b.string('os'), true);
  },
  decode: (r) => ({ cpu: r.utf8(r.characterString()), os: r.utf8(r.characterString()) }),
  format: (r) => `${quoted(r.characterString())} ${quoted(r.characterString())}`,
};
