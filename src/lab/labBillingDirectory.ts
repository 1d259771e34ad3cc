import type { Knex } from 'knex';
import type { BillingClient, BillingDirectory } from '../billing/billingDirectory.js';

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

  async upsert(client: BillingClient): Promise<BillingClient> {
    const [row] = await this.db('lab_billing_clients').insert(client).onConflict('id').merge().returning('*');
    return row;
  }
}
