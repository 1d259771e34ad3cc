// The spec's delivery rules ("Events": Signature, Delivery; "Limits") as values and pure
// functions: the retry schedule, the success rule, the signature header and the body of an event.
import { createHmac } from 'node:crypto';
import type { EventKind } from '../domain/model/events.js';

/** Success is any 2xx within this. */
export const DELIVERY_TIMEOUT_MS = 10_000;

/** Waits before attempts 2…8 (spec: retries after 1 min, 5 min, 30 min, 2 h, 6 h, 12 h, 24 h). */
export const RETRY_DELAYS_MS = [60_000, 300_000, 1_800_000, 7_200_000, 21_600_000, 43_200_000, 86_400_000] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** A webhook whose deliveries have failed (no success in between) for this long is disabled. */
export const DISABLE_AFTER_MS = 3 * 86_400_000;

/**
 * A webhook paused by its owner collects the events of its first 30 days paused: the events'
 * retention (docs/operations.md), so that a webhook paused and forgotten does not keep a growing
 * backlog, and its events, for ever. GET /events has the rest.
 */
export const PAUSE_QUEUE_MS = 30 * 86_400_000;

/** The old secret keeps signing (a second v1=) this long after a rotation. */
export const ROTATION_OVERLAP_MS = 86_400_000;

/**
 * While an attempt runs its delivery's next_attempt_at is pushed this far: a worker that dies
 * mid-attempt leaves the delivery due again afterwards (the next attempt), and no other worker
 * takes it meanwhile. Longer than the timeout plus the wait for a per-webhook slot.
 */
export const ATTEMPT_LEASE_MS = 120_000;

/** Kinds a webhook can subscribe to: the spec's five. `webhook.ping` goes only to the webhook pinged. */
export const SUBSCRIBABLE_KINDS = [
  'zone.changed',
  'record.published',
  'record.failed',
  'dnssec.state_changed',
  'quota.warning',
] as const satisfies readonly EventKind[];
export const PING_KIND = 'webhook.ping' satisfies EventKind;

/** When the attempt after `attempts` failed ones is due; null when that was the last. */
export function nextAttemptAfterFailure(attempts: number, failedAt: Date): Date | null {
  const delay = RETRY_DELAYS_MS[attempts - 1];
  return delay === undefined ? null : new Date(failedAt.getTime() + delay);
}

export const isSuccess = (status: number | null) => status !== null && status >= 200 && status <= 299;

/**
 * `Service-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>]`, v1 = hex(HMAC-SHA256(secret,
 * "<t>.<raw body>")), one v1 per secret (the new one first during a rotation). The HMAC key is
 * the secret string's UTF-8 bytes, exactly as shown to the user.
 */
export function signatureHeader(secrets: string[], unixSeconds: number, rawBody: string): string {
  const signed = `${unixSeconds}.${rawBody}`;
  return [`t=${unixSeconds}`, ...secrets.map((s) => `v1=${createHmac('sha256', s).update(signed).digest('hex')}`)].join(',');
}

export interface StoredEvent {
  id: string;
  kind: string;
  tenantId: string;
  occurredAt: Date;
  payload: Record<string, unknown>;
}

/**
 * An event as receivers see it: `id`, `type`, `occurred_at`, `tenant.id`, then the payload the
 * outbox row holds (docs/webhooks.md "Events"; the OpenAPI document's `webhooks` describe each).
 * A delivery's body and an item of GET /events are this one shape.
 */
export function presentEvent(e: StoredEvent): Record<string, unknown> {
  return { id: e.id, type: e.kind, occurred_at: e.occurredAt.toISOString(), tenant: { id: e.tenantId }, ...e.payload };
}

/** The JSON body of a delivery. */
export const eventBody = (e: StoredEvent): string => JSON.stringify(presentEvent(e));
