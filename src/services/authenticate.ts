import type { Config } from '../config/index.js';
import type { IdentityStore, TokenRecord } from '../db/repositories/identityStore.js';
import type { Clock } from '../domain/clock.js';
import { DomainError, type ErrorParams, type ProblemReason } from '../domain/errors.js';
import { deploymentOfToken, hashToken } from '../domain/tokens.js';
import type { RateLimiter, RateLimitReading } from './rateLimiter.js';
import type { TokenCache } from './tokenCache.js';

const unauthenticated = (reason: ProblemReason, params: ErrorParams = {}) =>
  new DomainError('unauthenticated', { ...params, reason }, [], { 'WWW-Authenticate': 'Bearer realm="api"' });

export interface AuthenticateDeps {
  identity: IdentityStore;
  tokens: TokenCache;
  rateLimiter: RateLimiter;
  clock: Clock;
  config: Config;
}

/**
 * Bearer token → the token's record, and the request counted against its API client's rate
 * limit. Missing, malformed, unknown, revoked, expired and other-deployment tokens are all 401
 * (and count against nothing); the reason is told, the token never echoed.
 */
export async function authenticate(deps: AuthenticateDeps, authorization: string | undefined): Promise<{ token: TokenRecord; clientLimit: RateLimitReading }> {
  if (!authorization) throw unauthenticated('no_authorization_header');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match) throw unauthenticated('authorization_not_bearer');
  const secret = match[1]!;
  const deployment = deploymentOfToken(secret);
  if (deployment === null) throw unauthenticated('token_prefix_unknown');
  if (deployment !== deps.config.deployment) {
    throw unauthenticated('token_other_deployment', { deployment: deps.config.deployment });
  }
  const now = deps.clock.now();
  const hash = hashToken(secret);
  let token = await deps.tokens.get(hash, () => deps.identity.findTokenByHash(hash));
  if (!token || token.deployment !== deps.config.deployment) throw unauthenticated('token_unknown');
  if (token.revokedAt) throw unauthenticated('token_revoked');
  if (token.expiresAt && token.expiresAt <= now) throw unauthenticated('token_expired');
  // last_used_at is kept to the minute; a token used within the last minute needs no write.
  if (!token.lastUsedAt || now.getTime() - token.lastUsedAt.getTime() >= 60_000) {
    await deps.identity.touchToken(token.id, now);
    token = { ...token, lastUsedAt: now };
    deps.tokens.update(hash, token);
  }
  const clientLimit = await deps.rateLimiter.consume(`client:${token.apiClientId}`, token.tenant.limits.apiRateLimitPerMinute, now);
  return { token, clientLimit };
}
