// Issue 23: in the soak, the delivery worker's dispatch failed with a foreign key violation (23503)
// beside webhook deletions, and with it the whole tick. A webhook deleted while the dispatch runs:
// its snapshot still sees the webhook, its insert's foreign key check waits for the delete, and
// finds the row gone once it commits. Here the delete is held open so that the two meet every time.
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createDb, type Db } from '../../src/db/knex.js';
import { dispatchEvents } from '../../src/webhooks/deliveries.js';
import type { ApiClient } from '../helpers/apiClient.js';
import { startTestService, type TestService } from '../helpers/testService.js';

let lab: TestService;
let api: ApiClient;
let db: Db;

beforeAll(async () => {
  // No worker role: the test runs the dispatch itself.
  lab = await startTestService({ env: { ROLES: 'api' } });
  api = lab.as(lab.tokens.customers[0]!);
  db = createDb(lab.databaseUrl, 2);
});
afterAll(async () => {
  await db?.destroy();
  await lab?.stop();
});

it('dispatches the events of a batch while a webhook of their audience is deleted', async () => {
  const kept = await api.post('/webhooks', { url: 'https://hooks.example.net/kept', events: ['zone.changed'] });
  const doomed = await api.post('/webhooks', { url: 'https://hooks.example.net/doomed', events: ['zone.changed'] });
  expect([kept.status, doomed.status], kept.text + doomed.text).toEqual([201, 201]);
  const zone = await api.post('/zones', { name: `race-${Date.now().toString(36)}.example` });
  expect(zone.status, zone.text).toBe(201);

  const deleter = new pg.Client({ connectionString: lab.databaseUrl });
  await deleter.connect();
  try {
    await deleter.query('BEGIN');
    expect((await deleter.query('DELETE FROM webhooks WHERE id = $1', [doomed.body.id])).rowCount).toBe(1);
    const dispatching = dispatchEvents(db, new Date());
    // Until the dispatch waits on the deleted row's lock (its foreign key check).
    for (let i = 0; i < 100; i++) {
      const waiting = await deleter.query(
        `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%webhook_deliveries%'`,
      );
      if (waiting.rowCount) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await deleter.query('COMMIT');
    const dispatched = await dispatching;
    expect(dispatched.events).toBeGreaterThanOrEqual(1);
  } finally {
    await deleter.end();
  }
  const deliveries = await db('webhook_deliveries').select('webhook_id');
  expect(new Set(deliveries.map((d) => d.webhook_id))).toEqual(new Set([kept.body.id]));
  expect(await db('events').where('awaiting_dispatch', true).count({ n: '*' }).first()).toEqual({ n: 0 });
});
