// The lab's side of webhooks (docs/webhooks.md "In the lab"): nothing leaves the sandbox by
// mail; what the service queues (a disabled webhook's notice) stays in the outbox, and
// GET /lab/mails lists it. Webhooks and mail are lab data: the nightly reset removes them.
import type { Knex } from 'knex';
import type { LabResetStep } from '../services/index.js';
import { type MailRow, type QueuedMail, mailOf } from '../db/repositories/mailOutbox.js';
import type { ScopedDb } from '../db/tenantScope.js';

/** Mail about tenants of the acting subtree, newest first. */
export async function listLabMail(db: Knex, scoped: ScopedDb, limit: number): Promise<QueuedMail[]> {
  const rows = (await db('mail_outbox')
    .whereIn('tenant_id', scoped.subtreeIds())
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(limit)
    .select('*')) as MailRow[];
  return rows.map(mailOf);
}

/** The nightly reset's part: webhooks (their deliveries cascade) and the mail outbox. */
export const resetLabWebhooks: LabResetStep = async (trx) => {
  await trx('webhooks').delete();
  await trx('mail_outbox').delete();
};
