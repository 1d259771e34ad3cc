import type { Pool } from './db/context.js';
import { deleteExpiredIdempotencyRecords } from './db/idempotencyRecords.js';
import { deleteOldRateLimitWindows } from './db/rateLimitWindows.js';
import { deleteExpiredRows } from './db/retention.js';
import type { Clock } from './domain/clock.js';
import { PeriodicJob } from './jobs/periodicJob.js';
import type { Logger } from './observability/logger.js';

/**
 * Once a minute: drops rate-limit windows that have ended, idempotency records past 24 h, and what
 * is past its retention (db/retention.ts). Zone versions are trimmed by each build instead.
 */
export class MaintenanceLoop {
  private readonly job: PeriodicJob;

  constructor(
    private readonly db: Pool,
    private readonly clock: Clock,
    private readonly logger: Logger,
    intervalMs = 60_000,
  ) {
    this.job = new PeriodicJob({ name: 'maintenance', intervalMs, jitter: 0.1, logger, run: () => this.runOnce() });
  }

  start() {
    this.job.start();
  }

  stop(): Promise<void> {
    return this.job.stop();
  }

  async runOnce() {
    const now = this.clock.now();
    const windows = await deleteOldRateLimitWindows(this.db, now);
    const records = await deleteExpiredIdempotencyRecords(this.db, now);
    const expired = await deleteExpiredRows(this.db, now);
    if (windows || records || Object.keys(expired).length) this.logger.debug({ windows, records, ...expired }, 'maintenance');
  }
}
