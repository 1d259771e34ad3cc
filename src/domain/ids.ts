import { randomBytes } from 'node:crypto';

// Opaque, prefixed ids (spec: "IDs are opaque strings with a type prefix"). 16 random bytes in
// base32 (lower case, no padding) keep them URL-safe, case-insensitive and unguessable.
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

export type IdPrefix = 'ten' | 'cli' | 'tok' | 'usr' | 'aud' | 'req' | 'rec' | 'chg' | 'zon' | 'tpl' | 'evt';

export function newId(prefix: IdPrefix, bytes = 16): string {
  const buf = randomBytes(bytes);
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of buf) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return `${prefix}_${out}`;
}

export const hasPrefix = (id: string, prefix: IdPrefix) => id.startsWith(`${prefix}_`);
