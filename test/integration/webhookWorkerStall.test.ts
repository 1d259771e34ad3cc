// Issue 23: after a burst of deliveries to receivers that no longer answer, the delivery worker
// stopped leasing for good — attempts frozen, nothing in flight, nothing logged — and a ping to a
// live receiver never arrived. The burst fills the worker's share of leased deliveries; the next
// tick then finds no free room. A worker of one slot makes that share small (6 deliveries).
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ApiClient } from '../helpers/apiClient.js';
import { startTestService, type TestService } from '../helpers/testService.js';
import { eventually, WebhookReceiver } from '../helpers/webhookReceiver.js';

let lab: TestService;
let api: ApiClient;

beforeAll(async () => {
  lab = await startTestService({ env: { WEBHOOK_POLL_INTERVAL_MS: '50', WEBHOOK_CONCURRENCY: '1', WEBHOOK_PER_WEBHOOK_CONCURRENCY: '1' } });
  api = lab.as(lab.tokens.customers[0]!);
});
afterAll(() => lab?.stop());

/** A receiver that went away badly: it accepts the connection, reads nothing, and resets it a little later. */
async function resettingReceiver(afterMs: number): Promise<{ url: string; connections: () => number; close(): Promise<void> }> {
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('error', () => {});
    setTimeout(() => socket.resetAndDestroy(), afterMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    connections: () => connections,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

it('keeps delivering after a burst to a receiver that resets every connection: a ping to a live receiver arrives', async () => {
  const dead = await resettingReceiver(300);
  const live = await new WebhookReceiver().start();
  try {
    const hook = await api.post('/webhooks', { url: dead.url, events: ['zone.changed'] });
    expect(hook.status, hook.text).toBe(201);
    // More deliveries than the worker may hold (its share: 6), all due at once.
    for (let i = 0; i < 10; i++) {
      const zone = await api.post('/zones', { name: `stall-${Date.now().toString(36)}-${i}.example` });
      expect(zone.status, zone.text).toBe(201);
    }
    await eventually(() => dead.connections() >= 6, 15_000, 'the burst of attempts to the dead receiver');

    const liveHook = await api.post('/webhooks', { url: live.url, events: ['zone.changed'] });
    expect(liveHook.status, liveHook.text).toBe(201);
    live.secrets = [liveHook.body.secret];
    const ping = await api.post(`/webhooks/${liveHook.body.id}/ping`, {});
    expect(ping.status, ping.text).toBe(202);
    await eventually(() => live.ofType('webhook.ping').length >= 1, 15_000, 'the ping at the live receiver');
    // Every delivery of the burst is attempted, not only the first share.
    await eventually(() => dead.connections() >= 10, 15_000, 'an attempt of every delivery to the dead receiver');
  } finally {
    await live.stop();
    await dead.close();
  }
});
