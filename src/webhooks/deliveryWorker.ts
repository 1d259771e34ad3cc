// The webhook worker of one process (docs/webhooks.md "Delivery"). It runs beside the publication
// pipeline, never in it: events are rows the publication's transactions wrote, and this worker
// reads them afterwards. Every tick dispatches new events and disables webhooks failing for three
// days; due deliveries are leased in batches into one line per webhook. At most `concurrency`
// attempts run at once, at most `perWebhookConcurrency` of one webhook, so a slow or dead
// receiver holds its own slots only and every other webhook's deliveries go on. A finished
// attempt starts the next in line and, when lines run short, leases more.
import type { Pool } from '../db/context.js';
import type { Clock } from '../domain/clock.js';
import { PeriodicJob } from '../jobs/periodicJob.js';
import type { Logger } from '../observability/logger.js';
import { type ClaimedDelivery, claimDueDeliveries, DISPATCH_BATCH, disableFailingWebhooks, dispatchEvents, recordAttempt } from './deliveries.js';
import { ATTEMPT_LEASE_MS, DELIVERY_TIMEOUT_MS, eventBody, signatureHeader } from './deliveryPolicy.js';
import type { AttemptResult, Sender } from './send.js';

const FOREIGN_KEY_VIOLATION = '23503';

export interface DeliveryWorkerOptions {
  db: Pool;
  clock: Clock;
  logger: Logger;
  /** Decrypts the stored secrets. */
  kek: Buffer;
  sender: Sender;
  concurrency: number;
  perWebhookConcurrency: number;
  pollIntervalMs: number;
}

/** A tick dispatches, disables and leases (attempts run beside it): a minute is far more than it needs. */
const TICK_BOUND_MS = 60_000;

/** Lease queries in one round of leasing (see leaseWhileAsked). */
const LEASE_PASSES = 8;

interface Line {
  queue: ClaimedDelivery[];
  running: number;
}

export class DeliveryWorker {
  private readonly job: PeriodicJob;
  private readonly lines = new Map<string, Line>();
  private readonly inFlight = new Set<Promise<void>>();
  private running = 0;
  private held = 0;
  private claiming: Promise<void> | null = null;
  private claimAgain = false;
  private stopped = false;
  /** Leased deliveries one webhook's line holds: its running attempts and the ones waiting. */
  private readonly lineCap: number;
  /** Leased deliveries this process holds in all. */
  private readonly heldCap: number;
  /** Attempts finished by this process (bench and tests read it), and by outcome (/metrics). */
  attempts = 0;
  readonly outcomes: Record<string, number> = {};

  constructor(private readonly o: DeliveryWorkerOptions) {
    // The last of a full line starts within lineCap / perWebhook timeouts: well inside its lease.
    this.lineCap = o.perWebhookConcurrency * Math.max(1, Math.floor(ATTEMPT_LEASE_MS / DELIVERY_TIMEOUT_MS / 2));
    this.heldCap = Math.max(o.concurrency * 4, this.lineCap);
    this.job = new PeriodicJob({
      name: 'webhook deliveries',
      intervalMs: o.pollIntervalMs,
      jitter: 0.1,
      logger: o.logger,
      failureLevel: 'warn',
      runBoundMs: TICK_BOUND_MS,
      run: () => this.tick(),
    });
  }

  /** Attempts running now (/metrics). */
  get inFlightCount(): number {
    return this.running;
  }

  start(): void {
    this.stopped = false;
    this.job.start();
  }

  /** No new attempt starts; waits for those in flight (each ends within the delivery timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.job.stop();
    await this.claiming;
    await Promise.all([...this.inFlight]);
    this.o.sender.close();
  }

  /** New events into deliveries, failing webhooks disabled, due deliveries leased. */
  async tick(): Promise<void> {
    const { db, clock, logger } = this.o;
    for (;;) {
      const { events } = await dispatchEvents(db, clock.now());
      // A full batch: more may wait.
      if (events < DISPATCH_BATCH) break;
    }
    const disabled = await disableFailingWebhooks(db, clock.now());
    if (disabled.length) logger.warn({ webhooks: disabled }, 'webhooks disabled after 3 days of failed deliveries');
    await this.claim();
  }

