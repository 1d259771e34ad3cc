import type { TokenRecord } from '../db/repositories/identityStore.js';

// Monotonic milliseconds (performance.now), not the service clock: freshness of a cache, not time.
const TTL_MS = 1000;
const MAX_ENTRIES = 10_000;

/**
 * Tokens with their tenant chains, kept for a second after they were read. Authentication is on
 * every request and was the costliest statement of a single-record write; a second's cache
 * serves nearly every request of a busy client from memory.
 *
 * Staleness: `invalidate()` runs after every committed write that may change tokens, clients,
 * users or tenants (the pipeline), so this process sees such a change at once; other API
 * processes see it within TTL_MS. A lookup that raced with an invalidation is not kept.
 */
export class TokenCache {
  private readonly entries = new Map<string, { token: TokenRecord; readAt: number }>();
  private generation = 0;

  async get(hash: string, load: () => Promise<TokenRecord | null>): Promise<TokenRecord | null> {
    const hit = this.entries.get(hash);
    if (hit && performance.now() - hit.readAt < TTL_MS) return hit.token;
    const generation = this.generation;
    const readAt = performance.now();
    const token = await load();
    if (token && generation === this.generation) {
      // Unknown tokens are not kept, so the map only grows with real tokens; still bounded.
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
      this.entries.set(hash, { token, readAt });
    } else if (!token) {
      this.entries.delete(hash);
    }
    return token;
  }

  /** The token's record changed in a way this process made (last use written). */
  update(hash: string, token: TokenRecord): void {
    const hit = this.entries.get(hash);
    if (hit) hit.token = token;
  }

  invalidate(): void {
    this.generation++;
    this.entries.clear();
  }
}

