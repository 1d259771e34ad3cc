import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { migrations } from '../../migrations/index.js';
import { PreparingPgClient } from './preparedStatements.js';

// pg returns int8 (bigint, count(*)) as strings; every count we read fits a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export type Db = Knex;

const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations).sort(),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name]!,
};

export function knexConfig(connectionString: string, poolMax = 10): Knex.Config {
  return {
    client: PreparingPgClient as unknown as Knex.Config['client'],
    connection: { connectionString, application_name: 'managed-dns' },
    pool: { min: 0, max: poolMax },
    migrations: { migrationSource, tableName: 'knex_migrations' },
  };
}

/** Where Knex's own warnings go (a lost connection, a deprecation); by default its console lines. */
export interface DbLog {
  warn(message: string): void;
  error(message: string): void;
}

export function createDb(connectionString: string, poolMax?: number, log?: DbLog): Db {
  const config = knexConfig(connectionString, poolMax);
  if (log) {
    const text = (m: unknown) => (m instanceof Error ? m.message : String(m));
    config.log = { warn: (m) => log.warn(text(m)), error: (m) => log.error(text(m)), deprecate: (m) => log.warn(text(m)), debug: () => {} };
  }
  return knexFactory(config);
}

export async function migrateToLatest(db: Db): Promise<void> {
  await db.migrate.latest();
}
