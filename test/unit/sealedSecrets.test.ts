// The sealing of secrets at rest (DNSSEC private keys, TSIG and webhook secrets): AES-256-GCM
// under the key-encryption key, in the one format stored data already has.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateZoneKey } from '../../nameserver/dnssec/keys.js';
import { sealSecret, unsealSecret } from '../../src/db/sealedSecrets.js';

describe('secrets at rest', () => {
  const kek = randomBytes(32);
  const pkcs8 = generateZoneKey('zsk').privateKey;

  it('come back as they were sealed, each time under a fresh IV', () => {
    const a = sealSecret(pkcs8, kek);
    const b = sealSecret(pkcs8, kek);
    expect(a.equals(b)).toBe(false);
    expect(a[0]).toBe(1);
    expect(a.length).toBe(1 + 12 + 16 + pkcs8.length);
    expect(unsealSecret(a, kek).equals(pkcs8)).toBe(true);
    expect(unsealSecret(b, kek).equals(pkcs8)).toBe(true);
  });

  it('do not open with another key', () => {
    expect(() => unsealSecret(sealSecret(pkcs8, kek), randomBytes(32))).toThrow();
  });

  it('do not open after any octet is changed: version, IV, tag or ciphertext', () => {
    const sealed = sealSecret(pkcs8, kek);
    for (const at of [0, 1, 12, 13, 28, 29, sealed.length - 1]) {
      const tampered = Buffer.from(sealed);
      tampered[at]! ^= 0x01;
      expect(() => unsealSecret(tampered, kek), `octet ${at}`).toThrow();
    }
    expect(() => unsealSecret(sealed.subarray(0, sealed.length - 1), kek)).toThrow();
  });

  it('need a 256-bit key-encryption key', () => {
    expect(() => sealSecret(pkcs8, randomBytes(16))).toThrow(RangeError);
  });

  it('seal a string as its UTF-8 octets', () => {
    expect(unsealSecret(sealSecret('whsec_é', kek), kek).toString('utf8')).toBe('whsec_é');
  });

  it('still open what was sealed before DNSSEC keys and webhook secrets shared one function', () => {
    const sealedEarlier = Buffer.from('AWXycuVqvYOV9Bk2QKbhkZtvq1qlRjiswlUKSGPyVwNERoE+c2oSkZBfmiSkDBJh6NI2hWT9pfrk', 'base64');
    expect(unsealSecret(sealedEarlier, Buffer.alloc(32, 0x5a)).toString('utf8')).toBe('whsec_sealed-before-the-move');
  });
});
