import type { TokenRecord } from '../db/repositories/identityStore.js';

// Monotonic milliseconds (performance.now), not the service clock: freshness of a cache, not time.
const TTL_MS = 1000;
const MAX_ENTRIES = 10_000;

/**
 * Tokens with their tenant chains, kept for a second after they were read. Authentication is on
 * every request and was the costliest statement of a single-record write; a second's cache
 * serves nearly every request of a busy client from memory.
 *
 * Staleness: `invalidate()` runs after every committed write that changes what an existing token
 * authenticates as — where it happens: the services call `WriteContext.identityChanged()`
 * (tenant settings, limits and features, suspension, token revocation) and the lab resets pass
 * it as their `afterReset` — so this process sees such a change at its next request; other API
 * processes within TTL_MS. Creating a tenant, API client, user or token needs none: no cached
 * record refers to it (unknown tokens are not kept). Zone, record and template writes never empty
 * the cache. Only after commit, and a lookup that raced with an invalidation is not kept, so no
 * record read before the change can outlive it.
 */
export class TokenCache {
  private readonly entries = new Map<string, { token: TokenRecord; readAt: number }>();
  /**
   * Lookups in flight: the requests of one client that miss together share one (under load each
   * lookup waits for a pool connection; a busy client's requests each asked once a second).
   */
  private readonly loading = new Map<string, { generation: number; token: Promise<TokenRecord | null> }>();
  private generation = 0;

  async get(hash: string, load: () => Promise<TokenRecord | null>): Promise<TokenRecord | null> {
    const hit = this.entries.get(hash);
    if (hit && performance.now() - hit.readAt < TTL_MS) return hit.token;
    const shared = this.loading.get(hash);
    if (shared && shared.generation === this.generation) return shared.token;
    const token = this.load(hash, load);
    this.loading.set(hash, { generation: this.generation, token });
    try {
      return await token;
    } finally {
      if (this.loading.get(hash)?.token === token) this.loading.delete(hash);
    }
  }

  private async load(hash: string, load: () => Promise<TokenRecord | null>): Promise<TokenRecord | null> {
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
