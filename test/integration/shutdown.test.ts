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
  // The lab publishes and signs its zones in the first seconds after start; a request made during
  // that burst has waited out its database bound (503) in about a third of runs, which is not what
  // this test is about (noted on issue 28 for whoever plans next). Start after it.
  await new Promise((r) => setTimeout(r, 5000));
  const blocker = new pg.Client({ connectionString: lab.databaseUrl });
  await blocker.connect();
  await blocker.query('BEGIN');
  await blocker.query('SELECT id FROM tenants WHERE id = $1 FOR UPDATE', [reseller]);

  // PATCH locks the same row, so it waits inside its transaction until the blocker commits.
  const inFlight = lab.as(lab.tokens.platform).patch(`/tenants/${reseller}`, { name: 'Renamed during shutdown' });
  // Waiting on the blocker itself: the service's background work (publication, the lab's jobs)
  // may wait on other locks of this database meanwhile, which says nothing of the PATCH. Under a
  // loaded CI the request took over 5 s to get there once; stopping before it does tests nothing.
  let waiting = false;
  for (const deadline = Date.now() + 30_000; !waiting && Date.now() < deadline; ) {
    waiting = Boolean((await blocker.query('SELECT 1 FROM pg_stat_activity WHERE pg_backend_pid() = ANY (pg_blocking_pids(pid))')).rowCount);
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
