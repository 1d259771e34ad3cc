// Statements that opt in with `.options(PREPARED)` travel as named prepared statements
// (src/db/preparedStatements.ts): parsed once per connection, their plan kept by PostgreSQL.
import { describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { createDb } from '../../src/db/knex.js';
import { PREPARED } from '../../src/db/preparedStatements.js';

describe('PREPARED', () => {
  it('names the statements that opt in, once per text, inside and outside transactions; others stay unnamed', async () => {
    const db = createDb(inject('adminDatabaseUrl'), 1);
    try {
      expect((await db.raw('select ?::int + 1 as n', [1]).options(PREPARED)).rows).toEqual([{ n: 2 }]);
      await db.transaction(async (trx) => {
        expect((await trx.raw('select ?::int + 1 as n', [41]).options(PREPARED)).rows).toEqual([{ n: 42 }]);
        expect(await trx.select(trx.raw('? as label', ['built'])).options(PREPARED)).toEqual([{ label: 'built' }]);
        await trx.raw('select ?::int + 2 as n', [1]);
        const prepared = await trx.raw<{ rows: { statement: string }[] }>('select statement from pg_prepared_statements order by statement');
        expect(prepared.rows.map((r) => r.statement)).toEqual(['select $1 as label', 'select $1::int + 1 as n']);
      });
    } finally {
      await db.destroy();
    }
  });
});
