// Base 32 with the extended hex alphabet (RFC 4648 §7), unpadded: the presentation of NSEC3
// hashed owner names (RFC 5155 §3.3), where sorting the text sorts the hashes.

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUV';
const LOWER_ALPHABET = ALPHABET.toLowerCase();

/** Base32hex of `octets`, without padding; upper case unless `lowerCase`. */
export function encodeBase32Hex(octets: Uint8Array, lowerCase = false): string {
  const alphabet = lowerCase ? LOWER_ALPHABET : ALPHABET;
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const b of octets) {
    buffer = (buffer << 8) | b;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += alphabet[(buffer >> bits) & 31];
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += alphabet[(buffer << (5 - bits)) & 31];
  return out;
}

/**
 * Octets of unpadded base32hex text (either case); null when a character is outside the
 * alphabet, the length cannot come from whole octets, or the unused low bits are not zero.
 */
export function decodeBase32Hex(text: string): Buffer | null {
  if ([1, 3, 6].includes(text.length % 8)) return null;
  const out: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (let i = 0; i < text.length; i++) {
    const value = ALPHABET.indexOf(text[i]!.toUpperCase());
    if (value < 0) return null;
    buffer = (buffer << 5) | value;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out.push((buffer >> bits) & 0xff);
    }
    buffer &= (1 << bits) - 1;
  }
  if (buffer !== 0) return null;
  return Buffer.from(out);
}
