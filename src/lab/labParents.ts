// Keeps the lab's parent zones (docs/lab.md "Lab parent zones") in step with the lab zones and the
// simulated registry: syncLabParents computes what every parent zone should hold and stores the
// difference as change sets of the lab platform tenant, through the zone-write seam, so the
// publication build publishes them like any zone. LabParentSync runs it at start and whenever the
// events outbox tells of a zone created (live), deleted or on its way out.
import type { Config } from '../config/index.js';
import type { Pool, Transaction } from '../db/context.js';
import {
  delegatedZoneRows,
  deleteRegistrations,
  lastEventSeq,
  lifecycleEventsAfter,
  registeredDsRows,
  unsignedLabParentNames,
} from '../db/repositories/labRegistry.js';
import type { Clock } from '../domain/clock.js';
import { PeriodicJob } from '../jobs/periodicJob.js';
import type { Logger } from '../observability/logger.js';
import { type DnssecDeps, enableDnssec } from '../services/dnssec.js';
import type { LabResetStep } from '../services/index.js';
import { createLabParentZone, labParentZoneNames, setLabParentRecords } from '../services/labParentZones.js';
import { tenantWriteContext, type WriteContext } from '../services/writeContext.js';
import { rdataToData } from '../../nameserver/wire/rdata.js';
import { parseDsPresentation } from './dsPresentation.js';
import { type DelegatedZone, labParentNames, parentRRsets } from './parentRecords.js';
import { readSeedIds } from './seed.js';
import { advisoryLock, LAB_PARENTS_LOCK } from '../db/lockOrder.js';

/** The lab registry writes as the lab platform tenant, without a token (the audit log says so). */
export async function registrarContext(trx: Transaction, clock: Clock): Promise<WriteContext | null> {
  const seed = await readSeedIds(trx);
  if (!seed) return null;
  return tenantWriteContext(trx, clock, seed.platform, { id: 'lab-registry', name: 'lab registry' }, 'sandbox');
}

/**
 * The lab zones a parent delegates: every tenant zone whose creation is live and that is not
 * being deleted (a delegation to a zone the nameservers do not serve yet would be lame), with the
 * registry's delegation where the lab moved it elsewhere.
 */
async function delegatedZones(trx: Transaction): Promise<DelegatedZone[]> {
  const rows = await delegatedZoneRows(trx);
  // A prefix's delegation as the lab endpoint set it (PUT /lab/prefix-delegations): missing, none at all.
  return rows
    .filter((r) => r.prefix_state !== 'missing')
    .map((r) => ({
      name: r.name,
      delegation: r.prefix_state === 'wrong' ? [...LAB_WRONG_DELEGATION] : r.delegation?.length ? r.delegation : null,
      ds: parseDsPresentation(r.ds ?? []).map((rdata) => rdataToData('DS', rdata)!),
      ...(r.reverse_block && isClasslessBlock(r.reverse_block) ? { classless: r.reverse_block } : {}),
    }));
}

/** Where the lab delegates a prefix set to "wrong": nameservers that are not the service's. */
const LAB_WRONG_DELEGATION = ['ns1.elsewhere.example', 'ns2.elsewhere.example'] as const;

const isClasslessBlock = (cidr: string) => !cidr.includes(':') && Number(cidr.split('/')[1]) > 24;

/** The DS the registry holds for the lab's TLDs (their KSKs, put there by DNSSEC's registrar call). */
async function registeredDs(trx: Transaction, tlds: string[]): Promise<Map<string, Record<string, unknown>[]>> {
  const rows = await registeredDsRows(trx, tlds);
  return new Map(rows.map((r) => [r.zone_name, parseDsPresentation(r.ds ?? []).map((rdata) => rdataToData('DS', rdata)!)]));
}

/**
 * Brings every lab parent zone (or only `only`, with the root when a TLD is new) to what the lab
 * zones and the registry say, in the caller's transaction; returns how many change sets it stored.
 * Serialised by an advisory lock: several workers may run it at once.
 */
