// Feeds the nameserver role from PostgreSQL: on start every published zone is loaded from
// published_records; afterwards each new version (zone_versions, announced on zone_published) is
// applied as a diff, so a one-record change costs the same in a zone of a million records as in
// one of ten. The nameserver only ever sees immutable snapshots swapped in one step. When the
// database is away nothing changes in the store: the server keeps answering, and the feed
// catches up (poll) once the database is back. Versions carry their records in wire form, encoded
// once by the build: nothing here checks or encodes a record again.
//
// The feed also keeps the catalog zones' access lists (who may read them: their set's
// secondaries, docs/catalog-zones.md): read before the first zone is served, again before a zone
// is served for the first time (a new catalog is never answered without its list), on every
// SECONDARY_SETS_CHANNEL notification and at every poll; handed on (onAccess) only when they changed.
import type { ZoneDiff, ZoneRecord } from '../../nameserver/types.js';
import type { ZoneAccess } from '../../nameserver/server/zoneAccess.js';
import { buildZoneSnapshot } from '../../nameserver/zone/snapshot.js';
import type { ZoneStore } from '../../nameserver/zone/store.js';
import { inTurns } from '../../nameserver/zone/steps.js';
import { NotificationListener } from '../db/notificationListener.js';
import type { Pool, Runner } from '../db/context.js';
import {
  latestVersionHeads,
  publishedHead,
  publishedRecordPage,
  publishedSystem,
  publishedZones,
  type VersionHead,
  versionDiffRows,
} from '../db/repositories/publicationRows.js';
import { PeriodicJob } from '../jobs/periodicJob.js';
import type { Logger } from '../observability/logger.js';
import { PUBLISHED_CHANNEL } from '../db/repositories/versionStore.js';
import { SECONDARY_SETS_CHANNEL } from '../db/channels.js';
import { catalogAccessRows } from '../db/repositories/secondaryFleet.js';
import { absoluteName } from '../../nameserver/wire/name.js';
import { fromStored, type StoredWireRecord, toZoneRecord } from '../versionRecords/zoneRecords.js';

const LOAD_PAGE = 20_000;

/** A version without its records (diffsOf reads those). */
export interface NameserverFeedOptions {
  db: Pool;
  databaseUrl: string;
  store: ZoneStore;
  logger: Logger;
  /** A zone's new version is being served (or a withdrawn zone no longer is). */
  onLoaded?(zoneId: string, origin: string, serial: number | null): void;
  /** The catalog zones' access lists changed (also called once at start, before any zone is served). */
  onAccess?(lists: readonly ZoneAccess[]): void;
  pollMs?: number;
}

export class NameserverFeed {
  private readonly loaded = new Map<string, { origin: string; serial: number }>();
  private readonly chains = new Map<string, Promise<void>>();
  private readonly listener: NotificationListener;
  /** Safety net for lost notifications. */
  private readonly catchUp: PeriodicJob;
  private stopped = false;
  ready = false;
  /** Who may read each catalog zone, as last read. */
  zoneAccess: readonly ZoneAccess[] = [];
  private accessText = '';
  private accessRead: Promise<void> | null = null;
  private accessAgain = false;

  constructor(private readonly options: NameserverFeedOptions) {
    this.listener = new NotificationListener({
      url: options.databaseUrl,
      channels: [PUBLISHED_CHANNEL, SECONDARY_SETS_CHANNEL],
      onNotification: (channel, zoneId) =>
        channel === SECONDARY_SETS_CHANNEL
          ? void this.readAccess().catch((err) => options.logger.warn({ err }, 'reading the catalogs’ access lists failed; keeping the ones loaded'))
          : this.sync(zoneId),
      onConnected: () => void this.poll().catch((err) => options.logger.warn({ err }, 'nameserver catch-up failed')),
      onError: (err) => options.logger.warn({ err }, 'nameserver feed lost its database connection; serving the loaded zones'),
    });
    this.catchUp = new PeriodicJob({
      name: 'nameserver poll',
      intervalMs: options.pollMs ?? 5000,
      failureLevel: 'warn',
      logger: options.logger,
      run: () => this.poll(),
    });
  }

