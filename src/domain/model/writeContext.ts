import type { Clock } from '../clock.js';

/**
 * What every write carries: where it writes (the request transaction and the tenant-scoped view
 * of it), who writes (the actor) and when (the clock). The domain fixes the shape; the store
 * types come from the layer that owns them (src/services/writeContext.ts binds Knex and ScopedDb).
 */
export interface WriteContext<Transaction, Scoped, Actor> {
  trx: Transaction;
  scoped: Scoped;
  actor: Actor;
  clock: Clock;
  /**
   * Called by a write that changes what an existing token authenticates as (the token, its
   * tenant chain's limits, suspension, features, settings): once the transaction has committed,
   * this process's cached tokens are dropped (src/services/tokenCache.ts).
   */
  identityChanged(): void;
}
