// The mail outbox (docs/webhooks.md "Mail"): mail is queued in the transaction of the change it
// tells of, and a worker hands it to the SMTP server afterwards (production), so a notice is
// neither lost with a crash nor sent for a change that rolled back. In the lab nothing is sent:
// the outbox is the inbox, listed by GET /lab/mails.
import type { Knex } from 'knex';
import { newId } from '../../domain/ids.js';
import type { ScopedDb } from '../tenantScope.js';

export interface MailInput {
  /** The tenant the mail is about (for the lab listing's scope); null for the platform. */
  tenantId: string | null;
  to: string;
  subject: string;
  body: string;
}

export async function queueMail(db: Knex, now: Date, mail: MailInput): Promise<string> {
  const id = newId('msg');
  await db('mail_outbox').insert({
    id,
    tenant_id: mail.tenantId,
    to_address: mail.to,
    subject: mail.subject,
    body: mail.body,
    created_at: now,
    next_attempt_at: now,
  });
  return id;
}

export interface QueuedMail {
  id: string;
  tenantId: string | null;
  to: string;
  subject: string;
  body: string;
  createdAt: Date;
  sentAt: Date | null;
  attempts: number;
  lastError: string | null;
}

interface MailRow {
  id: string;
  tenant_id: string | null;
  to_address: string;
  subject: string;
  body: string;
  created_at: Date;
  sent_at: Date | null;
  attempts: number;
  last_error: string | null;
}

const mailOf = (r: MailRow): QueuedMail => ({
  id: r.id,
  tenantId: r.tenant_id,
  to: r.to_address,
  subject: r.subject,
  body: r.body,
  createdAt: r.created_at,
  sentAt: r.sent_at,
  attempts: r.attempts,
  lastError: r.last_error,
});

/**
 * Sends due unsent mail one at a time, each under its row lock (several workers never send one
 * twice at once); a failure is retried with a growing wait, at most every hour.
 */
export async function sendDueMail(db: Knex, now: Date, send: (mail: QueuedMail) => Promise<void>, batch = 20): Promise<number> {
  let sent = 0;
  for (let i = 0; i < batch; i++) {
    const done = await db.transaction(async (trx) => {
      const row = (await trx('mail_outbox')
        .whereNull('sent_at')
        .where('next_attempt_at', '<=', now)
        .orderBy('next_attempt_at')
        .forUpdate()
        .skipLocked()
        .first('*')) as MailRow | undefined;
      if (!row) return null;
      try {
        await send(mailOf(row));
        await trx('mail_outbox')
          .where('id', row.id)
          .update({ sent_at: now, attempts: row.attempts + 1, last_error: null });
        return true;
      } catch (err) {
        const wait = Math.min(3_600_000, 60_000 * 2 ** row.attempts);
        await trx('mail_outbox')
          .where('id', row.id)
          .update({
            attempts: row.attempts + 1,
            last_error: String((err as Error).message ?? err).slice(0, 500),
            next_attempt_at: new Date(now.getTime() + wait),
          });
        return false;
      }
    });
    if (done === null) break;
    if (done) sent++;
  }
  return sent;
}

/** Mail about tenants of the acting subtree, newest first (the lab's inbox, GET /lab/mails). */
export async function subtreeMail(db: Knex, scoped: ScopedDb, limit: number): Promise<QueuedMail[]> {
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
