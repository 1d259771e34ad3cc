// The delivery bookkeeping in PostgreSQL (docs/webhooks.md "Delivery"). Every step is one
// transaction, so several worker processes share the work through row locks and nothing is sent
// twice in one attempt:
// - dispatch: outbox rows awaiting dispatch → one delivery per subscribed webhook, flag cleared;
// - claim: due deliveries are leased (attempt counted, next_attempt_at moved past the lease);
// - record: the attempt's outcome, the next attempt or the end, the webhook's failing streak;
// - disable: webhooks failing for three days, and the mail to the owner's support contact.
// A webhook its owner paused (disabled_reason 'manual') keeps collecting deliveries; none is
// attempted until it is enabled (a ping excepted).
import type { Runner } from '../db/context.js';
import { unsealSecret } from '../db/sealedSecrets.js';
import { queueMail } from '../db/repositories/mailOutbox.js';
import {
  type ClaimRow,
  disableForFailures,
  fanOutEvents,
  leaseDueDeliveries,
  lockFailingWebhooks,
  storeAttempt,
  supportContact,
} from '../db/repositories/webhookRows.js';
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
export async function dispatchEvents(db: Runner, now: Date, batch = DISPATCH_BATCH): Promise<{ events: number; deliveries: number }> {
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

function dispatchOnce(db: Runner, now: Date, batch: number): Promise<{ events: number; deliveries: number }> {
  return fanOutEvents(db, now, batch, new Date(now.getTime() - PAUSE_QUEUE_MS));
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
  db: Runner,
  kek: Buffer,
  now: Date,
  options: { limit: number; perWebhook: number; busy: string[] },
): Promise<ClaimedDelivery[]> {
  if (options.limit <= 0) return [];
  const leaseUntil = new Date(now.getTime() + ATTEMPT_LEASE_MS);
  const rows = await leaseDueDeliveries(db, now, leaseUntil, { ...options, alwaysKind: PING_KIND, maxAttempts: MAX_ATTEMPTS });
  return rows.map((r) => ({
    id: r.id,
    webhookId: r.webhook_id,
    attempt: r.attempts,
    finalAttempt: r.final_attempt,
    url: r.url,
    secrets: secretsOf(r, kek, now),
    event: { id: r.event_id, kind: r.kind, tenantId: r.tenant_id, occurredAt: r.occurred_at, payload: r.payload },
  }));
}

/** The signing secrets; none when they cannot be unsealed (a process with another key-encryption key). */
function secretsOf(r: ClaimRow, kek: Buffer, now: Date): string[] {
  try {
    return [
      unsealSecret(r.secret, kek).toString('utf8'),
      ...(r.previous_secret && r.previous_secret_expires_at && r.previous_secret_expires_at > now
        ? [unsealSecret(r.previous_secret, kek).toString('utf8')]
        : []),
    ];
  } catch {
    return [];
  }
}

/**
 * Stores an attempt's outcome, in one statement. Only the attempt that holds the lease writes the
 * delivery (a lease that ran out was taken by a later attempt, whose result counts); the attempt
 * row is kept either way. A success ends the webhook's failing streak; a failure starts it.
 */
export async function recordAttempt(db: Runner, claimed: ClaimedDelivery, startedAt: Date, result: AttemptResult, now: Date): Promise<void> {
  const success = result.outcome === 'success';
  const next = success || claimed.attempt >= claimed.finalAttempt ? null : nextAttemptAfterFailure(claimed.attempt, now);
  const state = success ? 'delivered' : next ? 'pending' : 'failed';
  const ping = claimed.event.kind === PING_KIND;
  await storeAttempt(db, {
    deliveryId: claimed.id,
    webhookId: claimed.webhookId,
    attempt: claimed.attempt,
    startedAt,
    durationMs: result.durationMs,
    outcome: result.outcome,
    status: result.status,
    error: result.error,
    success,
    ping,
    state,
    next,
    completedAt: state === 'pending' ? null : now,
  });
}

/**
 * Disables the webhooks whose deliveries have failed for three days with no success in between,
 * and queues the notice to the owner's support contact in the same transaction (mail to a tenant
 * without one goes to its nearest ancestor's). Returns the webhooks disabled.
 */
export async function disableFailingWebhooks(db: Runner, now: Date, options: { only?: string } = {}): Promise<string[]> {
  return db.transaction(async (trx) => {
    // The lab's stand-in for three days of failures takes this step for its one webhook.
    const rows = await lockFailingWebhooks(trx, new Date(now.getTime() - DISABLE_AFTER_MS), options.only);
    for (const w of rows) {
      await disableForFailures(trx, w.id, now);
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
          `Deliveries not yet completed are attempted again then. Its delivery log: GET /api/v1/webhooks/${w.id}/deliveries.`,
        ].join('\n'),
      });
    }
    return rows.map((r) => r.id);
  });
}
