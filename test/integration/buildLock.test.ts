// The build's lock of a zone row (versionStore.ts lockForBuild): a write that commits after the
// build's statement took its snapshot but before it locked the row is in the row it locks, and
// must be in the touched names it builds from too, or that change set is marked published without
// its names ever being served (seen in bench/rdns.ts: a chunk of a /16's forward-record rename
// missing from what the nameservers load). The build waits for the writer here (`wait`) so that
// the interleaving is certain; the worker's build skips a locked row and meets the same race only
// when the writer commits within the statement. Real PostgreSQL, the service's own write path and
// its own lock statement.
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { lockForBuild } from '../../src/db/repositories/versionStore.js';
import { startTestService, type TestService } from '../helpers/testService.js';

let lab: TestService;
beforeAll(async () => {
  // No worker: nothing else builds the zone meanwhile.
  lab = await startTestService({ env: { ROLES: 'api' } });
});
afterAll(() => lab?.stop());

it('builds from the change sets of the row it locked, also one committed while it waited for the row', async () => {
  const api = lab.as(lab.tokens.customers[0]!);
  const zone = `buildlock-${Date.now().toString(36)}.example`;
  const created = await api.post('/zones', { name: zone });
  expect(created.status, created.text).toBe(201);
  const zoneId = created.body.id as string;

  // A writer holds the zone's row as the write seam does, with its change set written, not committed.
  const writer = new pg.Client({ connectionString: lab.databaseUrl });
  await writer.connect();
  try {
    await writer.query('BEGIN');
    const { rows } = await writer.query('SELECT tenant_id, changeset_seq FROM zones WHERE id = $1 FOR NO KEY UPDATE', [zoneId]);
    const seq = rows[0].changeset_seq + 1;
    await writer.query(
      `INSERT INTO change_sets (id, zone_id, tenant_id, seq, state, kind, item_count, summary, results, created_at, updated_at, touched_names)
       VALUES ($1, $2, $3, $4, 'pending', 'records', 1, '{}', '[]', now(), now(), ARRAY['late'])`,
      [`chg_buildlock${seq}`, zoneId, rows[0].tenant_id, seq],
    );
    await writer.query('UPDATE zones SET changeset_seq = $2 WHERE id = $1', [zoneId, seq]);

    // The build's statement takes its snapshot now and waits for the row.
    const db = lab.service.services.db;
    const building = db.transaction((trx) => lockForBuild(trx, zoneId, true));
    let waiting = false;
    for (const deadline = Date.now() + 30_000; !waiting && Date.now() < deadline; ) {
      waiting = Boolean((await writer.query('SELECT 1 FROM pg_stat_activity WHERE pg_backend_pid() = ANY (pg_blocking_pids(pid))')).rowCount);
      if (!waiting) await new Promise((r) => setTimeout(r, 25));
    }
    // Committed while the build waits: its snapshot is older than the row it will lock.
    expect(waiting, 'the build waits for the writer').toBe(true);
    await writer.query('COMMIT');
    const locked = await building;
    expect(locked!.changeset_seq).toBe(seq);
    // Every unpublished change set's names, the late one's included.
    expect(locked!.pending_touched).toContainEqual(['late']);
    expect(locked!.pending_touched).toHaveLength(seq - locked!.published_seq);
  } finally {
    await writer.end();
  }
}, 60_000);
