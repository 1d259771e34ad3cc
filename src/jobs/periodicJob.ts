// Every background loop of the service (publication poll and verification, nameserver catch-up,
// maintenance, nightly lab reset) is one of these: run every interval, a little jitter so that
// processes started together do not run in step, never two runs at once, a failure logged and
// the next run still scheduled, and a stop that waits for the run in flight.
import { type Scheduler, systemScheduler } from '../domain/clock.js';
import type { Logger } from '../observability/logger.js';

export interface PeriodicJobOptions {
  /** For the log: `<name> failed`. */
  name: string;
  intervalMs: number;
  /** Each wait is intervalMs × (1 ± jitter), uniformly; 0 (default) for a fixed interval. */
  jitter?: number;
  run(): Promise<unknown>;
  logger: Pick<Logger, 'warn' | 'error'>;
  /** Level of a failed run's log line (a poll that will be retried is a warning). */
  failureLevel?: 'warn' | 'error';
  /** Real timers unless a test drives time (ManualClock). */
  scheduler?: Scheduler;
  /** [0, 1); for tests of the jitter. */
  random?: () => number;
}

export class PeriodicJob {
  private cancel: (() => void) | null = null;
  private inFlight: Promise<void> | null = null;
  private stopped = true;

  constructor(private readonly options: PeriodicJobOptions) {
    if (!(options.intervalMs > 0)) throw new RangeError(`${options.name}: interval must be positive`);
    if ((options.jitter ?? 0) < 0 || (options.jitter ?? 0) >= 1) throw new RangeError(`${options.name}: jitter must be in [0, 1)`);
  }

  /** The first run comes one interval from now (as setInterval's did). */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.scheduleNext();
  }

  /** No run starts after this; resolves once the run in flight (if any) has finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.cancel?.();
    this.cancel = null;
    await this.inFlight;
  }

  get running(): boolean {
    return !this.stopped;
  }

  private delay(): number {
    const { intervalMs, jitter = 0, random = Math.random } = this.options;
    return Math.round(intervalMs * (1 + jitter * (2 * random() - 1)));
  }

  private scheduleNext(): void {
    const scheduler = this.options.scheduler ?? systemScheduler;
    this.cancel = scheduler.schedule(this.delay(), () => {
      this.cancel = null;
      if (this.stopped) return;
      this.inFlight = this.runOnce().finally(() => {
        this.inFlight = null;
        if (!this.stopped) this.scheduleNext();
      });
    });
  }

  private async runOnce(): Promise<void> {
    try {
      await this.options.run();
    } catch (err) {
      const { logger, failureLevel = 'error', name } = this.options;
      logger[failureLevel]({ err, job: name }, `${name} failed`);
    }
  }
}
