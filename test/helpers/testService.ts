// Starts the real service in-process for one test file: its own database cloned from the
// migrated template, the HTTP API on a free port, the lab seeded, and a clock the test controls.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import type { BillingDirectory } from '../../src/billing/billingDirectory.js';
import { loadConfig } from '../../src/config/index.js';
import { ManualClock } from '../../src/domain/clock.js';
import { createLogger } from '../../src/observability/logger.js';
import { type RunningService, startService } from '../../src/service.js';
import { ApiClient } from './apiClient.js';

export interface TestService {
  service: RunningService;
  url: string;
  clock: ManualClock;
  databaseUrl: string;
  /** Lab tokens: platform, reseller, customers[0..1]; tenant ids in `tenants`. */
  tokens: NonNullable<RunningService['lab']>['tokens'];
  as(token: string): ApiClient;
  stop(): Promise<void>;
}

export interface TestServiceOptions {
  env?: Record<string, string>;
  billing?: BillingDirectory;
  clock?: ManualClock;
  /** Reuse a database (a second process of the same deployment). */
  databaseUrl?: string;
  /** Where the service's log goes, at `logLevel` (default TEST_LOG_LEVEL, else silent): a test that reads it. */
  logDestination?: NodeJS.WritableStream;
  logLevel?: string;
}

/** A fresh database cloned from the migrated template (or empty: `migrated: false`), and how to drop it. */
export async function createDatabase(options: { migrated?: boolean } = {}): Promise<{ url: string; drop: () => Promise<void> }> {
  const adminUrl = inject('adminDatabaseUrl');
  const name = `mdns_t_${inject('runId')}_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(options.migrated === false ? `CREATE DATABASE ${name}` : `CREATE DATABASE ${name} TEMPLATE ${inject('templateDatabase')}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export async function startTestService(options: TestServiceOptions = {}): Promise<TestService> {
  const database = options.databaseUrl ? { url: options.databaseUrl, drop: async () => {} } : await createDatabase();
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'mdns-test-'));
  const config = loadConfig({
    DATABASE_URL: database.url,
    HTTP_PORT: '0',
    DNS_PORT: '0',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    // Production refuses to start without one; tests of a production deployment get this one.
    SECRET_KEY_ENCRYPTION_KEY: options.env?.DEPLOYMENT === 'production' ? '5a'.repeat(32) : '',
    // The lab's reverse-DNS seed only where a test asks for it (test/integration/labReverseDns.test.ts):
    // the other tests count what a fresh lab holds.
    LAB_RDNS_SEED: 'off',
    // Every role on the test's thread: the injected clock and the nameserver's store are reached
    // from here (test/integration/rolesThread.test.ts runs the roles' thread).
    THREADED_ROLES: 'off',
    ...options.env,
  });
  const clock = options.clock ?? new ManualClock(new Date());
  const service = await startService(config, {
    // A step back up the lock order fails the request that takes it (src/db/lockOrder.ts), so any
    // test that runs such a path sees it, not only the concurrent ones that would deadlock.
    onLockOrderViolation: (violation) => {
      throw violation;
    },
    clock,
    logger: createLogger(options.logLevel ?? process.env.TEST_LOG_LEVEL ?? 'silent', options.logDestination),
    billing: options.billing,
    shutdownGraceMs: 5000,
  });
  const url = service.httpUrl!;
  return {
    service,
    url,
    clock,
    databaseUrl: database.url,
    tokens: service.lab?.tokens as TestService['tokens'],
    as: (token: string) => new ApiClient(url, token),
    stop: async () => {
      await service.stop();
      await database.drop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}
