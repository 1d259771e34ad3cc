// Graceful shutdown: stop accepting, finish the request in flight, then close the database.
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/testService.js';

let lab: TestService;
beforeAll(async () => {
  lab = await startTestService();
});
afterAll(() => lab?.stop());

it('finishes an in-flight request before stopping, and refuses new connections meanwhile', async () => {
  const reseller = lab.tokens.tenants.reseller;
  const blocker = new pg.Client({ connectionString: lab.databaseUrl });
  await blocker.connect();
  await blocker.query('BEGIN');
  // FOR NO KEY UPDATE, as the PATCH locks it: FOR UPDATE would also hold up every background insert
  // that names the tenant (the foreign-key checks' FOR KEY SHARE), each on a connection of the pool.
  await blocker.query('SELECT id FROM tenants WHERE id = $1 FOR NO KEY UPDATE', [reseller]);

  // PATCH locks the same row, so it waits inside its transaction until the blocker commits.
  const inFlight = lab.as(lab.tokens.platform).patch(`/tenants/${reseller}`, { name: 'Renamed during shutdown' });
  // Until the PATCH's own statement queues for the row (a tuple lock on tenants) behind the
  // blocker: stopping before it gets there tests nothing (under a loaded CI that took over 5 s once).
  let waiting = false;
  for (const deadline = Date.now() + 30_000; !waiting && Date.now() < deadline; ) {
    const blocked = await blocker.query(
      "SELECT 1 FROM pg_locks WHERE locktype = 'tuple' AND relation = 'tenants'::regclass AND pg_backend_pid() = ANY (pg_blocking_pids(pid))",
    );
    waiting = Boolean(blocked.rowCount);
    if (!waiting) await new Promise((r) => setTimeout(r, 50));
  }
  expect(waiting, 'the PATCH waits for the blocker').toBe(true);

  let stopped = false;
  const stopping = lab.service.stop().then(() => (stopped = true));
  await new Promise((r) => setTimeout(r, 200));
  expect(stopped).toBe(false);
  await expect(fetch(`${lab.url}/healthz`)).rejects.toThrow();

  await blocker.query('COMMIT');
  const response = await inFlight;
  expect(response.status).toBe(200);
  expect(response.body.name).toBe('Renamed during shutdown');
  await stopping;
  expect(stopped).toBe(true);

  // The change committed before the database pool closed.
  const row = await blocker.query('SELECT name FROM tenants WHERE id = $1', [reseller]);
  expect(row.rows[0].name).toBe('Renamed during shutdown');
  await blocker.end();
}, 90_000);
