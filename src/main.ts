// `npm start`: the one place that reads the environment and starts the service.
import { ConfigError, loadConfig } from './config/index.js';
import { DataDirInUseError } from './db/dataDirLock.js';
import { startService } from './service.js';

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const service = await startService(config);
  if (service.lab) {
    service.logger.info({ lab_tokens: service.lab.tokensFile, docs: `${service.httpUrl}/docs` }, `lab ready: tokens in ${service.lab.tokensFile}`);
    process.stderr.write(`\nLab ready. API ${service.httpUrl}/api/v1 — docs ${service.httpUrl}/docs\nTokens: ${service.lab.tokensFile}\n\n`);
  }
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    service.logger.info({ signal }, 'shutting down');
    service.stop().then(
      () => process.exit(0),
      (err) => {
        service.logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((err) => {
  // Refused to start, touching nothing: the message says why; a stack would only hide it.
  if (err instanceof DataDirInUseError) {
    process.stderr.write(`managed-dns did not start: ${err.message}\n`);
    process.exit(1);
  }
  process.stderr.write(`managed-dns failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
