// RP (RFC 1183 §2.2): the responsible person's mailbox as a domain name (the first label is the
// local part) and a name holding TXT records about them; "." for either means none. RFC 4034
// §6.2 lists RP: both names are lower case in the canonical form, as the builder writes them.
import type { RecordCodec } from '../rdataCodec.js';

export const rp: RecordCodec = {
  type: 'RP',
  fields: [
    ['mailbox', 'name'],
    ['text', 'name'],
  ],
  encode: (b) => {
    b.name('mailbox');
    b.name('text');
  },
  decode: (r) => ({ mailbox: r.name(), text: r.name() }),
  format: (r) => `${r.presentationName()} ${r.presentationName()}`,
};
