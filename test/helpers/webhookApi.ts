// The webhook calls the webhook tests make through the API: register one for a receiver (which
// then knows its secret) and list a webhook's deliveries.
import { expect } from 'vitest';
import type { ApiClient } from './apiClient.js';
import type { WebhookReceiver } from './webhookReceiver.js';

/** Registers a webhook to `receiver` for `events`; 201 or the test fails. */
export async function registerWebhook(api: ApiClient, receiver: WebhookReceiver, events: string[], headers: Record<string, string> = {}) {
  const res = await api.post('/webhooks', { url: receiver.url, events }, { headers });
  expect(res.status, res.text).toBe(201);
  receiver.secrets = [res.body.secret];
  return res.body as { id: string; secret: string; scope: string };
}

/** The deliveries of webhook `id`, as its owner lists them. */
export async function deliveriesOf(api: ApiClient, id: string): Promise<any[]> {
  const res = await api.get(`/webhooks/${id}/deliveries`);
  expect(res.status, res.text).toBe(200);
  return res.body.data as any[];
}
