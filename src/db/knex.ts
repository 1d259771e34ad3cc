import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { migrations } from '../../migrations/index.js';

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
    client: 'pg',
    connection: { connectionString, application_name: 'managed-dns' },
    pool: { min: 0, max: poolMax },
    migrations: { migrationSource, tableName: 'knex_migrations' },
  };
}

export function createDb(connectionString: string, poolMax?: number): Db {
  return knexFactory(knexConfig(connectionString, poolMax));
}

export async function migrateToLatest(db: Db): Promise<void> {
  await db.migrate.latest();
}
