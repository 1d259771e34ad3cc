// The webhook worker of one process (docs/webhooks.md "Delivery"). It runs beside the publication
// pipeline, never in it: events are rows the publication's transactions wrote, and this worker
// reads them afterwards. Each tick dispatches new events, disables webhooks failing for three
// days and leases due deliveries up to the free slots; attempts run concurrently, at most
// `perWebhookConcurrency` per webhook, so a slow or dead receiver holds its own slots only and
// the other webhooks' deliveries go on. A finished attempt frees its slot and asks for more work.
import type { Knex } from 'knex';
import type { Clock } from '../domain/clock.js';
import { PeriodicJob } from '../jobs/periodicJob.js';
import type { Logger } from '../observability/logger.js';
import { type ClaimedDelivery, claimDueDeliveries, disableFailingWebhooks, dispatchEvents, recordAttempt } from './deliveries.js';
import { eventBody, signatureHeader } from './deliveryPolicy.js';
import type { AttemptResult, Sender } from './send.js';

export interface DeliveryWorkerOptions {
  db: Knex;
  clock: Clock;
  logger: Logger;
  /** Decrypts the stored secrets. */
  kek: Buffer;
  sender: Sender;
  concurrency: number;
  perWebhookConcurrency: number;
  pollIntervalMs: number;
}

export class DeliveryWorker {
  private readonly job: PeriodicJob;
  private readonly inFlight = new Map<string, number>();
  private readonly running = new Set<Promise<void>>();
  private pumping: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  /** Attempts finished by this process (bench and tests read it). */
  attempts = 0;

  constructor(private readonly o: DeliveryWorkerOptions) {
    this.job = new PeriodicJob({ name: 'webhook deliveries', intervalMs: o.pollIntervalMs, jitter: 0.1, logger: o.logger, failureLevel: 'warn', run: () => this.pump() });
  }

  start(): void {
    this.stopped = false;
    this.job.start();
  }

  /** No new attempt starts; waits for those in flight (each ends within the delivery timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.job.stop();
    await this.pumping;
    await Promise.all([...this.running]);
    this.o.sender.close();
  }

  private get busy(): number {
    let n = 0;
    for (const v of this.inFlight.values()) n += v;
    return n;
  }

  /** One pass; a pass asked for while one runs runs again right after it. */
  pump(): Promise<void> {
    if (this.pumping) {
      this.again = true;
      return this.pumping;
    }
    this.pumping = (async () => {
      try {
        do {
          this.again = false;
          await this.pass();
        } while (this.again && !this.stopped);
      } finally {
        this.pumping = null;
      }
    })();
    return this.pumping;
  }

  private async pass(): Promise<void> {
    if (this.stopped) return;
    const { db, clock } = this.o;
    for (;;) {
      const { events } = await dispatchEvents(db, clock.now());
      if (events < 500) break;
    }
    const disabled = await disableFailingWebhooks(db, clock.now());
    if (disabled.length) this.o.logger.warn({ webhooks: disabled }, 'webhooks disabled after 3 days of failed deliveries');
    const free = this.o.concurrency - this.busy;
    if (free <= 0) return;
    const full = [...this.inFlight].filter(([, n]) => n >= this.o.perWebhookConcurrency).map(([id]) => id);
    const claimed = await claimDueDeliveries(db, this.o.kek, clock.now(), { limit: free, perWebhook: this.o.perWebhookConcurrency, busy: full });
    // A webhook with some slots taken may have been given more than its free ones: the rest
    // wait in line here (well within the lease).
    const queues = new Map<string, ClaimedDelivery[]>();
    for (const c of claimed) queues.set(c.webhookId, [...(queues.get(c.webhookId) ?? []), c]);
    for (const [webhookId, queue] of queues) this.startLine(webhookId, queue);
    if (claimed.length === free) this.again = true;
  }

  /** Runs a webhook's claimed deliveries within its share of slots. */
  private startLine(webhookId: string, queue: ClaimedDelivery[]): void {
    const next = () => {
      while (queue.length && (this.inFlight.get(webhookId) ?? 0) < this.o.perWebhookConcurrency) {
        const delivery = queue.shift()!;
        this.inFlight.set(webhookId, (this.inFlight.get(webhookId) ?? 0) + 1);
        const p = this.attempt(delivery).finally(() => {
          const left = (this.inFlight.get(webhookId) ?? 1) - 1;
          if (left) this.inFlight.set(webhookId, left);
          else this.inFlight.delete(webhookId);
          this.running.delete(p);
          if (queue.length) next();
          else if (!this.stopped) void this.pump().catch((err: unknown) => this.o.logger.warn({ err }, 'webhook deliveries failed'));
        });
        this.running.add(p);
      }
    };
    next();
  }

  private async attempt(d: ClaimedDelivery): Promise<void> {
    const { clock, sender, logger, db } = this.o;
    const startedAt = clock.now();
    const body = eventBody(d.event);
    // Nothing unsigned ever leaves: a secret this process cannot unseal fails the attempt.
    const result: AttemptResult = !d.secrets.length
      ? { outcome: 'internal_error', status: null, durationMs: 0, error: 'the signing secret cannot be decrypted (DNSSEC_KEY_ENCRYPTION_KEY differs between processes?)' }
      : await sender.send(d.url, body, {
      'service-delivery': d.id,
      'service-signature': signatureHeader(d.secrets, Math.floor(Date.now() / 1000), body),
      'service-event': d.event.kind,
    });
    this.attempts++;
    try {
      await recordAttempt(db, d, startedAt, result, clock.now());
    } catch (err) {
      // The lease runs out and the delivery is attempted again: at least once.
      logger.warn({ err, delivery: d.id }, 'webhook attempt not recorded');
    }
    if (result.outcome !== 'success') logger.info({ delivery: d.id, webhook: d.webhookId, attempt: d.attempt, outcome: result.outcome, status: result.status }, 'webhook attempt failed');
  }
}
