// The delivery bookkeeping in PostgreSQL (docs/webhooks.md "Delivery"). Every step is one
// transaction, so several worker processes share the work through row locks and nothing is sent
// twice in one attempt:
// - dispatch: outbox rows awaiting dispatch → one delivery per subscribed webhook, flag cleared;
// - claim: due deliveries are leased (attempt counted, next_attempt_at moved past the lease);
// - record: the attempt's outcome, the next attempt or the end, the webhook's failing streak;
// - disable: webhooks failing for three days, and the mail to the owner's support contact.
// A webhook its owner paused (disabled_reason 'manual') keeps collecting deliveries; none is
// attempted until it is enabled (a ping excepted).
import type { Knex } from 'knex';
import { unsealSecret } from '../db/sealedSecrets.js';
import { queueMail } from '../db/repositories/mailOutbox.js';
import { ATTEMPT_LEASE_MS, DISABLE_AFTER_MS, MAX_ATTEMPTS, PAUSE_QUEUE_MS, PING_KIND, type StoredEvent, nextAttemptAfterFailure } from './deliveryPolicy.js';
import type { AttemptResult } from './send.js';

/** Events one dispatch takes; the worker dispatches again after a full batch. */
export const DISPATCH_BATCH = 500;

/**
 * Fans a batch of undispatched events out to the webhooks that receive them: active, subscribed to
 * the kind, created before the event, and owning one of the event's tenants (scope `subtree`: the
 * tenant lies in the owner's subtree; `tenant`: it is the owner). An event's tenants are its own
 * (the zone's owner) and, for a write a customer made into the provider's reverse zones, that
 * customer (`acting_tenant_id` of the change set's zone.changed, record.published and
 * record.failed, docs/webhooks.md "Ownership"). Returns how many events it took.
 */
export async function dispatchEvents(db: Knex, now: Date, batch = DISPATCH_BATCH): Promise<{ events: number; deliveries: number }> {
  // A webhook deleted while the statement ran — after its snapshot, before its insert's foreign
  // key check, which then waits for the delete and finds the row gone — fails the statement with
  // 23503 and nothing is taken. The soak saw it beside webhook deletions, and each time the whole
  // tick (the claims after it too) failed. Run again, the statement's new snapshot no longer sees
  // the webhook; a third failure in a row is a real one.
  for (let attempt = 1; ; attempt++) {
    try {
      return await dispatchOnce(db, now, batch);
    } catch (err) {
      if ((err as { code?: unknown }).code !== FOREIGN_KEY_VIOLATION || attempt >= DISPATCH_ATTEMPTS) throw err;
    }
  }
}

const FOREIGN_KEY_VIOLATION = '23503';
const DISPATCH_ATTEMPTS = 3;

async function dispatchOnce(db: Knex, now: Date, batch: number): Promise<{ events: number; deliveries: number }> {
  const result = await db.raw<{ rows: { events: number; deliveries: number }[] }>(
    `WITH batch AS (
       SELECT id, tenant_id, kind, zone_id, occurred_at, payload FROM events
       WHERE awaiting_dispatch ORDER BY seq LIMIT ? FOR UPDATE SKIP LOCKED
     ), marked AS (
       UPDATE events e SET awaiting_dispatch = false FROM batch b WHERE e.id = b.id RETURNING e.id
     ), audience AS (
       SELECT b.id, b.kind, b.occurred_at, b.tenant_id FROM batch b
       -- The lab's parent zones (the root, the TLDs) are its machinery, no API object: no events.
       WHERE NOT EXISTS (SELECT 1 FROM zones z WHERE z.id = b.zone_id AND z.kind = 'lab_parent')
       UNION
       SELECT b.id, b.kind, b.occurred_at, b.payload->>'acting_tenant_id' FROM batch b
       WHERE b.kind IN ('zone.changed', 'record.published', 'record.failed') AND (b.payload->>'acting_tenant_id') IS NOT NULL
     ), fanned AS (
       INSERT INTO webhook_deliveries (id, webhook_id, event_id, kind, state, attempts, next_attempt_at, created_at)
       SELECT new_id('dlv'), m.webhook_id, m.event_id, m.kind, 'pending', 0, ?, ?
       FROM (
         SELECT DISTINCT w.id AS webhook_id, a.id AS event_id, a.kind
         FROM audience a
         JOIN tenants t ON t.id = a.tenant_id
         -- A webhook paused by its owner collects events too (its first PAUSE_QUEUE_MS paused);
         -- one the service disabled for failing does not (docs/webhooks.md "Pause and redelivery").
         JOIN webhooks w ON (w.state = 'active' OR (w.disabled_reason = 'manual' AND w.disabled_at > ?))
           AND a.kind = ANY (w.events) AND w.created_at <= a.occurred_at
           AND ((w.scope = 'subtree' AND t.path @> ARRAY[w.tenant_id]) OR (w.scope = 'tenant' AND w.tenant_id = a.tenant_id))
       ) m
       ON CONFLICT (webhook_id, event_id) DO NOTHING
       RETURNING id
     )
     SELECT (SELECT count(*) FROM marked)::int AS events, (SELECT count(*) FROM fanned)::int AS deliveries`,
    [batch, now, now, new Date(now.getTime() - PAUSE_QUEUE_MS)],
  );
  return result.rows[0]!;
}

