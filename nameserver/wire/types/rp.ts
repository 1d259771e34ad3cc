// RP (RFC 1183 §2.2): the responsible person's mailbox as a domain name (the first label is the
// local part) and a name holding TXT records about them; "." for either means none. RFC 4034
// §6.2 lists RP: both names are lower case in the canonical form, as the builder writes them.
import { pairCodec } from './pair.js';

export const rp = pairCodec('RP', 'name', 'mailbox', 'text');
