// Nightly lab reset: data returns to the seed, tokens survive (spec "Sandbox data is reset every
// night; tokens survive the reset").
import type { Knex } from 'knex';
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
export async function resetLab(db: Knex, now: Date, steps: LabResetStep[], afterReset: () => void): Promise<void> {
  await inResetTransaction(db, (trx) => resetLabData(trx, now, steps));
  afterReset();
}

/**
 * The reset's one transaction, for the endpoint and the nightly job alike. It rewrites the whole
 * lab under the deployment's lock: the seed's zones are made after the old ones went, so its locks
 * cannot come in the order's sequence (docs/architecture.md "One lock order"); it is exempt from
 * the check and, as a deadlock victim, run again whole.
 */
const inResetTransaction = <T>(db: Knex, run: (trx: Knex.Transaction) => Promise<T>): Promise<T> =>
  transactionWithRetry(db, (trx) => {
    exemptFromLockOrder(trx);
    return run(trx);
  });

async function resetLabData(trx: Knex.Transaction, now: Date, steps: LabResetStep[]): Promise<void> {
  const ids = await readSeedIds(trx);
  if (!ids) return;
  const byRole = seedRoleIds(ids);
  const seedIds = Object.values(byRole);
  for (const step of steps) await step(trx, seedIds);
  // Tenants created in the lab go, with their clients and tokens (ON DELETE CASCADE); the
  // seeded tenants, their API clients and tokens stay.
  await trx('tenants').whereNotIn('id', seedIds).whereNotNull('parent_id').delete();
  for (const seed of SEED_TENANTS) {
    await trx('tenants')
      .where({ id: byRole[seed.role] })
      .update({ ...seedTenantSettings(seed), version: trx.raw('version + 1'), updated_at: now });
  }
  // Users go, except those a surviving token is tied to (deleting them would cascade to it).
  await trx('users')
    .whereIn('tenant_id', seedIds)
    .whereNotExists(trx('api_tokens').select(trx.raw('1')).whereRaw('api_tokens.user_id = users.id'))
    .delete();
  await trx('audit_log').delete();
  await trx('idempotency_records').delete();
  await trx('lab_billing_clients').delete();
  await trx('lab_billing_clients').insert([...SEED_BILLING_CLIENTS]);
  await trx('lab_state')
    .insert({ key: LAST_RESET_KEY, value: JSON.stringify(now.toISOString()) })
    .onConflict('key')
    .merge();
}

/**
 * Checks once a minute (and whenever tick() is called) whether a scheduled reset has passed
 * since the last one. The check runs under an advisory lock, so with several worker processes
 * exactly one resets.
 */
export class NightlyLabReset {
  private readonly job: PeriodicJob;

  constructor(
    private readonly db: Knex,
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
      const row = await trx('lab_state').where({ key: LAST_RESET_KEY }).first('value');
      const last = row ? new Date(row.value as string) : new Date(0);
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