export interface ClaimedDelivery {
  id: string;
  webhookId: string;
  attempt: number;
  /** The attempt after which the delivery ends: the schedule's last, or a redelivery's one. */
  finalAttempt: number;
  url: string;
  /** The current secret, then (during a rotation) the previous one. */
  secrets: string[];
  event: StoredEvent;
}

/**
 * Leases up to `limit` due deliveries, at most `perWebhook` of one webhook, none of `busy`
 * (webhooks whose share of this worker is taken). A delivery of a disabled webhook waits
 * (a ping excepted: it is how a user tests a receiver before enabling it again).
 */
export async function claimDueDeliveries(
  db: Knex,
  kek: Buffer,
  now: Date,
  options: { limit: number; perWebhook: number; busy: string[] },
): Promise<ClaimedDelivery[]> {
  if (options.limit <= 0) return [];
  const leaseUntil = new Date(now.getTime() + ATTEMPT_LEASE_MS);
  const result = await db.raw<{ rows: ClaimRow[] }>(
    `WITH candidates AS (
       SELECT id FROM (
         SELECT d.id, row_number() OVER (PARTITION BY d.webhook_id ORDER BY d.next_attempt_at, d.id) AS rank
         FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
         WHERE d.state = 'pending' AND d.next_attempt_at <= ? AND (w.state = 'active' OR d.kind = ?)
           AND NOT (d.webhook_id = ANY (?::text[]))
       ) ranked
       WHERE rank <= ?
       LIMIT ?
     ), locked AS (
       SELECT d.id FROM webhook_deliveries d
       WHERE d.id IN (SELECT id FROM candidates) AND d.state = 'pending' AND d.next_attempt_at <= ?
       FOR UPDATE OF d SKIP LOCKED
     )
     UPDATE webhook_deliveries d SET attempts = d.attempts + 1, next_attempt_at = ?
     FROM locked l, events e, webhooks w
     WHERE d.id = l.id AND e.id = d.event_id AND w.id = d.webhook_id
     RETURNING d.id, d.webhook_id, d.attempts, coalesce(d.final_attempt, ?::int) AS final_attempt, w.url, w.secret, w.previous_secret, w.previous_secret_expires_at,
               e.id AS event_id, e.kind, e.tenant_id, e.occurred_at, e.payload`,
    [now, PING_KIND, options.busy, options.perWebhook, options.limit, now, leaseUntil, MAX_ATTEMPTS],
  );
  return result.rows.map((r) => ({
    id: r.id,
    webhookId: r.webhook_id,
    attempt: r.attempts,
    finalAttempt: r.final_attempt,
    url: r.url,
    secrets: secretsOf(r, kek, now),
    event: { id: r.event_id, kind: r.kind, tenantId: r.tenant_id, occurredAt: r.occurred_at, payload: r.payload },
  }));
}

interface ClaimRow {
  id: string;
  webhook_id: string;
  attempts: number;
  final_attempt: number;
  url: string;
  secret: Buffer;
  previous_secret: Buffer | null;
  previous_secret_expires_at: Date | null;
  event_id: string;
  kind: string;
  tenant_id: string;
  occurred_at: Date;
  payload: Record<string, unknown>;
}


/** The signing secrets; none when they cannot be unsealed (a process with another key-encryption key). */
function secretsOf(r: ClaimRow, kek: Buffer, now: Date): string[] {
  try {
    return [unsealSecret(r.secret, kek).toString('utf8'), ...(r.previous_secret && r.previous_secret_expires_at && r.previous_secret_expires_at > now ? [unsealSecret(r.previous_secret, kek).toString('utf8')] : [])];
  } catch {
    return [];
  }
}

