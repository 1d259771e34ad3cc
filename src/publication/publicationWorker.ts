// The worker role's publication loop: every committed change set is picked up (LISTEN on
// zone_changed, and a poll as safety net), the zone's next version is built (publishZone), and the
// version is verified over DNS until it is live (verifyZone). Zones are handled one at a time per
// process; across processes the zone row lock (SKIP LOCKED) keeps two workers apart.
import type { Pool } from '../db/context.js';
import { NotificationListener } from '../db/notificationListener.js';
import type { Clock } from '../domain/clock.js';
import { PeriodicJob } from '../jobs/periodicJob.js';
import type { Logger } from '../observability/logger.js';
import { ZONE_CHANNEL } from '../db/channels.js';
import { zonesAwaitingBuild, zonesAwaitingVerification } from '../db/repositories/publicationRows.js';
import { zonesRenderedElsewise } from '../db/repositories/versionStore.js';
import { catalogsWithChangedMembers } from '../db/repositories/catalogMembers.js';
import { type PublishDeps, publishZone } from './publishZone.js';
import { markVerificationTimeouts, type VerifyDeps, verifyZone } from './verifyPublication.js';

/**
 * Delays between verification attempts after a version is built: the embedded nameserver loads a
 * version within milliseconds, so the first probes come quickly; later ones back off. After the
 * last, the reconcile pass keeps checking every `reconcileMs`.
 */
const VERIFY_DELAYS_MS = [0, 5, 10, 20, 40, 80, 150, 300, 600, 1000, 2000, 5000, 10_000, 20_000];
/**
 * Builds of one zone start at least this far apart. A zone written to faster than that gets one
 * version for every change set committed meanwhile instead of one version per write (each costs
 * about fifteen statements, a nameserver update and a verification); a write to a zone quiet for
 * longer is built at once.
 */
const MIN_BUILD_INTERVAL_MS = 100;
/**
 * After a zone's change, catalogs are looked at this much later (docs/catalog-zones.md "Change
 * without a lock"): a member's write never touches its catalogs, so the worker finds those whose
 * members changed — once per burst of writes, not once per write.
 */
const CATALOG_CHECK_DELAY_MS = 200;

export interface PublicationWorkerOptions {
  db: Pool;
  databaseUrl: string;
  clock: Clock;
  logger: Logger;
  verify: Omit<VerifyDeps, 'db' | 'clock'>;
  /** NAMESERVERS: every build renders the apex NS set and the SOA MNAME from them. */
  nameservers: readonly string[];
  /** What the sign step needs: the key that decrypts zone keys, the DNSKEY TTL. */
  dnssec: PublishDeps['dnssec'];
  pollMs?: number;
  reconcileMs?: number;
  /**
   * This process also runs the nameserver feed, which calls verifySoon as soon as it serves a new
   * version: after a build the worker then only keeps a slower safety-net schedule.
   */
  localFeed?: boolean;
}

export class PublicationWorker {
  /** Versions built since start, by how they were signed (zone_builds_total in /metrics). */
  readonly builds = { unsigned: 0, by_change: 0, whole: 0 };
  private readonly listener: NotificationListener;
  private readonly running = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  /** When each zone's last build started (monotonic ms): builds of one zone are spaced. */
  private readonly lastBuild = new Map<string, number>();
  private readonly verifying = new Map<string, NodeJS.Timeout | true>();
  private catalogCheck: NodeJS.Timeout | null = null;
  /** The safety nets: a poll for lost notifications, and verification of what waits for it. */
  private readonly jobs: PeriodicJob[];
  private stopped = false;

  constructor(private readonly options: PublicationWorkerOptions) {
    this.listener = new NotificationListener({
      url: options.databaseUrl,
      channels: [ZONE_CHANNEL],
      onNotification: (_channel, zoneId) => {
        this.publishSoon(zoneId);
        this.catalogsSoon();
      },
      onConnected: () => void this.poll(),
      onError: (err) => options.logger.warn({ err }, 'publication listener lost its database connection'),
    });
    const { logger } = options;
    this.jobs = [
      // The poll only reads which zones wait (builds run beside it): a minute is far more than it needs.
      new PeriodicJob({ name: 'publication poll', intervalMs: options.pollMs ?? 2000, runBoundMs: 60_000, logger, run: () => this.poll() }),
      new PeriodicJob({ name: 'publication verification', intervalMs: options.reconcileMs ?? 30_000, logger, run: () => this.reconcile() }),
    ];
  }

  private get verifyDeps(): VerifyDeps {
    return { db: this.options.db, clock: this.options.clock, ...this.options.verify };
  }

