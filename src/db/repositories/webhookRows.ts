// The webhook delivery bookkeeping's statements (docs/webhooks.md "Delivery"); the policy (when,
// how often, what a failure leads to) stays with the worker in src/webhooks/. Each statement is one
// round trip and takes its rows with SKIP LOCKED, so several workers share the work.
import type { Runner, Transaction } from '../context.js';

/**
 * Takes up to `batch` undispatched events (their flag cleared) and inserts a pending delivery, due
 * `now`, for every webhook that receives one. A webhook paused by its owner after `pausedSince`
 * collects events too. Returns how many events and deliveries.
 */
export async function fanOutEvents(db: Runner, now: Date, batch: number, pausedSince: Date): Promise<{ events: number; deliveries: number }> {
  const result = await db.raw<{ rows: { events: number; deliveries: number }[] }>(
    `WITH batch AS (
       SELECT id, tenant_id, kind, zone_id, occurred_at, payload FROM events
       WHERE awaiting_dispatch ORDER BY seq LIMIT ? FOR UPDATE SKIP LOCKED
     ), marked AS (
       UPDATE events e SET awaiting_dispatch = false FROM batch b WHERE e.id = b.id RETURNING e.id
     ), audience AS (
       SELECT b.id, b.kind, b.occurred_at, b.tenant_id FROM batch b
       -- The lab's parent zones (the root, the TLDs) are its machinery, catalog zones the secondary
       -- sets' (docs/catalog-zones.md), no API objects: no events.
       WHERE NOT EXISTS (SELECT 1 FROM zones z WHERE z.id = b.zone_id AND z.kind IN ('lab_parent', 'catalog'))
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
    [batch, now, now, pausedSince],
  );
  return result.rows[0]!;
}

export interface ClaimRow {
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

export interface LeaseOptions {
  limit: number;
  perWebhook: number;
  /** Webhooks none of whose deliveries is leased. */
  busy: string[];
  /** A delivery of this kind is leased even while its webhook is disabled. */
  alwaysKind: string;
  /** The attempt after which a delivery without its own final attempt ends. */
  maxAttempts: number;
}

/** Leases due pending deliveries until `leaseUntil` (attempt counted), with their webhook and event. */
export async function leaseDueDeliveries(db: Runner, now: Date, leaseUntil: Date, o: LeaseOptions): Promise<ClaimRow[]> {
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
    [now, o.alwaysKind, o.busy, o.perWebhook, o.limit, now, leaseUntil, o.maxAttempts],
  );
  return result.rows;
}

export interface AttemptRow {
  deliveryId: string;
  webhookId: string;
  attempt: number;
  startedAt: Date;
  durationMs: number;
  outcome: string;
  status: number | null;
  error: string | null;
  success: boolean;
  /** A ping neither starts nor ends its webhook's failing streak. */
  ping: boolean;
  state: 'delivered' | 'pending' | 'failed';
  next: Date | null;
  completedAt: Date | null;
}

/**
 * Stores an attempt's outcome in one statement: the delivery only while this attempt holds its
 * lease, the attempt row either way, and the webhook's failing streak.
 */
export async function storeAttempt(db: Runner, a: AttemptRow): Promise<void> {
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
      a.state,
      a.next,
      a.completedAt,
      a.deliveryId,
      a.attempt,
      a.deliveryId,
      a.attempt,
      a.startedAt,
      a.durationMs,
      a.outcome,
      a.status,
      a.error,
      a.next,
      a.success,
      a.startedAt,
      a.webhookId,
      a.ping,
      a.success,
    ],
  );
}

export interface FailingWebhook {
  id: string;
  tenant_id: string;
  url: string;
  failing_since: Date;
}

/** Locks (skipping locked ones) the active webhooks failing since `failingBefore` or earlier; `only` narrows to one. */
export async function lockFailingWebhooks(trx: Transaction, failingBefore: Date, only?: string): Promise<FailingWebhook[]> {
  const due = trx('webhooks');
  if (only !== undefined) due.where('id', only);
  return (await due
    .where('state', 'active')
    .where('failing_since', '<=', failingBefore)
    .forUpdate()
    .skipLocked()
    .select('id', 'tenant_id', 'url', 'failing_since')) as FailingWebhook[];
}

export async function disableForFailures(trx: Transaction, id: string, now: Date): Promise<void> {
  await trx('webhooks').where('id', id).update({ state: 'disabled', disabled_at: now, disabled_reason: 'failing_deliveries', updated_at: now });
}

/** The tenant's support_email, else the nearest ancestor's. */
export async function supportContact(db: Runner, tenantId: string): Promise<string | null> {
  const row = (await db.raw<{ rows: { support_email: string | null }[] }>(
    `SELECT a.support_email FROM tenants t, unnest(t.path) WITH ORDINALITY AS p(id, depth) JOIN tenants a ON a.id = p.id
     WHERE t.id = ? AND a.support_email IS NOT NULL ORDER BY p.depth DESC LIMIT 1`,
    [tenantId],
  )) as { rows: { support_email: string | null }[] };
  return row.rows[0]?.support_email ?? null;
}

/** The rotation: the current secret becomes the previous one until `previousUntil`. */
export async function rotateSecret(trx: Transaction, id: string, sealed: Buffer, previousUntil: Date, now: Date): Promise<void> {
  await trx.raw(`UPDATE webhooks SET previous_secret = secret, previous_secret_expires_at = ?, secret = ?, updated_at = ? WHERE id = ?`, [
    previousUntil,
    sealed,
    now,
    id,
  ]);
}

/** The webhook's pending deliveries (but those of `exceptKind`) become due `now`. */
export async function bringPendingForward(trx: Transaction, webhookId: string, exceptKind: string, now: Date): Promise<void> {
  await trx('webhook_deliveries').where({ webhook_id: webhookId, state: 'pending' }).whereNot('kind', exceptKind).update({ next_attempt_at: now });
}

/** A pending delivery of one event to one webhook, due `now`, none attempted. */
export async function insertDelivery(trx: Transaction, row: { id: string; webhookId: string; eventId: string; kind: string }, now: Date): Promise<void> {
  await trx('webhook_deliveries').insert({
    id: row.id,
    webhook_id: row.webhookId,
    event_id: row.eventId,
    kind: row.kind,
    state: 'pending',
    attempts: 0,
    next_attempt_at: now,
    created_at: now,
  });
}

export interface LockedDelivery {
  kind: string;
  state: 'pending' | 'delivered' | 'failed';
  attempts: number;
  /** Attempts whose outcome is stored (each started attempt is, when it ends). */
  recorded: number;
}

/** The webhook's delivery, locked FOR UPDATE; null when it has none such. */
export async function lockDelivery(trx: Transaction, webhookId: string, deliveryId: string): Promise<LockedDelivery | null> {
  const row = (await trx('webhook_deliveries')
    .where({ id: deliveryId, webhook_id: webhookId })
    .forUpdate()
    .first('kind', 'state', 'attempts', trx.raw('(SELECT count(*)::int FROM webhook_attempts a WHERE a.delivery_id = webhook_deliveries.id) AS recorded'))) as
    | LockedDelivery
    | undefined;
  return row ?? null;
}

/** A finished delivery becomes pending, due `now`, for exactly one more attempt (`finalAttempt`). */
export async function reopenDelivery(trx: Transaction, deliveryId: string, finalAttempt: number, now: Date): Promise<void> {
  await trx('webhook_deliveries').where('id', deliveryId).update({ state: 'pending', next_attempt_at: now, completed_at: null, final_attempt: finalAttempt });
}

export async function deliveryDueNow(trx: Transaction, deliveryId: string, now: Date): Promise<void> {
  await trx('webhook_deliveries').where('id', deliveryId).update({ next_attempt_at: now });
}
