// What services hold of the database. Services and the API name these types and hand them to
// repositories; only src/db runs statements on them (a dependency rule keeps Knex inside src/db).
import type { Knex } from 'knex';
import type { ScopedDb } from './tenantScope.js';

/** The connection pool: reads outside a transaction, and the start of every transaction. */
export type Pool = Knex;

/** A transaction in progress (the request's, or a worker's). */
export type Transaction = Knex.Transaction;

/** A statement built by a repository and not yet run (sent with others in one round trip). */
export type Statement = Knex.QueryBuilder | Knex.Raw;

/** Whatever a repository may run statements on: the pool or a transaction. */
export type Runner = Pool | Transaction;

/**
 * The one database context a service function takes: where its statements run and the tenant
 * subtree they are confined to. A write's context (src/services/writeContext.ts) is this plus who
 * writes and when.
 */
export interface DbContext {
  /** The request's transaction, or the pool for a read outside one. */
  readonly db: Runner;
  /** The acting tenant's subtree over the same runner (and the credential's zones). */
  readonly scoped: ScopedDb;
}

/** A DbContext inside a transaction: what a write runs in (src/services/writeContext.ts adds who and when). */
export interface TransactionContext extends DbContext {
  readonly db: Transaction;
}

export type { ScopedDb };

/** Runs `run` in a savepoint of `tx`: a failure rolls back what `run` did, and only that. */
export const inSavepoint = <T>(tx: TransactionContext, run: (savepoint: TransactionContext) => Promise<T>): Promise<T> =>
  tx.db.transaction((savepoint) => run({ db: savepoint, scoped: tx.scoped.within(savepoint) }));
