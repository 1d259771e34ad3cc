// HINFO (RFC 1035 §3.3.2): two <character-string>s, CPU and OS. RFC 8482 §4.2 answers ANY with
// a synthesised HINFO "RFC8482" ""; users write it for the same purpose or to describe a host.
import { pairCodec } from './pair.js';

export const hinfo = pairCodec('HINFO', 'string', 'cpu', 'os');
