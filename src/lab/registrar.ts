// The registry/registrar side of a zone (docs/lab.md "Registrar"): whether the domain is
// registered through the provider (DNSSEC automatic: the service puts the DS at the parent) or
// at a foreign registrar (assisted: the customer does), and the DS set at the parent.
//
// The Registrar interface and production's (nothing is registered here) are DNSSEC's
// (src/domain/dnssec/registrar.ts); this is the sandbox lab's simulated registry, whose parent zones the
// lab serves itself. src/service.ts chooses by DEPLOYMENT.
import type { Config } from '../config/index.js';
import type { Pool, Runner, Transaction } from '../db/context.js';
import { type RegistrationRow, registrationRow, storeRegistration } from '../db/repositories/labRegistry.js';
import { isLabParentZone, zoneNameTaken } from '../db/repositories/zoneStore.js';
import type { Clock } from '../domain/clock.js';
import type { Registrar } from '../domain/dnssec/registrar.js';
import { DomainError, notFound } from '../domain/errors.js';
import { dsPresentation, parseDsPresentation } from './dsPresentation.js';
import { syncLabParents } from './labParents.js';
import { writeLabTrustAnchors } from './labTrustAnchors.js';
import { labParentOf } from './parentRecords.js';
import { advisoryLock, LAB_PARENTS_LOCK } from '../db/lockOrder.js';
import { afterCommitOf } from '../db/transaction.js';

/** A zone's entry in the simulated registry. */
export interface LabRegistration {
  zone: string;
  registeredHere: boolean;
  /** NS names at the parent; null: the service's nameservers. */
  delegation: string[] | null;
  /** DS records at the parent, presentation form. */
  ds: string[];
}

const toRegistration = (zone: string, row: RegistrationRow | undefined): LabRegistration => ({
  zone,
  registeredHere: row?.registered_here ?? true,
  delegation: row?.delegation ?? null,
  ds: row?.ds ?? [],
});

/**
 * The sandbox lab's registry: registrations in lab_registrations (a zone without a row is
 * registered here, delegated to the service), delegations and DS records in the lab parent zones,
 * written through the zone-write seam by syncLabParents.
 */
export class LabRegistrar implements Registrar<Transaction> {
  constructor(
    private readonly db: Pool,
    private readonly config: Config,
    private readonly clock: Clock,
  ) {}

  async registration(zone: string, db: Runner = this.db): Promise<LabRegistration> {
    return toRegistration(zone, await registrationRow(db, zone));
  }

  async registeredHere(zoneName: string, trx?: Transaction): Promise<boolean> {
    return (await this.registration(zoneName, trx)).registeredHere;
  }

  async delegation(zoneName: string, trx?: Transaction): Promise<'ours' | 'elsewhere' | 'unknown'> {
    return (await this.registration(zoneName, trx)).delegation === null ? 'ours' : 'elsewhere';
  }

  async setDs(zoneName: string, ds: Buffer[], trx?: Transaction): Promise<void> {
    const presented = dsPresentation(ds);
    if (await isLabParentZone(trx ?? this.db, zoneName)) {
      await this.setParentDs(zoneName, presented, trx);
      return;
    }
    await this.update(
      zoneName,
      (r) => {
        if (!r.registeredHere) throw new Error(`${zoneName} is registered at a foreign registrar: its DS records are the customer's to publish`);
        return { ds: presented };
      },
      trx,
    );
  }

  /**
   * In the caller's transaction when it has one (never a second pool connection while it holds
   * one); the registry's lock is then held until the caller commits.
   */
  private inTransaction<T>(trx: Transaction | undefined, work: (trx: Transaction) => Promise<T>): Promise<T> {
    return trx ? work(trx) : this.db.transaction(work);
  }

  /**
   * A lab parent's own DS: a TLD's goes into the root; the root has no parent, so its DS is the
   * lab's trust anchor, written to DATA_DIR for validators (labTrustAnchors.ts).
   */
  private async setParentDs(zoneName: string, ds: string[], outer?: Transaction): Promise<void> {
    await this.inTransaction(outer, async (trx) => {
      await advisoryLock(trx, 'lab_parents', LAB_PARENTS_LOCK);
      await storeRegistration(trx, { zone_name: zoneName, registered_here: true, delegation: null, ds }, this.clock.now());
      if (zoneName !== '') await syncLabParents(trx, this.config, this.clock, ['']);
    });
    if (zoneName !== '') return;
    // The trust anchor validators read: written once the DS is stored, not before (a caller's
    // transaction may still roll back, or run again).
    const write = () => writeLabTrustAnchors(this.config.dataDir, ds);
    if (!outer) await write();
    else afterCommitOf(outer, write, (err) => process.emitWarning(`lab trust anchors not written: ${(err as Error).message}`));
  }

  /**
   * Lab: registered through the provider or at a foreign registrar; the delegation pointed at
   * other nameservers or (null) back at the service's. Both in one registry change.
   */
  changeRegistration(zone: string, change: { registeredHere?: boolean; delegation?: string[] | null }, trx?: Transaction): Promise<LabRegistration> {
    return this.update(zone, () => Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined)), trx);
  }

  /** Lab: the customer adds or removes DS records at a foreign registrar (any data, right or wrong). */
  setForeignDs(zone: string, ds: string[], trx?: Transaction): Promise<LabRegistration> {
    const presented = dsPresentation(parseDsPresentation(ds));
    return this.update(
      zone,
      (r) => {
        if (r.registeredHere) throw new DomainError('conflict', { reason: 'lab_registered_here', zone });
        return { ds: presented };
      },
      trx,
    );
  }

  /** One registry change and the parent's change set, in one transaction. */
  private async update(zone: string, change: (current: LabRegistration) => Partial<LabRegistration>, outer?: Transaction): Promise<LabRegistration> {
    return this.inTransaction(outer, async (trx) => {
      await advisoryLock(trx, 'lab_parents', LAB_PARENTS_LOCK);
      if (!(await zoneNameTaken(trx, zone))) throw notFound('zone');
      const current = await this.registration(zone, trx);
      const next = { ...current, ...change(current) };
      await storeRegistration(trx, { zone_name: zone, registered_here: next.registeredHere, delegation: next.delegation, ds: next.ds }, this.clock.now());
      await syncLabParents(trx, this.config, this.clock, [labParentOf(zone)]);
      return next;
    });
  }
}
