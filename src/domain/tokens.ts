import { createHash, randomBytes } from 'node:crypto';
import type { Deployment } from './deployment.js';

const TOKEN_PREFIX: Record<Deployment, string> = { sandbox: 'svc_test_', production: 'svc_live_' };

/** A new token: the deployment prefix and 32 random bytes (base64url, 43 characters). */
export function generateToken(deployment: Deployment): string {
  return `${TOKEN_PREFIX[deployment]}${randomBytes(32).toString('base64url')}`;
}

/** Tokens are stored only as this hash; 256 random bits need no salt or slow hash. */
export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** The part shown in listings: the prefix and the first six random characters. */
export const displayPrefix = (token: string) => token.slice(0, token.indexOf('_', 4) + 1 + 6);

export function deploymentOfToken(token: string): Deployment | null {
  if (token.startsWith(TOKEN_PREFIX.sandbox)) return 'sandbox';
  if (token.startsWith(TOKEN_PREFIX.production)) return 'production';
  return null;
}
