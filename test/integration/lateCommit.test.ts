// A COMMIT whose answer waits unread while the process is busy (a large zone being signed in the
// same process) must not be reported as failed: it committed, and "503, nothing was stored" would
// be false. Real PostgreSQL, the service's own database client with its time bounds.
import { describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/knex.js';
import { createDatabase } from '../helpers/testService.js';

describe('a transaction whose COMMIT answer is read late', () => {
  it('commits and says so, although the process was busy past the client-side bound', async () => {
    const database = await createDatabase();
    const db = createDb(database.url, 2, undefined, { connectTimeoutMs: 2000, acquireTimeoutMs: 2000, statementTimeoutMs: 200 });
    try {
      await db.raw('CREATE TABLE late_commit (n int)');
      const trx = await db.transaction();
      await trx('late_commit').insert({ n: 1 });
      void trx.commit();
      // Let the COMMIT go out, then keep the event loop busy longer than statement timeout + margin
      // (1.2 s here): PostgreSQL answers meanwhile, the answer waits in the socket.
      await new Promise((r) => setImmediate(r));
      const until = Date.now() + 2000;
      while (Date.now() < until) {
        // busy, as a synchronous signing run would be
      }
      // The transaction's outcome as the service sees it (db.transaction(callback) awaits the same).
      await expect(trx.executionPromise).resolves.toBeUndefined();
      const rows = (await db('late_commit').select('n')) as { n: number }[];
      expect(rows).toEqual([{ n: 1 }]);
      // Other statements keep their bound: a statement PostgreSQL itself cancels still fails fast.
      await expect(db.raw('SELECT pg_sleep(1)')).rejects.toThrow(/statement timeout|canceling statement/);
    } finally {
      await db.destroy();
      await database.drop();
    }
  });
});
