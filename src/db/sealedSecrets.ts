// Secrets at rest: DNSSEC private keys, TSIG secrets and webhook signing secrets are all stored
// sealed under one key-encryption key, with one pair of functions, so that a key rotation or a
// format change happens in one place.
//
// The key-encryption key: production passes it in the environment (SECRET_KEY_ENCRYPTION_KEY,
// formerly DNSSEC_KEY_ENCRYPTION_KEY; the service refuses to start without it). The lab keeps one
// in DATA_DIR/dnssec-kek (the name it has always had, so a lab's stored secrets survive), made on
// first start with mode 0600.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

const KEK_FILE = 'dnssec-kek';

/** `configured`: the key from the environment; without it the lab's key under `dataDir`. */
export async function loadKeyEncryptionKey(configured: Buffer | null, dataDir: string): Promise<Buffer> {
  if (configured) return configured;
  const file = path.join(dataDir, KEK_FILE);
  try {
    const text = (await fs.readFile(file, 'utf8')).trim();
    const key = Buffer.from(text, 'hex');
    if (key.length !== 32) throw new Error(`${file} must hold 32 bytes as 64 hex digits`);
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    const key = randomBytes(32);
    await fs.mkdir(dataDir, { recursive: true });
    // 'wx': two processes starting at once must not each write their own key.
    await fs.writeFile(file, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' }).catch(async (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EEXIST') throw e;
    });
    return loadKeyEncryptionKey(configured, dataDir);
  }
}

/** The first octet of a sealed secret: which layout follows, so the format can change later. */
const SEAL_VERSION = 1;
const IV_OCTETS = 12;
const TAG_OCTETS = 16;

function checkKek(kek: Buffer): void {
  if (kek.length !== 32) throw new RangeError(`the key-encryption key must be 32 octets (AES-256), got ${kek.length}`);
}

/**
 * Seals a secret with AES-256-GCM under `kek`: version || iv (12, random) || tag (16) ||
 * ciphertext. The version octet is authenticated too (additional data). A string is sealed as
 * its UTF-8 octets.
 */
export function sealSecret(secret: Buffer | string, kek: Buffer): Buffer {
  checkKek(kek);
  const version = Buffer.of(SEAL_VERSION);
  const iv = randomBytes(IV_OCTETS);
  const cipher = createCipheriv('aes-256-gcm', kek, iv);
  cipher.setAAD(version);
  const ciphertext = Buffer.concat([cipher.update(typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret), cipher.final()]);
  return Buffer.concat([version, iv, cipher.getAuthTag(), ciphertext]);
}

/** The secret sealed by sealSecret; throws for a wrong `kek` or any changed octet. */
export function unsealSecret(sealed: Buffer, kek: Buffer): Buffer {
  checkKek(kek);
  if (sealed.length < 1 + IV_OCTETS + TAG_OCTETS || sealed[0] !== SEAL_VERSION) throw new RangeError('not a sealed secret of a known version');
  const iv = sealed.subarray(1, 1 + IV_OCTETS);
  const tag = sealed.subarray(1 + IV_OCTETS, 1 + IV_OCTETS + TAG_OCTETS);
  const decipher = createDecipheriv('aes-256-gcm', kek, iv);
  decipher.setAAD(sealed.subarray(0, 1));
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(sealed.subarray(1 + IV_OCTETS + TAG_OCTETS)), decipher.final()]);
}
