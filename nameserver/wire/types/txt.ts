// TXT (RFC 1035 §3.3.14): one or more <character-string>s. The data holds ONE text; the wire and
// the presentation cut its UTF-8 octets into strings of at most 255, and reading joins them.
import { quoted, type RecordCodec } from '../rdataCodec.js';

export const txt: RecordCodec = {
  type: 'TXT',
  fields: [['text', 'strings']],
  encode: (b) => b.characterStrings('text'),
  decode: (r) => {
    const parts: Buffer[] = [];
    do parts.push(r.characterString());
    while (!r.done());
    return { text: r.utf8(Buffer.concat(parts)) };
  },
  format: (r) => {
    const strings: string[] = [];
    do strings.push(quoted(r.characterString()));
    while (!r.done());
    return strings.join(' ');
  },
};
