// RFC 1035 §5.1 master-file presentation helpers shared by the per-type presentation functions.
import { quoted as quoteOctets } from '../../../nameserver/wire/rdataPresentation.js';

/** RFC 1035 §3.3: a <character-string> holds at most 255 octets. */
export const MAX_CHARACTER_STRING_OCTETS = 255;

/** A stored host name as an absolute presentation name: trailing dot; the root stays ".". */
export const absoluteHost = (name: string): string => (name === '.' ? '.' : `${name}.`);

// One quoted <character-string> (RFC 1035 §5.1): the nameserver's presentation, one copy.
export { quoteOctets };

/**
 * A text of any length as consecutive quoted character-strings of at most 255 octets of its UTF-8
 * encoding, separated by one space. The cut is by octets and may fall inside a multi-byte
 * character: the octets are escaped, and consumers (SPF, DKIM, RFC 7208 §3.3) concatenate them.
 */
export function characterStrings(text: string): string {
  const octets = Buffer.from(text, 'utf8');
  const parts: string[] = [];
  for (let i = 0; i < octets.length; i += MAX_CHARACTER_STRING_OCTETS) {
    parts.push(quoteOctets(octets.subarray(i, i + MAX_CHARACTER_STRING_OCTETS)));
  }
  return parts.length ? parts.join(' ') : '""';
}
