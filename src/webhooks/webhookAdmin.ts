// The webhook resources' use cases (spec "Events"; docs/webhooks.md): registration, changes,
// secret rotation, pausing and enabling, the test ping, the delivery log and redelivery. Every
// statement is src/db/repositories/webhookConfigRows.ts's, through the acting tenant's ScopedDb: a
// webhook outside the subtree does not exist here.
import { randomBytes } from 'node:crypto';
import type { DbContext, Transaction, TransactionContext } from '../db/context.js';
import { sealSecret } from '../db/sealedSecrets.js';
import { type AuditActor, recordAudit } from '../db/repositories/auditLog.js';
import { recordEvents } from '../db/repositories/events.js';
import { bringPendingForward, deliveryDueNow, insertDelivery, lockDelivery, reopenDelivery, rotateSecret } from '../db/repositories/webhookRows.js';
import type { Clock } from '../domain/clock.js';
import { DomainError, notFound, validationFailed } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import { type AddressPolicy, checkWebhookUrl } from './addressPolicy.js';
import { disableFailingWebhooks } from './deliveries.js';
import { DISABLE_AFTER_MS, PING_KIND, ROTATION_OVERLAP_MS } from './deliveryPolicy.js';
import { noteLock } from '../db/lockOrder.js';
import {
  type DisabledReason,
  deleteWebhookRow,
  insertWebhook,
  pageDeliveries,
  pageWebhooks,
  updateWebhookRow,
  type WebhookRow,
  webhookRow,
  webhookStateCounts,
} from '../db/repositories/webhookConfigRows.js';

/** A webhook write's context: its transaction and scope, who writes and when. */
export interface WebhookContext extends TransactionContext {
  readonly actor: AuditActor;
  readonly clock: Clock;
}

export interface WebhookDeps {
  kek: Buffer;
  policy: AddressPolicy;
}

/** Who disabled a webhook: the service after three days of failures, or its owner (a pause). */
export const DISABLED_REASONS = ['failing_deliveries', 'manual'] as const satisfies readonly DisabledReason[];
export type { DisabledReason };

