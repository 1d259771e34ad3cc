// What services hold of the database. Services and the API name these types and hand them to
// repositories; only src/db runs statements on them (a dependency rule keeps Knex inside src/db).
import type { Knex } from 'knex';
import type { ScopedDb } from './tenantScope.js';

/** The connection pool: reads outside a transaction, and the start of every transaction. */
export type Pool = Knex;

/** A transaction in progress (the request's, or a worker's). */
export type Transaction = Knex.Transaction;

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
