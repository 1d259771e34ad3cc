// DynDNS host credentials (docs/dyndns.md "Credentials"): the username is the host's id, the
// password 160 random bits, stored only as an scrypt hash. scrypt costs ~45 ms of a core per
// verification (N=2^14, r=8, p=1), far too much for a router polling every minute times thousands
// of routers; so a password once verified is remembered in memory, keyed by a SHA-256 of
// username and password, together with the stored hash it was verified against. A rotation
// changes the stored hash, and the next request (which reads the host's row anyway) no longer
// matches the remembered one: the old password stops working at once, in every process.
import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { encodeBase32Hex } from '../../../nameserver/wire/base32hex.js';

const N = 1 << 14;
const R = 8;
const P = 1;
const KEY_BYTES = 32;
const SALT_BYTES = 16;
// 128 * N * r bytes of memory per hash (16 MiB), under Node's default maxmem of 32 MiB.

/**
 * A new password: 20 random bytes as 32 base32hex characters (digits and a-v), so it survives
 * every router's password field, a URL query and Basic auth without escaping.
 */
export const generatePassword = (): string => encodeBase32Hex(randomBytes(20), true);

const scryptAsync = (password: string, salt: Buffer) =>
  new Promise<Buffer>((resolve, reject) => scrypt(password, salt, KEY_BYTES, { N, r: R, p: P }, (err, key) => (err ? reject(err) : resolve(key))));

/** The stored form: `scrypt$N$r$p$salt$key` (base64url), so parameters can change later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await scryptAsync(password, salt);
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

async function verifyHash(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64url');
  const actual = await new Promise<Buffer>((resolve, reject) =>
    scrypt(password, Buffer.from(salt, 'base64url'), expected.length, { N: Number(n), r: Number(r), p: Number(p) }, (err, k) =>
      err ? reject(err) : resolve(k),
    ),
  );
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** Verified credentials per process: at most this many, the oldest forgotten first. */
const MAX_REMEMBERED = 50_000;

export class CredentialVerifier {
  private readonly remembered = new Map<string, string>();
  /** scrypt runs, for tests and metrics: a cached password costs none. */
  slowVerifications = 0;

  private static keyOf(username: string, password: string): string {
    return createHash('sha256').update(username).update('\0').update(password).digest('base64url');
  }

  /** True when the password is the one whose hash is stored now (`stored`: the host row's). */
  async verify(username: string, password: string, stored: string): Promise<boolean> {
    const key = CredentialVerifier.keyOf(username, password);
    if (this.remembered.get(key) === stored) return true;
    this.slowVerifications++;
    if (!(await verifyHash(password, stored))) return false;
    if (this.remembered.size >= MAX_REMEMBERED) this.remembered.delete(this.remembered.keys().next().value!);
    this.remembered.set(key, stored);
    return true;
  }

  /** Whether the cache alone would accept these credentials (no scrypt): a password already proven. */
  isRemembered(username: string, password: string, stored: string): boolean {
    return this.remembered.get(CredentialVerifier.keyOf(username, password)) === stored;
  }
}
