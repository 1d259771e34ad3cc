import { randomFillSync } from 'node:crypto';

// Opaque, prefixed ids (spec: "IDs are opaque strings with a type prefix"). 16 random bytes in
// base32 (lower case, no padding) keep them URL-safe, case-insensitive and unguessable.
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

export type IdPrefix =
  | 'ten'
  | 'cli'
  | 'tok'
  | 'usr'
  | 'aud'
  | 'req'
  | 'rec'
  | 'chg'
  | 'zon'
  | 'tpl'
  | 'evt'
  | 'key'
  | 'pfx'
  | 'spc'
  | 'ipa'
  | 'dyn'
  | 'whk'
  | 'dlv'
  | 'msg'
  | 'tsk'
  | 'sst';

// Random bytes are drawn from the CSPRNG a few kilobytes at a time (as Node's randomUUID does): a
// write makes four or five ids, and one randomBytes call each was 3 % of a single-record write's
// CPU (bench/RESULTS.md). Each byte is still used for one id only.
const POOL_BYTES = 4096;
const pool = Buffer.allocUnsafe(POOL_BYTES);
let poolOffset = POOL_BYTES;

export function newId(prefix: IdPrefix, bytes = 16): string {
  if (bytes > POOL_BYTES) throw new RangeError(`newId takes at most ${POOL_BYTES} random bytes`);
  if (poolOffset + bytes > POOL_BYTES) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const start = poolOffset;
  poolOffset += bytes;
  let bits = 0;
  let value = 0;
  let out = '';
  for (let i = start; i < start + bytes; i++) {
    value = (value << 8) | pool[i]!;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return `${prefix}_${out}`;
}