  async start(): Promise<void> {
    await this.loadAll();
    this.ready = true;
    await this.listener.start();
    this.catchUp.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.catchUp.stop();
    await this.listener.stop();
    await Promise.allSettled([...this.chains.values()]);
  }

  /** Serves zones loaded, for /healthz and metrics. */
  get zoneCount(): number {
    return this.loaded.size;
  }

  /**
   * Reads the access lists; calls that overlap share the read in flight and one more after it (a
   * caller must see a read begun after its call). Hands them on when they changed.
   */
  readAccess(): Promise<void> {
    if (this.accessRead) {
      this.accessAgain = true;
      return this.accessRead;
    }
    this.accessRead = (async () => {
      do {
        this.accessAgain = false;
        const lists: ZoneAccess[] = (await catalogAccessRows(this.options.db)).map((r) => ({
          origin: r.zoneName,
          addresses: r.addresses,
          transferKeyOwner: r.tsigKeyId,
          grantsMembers: true,
        }));
        const text = JSON.stringify(lists);
        if (text !== this.accessText) {
          this.accessText = text;
          this.zoneAccess = lists;
          this.options.onAccess?.(lists);
        }
      } while (this.accessAgain);
    })().finally(() => (this.accessRead = null));
    return this.accessRead;
  }

  private async loadAll(): Promise<void> {
    await this.readAccess();
    const zones = await publishedZones(this.options.db);
    for (const zone of zones) await this.loadZone(zone.id, zone.name);
    this.options.logger.info({ zones: zones.length }, 'nameserver zones loaded');
  }

  /** Syncs one zone; calls for the same zone run one after the other. */
  sync(zoneId: string): Promise<void> {
    const previous = this.chains.get(zoneId) ?? Promise.resolve();
    const next = previous
      .then(() => (this.stopped ? undefined : this.syncZone(zoneId)))
      .catch((err) => this.options.logger.warn({ err, zone_id: zoneId }, 'zone could not be loaded; serving the previous version'));
    this.chains.set(zoneId, next);
    void next.finally(() => {
      if (this.chains.get(zoneId) === next) this.chains.delete(zoneId);
    });
    return next;
  }

  private async syncZone(zoneId: string): Promise<void> {
    // The zone with its newest version: usually the one step from the serial this process serves.
    const row = await publishedHead(this.options.db, zoneId);
    const have = this.loaded.get(zoneId);
    if (!row || row.published_serial === null) {
      if (have) {
        this.options.store.remove(have.origin);
        this.loaded.delete(zoneId);
        this.options.onLoaded?.(zoneId, have.origin, null);
      }
      return;
    }
    const target = Number(row.published_serial);
    if (have?.serial === target) return;
    const newest = row.serial !== null && row.serial !== undefined ? (row as VersionHead) : null;
    // A zone served for the first time may be a new catalog: its access list first.
    if (!have) await this.readAccess();
    const chain = !have
      ? null
      : newest && !newest.withdrawn && Number(newest.from_serial) === have.serial
        ? [newest]
        : await this.versionsBetween(zoneId, have.serial, target);
    if (!have || !chain) {
      await this.loadZone(zoneId, row.name);
      return;
    }
    const diffs = await diffsOf(this.options.db, zoneId, row.name, chain);
    try {
      // In turns: a large version (a zone signed whole) takes the nameserver a second or two.
      for (const diff of diffs) this.options.store.installDiff(row.name, diff, await inTurns(this.options.store.nextOf(row.name, diff)));
    } catch (err) {
      // A diff that does not fit what we serve (the store keeps the old zone): start over whole.
      this.options.logger.warn({ err, zone_id: zoneId }, 'zone version did not apply; reloading the zone');
      await this.loadZone(zoneId, row.name);
      return;
    }
    this.loaded.set(zoneId, { origin: row.name, serial: target });
    this.options.onLoaded?.(zoneId, row.name, target);
  }

  /** The versions leading from `from` to `to`, or null when the stored history does not reach back. */
  private async versionsBetween(zoneId: string, from: number, to: number): Promise<VersionHead[] | null> {
    const history = await historyOf(this.options.db, zoneId, to, 200, from);
    return history[0] && Number(history[0].from_serial) === from ? history : null;
  }

