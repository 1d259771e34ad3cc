import type { BillingClient, BillingDirectory } from '../billing/billingDirectory.js';
import type { Pool, ScopedDb } from '../db/context.js';
import { labBillingClient, labBillingClients, linkedBillingClientIds, upsertLabBillingClient } from '../db/repositories/labBillingClients.js';
import type { TenantType } from '../domain/tenancy.js';

/** The lab's simulated billing system, kept in the lab_billing_clients table. */
export class LabBillingDirectory implements BillingDirectory {
  constructor(private readonly db: Pool) {}

  async findClient(id: string): Promise<BillingClient | null> {
    const row = await labBillingClient(this.db, id);
    return row ? { id: row.id, name: row.name, email: row.email, status: row.status } : null;
  }

  async list(): Promise<BillingClient[]> {
    return labBillingClients(this.db);
  }

  /** A billing client names a customer and its e-mail: the platform sees all, others those linked to their subtree. */
  async listVisibleTo(scoped: ScopedDb, actingType: TenantType): Promise<BillingClient[]> {
    const all = await this.list();
    if (actingType === 'platform') return all;
    const linked = new Set(await linkedBillingClientIds(scoped));
    return all.filter((c) => linked.has(c.id));
  }

  async upsert(client: BillingClient): Promise<BillingClient> {
    return upsertLabBillingClient(this.db, client);
  }
}
