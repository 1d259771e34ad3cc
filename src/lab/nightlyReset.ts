// Nightly lab reset: data returns to the seed, tokens survive (spec "Sandbox data is reset every
// night; tokens survive the reset").
import type { Pool, Transaction } from '../db/context.js';
import { replaceLabBillingClients } from '../db/repositories/labBillingClients.js';
import { deleteLabHistory, restoreSeedTenants } from '../db/repositories/labSeed.js';
import { labStateValue, storeLabState } from '../db/repositories/labState.js';
import type { Clock } from '../domain/clock.js';
import { PeriodicJob } from '../jobs/periodicJob.js';
import type { Logger } from '../observability/logger.js';
import { LAST_RESET_KEY, readSeedIds, SEED_BILLING_CLIENTS, SEED_TENANTS, seedRoleIds, seedTenantSettings } from './seed.js';

/** A capability's part of the reset, run in the reset transaction (zones, records, …). */
import type { LabResetStep } from '../services/index.js';
import { exemptFromLockOrder, tryAdvisoryLock } from '../db/lockOrder.js';
import { transactionWithRetry } from '../db/transaction.js';

/** The latest scheduled reset instant at or before `now` (daily at hour:minute UTC). */
export function latestScheduledReset(now: Date, at: { hour: number; minute: number }): Date {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), at.hour, at.minute);
  return new Date(today <= now.getTime() ? today : today - 24 * 60 * 60 * 1000);
}

/**
 * Resets now. Tenants' settings return to the seed and lab tenants go with their tokens:
 * `afterReset` runs once that has committed (cached tokens of this process go).
 */
export async function resetLab(db: Pool, now: Date, steps: LabResetStep[], afterReset: () => void): Promise<void> {
  await inResetTransaction(db, (trx) => resetLabData(trx, now, steps));
  afterReset();
}

/**
 * The reset's one transaction, for the endpoint and the nightly job alike. It rewrites the whole
 * lab under the deployment's lock: the seed's zones are made after the old ones went, so its locks
 * cannot come in the order's sequence (docs/architecture.md "One lock order"); it is exempt from
 * the check and, as a deadlock victim, run again whole.
 */
const inResetTransaction = <T>(db: Pool, run: (trx: Transaction) => Promise<T>): Promise<T> =>
  transactionWithRetry(db, (trx) => {
    exemptFromLockOrder(trx);
    return run(trx);
  });

async function resetLabData(trx: Transaction, now: Date, steps: LabResetStep[]): Promise<void> {
  const ids = await readSeedIds(trx);
  if (!ids) return;
  const byRole = seedRoleIds(ids);
  const seedIds = Object.values(byRole);
  for (const step of steps) await step(trx, seedIds);
  // Tenants created in the lab go with their clients and tokens; the seeded tenants, their API
  // clients and tokens stay, their settings back to the seed's.
  await restoreSeedTenants(
    trx,
    SEED_TENANTS.map((seed) => ({ id: byRole[seed.role], settings: seedTenantSettings(seed) })),
    now,
  );
  await deleteLabHistory(trx);
  await replaceLabBillingClients(trx, SEED_BILLING_CLIENTS);
  await storeLabState(trx, LAST_RESET_KEY, JSON.stringify(now.toISOString()));
}

/**
 * Checks once a minute (and whenever tick() is called) whether a scheduled reset has passed
 * since the last one. The check runs under an advisory lock, so with several worker processes
 * exactly one resets.
 */
export class NightlyLabReset {
  private readonly job: PeriodicJob;

  constructor(
    private readonly db: Pool,
    private readonly clock: Clock,
    private readonly at: { hour: number; minute: number },
    private readonly steps: LabResetStep[],
    private readonly logger: Logger,
    /** Runs after a reset committed (cached tokens of this process go). */
    private readonly afterReset: () => void = () => {},
    intervalMs = 60_000,
  ) {
    // A reset rebuilds the whole lab: longer than the other jobs' bound.
    this.job = new PeriodicJob({ name: 'lab reset check', intervalMs, jitter: 0.1, runBoundMs: 30 * 60_000, logger, run: () => this.tick() });
  }

  start() {
    this.job.start();
  }

  stop(): Promise<void> {
    return this.job.stop();
  }

  /** Resets if due; returns whether it did. */
  async tick(): Promise<boolean> {
    const now = this.clock.now();
    const due = latestScheduledReset(now, this.at);
    const done = await inResetTransaction(this.db, async (trx) => {
      if (!(await tryAdvisoryLock(trx, 'deployment', 'lab-reset'))) return false;
      const lastReset = await labStateValue<string>(trx, LAST_RESET_KEY);
      const last = lastReset !== undefined ? new Date(lastReset) : new Date(0);
      if (last >= due) return false;
      await resetLabData(trx, now, this.steps);
      return true;
    });
    if (done) {
      this.afterReset();
      this.logger.info({ at: now.toISOString() }, 'lab data reset to the seed');
    }
    return done;
  }
}
