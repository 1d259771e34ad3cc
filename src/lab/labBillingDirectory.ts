import type { Knex } from 'knex';
import type { BillingClient, BillingDirectory } from '../billing/billingDirectory.js';
import type { ScopedDb } from '../db/tenantScope.js';
import type { TenantType } from '../domain/tenancy.js';

/** The lab's simulated billing system, kept in the lab_billing_clients table. */
export class LabBillingDirectory implements BillingDirectory {
  constructor(private readonly db: Knex) {}

  async findClient(id: string): Promise<BillingClient | null> {
    const row = await this.db('lab_billing_clients').where({ id }).first();
    return row ? { id: row.id, name: row.name, email: row.email, status: row.status } : null;
  }

  async list(): Promise<BillingClient[]> {
    return this.db('lab_billing_clients').orderBy('id');
  }

  /** A billing client names a customer and its e-mail: the platform sees all, others those linked to their subtree. */
  async listVisibleTo(scoped: ScopedDb, actingType: TenantType): Promise<BillingClient[]> {
    const all = await this.list();
    if (actingType === 'platform') return all;
    const linked = new Set(await scoped.from('tenants').whereNotNull('billing_client_id').pluck('billing_client_id'));
    return all.filter((c) => linked.has(c.id));
  }

  async upsert(client: BillingClient): Promise<BillingClient> {
    const [row] = await this.db('lab_billing_clients').insert(client).onConflict('id').merge().returning('*');
    return row;
  }
}
