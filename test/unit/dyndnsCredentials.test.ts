// DynDNS credentials (docs/dyndns.md "Credentials"): scrypt hashes, and the per-process memory of
// verified passwords that spares a router's repeated requests the scrypt without outliving a
// rotation.
import { describe, expect, it } from 'vitest';
import { CredentialVerifier, generatePassword, hashPassword } from '../../src/services/dyndns/credentials.js';

describe('DynDNS credentials', () => {
  it('makes 32-character passwords that need no escaping, each different', () => {
    const a = generatePassword();
    expect(a).toMatch(/^[0-9a-v]{32}$/);
    expect(generatePassword()).not.toBe(a);
  });

  it('stores salted scrypt hashes with their parameters, never the password', async () => {
    const [h1, h2] = [await hashPassword('secret'), await hashPassword('secret')];
    expect(h1).toMatch(/^scrypt\$16384\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(h1).not.toBe(h2);
    expect(h1).not.toContain('secret');
  });

  it('verifies once with scrypt, then from memory, and only while the stored hash is the one it matched', async () => {
    const v = new CredentialVerifier();
    const stored = await hashPassword('right');
    expect(await v.verify('dyn_a', 'wrong', stored)).toBe(false);
    expect(await v.verify('dyn_a', 'right', stored)).toBe(true);
    const slow = v.slowVerifications;
    for (let i = 0; i < 5; i++) expect(await v.verify('dyn_a', 'right', stored)).toBe(true);
    expect(v.slowVerifications).toBe(slow);
    // A wrong password is never remembered: each try costs a scrypt again.
    expect(await v.verify('dyn_a', 'wrong', stored)).toBe(false);
    expect(v.slowVerifications).toBe(slow + 1);
    // Rotated: the remembered password no longer matches the new hash.
    const rotated = await hashPassword('new');
    expect(v.isRemembered('dyn_a', 'right', rotated)).toBe(false);
    expect(await v.verify('dyn_a', 'right', rotated)).toBe(false);
    expect(await v.verify('dyn_a', 'new', rotated)).toBe(true);
    // Another username with the same password is another credential.
    expect(v.isRemembered('dyn_b', 'new', rotated)).toBe(false);
  });
});
