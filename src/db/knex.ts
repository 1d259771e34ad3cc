import path from 'node:path';
import { fileURLToPath } from 'node:url';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';

// pg returns int8 (bigint, count(*)) as strings; every count we read fits a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export type Db = Knex;

export const migrationsDirectory = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');

export function knexConfig(connectionString: string, poolMax = 10): Knex.Config {
  return {
    client: 'pg',
    connection: { connectionString, application_name: 'managed-dns' },
    pool: { min: 0, max: poolMax },
    migrations: { directory: migrationsDirectory, loadExtensions: ['.ts'], tableName: 'knex_migrations' },
  };
}

export function createDb(connectionString: string, poolMax?: number): Db {
  return knexFactory(knexConfig(connectionString, poolMax));
}

export async function migrateToLatest(db: Db): Promise<void> {
  await db.migrate.latest();
}
