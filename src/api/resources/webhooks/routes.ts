// Webhooks (spec "Events"; docs/webhooks.md): register, list, change, delete, rotate the secret,
// pause and enable, ping, read the delivery log and redeliver. Scope webhooks:manage throughout.
import { z } from 'zod';
import type { Services } from '../../../services/index.js';
import { addressPolicyFor } from '../../../webhooks/addressPolicy.js';
import { MAX_ATTEMPTS, SUBSCRIBABLE_KINDS } from '../../../webhooks/deliveryPolicy.js';
import {
  createWebhook,
  type Delivery,
  deleteWebhook,
  disableWebhook,
  DISABLED_REASONS,
  enableWebhook,
  getWebhook,
  listDeliveries,
  listWebhooks,
  pingWebhook,
  redeliver,
  rotateWebhookSecret,
  updateWebhook,
  type Webhook,
  type WebhookContext,
} from '../../../webhooks/webhookAdmin.js';
import { listEnvelope, listResult, pageRequest } from '../../pagination.js';
import { defineRoute, type HandlerInput, noContent, writeContext } from '../../routing/route.js';
import { iso, pageQuery, timestamp } from '../common.js';

const TAG = 'Webhooks';

export const webhookIdParam = z.string().regex(/^whk_[a-z2-7]+$/, 'must be a webhook id (whk_…)');
const params = z.strictObject({ webhook: webhookIdParam });
const deliveryParams = z.strictObject({ webhook: webhookIdParam, delivery: z.string().regex(/^dlv_[a-z2-7]+$/, 'must be a delivery id (dlv_…)') });

export const webhookSchema = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.enum(SUBSCRIBABLE_KINDS)),
  description: z.string(),
  state: z
    .enum(['active', 'disabled'])
    .describe('`disabled` after 3 days of failing deliveries or paused by POST …/disable (see `disabled_reason`); POST …/enable to resume.'),
  scope: z
    .enum(['subtree', 'tenant'])
    .describe(
      '`subtree`: created without X-Act-As-Customer, receives the events of the owner’s whole subtree; `tenant`: created acting for a customer, that customer’s events only.',
    ),
  tenant_id: z.string().describe('The owner.'),
  failing_since: timestamp.nullable().describe('First failed attempt since the last success.'),
  disabled_at: timestamp.nullable(),
  disabled_reason: z
    .enum(DISABLED_REASONS)
    .nullable()
    .describe(
      '`failing_deliveries`: disabled by the service after 3 days of failures (the support contact was mailed); new events are not queued for it. `manual`: paused by POST …/disable; new events are queued (its first 30 days paused) and delivered on enable. null while active.',
    ),
  previous_secret_expires_at: timestamp.nullable().describe('Until then the previous secret signs too (a second `v1=`).'),
  created_at: timestamp,
  updated_at: timestamp,
});

const withSecret = webhookSchema.extend({
  secret: z.string().describe('The signing secret, shown only in this response. The HMAC key is this string’s UTF-8 bytes.'),
});

export const presentWebhook = (w: Webhook) => ({
  id: w.id,
  url: w.url,
  events: w.events,
  description: w.description,
  state: w.state,
  scope: w.scope,
  tenant_id: w.tenantId,
  failing_since: iso(w.failingSince),
  disabled_at: iso(w.disabledAt),
  disabled_reason: w.disabledReason,
  previous_secret_expires_at: iso(w.previousSecretExpiresAt),
  created_at: iso(w.createdAt),
  updated_at: iso(w.updatedAt),
});

const attemptSchema = z.object({
  attempt: z.number().int().describe(`1 to ${MAX_ATTEMPTS}.`),
  attempted_at: timestamp,
  outcome: z
    .enum(['success', 'http_error', 'timeout', 'connection_failed', 'refused_address', 'invalid_url', 'internal_error'])
    .describe('`refused_address`: the name resolved to an address deliveries may not reach (loopback, private, …).'),
  response_status: z.number().int().nullable(),
  duration_ms: z.number().int(),
  error: z.string().nullable(),
  next_attempt_at: timestamp.nullable().describe('When the next attempt was scheduled after this one; null after a success or the last attempt.'),
});

const deliverySchema = z.object({
  id: z.string().describe('Sent as the Service-Delivery header; the same on every attempt.'),
  event_id: z.string(),
  type: z.string().describe('The event kind (`webhook.ping` for a test ping).'),
  state: z.enum(['pending', 'delivered', 'failed']).describe(`\`failed\`: ${MAX_ATTEMPTS} attempts failed.`),
  next_attempt_at: timestamp.nullable(),
  created_at: timestamp,
  completed_at: timestamp.nullable(),
  attempts: z.array(attemptSchema),
});

