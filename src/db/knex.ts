import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { migrations } from '../../migrations/index.js';
import { PreparingPgClient } from './preparedStatements.js';
import { markStage, noteStatement } from './requestActivity.js';
import { databaseDeadlineError, databaseTimeLeftMs } from './requestDeadline.js';

// pg returns int8 (bigint, count(*)) as strings; every count we read fits a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export type Db = Knex;

interface PgConnection {
  connection?: { stream?: { destroy(): void } };
  connectionParameters?: { query_timeout?: number };
  __knex__disposed?: unknown;
}

/**
 * pg's `query_timeout` answers the caller but leaves the connection waiting for the lost reply;
 * returned to the pool it would hold the next statement too. Such a connection is dropped, and
 * the error gets a code the API maps to 503 (src/api/app.ts).
 */
class BoundedPgClient extends PreparingPgClient {
  override async _query(connection: unknown, obj: Parameters<PreparingPgClient['_query']>[1]) {
    // A COMMIT that times out on our side may still have committed: answering "nothing was
    // stored" would then be false. Its reply can sit unread while this process is busy (a large
    // zone being signed), and the timer runs before the socket is read; so COMMIT waits longer.
    if (obj.sql === 'COMMIT;') obj.options = { ...obj.options, query_timeout: COMMIT_TIMEOUT_MS };
    else if (!ENDS_TRANSACTION.test(obj.sql ?? '')) {
      // Within a request: no longer than what is left of its bound (requestDeadline.ts). A
      // rollback is never cut: it is what frees the locks.
      const left = databaseTimeLeftMs();
      if (left !== null) {
        if (left <= 0) throw databaseDeadlineError();
        // pg takes a query's own query_timeout over the connection's: keep the smaller.
        const own = (connection as PgConnection).connectionParameters?.query_timeout;
        if (!own || left < own) obj.options = { ...obj.options, query_timeout: Math.ceil(left) };
      }
    }
    noteStatement(obj.sql ?? '');
    try {
      return await super._query(connection, obj);
    } catch (err) {
      if (err instanceof Error && err.message === 'Query read timeout') {
        const c = connection as PgConnection;
        c.__knex__disposed = err;
        c.connection?.stream?.destroy();
        throw Object.assign(new Error('PostgreSQL did not answer in time (Query read timeout)'), { code: 'ETIMEDOUT' });
      }
      throw err;
    } finally {
      noteStatement(null);
    }
  }

  /** Waiting for the pool counts against a request's bound too. */
  override async acquireConnection() {
    markStage('pool_wait');
    try {
      return await this.acquireWithinDeadline();
    } finally {
      markStage('pool_acquired');
    }
  }

  private async acquireWithinDeadline() {
    const left = databaseTimeLeftMs();
    if (left === null) return super.acquireConnection();
    if (left <= 0) throw databaseDeadlineError();
    const acquiring = super.acquireConnection();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(databaseDeadlineError()), left);
    });
    try {
      return await Promise.race([acquiring, late]);
    } catch (err) {
      // The connection, when it comes after all, goes back to the pool.
      acquiring.then(
        (connection: unknown) => this.releaseConnection(connection),
        () => {},
      );
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }
}

const ENDS_TRANSACTION = /^(ROLLBACK|RELEASE)/i;

const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations).sort(),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name]!,
};

/**
 * How long to wait for PostgreSQL. A server that refuses is noticed at once; one that stops
 * answering (frozen, partitioned) would hold every request for the whole outage without these.
 */
export interface DbTimeouts {
  connectTimeoutMs: number;
  acquireTimeoutMs: number;
  statementTimeoutMs: number;
  /** All of one API request's database work (requestDeadline.ts); the API applies it. */
  requestTimeoutMs?: number;
}

/**
 * The client waits this much longer than `statement_timeout`: a slow but live server cancels the
 * statement itself (57014) and the connection stays usable; only a silent one is cut off here.
 */
const CLIENT_MARGIN_MS = 1000;

/** How long the client waits for PostgreSQL's answer to a COMMIT (see BoundedPgClient). */
const COMMIT_TIMEOUT_MS = 60_000;

export function knexConfig(connectionString: string, poolMax = 10, timeouts?: DbTimeouts): Knex.Config {
  const bounded = timeouts
    ? {
        connectionTimeoutMillis: timeouts.connectTimeoutMs,
        statement_timeout: timeouts.statementTimeoutMs,
        // Said outright rather than left to statement_timeout: a wait for a row or advisory lock
        // ends with 55P03 (503) within the statement bound, also where a session changes
        // statement_timeout for itself.
        lock_timeout: timeouts.statementTimeoutMs,
        query_timeout: timeouts.statementTimeoutMs + CLIENT_MARGIN_MS,
      }
    : {};
  return {
    client: BoundedPgClient as unknown as Knex.Config['client'],
    // Keepalive finds a peer that vanished under an idle pooled connection.
    connection: { connectionString, application_name: 'managed-dns', keepAlive: true, keepAliveInitialDelayMillis: 10_000, ...bounded },
    pool: { min: 0, max: poolMax, ...(timeouts ? { acquireTimeoutMillis: timeouts.acquireTimeoutMs, createTimeoutMillis: timeouts.connectTimeoutMs } : {}) },
    migrations: { migrationSource, tableName: 'knex_migrations' },
  };
}

/** Where Knex's own warnings go (a lost connection, a deprecation); by default its console lines. */
export interface DbLog {
  warn(message: string): void;
  error(message: string): void;
}

/** Without `timeouts` nothing is bounded: for migrations and tools, whose statements may be long. */
export function createDb(connectionString: string, poolMax?: number, log?: DbLog, timeouts?: DbTimeouts): Db {
  const config = knexConfig(connectionString, poolMax, timeouts);
  if (log) {
    const text = (m: unknown) => (m instanceof Error ? m.message : String(m));
    config.log = { warn: (m) => log.warn(text(m)), error: (m) => log.error(text(m)), deprecate: (m) => log.warn(text(m)), debug: () => {} };
  }
  return knexFactory(config);
}

export async function migrateToLatest(db: Db): Promise<void> {
  await db.migrate.latest();
}
