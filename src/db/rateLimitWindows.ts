import type { Knex } from 'knex';
import { PREPARED } from './preparedStatements.js';

export interface RateLimitReading {
  limit: number;
  remaining: number;
  /** Seconds until the current window ends. */
  resetSeconds: number;
  allowed: boolean;
}

const WINDOW_MS = 60_000;

/** Fixed one-minute windows; every API process sharing the database counts in the same ones. */
export const windowStartOf = (now: Date) => new Date(Math.floor(now.getTime() / WINDOW_MS) * WINDOW_MS);

/** The reading for the request that is number `position` in the window that holds `now`. */
export function rateLimitReading(position: number, limit: number, now: Date): RateLimitReading {
  const windowStart = windowStartOf(now).getTime();
  return {
    limit,
    remaining: Math.max(0, limit - position),
    resetSeconds: Math.max(1, Math.ceil((windowStart + WINDOW_MS - now.getTime()) / 1000)),
    allowed: position <= limit,
  };
}

/**
 * Takes `size` consecutive request numbers of `bucket`'s window in one atomic upsert and returns
 * the last of them: the caller owns `last - size + 1 … last`. Parallel callers in any process
 * never get the same number.
 */
export async function takeWindowCounts(db: Knex, bucket: string, windowStart: Date, size: number): Promise<number> {
  const result = await db
    .raw<{ rows: { count: number }[] }>(
      `INSERT INTO rate_limit_windows (bucket, window_start, count) VALUES (?, ?, ?)
       ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_limit_windows.count + excluded.count
       RETURNING count`,
      [bucket, windowStart, size],
    )
    .options(PREPARED);
  return Number(result.rows[0]!.count);
}

/**
 * Gives one number back to `bucket`'s window: a request counted before it was known not to count
 * (a login that turned out right). One statement, so parallel returns and takes never lose one.
 */
export async function returnWindowCount(db: Knex, bucket: string, windowStart: Date): Promise<void> {
  await db.raw('UPDATE rate_limit_windows SET count = count - 1 WHERE bucket = ? AND window_start = ? AND count > 0', [bucket, windowStart]).options(PREPARED);
}

export async function deleteOldRateLimitWindows(db: Knex, now: Date): Promise<number> {
  return db('rate_limit_windows')
    .where('window_start', '<', new Date(now.getTime() - 2 * WINDOW_MS))
    .delete();
}

/** The count of a bucket's window without taking a number (a check before costly work). */
export async function readWindowCount(db: Knex, bucket: string, windowStart: Date): Promise<number> {
  const row = (await db('rate_limit_windows').where({ bucket, window_start: windowStart }).first('count')) as { count: number | string } | undefined;
  return row ? Number(row.count) : 0;
}
