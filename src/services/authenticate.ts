import type { Config } from '../config/index.js';
import type { IdentityStore, TokenRecord } from '../db/repositories/identityStore.js';
import type { Clock } from '../domain/clock.js';
import { DomainError } from '../domain/errors.js';
import { deploymentOfToken, hashToken } from '../domain/tokens.js';
import { type RateLimitReading, rateLimitReading, windowStartOf } from '../db/rateLimitWindows.js';

const unauthenticated = (reason: string) => new DomainError('unauthenticated', { reason }, [], { 'WWW-Authenticate': 'Bearer realm="api"' });

/**
 * Bearer token → the token's record, and the request counted against its API client's rate limit
 * (same round trip). Missing, malformed, unknown, revoked, expired and other-deployment tokens are
 * all 401; the reason is told, the token never echoed.
 */
export async function authenticate(
  deps: { identity: IdentityStore; clock: Clock; config: Config },
  authorization: string | undefined,
): Promise<{ token: TokenRecord; clientLimit: RateLimitReading }> {
  if (!authorization) throw unauthenticated('No Authorization header was sent.');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match) throw unauthenticated('The Authorization header is not of the form "Bearer <token>".');
  const secret = match[1]!;
  const deployment = deploymentOfToken(secret);
  if (deployment === null) throw unauthenticated('The token has no known prefix.');
  if (deployment !== deps.config.deployment) {
    throw unauthenticated(`This is the ${deps.config.deployment} deployment; the token belongs to the other one.`);
  }
  const now = deps.clock.now();
  const token = await deps.identity.findTokenByHash(hashToken(secret), { windowStart: windowStartOf(now), now, deployment: deps.config.deployment });
  if (!token || token.deployment !== deps.config.deployment) throw unauthenticated('The token is not known.');
  if (token.revokedAt) throw unauthenticated('The token has been revoked.');
  if (token.expiresAt && token.expiresAt <= now) throw unauthenticated('The token has expired.');
  // last_used_at is kept to the minute; a token used within the last minute needs no write.
  if (!token.lastUsedAt || now.getTime() - token.lastUsedAt.getTime() >= 60_000) await deps.identity.touchToken(token.id, now);
  // Counted in the lookup unless the token was revoked or expired, which threw above.
  return { token, clientLimit: rateLimitReading(token.requestCount ?? 1, token.tenant.limits.apiRateLimitPerMinute, now) };
}