/**
 * Stores an attempt's outcome, in one statement. Only the attempt that holds the lease writes the
 * delivery (a lease that ran out was taken by a later attempt, whose result counts); the attempt
 * row is kept either way. A success ends the webhook's failing streak; a failure starts it.
 */
export async function recordAttempt(db: Knex, claimed: ClaimedDelivery, startedAt: Date, result: AttemptResult, now: Date): Promise<void> {
  const success = result.outcome === 'success';
  const next = success || claimed.attempt >= claimed.finalAttempt ? null : nextAttemptAfterFailure(claimed.attempt, now);
  const state = success ? 'delivered' : next ? 'pending' : 'failed';
  const ping = claimed.event.kind === PING_KIND;
  await db.raw(
    `WITH d AS (
       UPDATE webhook_deliveries SET state = ?, next_attempt_at = ?::timestamptz, completed_at = ?::timestamptz
       WHERE id = ? AND attempts = ? AND state = 'pending' RETURNING id
     ), a AS (
       INSERT INTO webhook_attempts (delivery_id, attempt, started_at, duration_ms, outcome, response_status, error, next_attempt_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, CASE WHEN EXISTS (SELECT 1 FROM d) THEN ?::timestamptz END)
       ON CONFLICT (delivery_id, attempt) DO NOTHING
     ), w AS (
       UPDATE webhooks SET failing_since = CASE WHEN ?::boolean THEN NULL ELSE ?::timestamptz END
       WHERE id = ? AND NOT ?::boolean AND (CASE WHEN ?::boolean THEN failing_since IS NOT NULL ELSE failing_since IS NULL END)
     )
     SELECT 1`,
    [
      state,
      next,
      state === 'pending' ? null : now,
      claimed.id,
      claimed.attempt,
      claimed.id,
      claimed.attempt,
      startedAt,
      result.durationMs,
      result.outcome,
      result.status,
      result.error,
      next,
      success,
      startedAt,
      claimed.webhookId,
      ping,
      success,
    ],
  );
}

/**
 * Disables the webhooks whose deliveries have failed for three days with no success in between,
 * and queues the notice to the owner's support contact in the same transaction (mail to a tenant
 * without one goes to its nearest ancestor's). Returns the webhooks disabled.
 */
export async function disableFailingWebhooks(db: Knex, now: Date, options: { only?: string } = {}): Promise<string[]> {
  return db.transaction(async (trx) => {
    const due = trx('webhooks');
    // The lab's stand-in for three days of failures takes this step for its one webhook.
    if (options.only !== undefined) due.where('id', options.only);
    const rows = (await due
      .where('state', 'active')
      .where('failing_since', '<=', new Date(now.getTime() - DISABLE_AFTER_MS))
      .forUpdate()
      .skipLocked()
      .select('id', 'tenant_id', 'url', 'failing_since')) as { id: string; tenant_id: string; url: string; failing_since: Date }[];
    for (const w of rows) {
      await trx('webhooks').where('id', w.id).update({ state: 'disabled', disabled_at: now, disabled_reason: 'failing_deliveries', updated_at: now });
      const contact = await supportContact(trx, w.tenant_id);
      if (!contact) continue;
      await queueMail(trx, now, {
        tenantId: w.tenant_id,
        to: contact,
        subject: `Webhook ${w.id} disabled after 3 days of failed deliveries`,
        body: [
          `Deliveries to the webhook ${w.id} (${w.url}) have failed since ${w.failing_since.toISOString()}.`,
          'After three days of failures the service disabled it; no further events are sent to it.',
          '',
          `Once the receiver works again, enable it with POST /api/v1/webhooks/${w.id}/enable.`,
          'Deliveries not yet completed are attempted again then. Its delivery log: GET /api/v1/webhooks/' + w.id + '/deliveries.',
        ].join('\n'),
      });
    }
    return rows.map((r) => r.id);
  });
}

/** The tenant's support_email, else the nearest ancestor's. */
async function supportContact(trx: Knex.Transaction, tenantId: string): Promise<string | null> {
  const row = (await trx.raw<{ rows: { support_email: string | null }[] }>(
    `SELECT a.support_email FROM tenants t, unnest(t.path) WITH ORDINALITY AS p(id, depth) JOIN tenants a ON a.id = p.id
     WHERE t.id = ? AND a.support_email IS NOT NULL ORDER BY p.depth DESC LIMIT 1`,
    [tenantId],
  )) as { rows: { support_email: string | null }[] };
  return row.rows[0]?.support_email ?? null;
}
