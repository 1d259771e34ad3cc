// NSEC3 owner hashes (RFC 5155 §5): SHA-1 over the canonical wire form of the name and the salt,
// iterated `iterations` more times over the previous hash and the salt. The service signs with
// RFC 9276's parameters (no extra iterations, no salt); others are here for tests and reading.
import { createHash } from 'node:crypto';
import { encodeBase32Hex } from '../../nameserver/wire/base32hex.js';
import { encodeName } from '../../nameserver/wire/name.js';

/** IH(salt, owner, iterations), RFC 5155 §5: the 20-octet SHA-1 hash of `name`. */
export function nsec3Hash(name: string, salt: Buffer, iterations: number): Buffer {
  let hash = createHash('sha1').update(encodeName(name, true)).update(salt).digest();
  for (let i = 0; i < iterations; i++) hash = createHash('sha1').update(hash).update(salt).digest();
  return hash;
}

/** The hashed owner label of `name` (RFC 5155 §3.3: base32hex), lower case as the zone's names are. */
export function nsec3Label(name: string, salt: Buffer, iterations: number): string {
  return encodeBase32Hex(nsec3Hash(name, salt, iterations)).toLowerCase();
}
