import type { Knex } from 'knex';
import { deleteExpiredIdempotencyRecords } from './db/idempotencyRecords.js';
import { deleteOldRateLimitWindows } from './db/rateLimitWindows.js';
import type { Clock } from './domain/clock.js';
import type { Logger } from './observability/logger.js';

/** Once a minute: drops rate-limit windows that have ended and idempotency records past 24 h. */
export class MaintenanceLoop {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: Knex,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  start(intervalMs = 60_000) {
    this.timer = setInterval(() => void this.runOnce().catch((err) => this.logger.error({ err }, 'maintenance failed')), intervalMs);
    this.timer.unref();
  }

  stop() {
    if (this.timer) clearInterval(this.timer);
  }

  async runOnce() {
    const now = this.clock.now();
    const windows = await deleteOldRateLimitWindows(this.db, now);
    const records = await deleteExpiredIdempotencyRecords(this.db, now);
    // Spec: the last export of a deleted zone is kept 30 days.
    await this.db('deleted_zone_exports').where('expires_at', '<=', now).delete();
    if (windows || records) this.logger.debug({ windows, records }, 'maintenance');
  }
}
