// The NSEC3 hash of an owner name (RFC 5155 §5): the only hash algorithm defined, SHA-1 (§11),
// applied to the name's canonical wire form and the salt, then again `iterations` more times to
// the previous digest and the salt. The result's base32hex is the first label of the NSEC3
// owner that matches the name.
import { hash } from 'node:crypto';
import { encodeBase32Hex } from './base32hex.js';
import { MAX_LABEL_OCTETS, MAX_NAME_OCTETS, writeName } from './name.js';

/** RFC 5155 §11: hash algorithm 1 is SHA-1, the only one. */
export const NSEC3_SHA1 = 1;

// Each round's input (the name's wire form or the last digest, then the salt) is written here and
// hashed in one call: the answer path hashes up to three names per negative answer, and the one-shot
// hash costs about two thirds of a createHash().update().digest().
const scratch = Buffer.alloc(MAX_NAME_OCTETS + 2 * (MAX_LABEL_OCTETS + 1) + 255);

/** IH(salt, name, iterations) of RFC 5155 §5, unencoded: the 20 octets of the digest. */
export function nsec3Digest(name: string, salt: Uint8Array, iterations: number): Buffer {
  // RFC 4034 §6.2: the canonical form of a name is its uncompressed wire form in lower case.
  const end = writeName(scratch, 0, name, true);
  scratch.set(salt, end);
  let digest = hash('sha1', scratch.subarray(0, end + salt.length), 'buffer');
  for (let i = 0; i < iterations; i++) {
    scratch.set(digest, 0);
    scratch.set(salt, digest.length);
    digest = hash('sha1', scratch.subarray(0, digest.length + salt.length), 'buffer');
  }
  return digest;
}

/**
 * The hashed owner label of `name` (base32hex, RFC 5155 §3.3), in lower case: as zones store
 * owner names, so that comparing it with them needs no case folding.
 */
export function nsec3HashLabel(name: string, salt: Uint8Array, iterations: number): string {
  return encodeBase32Hex(nsec3Digest(name, salt, iterations), true);
}