export interface Webhook {
  id: string;
  tenantId: string;
  scope: 'subtree' | 'tenant';
  url: string;
  events: string[];
  description: string;
  state: 'active' | 'disabled';
  failingSince: Date | null;
  disabledAt: Date | null;
  disabledReason: DisabledReason | null;
  previousSecretExpiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

const toDomain = (r: WebhookRow, now: Date): Webhook => ({
  id: r.id,
  tenantId: r.tenant_id,
  scope: r.scope,
  url: r.url,
  events: r.events,
  description: r.description,
  state: r.state,
  failingSince: r.failing_since,
  disabledAt: r.disabled_at,
  disabledReason: r.disabled_reason,
  previousSecretExpiresAt: r.previous_secret_expires_at && r.previous_secret_expires_at > now ? r.previous_secret_expires_at : null,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** A new signing secret: shown once, stored sealed. */
const newSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;

/** The URL as stored (normalised: addressPolicy.ts), or a 422 for /url. */
function checkedUrl(url: string, policy: AddressPolicy): string {
  const checked = checkWebhookUrl(url, policy);
  if ('problem' in checked) throw validationFailed([{ pointer: '/url', code: 'invalid_url', detail: `The URL ${checked.problem}.` }]);
  return checked.url;
}

export interface WebhookInput {
  url: string;
  events: string[];
  description?: string;
}

/**
 * Registers a webhook for the acting tenant. Without X-Act-As-Customer it receives the events of
 * the whole subtree; acting for a customer, that customer's only (spec "Ownership").
 */
export async function createWebhook(ctx: WebhookContext, deps: WebhookDeps, input: WebhookInput): Promise<{ webhook: Webhook; secret: string }> {
  const url = checkedUrl(input.url, deps.policy);
  const now = ctx.clock.now();
  const secret = newSecret();
  const id = newId('whk');
  await insertWebhook(ctx.scoped, {
    id,
    tenant_id: ctx.actor.acting.id,
    scope: ctx.actor.onBehalfOf ? 'tenant' : 'subtree',
    url,
    events: [...new Set(input.events)],
    description: input.description ?? '',
    state: 'active',
    secret: sealSecret(secret, deps.kek),
    created_at: now,
    updated_at: now,
  });
  await recordAudit(ctx.db, ctx.actor, now, { action: 'webhook.created', targetType: 'webhook', targetId: id, details: { url, events: input.events } });
  return { webhook: await getWebhook(ctx, now, id), secret };
}

/** `lock`: the row locked FOR UPDATE for the rest of that transaction. */
async function webhookAt(ctx: DbContext, now: Date, id: string, lock: Transaction | null): Promise<Webhook> {
  const row = await webhookRow(ctx.scoped, id, lock);
  if (!row) throw notFound('webhook');
  return toDomain(row, now);
}

export const getWebhook = (ctx: DbContext, now: Date, id: string): Promise<Webhook> => webhookAt(ctx, now, id, null);

/** The webhook, its row locked FOR UPDATE for the rest of the transaction. */
const lockedWebhook = (ctx: TransactionContext, now: Date, id: string): Promise<Webhook> => webhookAt(ctx, now, id, ctx.db);

export async function listWebhooks(ctx: DbContext, now: Date, after: unknown[] | null, limit: number) {
  const page = await pageWebhooks(ctx.scoped, after, limit);
  return { webhooks: page.rows.map((r) => toDomain(r, now)), next: page.next };
}

export async function updateWebhook(ctx: WebhookContext, deps: WebhookDeps, id: string, patch: Partial<WebhookInput>): Promise<Webhook> {
  const now = ctx.clock.now();
  await lockedWebhook(ctx, now, id);
  const changes: Record<string, unknown> = {};
  if (patch.url !== undefined) {
    changes.url = checkedUrl(patch.url, deps.policy);
  }
  if (patch.events !== undefined) changes.events = [...new Set(patch.events)];
  if (patch.description !== undefined) changes.description = patch.description;
  if (Object.keys(changes).length) {
    await updateWebhookRow(ctx.scoped, id, { ...changes, updated_at: now });
    await recordAudit(ctx.db, ctx.actor, now, { action: 'webhook.updated', targetType: 'webhook', targetId: id, details: changes });
  }
  return getWebhook(ctx, now, id);
}

/** Deletes the webhook and its delivery log; attempts in flight end unrecorded. */
export async function deleteWebhook(ctx: WebhookContext, id: string): Promise<void> {
  const now = ctx.clock.now();
  await lockedWebhook(ctx, now, id);
  await deleteWebhookRow(ctx.scoped, id);
  await recordAudit(ctx.db, ctx.actor, now, { action: 'webhook.deleted', targetType: 'webhook', targetId: id });
}

/**
 * A new secret, shown once; the old one keeps signing for 24 hours (a second v1= in
 * Service-Signature). Rotating again within those hours ends the older secret's overlap: only
 * the latest two secrets ever sign.
 */
export async function rotateWebhookSecret(ctx: WebhookContext, deps: WebhookDeps, id: string): Promise<{ webhook: Webhook; secret: string }> {
  const now = ctx.clock.now();
  await lockedWebhook(ctx, now, id);
  const secret = newSecret();
  await rotateSecret(ctx.db, id, sealSecret(secret, deps.kek), new Date(now.getTime() + ROTATION_OVERLAP_MS), now);
  await recordAudit(ctx.db, ctx.actor, now, { action: 'webhook.secret_rotated', targetType: 'webhook', targetId: id });
  return { webhook: await getWebhook(ctx, now, id), secret };
}

/**
 * A disabled webhook receives events again, and its deliveries that were still pending are
 * attempted now. Enabling an active webhook changes nothing.
 */
export async function enableWebhook(ctx: WebhookContext, id: string): Promise<Webhook> {
  const now = ctx.clock.now();
  const webhook = await lockedWebhook(ctx, now, id);
  if (webhook.state === 'active') return webhook;
  await updateWebhookRow(ctx.scoped, id, { state: 'active', disabled_at: null, disabled_reason: null, failing_since: null, updated_at: now });
  // Pings are left alone: they run while disabled too, and one may be in flight.
  await bringPendingForward(ctx.db, id, PING_KIND, now);
  await recordAudit(ctx.db, ctx.actor, now, { action: 'webhook.enabled', targetType: 'webhook', targetId: id });
  return getWebhook(ctx, now, id);
}

/**
 * The owner's pause: no attempts until it is enabled again (an attempt under way finishes; pings
 * still go out). Unlike the automatic disable, its deliveries are kept: those pending wait, and
 * events that occur meanwhile are queued for it (its first 30 days paused, docs/webhooks.md
 * "Pause and redelivery"), all attempted at once on enable. Disabling a disabled webhook changes
 * nothing (the reason stays).
 */
export async function disableWebhook(ctx: WebhookContext, id: string): Promise<Webhook> {
  const now = ctx.clock.now();
  const webhook = await lockedWebhook(ctx, now, id);
  if (webhook.state === 'disabled') return webhook;
  await updateWebhookRow(ctx.scoped, id, { state: 'disabled', disabled_at: now, disabled_reason: 'manual' satisfies DisabledReason, updated_at: now });
  await recordAudit(ctx.db, ctx.actor, now, { action: 'webhook.disabled', targetType: 'webhook', targetId: id });
  return getWebhook(ctx, now, id);
}

/**
 * The lab's stand-in for three days of failures (docs/webhooks.md "In the lab"): the webhook's
 * failing streak is dated back three days, then the worker's own step disables it — the same
 * statement, reason and mail to the support contact as after real failures.
 */
export async function failWebhookNow(ctx: WebhookContext, id: string): Promise<Webhook> {
  const now = ctx.clock.now();
  const webhook = await lockedWebhook(ctx, now, id);
  if (webhook.state === 'disabled') throw new DomainError('conflict', { reason: 'webhook_disabled', webhook: id });
  const threeDaysAgo = new Date(now.getTime() - DISABLE_AFTER_MS);
  if (!webhook.failingSince || webhook.failingSince > threeDaysAgo) {
    await updateWebhookRow(ctx.scoped, id, { failing_since: threeDaysAgo });
  }
  await disableFailingWebhooks(ctx.db, now, { only: id });
  await recordAudit(ctx.db, ctx.actor, now, { action: 'webhook.lab_failed', targetType: 'webhook', targetId: id });
  return getWebhook(ctx, now, id);
}

/**
 * The test ping: a `webhook.ping` event for this webhook alone, delivered (signed, retried,
 * logged) like any other, also to a disabled webhook (to try a receiver before enabling it).
 */
export async function pingWebhook(ctx: WebhookContext, id: string): Promise<{ deliveryId: string; eventId: string }> {
  const now = ctx.clock.now();
  const webhook = await lockedWebhook(ctx, now, id);
  const [eventId] = await recordEvents(ctx.db, [{ tenantId: webhook.tenantId, kind: PING_KIND, zoneId: null, payload: { webhook: { id } } }], now, {
    dispatched: true,
  });
  const deliveryId = newId('dlv');
  await insertDelivery(ctx.db, { id: deliveryId, webhookId: id, eventId: eventId!, kind: PING_KIND }, now);
  return { deliveryId, eventId: eventId! };
}

export interface DeliveryAttempt {
  attempt: number;
  startedAt: Date;
  durationMs: number;
  outcome: string;
  responseStatus: number | null;
  error: string | null;
  nextAttemptAt: Date | null;
}

export interface Delivery {
  id: string;
  eventId: string;
  kind: string;
  state: 'pending' | 'delivered' | 'failed';
  attempts: DeliveryAttempt[];
  nextAttemptAt: Date | null;
  createdAt: Date;
  completedAt: Date | null;
}

/**
 * The webhook's deliveries, newest first, each with its attempts: one statement, so a delivery
 * and its attempts are read in one snapshot (never "8 attempts" beside a state of before the 8th).
 */
export async function listDeliveries(
  ctx: DbContext,
  now: Date,
  webhookId: string,
  filter: { state?: string; id?: string },
  after: unknown[] | null,
  limit: number,
) {
  await getWebhook(ctx, now, webhookId);
  const page = await pageDeliveries(ctx.scoped, webhookId, filter, after, limit);
  const date = (v: string | null) => (v === null ? null : new Date(v));
  const deliveries: Delivery[] = page.rows.map((r) => ({
    id: r.id,
    eventId: r.event_id,
    kind: r.kind,
    state: r.state,
    // While an attempt runs this is its lease's end (when it is attempted again should it never report).
    nextAttemptAt: r.state === 'pending' ? r.next_attempt_at : null,
    createdAt: r.created_at,
    completedAt: r.completed_at,
    attempts: r.attempts.map((a) => ({
      attempt: a.attempt,
      startedAt: new Date(a.started_at),
      durationMs: a.duration_ms,
      outcome: a.outcome,
      responseStatus: a.response_status,
      error: a.error,
      nextAttemptAt: date(a.next_attempt_at),
    })),
  }));
  return { deliveries, next: page.next };
}

/**
 * Sends a delivery again now (Stripe's "resend"): the same delivery (Service-Delivery id, event,
 * body), one more attempt, due at once. A finished one (`delivered`, `failed`) becomes `pending`
 * for that single attempt, whose outcome is its state again (no retries: redeliver once more); a
 * `pending` one has its next attempt brought forward (an attempt under way is left to finish).
 * Refused while the webhook is disabled (409): enable it, and its pending deliveries go at once.
 */
export async function redeliver(ctx: WebhookContext, webhookId: string, deliveryId: string): Promise<Delivery> {
  const now = ctx.clock.now();
  const webhook = await lockedWebhook(ctx, now, webhookId);
  noteLock(ctx.db, 'webhook_deliveries');
  const row = await lockDelivery(ctx.db, webhookId, deliveryId);
  if (!row) throw notFound('webhook delivery');
  // A ping goes to a disabled webhook too (that is what it is for), so its redelivery does.
  if (webhook.state === 'disabled' && row.kind !== PING_KIND) throw new DomainError('conflict', { reason: 'webhook_disabled', webhook: webhookId });
  if (row.state !== 'pending') {
    await reopenDelivery(ctx.db, deliveryId, row.attempts + 1, now);
  } else if (row.recorded === row.attempts) {
    // Waiting for a retry (no attempt under way: each started attempt is recorded when it ends).
    await deliveryDueNow(ctx.db, deliveryId, now);
  }
  await recordAudit(ctx.db, ctx.actor, now, {
    action: 'webhook.redelivered',
    targetType: 'webhook',
    targetId: webhookId,
    details: { delivery_id: deliveryId },
  });
  return getDelivery(ctx, now, webhookId, deliveryId);
}

/** One delivery of the webhook, as the delivery log shows it. */
async function getDelivery(ctx: DbContext, now: Date, webhookId: string, deliveryId: string): Promise<Delivery> {
  const { deliveries } = await listDeliveries(ctx, now, webhookId, { id: deliveryId }, null, 1);
  if (!deliveries[0]) throw notFound('webhook delivery');
  return deliveries[0];
}

/** The `webhooks` section of GET /stats (a StatsContributor of src/services/stats.ts, by shape). */
export const webhookStats = {
  name: 'webhooks',
  async collect(ctx: DbContext): Promise<Record<string, number>> {
    const by = await webhookStateCounts(ctx.scoped);
    return { active: by.active ?? 0, disabled: by.disabled ?? 0 };
  },
};
