// The database guards the record invariants too, below the change-set engine that reports them by
// item (docs/records.md): whatever writes to `records` directly cannot put a CNAME beside other
// records at one name, nor store one record twice. Written here with plain SQL, as a bug or a
// hand-made fix in psql would.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/testService.js';

let lab: TestService;
let sql: pg.Client;
let wwwA: string;
let aliasCname: string;

beforeAll(async () => {
  lab = await startTestService({ env: { ROLES: 'api' } });
  sql = new pg.Client({ connectionString: lab.databaseUrl });
  await sql.connect();
  const api = lab.as(lab.tokens.customers[0]);
  expect((await api.post('/zones', { name: 'guarded.example' })).status).toBe(201);
  wwwA = (await api.post('/zones/guarded.example/records', { name: 'www', type: 'A', data: { address: '192.0.2.1' } })).body.id;
  aliasCname = (await api.post('/zones/guarded.example/records', { name: 'alias', type: 'CNAME', data: { target: 'www.guarded.example' } })).body.id;
});
afterAll(async () => {
  await sql?.end();
  await lab?.stop();
});

let seq = 0;
/** A copy of record `id` under a new id, with another type and content, as one INSERT … SELECT. */
const copyAs = (id: string, type: string, data: object, content: string, name?: string) => ({
  text: `INSERT INTO records (id, zone_id, tenant_id, name, name_sort, type, ttl, data, content, comment, last_changeset_id, created_at, updated_at)
         SELECT $2, zone_id, tenant_id, coalesce($6, name), coalesce($6, name_sort), $3, ttl, $4::jsonb, $5, NULL, last_changeset_id, now(), now()
         FROM records WHERE id = $1`,
  values: [id, `rec_guard${++seq}`, type, JSON.stringify(data), content, name ?? null],
});

async function failure(statements: (string | { text: string; values: unknown[] })[]): Promise<{ code?: string; constraint?: string } | null> {
  await sql.query('BEGIN');
  try {
    for (const s of statements) await sql.query(s);
    await sql.query('COMMIT');
    return null;
  } catch (err) {
    await sql.query('ROLLBACK');
    return err as { code?: string; constraint?: string };
  }
}

const cnameExclusive = { code: '23P01', constraint: 'records_cname_exclusive' };

describe('the database refuses', () => {
  it('a CNAME where other records are', async () => {
    expect(await failure([copyAs(wwwA, 'CNAME', { target: 'x.example' }, 'x.example')])).toMatchObject(cnameExclusive);
  });

  it('another record where a CNAME is', async () => {
    expect(await failure([copyAs(aliasCname, 'TXT', { text: 'x' }, '"x"')])).toMatchObject(cnameExclusive);
  });

  it('a record turned into a CNAME beside others, and a CNAME moved onto a taken name', async () => {
    await sql.query('BEGIN');
    await sql.query(copyAs(wwwA, 'AAAA', { address: '2001:db8::1' }, '2001:db8::1'));
    await sql.query('COMMIT');
    expect(
      await failure([{ text: `UPDATE records SET type = 'CNAME', data = '{"target":"x.example"}', content = 'x.example' WHERE id = $1`, values: [wwwA] }]),
    ).toMatchObject(cnameExclusive);
    expect(await failure([{ text: `UPDATE records SET name = 'www', name_sort = 'www' WHERE id = $1`, values: [aliasCname] }])).toMatchObject(cnameExclusive);
  });

  it('the same record twice, and a second CNAME at one name', async () => {
    expect(await failure([copyAs(wwwA, 'A', { address: '192.0.2.1' }, '192.0.2.1')])).toMatchObject({ code: '23505', constraint: 'records_no_duplicate' });
    expect(await failure([copyAs(aliasCname, 'CNAME', { target: 'other.example' }, 'other.example')])).toMatchObject({
      code: '23505',
      constraint: 'records_one_cname',
    });
  });
});

describe('the database accepts', () => {
  it('a CNAME replacing the other records of its name in one statement, as a change set writes it', async () => {
    const res = await failure([
      {
        text: `WITH gone AS (DELETE FROM records WHERE zone_id = (SELECT zone_id FROM records WHERE id = $1) AND name = 'www')
               INSERT INTO records (id, zone_id, tenant_id, name, name_sort, type, ttl, data, content, comment, last_changeset_id, created_at, updated_at)
               SELECT $2, zone_id, tenant_id, name, name_sort, 'CNAME', ttl, '{"target":"x.example"}', 'x.example', NULL, last_changeset_id, now(), now()
               FROM records WHERE id = $1`,
        values: [wwwA, `rec_guard${++seq}`],
      },
    ]);
    expect(res).toBeNull();
    const { rows } = await sql.query(`SELECT type FROM records WHERE name = 'www' AND zone_id = (SELECT zone_id FROM records WHERE id = $1)`, [aliasCname]);
    expect(rows).toEqual([{ type: 'CNAME' }]);
  });
});
