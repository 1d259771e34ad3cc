import type { Clock } from '../clock.js';

/**
 * What every write carries: where it writes (`db`, the request transaction, and `scoped`, the
 * tenant-scoped view of it), who writes (the actor) and when (the clock). The domain fixes the
 * shape; the store types come from the layer that owns them (src/services/writeContext.ts makes
 * it src/db/context.ts's TransactionContext plus who and when).
 */
export interface WriteContext<Transaction, Scoped, Actor> {
  readonly db: Transaction;
  readonly scoped: Scoped;
  actor: Actor;
  clock: Clock;
  /**
   * Called by a write that changes what an existing token authenticates as (the token, its
   * tenant chain's limits, suspension, features, settings): once the transaction has committed,
   * this process's cached tokens are dropped (src/services/tokenCache.ts).
   */
  identityChanged(): void;
}
