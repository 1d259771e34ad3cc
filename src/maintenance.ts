import type { Knex } from 'knex';
import { deleteExpiredIdempotencyRecords } from './db/idempotencyRecords.js';
import { deleteOldRateLimitWindows } from './db/rateLimitWindows.js';
import type { Clock } from './domain/clock.js';
import { PeriodicJob } from './jobs/periodicJob.js';
import type { Logger } from './observability/logger.js';

/** Once a minute: drops rate-limit windows that have ended, idempotency records past 24 h, expired exports and old zone versions. */
export class MaintenanceLoop {
  private readonly job: PeriodicJob;

  constructor(
    private readonly db: Knex,
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
    // Spec: the last export of a deleted zone is kept 30 days.
    await this.db('deleted_zone_exports').where('expires_at', '<=', now).delete();
    // Versions feed nameservers that fell behind (and IXFR): a day of them, and at least the last
    // 100 of each zone; a nameserver further behind reloads the zone whole.
    await this.db.raw(
      `DELETE FROM zone_versions v USING (
         SELECT zone_id, serial, row_number() OVER (PARTITION BY zone_id ORDER BY created_at DESC) AS n FROM zone_versions
       ) ranked
       WHERE v.zone_id = ranked.zone_id AND v.serial = ranked.serial AND ranked.n > 100 AND v.created_at < ?`,
      [new Date(now.getTime() - 24 * 3600_000)],
    );
    if (windows || records) this.logger.debug({ windows, records }, 'maintenance');
  }
}
