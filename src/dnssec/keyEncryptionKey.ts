// The key that encrypts zones' private keys at rest. Production passes it in the environment
// (DNSSEC_KEY_ENCRYPTION_KEY; the service refuses to start without it). The lab keeps one in
// DATA_DIR/dnssec-kek, made on first start with mode 0600, so its keys survive restarts.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config/index.js';

export const KEK_FILE = 'dnssec-kek';

export async function loadKeyEncryptionKey(config: Pick<Config, 'dnssec' | 'dataDir'>): Promise<Buffer> {
  if (config.dnssec.keyEncryptionKey) return config.dnssec.keyEncryptionKey;
  const file = path.join(config.dataDir, KEK_FILE);
  try {
    const text = (await fs.readFile(file, 'utf8')).trim();
    const key = Buffer.from(text, 'hex');
    if (key.length !== 32) throw new Error(`${file} must hold 32 bytes as 64 hex digits`);
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    const key = randomBytes(32);
    await fs.mkdir(config.dataDir, { recursive: true });
    // 'wx': two processes starting at once must not each write their own key.
    await fs.writeFile(file, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' }).catch(async (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EEXIST') throw e;
    });
    return loadKeyEncryptionKey(config);
  }
}