  /**
   * The whole zone from published_records and the system records of its version, read in one
   * transaction (one consistent version).
   */
  private async loadZone(zoneId: string, origin: string): Promise<void> {
    const { serial, records, history } = await this.options.db.transaction(
      async (trx) => {
        const zone = await publishedSystem<StoredWireRecord>(trx, zoneId);
        // A version without rendered system records predates them; the worker rebuilds it whole.
        if (!zone || zone.published_serial === null || zone.system === null) return { serial: null, records: [], history: [] };
        // Absolute names at once: a page's rows are dropped as soon as they are read.
        const records: ZoneRecord[] = zone.system.map((r) => toZoneRecord(origin, fromStored(r)));
        let after = '';
        for (;;) {
          const page = await publishedRecordPage(trx, zoneId, after, LOAD_PAGE);
          for (const r of page) records.push(toZoneRecord(origin, r));
          if (page.length < LOAD_PAGE) break;
          after = page[page.length - 1]!.record_id;
        }
        const serial = Number(zone.published_serial);
        return { serial, records, history: await diffsOf(trx, zoneId, origin, await historyOf(trx, zoneId, serial)) };
      },
      { isolationLevel: 'repeatable read', readOnly: true },
    );
    if (serial === null) {
      const have = this.loaded.get(zoneId);
      if (have) this.options.store.remove(have.origin);
      this.loaded.delete(zoneId);
      return;
    }
    this.options.store.set(buildZoneSnapshot(origin, records), history);
    this.loaded.set(zoneId, { origin, serial });
    this.options.onLoaded?.(zoneId, origin, serial);
  }

  /** Catches up every zone whose published version differs from the one loaded. */
  async poll(): Promise<void> {
    if (this.stopped) return;
    await this.readAccess();
    const rows = await publishedZones(this.options.db);
    const current = new Set(rows.map((r) => r.id));
    const syncs = rows.filter((r) => this.loaded.get(r.id)?.serial !== Number(r.published_serial)).map((r) => this.sync(r.id));
    for (const id of this.loaded.keys()) if (!current.has(id)) syncs.push(this.sync(id));
    await Promise.all(syncs);
  }
}

/**
 * The published versions leading to `serial`, oldest first: back to `from` when given, else as far
 * as the newest `limit` rows reach. The version we start from needs no row of its own (pruned, or
 * a zone loaded whole).
 */
async function historyOf(db: Runner, zoneId: string, serial: number, limit = 100, from?: number): Promise<VersionHead[]> {
  const steps = await latestVersionHeads(db, zoneId, limit);
  const bySerial = new Map(steps.map((r) => [Number(r.serial), r]));
  const serials: number[] = [];
  for (let at = serial; at !== from && serials.length < steps.length; ) {
    const step = bySerial.get(at);
    if (!step || step.withdrawn || step.from_serial === null) break;
    serials.push(at);
    at = Number(step.from_serial);
  }
  return serials.reverse().map((s) => bySerial.get(s)!);
}

/**
 * The diffs of `versions`, in their order. Their records are read as rows, not as the versions'
 * JSON: pg parses rows as they arrive, between which the thread answers others, where the JSON of
 * a zone signed whole (hundreds of thousands of records) is parsed in one piece.
 */
async function diffsOf(db: Runner, zoneId: string, origin: string, versions: VersionHead[]): Promise<ZoneDiff[]> {
  if (!versions.length) return [];
  // RDATA is decoded from base64 in collect's turns (see versionDiffRows).
  const rows = await versionDiffRows(
    db,
    zoneId,
    versions.map((v) => v.serial),
  );
  const bySerial = new Map(
    versions.map((v): [number, ZoneDiff] => [Number(v.serial), { fromSerial: Number(v.from_serial), toSerial: Number(v.serial), removed: [], added: [] }]),
  );
  function* collect(): Generator<void, ZoneDiff[]> {
    for (let i = 0; i < rows.length; i++) {
      if (i % 4096 === 4095) yield;
      const { serial, removed, name, type, ttl, rdata } = rows[i]!;
      bySerial.get(Number(serial))![removed ? 'removed' : 'added'].push({ name: absoluteName(name, origin), type, ttl, rdata: Buffer.from(rdata, 'base64') });
    }
    return versions.map((v) => bySerial.get(Number(v.serial))!);
  }
  return inTurns(collect());
}
