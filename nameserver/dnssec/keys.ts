// Zone keys: generation, the DNSKEY and DS RDATA they publish, key tags. How the private half is
// kept at rest is the caller's (src/db/sealedSecrets.ts). Two algorithms: 13, ECDSA P-256 with SHA-256 (RFC 6605, the default: what
// every validator supports) and 15, Ed25519 (RFC 8080). No RSA: nothing is to be signed with it.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { encodeName } from '../wire/name.js';
import { encodeRdata, rdataToData } from '../wire/rdata.js';

export type DnssecAlgorithm = 13 | 15; // ECDSAP256SHA256 (default), ED25519
export type KeyRole = 'ksk' | 'zsk';

/** A key as the service keeps it. */
export interface ZoneKey {
  role: KeyRole;
  algorithm: DnssecAlgorithm;
  /** ZSK 256 (Zone Key), KSK 257 (Zone Key and Secure Entry Point, RFC 4034 §2.1.1). */
  flags: 256 | 257;
  /** The DNSKEY public-key field: RFC 6605 §4, 64 octets x||y; RFC 8080 §3, 32 octets. */
  publicKey: Buffer;
  /** PKCS#8 DER, in memory only (at rest: sealed by the caller). */
  privateKey: Buffer;
  keyTag: number;
}

/** A fresh key pair of `role`. */
export function generateZoneKey(role: KeyRole, algorithm: DnssecAlgorithm = 13): ZoneKey {
  const pair = algorithm === 13 ? generateKeyPairSync('ec', { namedCurve: 'prime256v1' }) : generateKeyPairSync('ed25519');
  const flags = role === 'ksk' ? 257 : 256;
  const publicKey = publicKeyField(pair.publicKey, algorithm);
  const privateKey = pair.privateKey.export({ type: 'pkcs8', format: 'der' });
  return { role, algorithm, flags, publicKey, privateKey, keyTag: keyTag(dnskeyRdata({ flags, algorithm, publicKey })) };
}

function publicKeyField(key: KeyObject, algorithm: DnssecAlgorithm): Buffer {
  const jwk = key.export({ format: 'jwk' });
  if (algorithm === 13) return Buffer.concat([Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]);
  return Buffer.from(jwk.x!, 'base64url');
}

/** A new key as the service stores it: the private half only as `seal` returns it (the library keeps no secrets). */
export function sealedZoneKey(role: KeyRole, algorithm: DnssecAlgorithm, seal: (pkcs8: Buffer) => Buffer) {
  const key = generateZoneKey(role, algorithm);
  return { role, algorithm: key.algorithm, flags: key.flags, keyTag: key.keyTag, publicKey: key.publicKey, sealedPrivateKey: seal(key.privateKey) };
}

/** The DS (SHA-256) of a key of the zone `owner`. */
export const dsOfKey = (owner: string, key: Pick<ZoneKey, 'flags' | 'algorithm' | 'publicKey'>): Buffer => dsRdata(owner, dnskeyRdata(key));

/** DNSKEY RDATA (RFC 4034 §2.1): flags, protocol 3, algorithm, public key. */
export function dnskeyRdata(key: Pick<ZoneKey, 'flags' | 'algorithm' | 'publicKey'>): Buffer {
  return encodeRdata('DNSKEY', { flags: key.flags, protocol: 3, algorithm: key.algorithm, public_key: key.publicKey.toString('base64') });
}

/** RFC 4034 Appendix B: the key tag of DNSKEY RDATA (algorithm 1 excepted, which we never use). */
export function keyTag(dnskeyRdata: Buffer): number {
  let ac = 0;
  for (let i = 0; i < dnskeyRdata.length; i++) ac += i & 1 ? dnskeyRdata[i]! : dnskeyRdata[i]! << 8;
  ac += (ac >>> 16) & 0xffff;
  return ac & 0xffff;
}

/** DS RDATA for the DNSKEY at `owner` (RFC 4034 §5.1.4), digest type 2: SHA-256 (RFC 4509). */
export function dsRdata(owner: string, dnskeyRdata: Buffer): Buffer {
  const digest = createHash('sha256').update(encodeName(owner, true)).update(dnskeyRdata).digest();
  return encodeRdata('DS', { key_tag: keyTag(dnskeyRdata), algorithm: dnskeyRdata[3]!, digest_type: 2, digest: digest.toString('hex') });
}

// ---- the key objects node:crypto signs and verifies with, made once per key -------------------

const privateKeys = new WeakMap<Buffer, KeyObject>();

/** The signing KeyObject of `key` (parsing PKCS#8 costs more than an ECDSA signature). */
export function privateKeyObject(key: Pick<ZoneKey, 'privateKey'>): KeyObject {
  let object = privateKeys.get(key.privateKey);
  if (!object) {
    object = createPrivateKey({ key: key.privateKey, format: 'der', type: 'pkcs8' });
    privateKeys.set(key.privateKey, object);
  }
  return object;
}

/** The public KeyObject of DNSKEY RDATA of algorithm 13 or 15; null for any other or a malformed key. */
export function publicKeyObject(dnskeyRdata: Buffer): KeyObject | null {
  const data = rdataToData('DNSKEY', dnskeyRdata);
  if (!data) return null;
  const octets = Buffer.from(data.public_key as string, 'base64');
  try {
    if (data.algorithm === 13 && octets.length === 64) {
      return createPublicKey({
        key: { kty: 'EC', crv: 'P-256', x: octets.subarray(0, 32).toString('base64url'), y: octets.subarray(32).toString('base64url') },
        format: 'jwk',
      });
    }
    if (data.algorithm === 15 && octets.length === 32) {
      return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: octets.toString('base64url') }, format: 'jwk' });
    }
  } catch {
    // not a point on the curve
  }
  return null;
}
