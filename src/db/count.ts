import type { Knex } from 'knex';

/** count(*) of a query, as a number. */
export async function countRows(q: Knex.QueryBuilder): Promise<number> {
  const rows = (await q.clearSelect().clearOrder().count({ n: '*' })) as { n: number | string }[];
  return Number(rows[0]?.n ?? 0);
}
