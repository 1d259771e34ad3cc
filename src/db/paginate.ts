import type { Knex } from 'knex';

export interface SortKey {
  column: string;
  direction: 'asc' | 'desc';
  /** Property of the selected row holding the column's value. */
  field: string;
}

export interface Page<Row> {
  rows: Row[];
  /** Keyset values of the last row when more rows follow. */
  next: unknown[] | null;
}

/**
 * Keyset pagination. The sort keys must end in a unique, non-null column so positions are total;
 * `after` continues strictly after the row with those values.
 */
export async function paginate<Row extends Record<string, unknown>>(
  qb: Knex.QueryBuilder,
  sort: SortKey[],
  after: unknown[] | null,
  limit: number,
): Promise<Page<Row>> {
  if (after) {
    if (after.length !== sort.length) throw new Error('cursor does not match the sort keys');
    // (k1 > v1) OR (k1 = v1 AND k2 > v2) OR …, with < for descending keys.
    qb.where((outer) => {
      sort.forEach((key, i) => {
        outer.orWhere((inner) => {
          for (let j = 0; j < i; j++) inner.where(sort[j]!.column, after[j] as Knex.Value);
          inner.where(key.column, key.direction === 'asc' ? '>' : '<', after[i] as Knex.Value);
        });
      });
    });
  }
  for (const key of sort) qb.orderBy(key.column, key.direction);
  const rows = (await qb.limit(limit + 1)) as Row[];
  const hasMore = rows.length > limit;
  const page = hasMore ? rows.slice(0, limit) : rows;
  const last = page[page.length - 1];
  return { rows: page, next: hasMore && last ? sort.map((k) => last[k.field]) : null };
}