  /**
   * Leases due deliveries up to the free room; one lease query at a time, repeated while asked.
   * `claiming` is cleared by a `.finally` callback, never inside the leasing function: with no
   * room free that function returns before its first await, and a flag it cleared would be set
   * again by the assignment after it, leaving every later claim waiting on a finished lease —
   * the worker then leased nothing ever again.
   */
  claim(): Promise<void> {
    this.claimAgain = true;
    if (this.claiming) return this.claiming;
    const leasing = this.leaseWhileAsked().finally(() => {
      this.claiming = null;
    });
    this.claiming = leasing;
    // Asked again after the last look at claimAgain, before `claiming` was cleared: not lost. (After
    // a failed lease the next tick asks; an immediate retry would spin while the database is away.)
    leasing.then(
      () => {
        if (this.claimAgain && !this.stopped && !this.claiming)
          void this.claim().catch((err: unknown) => this.o.logger.warn({ err }, 'leasing webhook deliveries failed'));
      },
      () => {},
    );
    return leasing;
  }

  /**
   * At most LEASE_PASSES lease queries, so that the tick awaiting it ends (its run is bounded) even
   * while finishing attempts keep asking; one still asked for after them starts a new round.
   */
  private async leaseWhileAsked(): Promise<void> {
    for (let pass = 0; pass < LEASE_PASSES && this.claimAgain && !this.stopped; pass++) {
      this.claimAgain = false;
      const free = this.heldCap - this.held;
      if (free <= 0) break;
      const full = [...this.lines].filter(([, l]) => l.queue.length + l.running >= this.lineCap).map(([id]) => id);
      const claimed = await claimDueDeliveries(this.o.db, this.o.kek, this.o.clock.now(), { limit: free, perWebhook: this.lineCap, busy: full });
      for (const d of claimed) {
        const line = this.lines.get(d.webhookId) ?? { queue: [], running: 0 };
        line.queue.push(d);
        this.lines.set(d.webhookId, line);
      }
      this.held += claimed.length;
      this.startAttempts();
      if (claimed.length === free) this.claimAgain = true;
    }
  }

  /** Starts waiting attempts while slots are free, one webhook after another (round robin). */
  private startAttempts(): void {
    let started = true;
    while (started && this.running < this.o.concurrency && !this.stopped) {
      started = false;
      for (const [webhookId, line] of this.lines) {
        if (this.running >= this.o.concurrency) break;
        if (line.running >= this.o.perWebhookConcurrency || !line.queue.length) continue;
        const delivery = line.queue.shift()!;
        line.running++;
        this.running++;
        started = true;
        const p: Promise<void> = this.attempt(delivery).finally(() => {
          line.running--;
          this.running--;
          this.held--;
          if (!line.running && !line.queue.length) this.lines.delete(webhookId);
          this.inFlight.delete(p);
          this.startAttempts();
          // Lines running short: lease more now rather than at the next tick.
          if (!this.stopped && line.queue.length < this.o.perWebhookConcurrency)
            void this.claim().catch((err: unknown) => this.o.logger.warn({ err }, 'leasing webhook deliveries failed'));
        });
        this.inFlight.add(p);
      }
    }
  }

  private async attempt(d: ClaimedDelivery): Promise<void> {
    const { clock, sender, logger, db } = this.o;
    const startedAt = clock.now();
    const body = eventBody(d.event);
    // Nothing unsigned ever leaves: a secret this process cannot unseal fails the attempt.
    let result: AttemptResult;
    try {
      result = !d.secrets.length
        ? {
            outcome: 'internal_error',
            status: null,
            durationMs: 0,
            error: 'the signing secret cannot be decrypted (SECRET_KEY_ENCRYPTION_KEY differs between processes?)',
          }
        : await sender.send(d.url, body, {
            'service-delivery': d.id,
            // t is the receiver's wall clock, never an injected one: receivers reject a t 5 minutes off.
            'service-signature': signatureHeader(d.secrets, Math.floor(Date.now() / 1000), body),
            'service-event': d.event.kind,
          });
    } catch (err) {
      // A request that could not even be made is a failed attempt, retried on the schedule, never a
      // rejection nobody awaits.
      logger.warn({ err, delivery: d.id }, 'webhook attempt could not be made');
      result = { outcome: 'internal_error', status: null, durationMs: 0, error: 'the request could not be made' };
    }
    this.attempts++;
    this.outcomes[result.outcome] = (this.outcomes[result.outcome] ?? 0) + 1;
    try {
      await recordAttempt(db, d, startedAt, result, clock.now());
    } catch (err) {
      // 23503: the webhook was deleted while its attempt ran, and its deliveries with it: there is
      // nothing left to record the attempt on, and nothing will try it again.
      if ((err as { code?: string }).code === FOREIGN_KEY_VIOLATION) return;
      // The lease runs out and the delivery is attempted again: at least once.
      logger.warn({ err, delivery: d.id }, 'webhook attempt not recorded');
    }
    if (result.outcome !== 'success')
      logger.info({ delivery: d.id, webhook: d.webhookId, attempt: d.attempt, outcome: result.outcome, status: result.status }, 'webhook attempt failed');
  }
}
