// Every background loop of the service (publication poll and verification, nameserver catch-up,
// webhook deliveries, DNSSEC, maintenance, nightly lab reset) is one of these: run every interval,
// a little jitter so that processes started together do not run in step, never two runs at once,
// a failure logged and the next run still scheduled, and a stop that waits for the run in flight.
// A run has a bound: one that overruns it is abandoned (its signal aborted, an error logged, the job
// shown `stalled` in /healthz) and the loop goes on — a run that never settles would otherwise stop
// its loop for good, silently. An abandoned run may still be finishing beside the next
// (its own statement, request and DNS bounds end it): its end is logged, and a stop waits for it
// too, at most ABANDONED_STOP_WAIT_MS. Every run's outcome goes to the thread's JobMonitor.
import { type Scheduler, systemScheduler } from '../domain/clock.js';
import type { Logger } from '../observability/logger.js';
import { type JobMonitor, jobMonitor, type RunOutcome } from './jobMonitor.js';

/** A run's bound unless the job names its own (docs/operations.md "Background jobs"). */
const DEFAULT_RUN_BOUND_MS = 5 * 60_000;
/** How long a stop waits for runs abandoned at their bound before it returns all the same. */
const ABANDONED_STOP_WAIT_MS = 5000;

export interface PeriodicJobOptions {
  /** For the log: `<name> failed`. */
  name: string;
  intervalMs: number;
  /** Each wait is intervalMs × (1 ± jitter), uniformly; 0 (default) for a fixed interval. */
  jitter?: number;
  /** Aborted when the run overran its bound: stop early where that is cheap to check. */
  run(signal: AbortSignal): Promise<unknown>;
  /** A run still going after this is abandoned and the next one scheduled; default DEFAULT_RUN_BOUND_MS. */
  runBoundMs?: number;
  /** Where the runs' outcomes go; the thread's monitor unless a test brings its own. */
  monitor?: JobMonitor;
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
  private readonly abandoned = new Set<Promise<unknown>>();
  private stopped = true;
  private health: ReturnType<JobMonitor['register']> | null = null;

  constructor(private readonly options: PeriodicJobOptions) {
    if (!(options.intervalMs > 0)) throw new RangeError(`${options.name}: interval must be positive`);
    if ((options.jitter ?? 0) < 0 || (options.jitter ?? 0) >= 1) throw new RangeError(`${options.name}: jitter must be in [0, 1)`);
    if (!((options.runBoundMs ?? DEFAULT_RUN_BOUND_MS) > 0)) throw new RangeError(`${options.name}: run bound must be positive`);
  }

  /** The first run comes one interval from now (as setInterval's did). */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.health = (this.options.monitor ?? jobMonitor).register(this.options.name);
    this.scheduleNext();
  }

  /** No run starts after this; resolves once the run in flight (if any) has finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.cancel?.();
    this.cancel = null;
    this.health?.forget();
    this.health = null;
    await this.inFlight;
    if (this.abandoned.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const cap = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ABANDONED_STOP_WAIT_MS);
      timer.unref();
    });
    await Promise.race([Promise.allSettled([...this.abandoned]), cap]);
    clearTimeout(timer);
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
    const { logger, failureLevel = 'error', name, runBoundMs = DEFAULT_RUN_BOUND_MS } = this.options;
    const scheduler = this.options.scheduler ?? systemScheduler;
    const health = this.health;
    const controller = new AbortController();
    let cancelBound = () => {};
    const overrun = new Promise<'overrun'>((resolve) => {
      cancelBound = scheduler.schedule(runBoundMs, () => resolve('overrun'));
    });
    const run = (async () => this.options.run(controller.signal))().then(
      (): RunOutcome => 'success',
      (err: unknown): RunOutcome => {
        if (!controller.signal.aborted) logger[failureLevel]({ err, job: name }, `${name} failed`);
        return 'failure';
      },
    );
    const outcome = await Promise.race([run, overrun]);
    cancelBound();
    if (outcome === 'overrun') {
      controller.abort(new Error(`${name} overran its bound of ${runBoundMs} ms`));
      logger.error({ job: name, boundMs: runBoundMs }, `${name} overran its bound of ${runBoundMs / 1000} s; abandoned, the next run is scheduled`);
      this.abandoned.add(run);
      void run.then((late) => {
        this.abandoned.delete(run);
        logger.warn({ job: name, outcome: late }, `${name}: the abandoned run ended`);
      });
    }
    health?.record(outcome);
  }
}
