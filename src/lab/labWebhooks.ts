// The lab's side of webhooks (docs/webhooks.md "In the lab"): nothing leaves the sandbox by
// mail; what the service queues (a disabled webhook's notice) stays in the outbox, and
// GET /lab/mails lists it. Webhooks and mail are lab data: the nightly reset removes them.
import type { LabResetStep } from '../services/index.js';
import type { Pool, ScopedDb } from '../db/context.js';
import { deleteWebhooksAndMail } from '../db/repositories/labSeed.js';
import { type QueuedMail, subtreeMail } from '../db/repositories/mailOutbox.js';

/** Mail about tenants of the acting subtree, newest first. */
export const listLabMail = (db: Pool, scoped: ScopedDb, limit: number): Promise<QueuedMail[]> => subtreeMail(db, scoped, limit);

/** The nightly reset's part: webhooks (their deliveries cascade) and the mail outbox. */
export const resetLabWebhooks: LabResetStep = (trx) => deleteWebhooksAndMail(trx);