export async function syncLabParents(trx: Transaction, config: Config, clock: Clock, only?: string[]): Promise<number> {
  await advisoryLock(trx, 'lab_parents', LAB_PARENTS_LOCK);
  const ctx = await registrarContext(trx, clock);
  if (!ctx) return 0;
  const nameservers = config.zones.nameservers;
  const zones = await delegatedZones(trx);
  const existing = new Set(await labParentZoneNames(ctx));
  const wanted = labParentNames(zones, nameservers);
  const parents = [...new Set([...wanted, ...existing])];
  const created = wanted.filter((name) => !existing.has(name));
  for (const name of created) await createLabParentZone(ctx, config, name);
  const tlds = parents.filter((p) => p !== '');
  const tldDs = await registeredDs(trx, tlds);
  const targets = only && created.length === 0 ? parents.filter((p) => only.includes(p)) : parents;
  let stored = 0;
  for (const parent of targets) {
    const changeSet = await setLabParentRecords(ctx, config, parent, parentRRsets(parent, tlds, zones, nameservers, tldDs), 'lab registry: delegations');
    if (changeSet) stored++;
  }
  return stored + created.length;
}

const FULL_SYNC_EVERY_TICKS = 60;

/**
 * The registry's part of the nightly reset, after the lab zones went: registrations go, and the
 * parents keep only the delegations of what remains (LabResetStep of src/services).
 */
export const resetLabParents =
  (config: Config, clock: Clock): LabResetStep =>
  async (trx) => {
    await deleteRegistrations(trx);
    await syncLabParents(trx, config, clock);
  };

/**
 * The lab job that keeps parents in step: reads the events outbox in `seq` order (from where this
 * process last looked) and syncs when a zone's life changed. Every worker runs one; the sync is
 * idempotent and locked, so they agree.
 */
export class LabParentSync {
  private readonly job: PeriodicJob;
  private seen = 0;
  private ticks = 0;

  constructor(
    private readonly db: Pool,
    private readonly config: Config,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** The DNSSEC endpoints' dependencies: the lab's parents are signed like any zone (docs/lab.md). */
    private readonly dnssec: DnssecDeps | null = null,
    intervalMs = 1000,
  ) {
    this.job = new PeriodicJob({ name: 'lab parent sync', intervalMs, jitter: 0.1, logger, failureLevel: 'warn', run: () => this.tick() });
  }

  /** Delegates every zone there is (an older DATA_DIR's included), then follows the outbox. */
  async start(): Promise<void> {
    this.seen = Number((await lastEventSeq(this.db)) ?? 0);
    await this.syncNow();
    this.job.start();
  }

  stop(): Promise<void> {
    return this.job.stop();
  }

  async tick(): Promise<void> {
    const { last, relevant } = await lifecycleEventsAfter(this.db, this.seen);
    // seq is taken at insert, so a transaction committing late can leave a smaller seq behind the
    // one read: a full sync now and then catches what such an event would have triggered.
    const due = ++this.ticks % FULL_SYNC_EVERY_TICKS === 0;
    if (relevant || due) await this.syncNow();
    this.seen = last;
  }

  private async syncNow(): Promise<void> {
    const stored = await this.db.transaction((trx) => syncLabParents(trx, this.config, this.clock));
    if (stored) this.logger.info({ change_sets: stored }, 'lab parent zones updated');
    if (this.dnssec) await signLabParents(this.db, this.clock, this.dnssec);
  }
}

/**
 * The lab's chain of trust: every parent zone (the root, every TLD) is signed, automatic mode —
 * a TLD's DS goes into the root through the registry, the root's DS becomes the lab's trust
 * anchor (LabRegistrar.setDs). Parents already on their way are left alone.
 */
async function signLabParents(db: Pool, clock: Clock, dnssec: DnssecDeps): Promise<void> {
  const unsigned = await unsignedLabParentNames(db);
  for (const name of unsigned) {
    await db.transaction(async (trx) => {
      const ctx = await registrarContext(trx, clock);
      if (ctx) await enableDnssec(ctx, dnssec, name, { mode: 'automatic' }, 'lab_parent');
    });
  }
}
