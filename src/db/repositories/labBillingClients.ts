// The lab's simulated billing system (lab_billing_clients; src/lab/labBillingDirectory.ts): the
// clients as the billing system would list them, and which of them tenants link.
import type { Runner, Transaction } from '../context.js';
import type { ScopedDb } from '../tenantScope.js';

export interface LabBillingClientRow {
  id: string;
  name: string;
  email: string | null;
  status: 'active' | 'closed';
}

export const labBillingClient = async (db: Runner, id: string): Promise<LabBillingClientRow | undefined> =>
  (await db('lab_billing_clients').where({ id }).first()) as LabBillingClientRow | undefined;

export const labBillingClients = (db: Runner): Promise<LabBillingClientRow[]> => db('lab_billing_clients').orderBy('id');

/** Stores the client (new, or its fields replaced); returns it as stored. */
export async function upsertLabBillingClient(db: Runner, client: LabBillingClientRow): Promise<LabBillingClientRow> {
  const [row] = await db('lab_billing_clients').insert(client).onConflict('id').merge().returning('*');
  return row;
}

export async function insertLabBillingClients(trx: Transaction, clients: readonly LabBillingClientRow[]): Promise<void> {
  await trx('lab_billing_clients').insert([...clients]);
}

/** The nightly reset: the billing system goes back to exactly `clients`. */
export async function replaceLabBillingClients(trx: Transaction, clients: readonly LabBillingClientRow[]): Promise<void> {
  await trx('lab_billing_clients').delete();
  await insertLabBillingClients(trx, clients);
}

/** The billing client ids the scope's tenants are linked to. */
export const linkedBillingClientIds = async (scoped: ScopedDb): Promise<string[]> =>
  (await scoped.from('tenants').whereNotNull('billing_client_id').pluck('billing_client_id')) as string[];
