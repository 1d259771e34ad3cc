// Operator commands that cannot go through the API because no token exists yet.
//   npm run admin -- create-platform "<name>"
import { loadConfig } from '../config/index.js';
import { createDb, migrateToLatest } from '../db/knex.js';
import { systemClock } from '../domain/clock.js';
import { DomainError, localise } from '../domain/errors.js';
import { bootstrapPlatform } from '../services/bootstrapPlatform.js';

async function main(argv: string[]) {
  const [command, name] = argv;
  if (command !== 'create-platform' || !name) {
    process.stderr.write('usage: npm run admin -- create-platform "<platform name>"   (needs DATABASE_URL)\n');
    return 2;
  }
  const config = loadConfig();
  if (!config.databaseUrl) {
    process.stderr.write('DATABASE_URL must be set: the platform is created in that database.\n');
    return 2;
  }
  const db = createDb(config.databaseUrl, 2);
  try {
    await migrateToLatest(db);
    const result = await bootstrapPlatform(db, config.deployment, name, systemClock.now());
    process.stdout.write(`${JSON.stringify({ tenant_id: result.tenantId, api_client_id: result.apiClientId, token: result.token }, null, 2)}\n`);
    process.stderr.write('Store the token now: it is shown only once.\n');
    return 0;
  } catch (err) {
    if (err instanceof DomainError) {
      process.stderr.write(`${localise(err.code, 'en', err.params).detail || err.message}\n`);
      return 1;
    }
    throw err;
  } finally {
    await db.destroy();
  }
}

main(process.argv.slice(2)).then((code) => process.exit(code));
