// One PostgreSQL for the run: DATABASE_URL when set (CI: the machine's server), otherwise an
// embedded server under .data/test-postgres. A migrated template database is cloned per test file.
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../../src/db/embeddedPostgres.js';
import { createDb, migrateToLatest } from '../../src/db/knex.js';

declare module 'vitest' {
  export interface ProvidedContext {
    adminDatabaseUrl: string;
    templateDatabase: string;
    runId: string;
  }
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

const withDatabase = (url: string, name: string) => {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
};

export default async function setup(project: TestProject) {
  let adminUrl = process.env.DATABASE_URL;
  let stopEmbedded: (() => Promise<void>) | null = null;
  if (!adminUrl) {
    const embedded = await startEmbeddedPostgres({
      dir: path.resolve('.data/test-postgres/postgres'),
      port: await freePort(),
      database: 'postgres',
      log: () => {},
    });
    adminUrl = embedded.adminUrl;
    stopEmbedded = embedded.stop;
  }
  const template = `mdns_template_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${template}`);
  await admin.query(`CREATE DATABASE ${template}`);
  const db = createDb(withDatabase(adminUrl, template), 2);
  await migrateToLatest(db);
  await db.destroy();

  project.provide('adminDatabaseUrl', adminUrl);
  project.provide('templateDatabase', template);
  project.provide('runId', String(process.pid));

  return async () => {
    // Databases of files that crashed before their own cleanup go with the template.
    // starts_with, not LIKE: in LIKE `_` matches any character, so run 2776's cleanup would take
    // run 27760's databases (mdns_t_27760_…) from under it on a shared server.
    const leftovers = await admin.query(`SELECT datname FROM pg_database WHERE starts_with(datname, $1)`, [`mdns_t_${process.pid}_`]);
    for (const row of leftovers.rows) await admin.query(`DROP DATABASE IF EXISTS ${row.datname} WITH (FORCE)`);
    await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
    await admin.end();
    if (stopEmbedded) await stopEmbedded();
  };
}