const presentDelivery = (d: Delivery) => ({
  id: d.id,
  event_id: d.eventId,
  type: d.kind,
  state: d.state,
  next_attempt_at: iso(d.nextAttemptAt),
  created_at: iso(d.createdAt),
  completed_at: iso(d.completedAt),
  attempts: d.attempts.map((a) => ({
    attempt: a.attempt,
    attempted_at: iso(a.startedAt),
    outcome: a.outcome,
    response_status: a.responseStatus,
    duration_ms: a.durationMs,
    error: a.error,
    next_attempt_at: iso(a.nextAttemptAt),
  })),
});

const urlField = z
  .string()
  .min(1)
  .max(2000)
  .describe('https (http and loopback only in the sandbox). Stored normalised: scheme and host in lower case, the host without a final dot.');
const eventsField = z.array(z.enum(SUBSCRIBABLE_KINDS)).min(1).max(SUBSCRIBABLE_KINDS.length);
const descriptionField = z.string().max(500);

const deps = (services: Services) => ({ kek: services.dnssec.kek, policy: addressPolicyFor(services.config) });
const ctxOf = (input: HandlerInput<unknown, unknown, unknown>): WebhookContext => writeContext(input);
const location = (id: string) => `/api/v1/webhooks/${id}`;

export const webhookRoutes = [
  defineRoute({
    method: 'post',
    path: '/webhooks',
    operationId: 'createWebhook',
    feature: 'webhooks',
    summary: 'Register a webhook',
    description:
      'Created without X-Act-As-Customer the webhook receives the events of the token’s whole subtree; with it, that customer’s events only. The response carries the signing `secret`, shown only here.',
    tag: TAG,
    scopes: ['webhooks:manage'],
    body: z.strictObject({ url: urlField, events: eventsField, description: descriptionField.optional() }),
    responses: { 201: { description: 'Registered', schema: withSecret, headers: ['Location', 'Idempotent-Replayed'] } },
    handler: async (input) => {
      const { webhook, secret } = await createWebhook(ctxOf(input), deps(input.services), input.body);
      return { status: 201, body: { ...presentWebhook(webhook), secret }, headers: { Location: location(webhook.id) } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/webhooks',
    operationId: 'listWebhooks',
    summary: 'Webhooks of the acting subtree',
    tag: TAG,
    scopes: ['webhooks:manage'],
    query: z.strictObject({ ...pageQuery }),
    responses: { 200: { description: 'A page of webhooks', schema: listEnvelope(webhookSchema) } },
    handler: async (input) => {
      const { after, limit } = pageRequest(input, 'webhooks');
      const page = await listWebhooks(input.context, input.services.clock.now(), after, limit);
      return listResult(input, 'webhooks', page.webhooks.map(presentWebhook), page.next);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/webhooks/{webhook}',
    operationId: 'getWebhook',
    summary: 'Get a webhook',
    tag: TAG,
    scopes: ['webhooks:manage'],
    params,
    responses: { 200: { description: 'The webhook', schema: webhookSchema, headers: ['ETag'] } },
    handler: async (input) => ({
      status: 200,
      body: presentWebhook(await getWebhook(input.context, input.services.clock.now(), input.params.webhook)),
      etag: true,
    }),
  }),
  defineRoute({
    method: 'patch',
    path: '/webhooks/{webhook}',
    operationId: 'updateWebhook',
    feature: 'webhooks',
    summary: 'Change a webhook’s URL, events or description',
    tag: TAG,
    scopes: ['webhooks:manage'],
    params,
    body: z.strictObject({ url: urlField.optional(), events: eventsField.optional(), description: descriptionField.optional() }),
    responses: { 200: { description: 'The webhook', schema: webhookSchema } },
    handler: async (input) => ({
      status: 200,
      body: presentWebhook(await updateWebhook(ctxOf(input), deps(input.services), input.params.webhook, input.body)),
      etag: true,
    }),
  }),
  defineRoute({
    method: 'delete',
    path: '/webhooks/{webhook}',
    operationId: 'deleteWebhook',
    summary: 'Delete a webhook and its delivery log',
    tag: TAG,
    scopes: ['webhooks:manage'],
    params,
    responses: { 204: { description: 'Deleted' } },
    handler: async (input) => noContent(deleteWebhook(ctxOf(input), input.params.webhook)),
  }),
  defineRoute({
    method: 'post',
    path: '/webhooks/{webhook}/rotate-secret',
    operationId: 'rotateWebhookSecret',
    feature: 'webhooks',
    summary: 'Replace the signing secret',
    description: 'The new secret is shown only in this response. For 24 hours the old one signs too: Service-Signature carries two `v1=` values.',
    tag: TAG,
    scopes: ['webhooks:manage'],
    params,
    responses: { 200: { description: 'The webhook with its new secret', schema: withSecret } },
    handler: async (input) => {
      const { webhook, secret } = await rotateWebhookSecret(ctxOf(input), deps(input.services), input.params.webhook);
      return { status: 200, body: { ...presentWebhook(webhook), secret } };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/webhooks/{webhook}/enable',
    operationId: 'enableWebhook',
    feature: 'webhooks',
    summary: 'Enable a disabled webhook',
    description: 'Its pending deliveries are attempted at once. On an active webhook: 200, nothing changes.',
    tag: TAG,
    scopes: ['webhooks:manage'],
    params,
    responses: { 200: { description: 'The webhook', schema: webhookSchema } },
    handler: async (input) => ({ status: 200, body: presentWebhook(await enableWebhook(ctxOf(input), input.params.webhook)) }),
  }),
  defineRoute({
    method: 'post',
    path: '/webhooks/{webhook}/disable',
    operationId: 'disableWebhook',
    feature: 'webhooks',
    summary: 'Pause a webhook',
    description:
      'No attempts until POST …/enable (one under way finishes; pings still go out). Its deliveries are kept: pending ones wait, events meanwhile are queued for it (its first 30 days paused), and all are attempted at once on enable. `disabled_reason: manual`. On a disabled webhook: 200, nothing changes.',
    tag: TAG,
    scopes: ['webhooks:manage'],
    params,
    responses: { 200: { description: 'The webhook', schema: webhookSchema } },
    handler: async (input) => ({ status: 200, body: presentWebhook(await disableWebhook(ctxOf(input), input.params.webhook)) }),
  }),
  defineRoute({
    method: 'post',
    path: '/webhooks/{webhook}/ping',
    operationId: 'pingWebhook',
    feature: 'webhooks',
    summary: 'Send a test event',
    description: 'Queues a `webhook.ping` event for this webhook alone (also a disabled one), delivered like any event; follow it in the delivery log.',
    tag: TAG,
    scopes: ['webhooks:manage'],
    params,
    responses: { 202: { description: 'Queued', schema: z.object({ delivery_id: z.string(), event_id: z.string() }) } },
    handler: async (input) => {
      const { deliveryId, eventId } = await pingWebhook(ctxOf(input), input.params.webhook);
      return { status: 202, body: { delivery_id: deliveryId, event_id: eventId } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/webhooks/{webhook}/deliveries',
    operationId: 'listWebhookDeliveries',
    summary: 'The webhook’s deliveries, newest first, each with its attempts',
    description: 'A delivery is kept with its event: 30 days after the event, longer while it is `pending`.',
    tag: TAG,
    scopes: ['webhooks:manage'],
    params,
    query: z.strictObject({ state: z.enum(['pending', 'delivered', 'failed']).optional(), ...pageQuery }),
    responses: { 200: { description: 'A page of deliveries', schema: listEnvelope(deliverySchema) } },
    handler: async (input) => {
      const { after, limit } = pageRequest(input, `webhook-deliveries|${input.params.webhook}`);
      const page = await listDeliveries(input.context, input.services.clock.now(), input.params.webhook, { state: input.query.state }, after, limit);
      return listResult(input, `webhook-deliveries|${input.params.webhook}`, page.deliveries.map(presentDelivery), page.next);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/webhooks/{webhook}/deliveries/{delivery}/redeliver',
    operationId: 'redeliverWebhookDelivery',
    feature: 'webhooks',
    summary: 'Send a delivery again now',
    description:
      'One more attempt of the same delivery (same `Service-Delivery`, event and body, freshly signed), due at once. A `delivered` or `failed` one becomes `pending` for that single attempt, whose outcome is its state again (no retries follow); a `pending` one has its next attempt brought forward. `409 conflict` while the webhook is disabled (enable it: its pending deliveries go at once), test pings excepted.',
    tag: TAG,
    scopes: ['webhooks:manage'],
    params: deliveryParams,
    errors: ['conflict'],
    responses: { 202: { description: 'Queued: the delivery, `pending`', schema: deliverySchema } },
    handler: async (input) => ({ status: 202, body: presentDelivery(await redeliver(ctxOf(input), input.params.webhook, input.params.delivery)) }),
  }),
];