  async start(): Promise<void> {
    await this.listener.start();
    void this.rebuildRenderedElsewise().catch((err) => this.options.logger.error({ err }, 'rebuilding zones for NAMESERVERS failed'));
    for (const job of this.jobs) job.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.catalogCheck) clearTimeout(this.catalogCheck);
    await Promise.all(this.jobs.map((job) => job.stop()));
    for (const t of this.verifying.values()) if (t !== true) clearTimeout(t);
    this.verifying.clear();
    await this.listener.stop();
    await Promise.allSettled([...this.running.values()]);
  }

  /** Publishes a zone now, or once more after the run in progress (writes arrive while we build). */
  publishSoon(zoneId: string): void {
    if (this.stopped) return;
    if (this.lastBuild.size > 10_000) this.forgetOldBuilds();
    if (this.running.has(zoneId)) {
      this.again.add(zoneId);
      return;
    }
    const run = this.publishLoop(zoneId).finally(() => this.running.delete(zoneId));
    this.running.set(zoneId, run);
  }

  /** Builds, shortly, the catalogs whose members changed (one look for a burst of zone changes). */
  private catalogsSoon(): void {
    if (this.stopped || this.catalogCheck) return;
    this.catalogCheck = setTimeout(() => {
      this.catalogCheck = null;
      void this.publishChangedCatalogs().catch((err) => this.options.logger.warn({ err }, 'looking for catalogs to build failed'));
    }, CATALOG_CHECK_DELAY_MS);
    this.catalogCheck.unref();
  }

  private async publishChangedCatalogs(): Promise<void> {
    for (const id of await catalogsWithChangedMembers(this.options.db)) this.publishSoon(id);
  }

  private async publishLoop(zoneId: string): Promise<void> {
    for (let busy = 0; !this.stopped; ) {
      const wait = (this.lastBuild.get(zoneId) ?? -Infinity) + MIN_BUILD_INTERVAL_MS - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      this.lastBuild.set(zoneId, performance.now());
      this.again.delete(zoneId);
      try {
        const outcome = await publishZone(
          { db: this.options.db, clock: this.options.clock, nameservers: this.options.nameservers, dnssec: this.options.dnssec },
          zoneId,
        );
        if (outcome.kind === 'published') this.builds[outcome.signed ?? 'unsigned']++;
        if (outcome.kind === 'published' && outcome.behind) this.again.add(zoneId);
        if (outcome.kind === 'published' || outcome.kind === 'withdrawn') this.verifyAfterBuild(zoneId);
        if (outcome.kind === 'failed') this.options.logger.warn({ zone_id: zoneId, detail: outcome.detail }, 'zone version could not be built');
        // Locked by a write in flight (its NOTIFY follows its commit) or by another worker: look
        // again shortly all the same, a few times, so nothing waits for the poll.
        if (outcome.kind === 'busy' && busy++ < 5) {
          await new Promise((r) => setTimeout(r, 20 * busy));
          continue;
        }
      } catch (err) {
        this.options.logger.error({ err, zone_id: zoneId }, 'publication failed');
      }
      if (!this.again.has(zoneId)) return;
    }
  }

  /**
   * Zones served with an apex NS set and SOA MNAME other than NAMESERVERS (the configuration
   * changed, or their version predates rendered system records) are built again now, a few at a
   * time, without waiting for a write.
   */
  private async rebuildRenderedElsewise(): Promise<void> {
    const ids = await zonesRenderedElsewise(this.options.db, this.options.nameservers);
    if (ids.length) this.options.logger.info({ zones: ids.length }, 'building zones whose apex NS set differs from NAMESERVERS');
    for (let i = 0; i < ids.length && !this.stopped; i += 4) {
      const batch = ids.slice(i, i + 4);
      for (const id of batch) this.publishSoon(id);
      await Promise.allSettled(batch.map((id) => this.running.get(id)));
    }
  }

  private forgetOldBuilds(): void {
    const before = performance.now() - MIN_BUILD_INTERVAL_MS;
    for (const [zoneId, at] of this.lastBuild) if (at < before) this.lastBuild.delete(zoneId);
  }

  private verifyAfterBuild(zoneId: string): void {
    if (!this.options.localFeed) return this.verifySoon(zoneId);
    if (this.stopped || this.verifying.has(zoneId)) return;
    const t = setTimeout(() => this.verifyStep(zoneId, 0), 50);
    t.unref();
    this.verifying.set(zoneId, t);
  }

  /** Starts (or restarts) the fast verification schedule for a zone. */
  verifySoon(zoneId: string): void {
    if (this.stopped) return;
    const pending = this.verifying.get(zoneId);
    if (pending === true) {
      this.verifying.set(
        zoneId,
        setTimeout(() => this.verifyStep(zoneId, 0), 0),
      );
      return;
    }
    if (pending) clearTimeout(pending);
    this.verifyStep(zoneId, 0);
  }

  private verifyStep(zoneId: string, attempt: number): void {
    this.verifying.set(zoneId, true);
    void verifyZone(this.verifyDeps, zoneId)
      .then((outcome) => {
        if (this.verifying.get(zoneId) !== true) return;
        if (outcome.kind !== 'waiting' || attempt + 1 >= VERIFY_DELAYS_MS.length || this.stopped) {
          this.verifying.delete(zoneId);
          return;
        }
        const t = setTimeout(() => this.verifyStep(zoneId, attempt + 1), VERIFY_DELAYS_MS[attempt + 1]);
        t.unref();
        this.verifying.set(zoneId, t);
      })
      .catch((err) => {
        this.verifying.delete(zoneId);
        this.options.logger.error({ err, zone_id: zoneId }, 'publication verification failed');
      });
  }

  /** Safety net for lost notifications: zones with unpublished change sets or a pending deletion. */
  async poll(): Promise<void> {
    if (this.stopped) return;
    const now = this.options.clock.now();
    for (const id of await zonesAwaitingBuild(this.options.db, now)) this.publishSoon(id);
    await this.publishChangedCatalogs();
  }

  /** Verifies what waits for verification and marks the 60-minute timeouts. */
  async reconcile(): Promise<void> {
    if (this.stopped) return;
    await markVerificationTimeouts(this.options.db, this.options.clock.now());
    const ids = await zonesAwaitingVerification(this.options.db);
    await Promise.all(
      ids.map(async (id) => verifyZone(this.verifyDeps, id).catch((err) => this.options.logger.error({ err, zone_id: id }, 'verification failed'))),
    );
  }

  /** Tests and the lab: publish and verify everything now, and wait for it. */
  async settle(): Promise<void> {
    await this.poll();
    await Promise.allSettled([...this.running.values()]);
    await this.reconcile();
  }
}
