// The NSEC3 hash of an owner name (RFC 5155 §5): the only hash algorithm defined, SHA-1 (§11),
// applied to the name's canonical wire form and the salt, then again `iterations` more times to
// the previous digest and the salt. The result's base32hex is the first label of the NSEC3
// owner that matches the name.
import { createHash } from 'node:crypto';
import { encodeBase32Hex } from './base32hex.js';
import { MAX_LABEL_OCTETS, MAX_NAME_OCTETS, writeName } from './name.js';

/** RFC 5155 §11: hash algorithm 1 is SHA-1, the only one. */
export const NSEC3_SHA1 = 1;

// The wire form is written here rather than allocated per call: the answer path hashes up to three
// names per negative answer.
const scratch = Buffer.alloc(MAX_NAME_OCTETS + 2 * (MAX_LABEL_OCTETS + 1));

/** IH(salt, name, iterations) of RFC 5155 §5, unencoded: the 20 octets of the digest. */
export function nsec3Digest(name: string, salt: Uint8Array, iterations: number): Buffer {
  // RFC 4034 §6.2: the canonical form of a name is its uncompressed wire form in lower case.
  const end = writeName(scratch, 0, name, true);
  let digest = createHash('sha1').update(scratch.subarray(0, end)).update(salt).digest();
  for (let i = 0; i < iterations; i++) digest = createHash('sha1').update(digest).update(salt).digest();
  return digest;
}

/** The hashed owner label of `name` (upper-case base32hex, RFC 5155 §3.3). */
export function nsec3HashLabel(name: string, salt: Uint8Array, iterations: number): string {
  return encodeBase32Hex(nsec3Digest(name, salt, iterations));
}
