// NAPTR (RFC 3403 §4.1): order, preference, flags, services, regexp (three <character-string>s)
// and the replacement, a domain name ("." when the regexp is used). RFC 4034 §6.2 lists NAPTR:
// the replacement is lower case in the canonical form, as the builder writes it.
import { quoted, type RecordCodec } from '../rdataCodec.js';

export const naptr: RecordCodec = {
  type: 'NAPTR',
  fields: [
    ['order', 'uint'],
    ['preference', 'uint'],
    ['flags', 'string'],
    ['services', 'string'],
    ['regexp', 'string'],
    ['replacement', 'name'],
  ],
  encode: (b) => {
    b.u16('order');
    b.u16('preference');
    for (const field of ['flags', 'services', 'regexp']) b.utf8(field, b.string(field), true);
    b.name('replacement');
  },
  decode: (r) => ({
    order: r.u16(),
    preference: r.u16(),
    flags: r.utf8(r.characterString()),
    services: r.utf8(r.characterString()),
    regexp: r.utf8(r.characterString()),
    replacement: r.name(),
  }),
  format: (r) => `${r.u16()} ${r.u16()} ${quoted(r.characterString())} ${quoted(r.characterString())} ${quoted(r.characterString())} ${r.presentationName()}`,
};
