import type { Knex } from 'knex';

export interface RateLimitReading {
  limit: number;
  remaining: number;
  /** Seconds until the current window ends. */
  resetSeconds: number;
  allowed: boolean;
}

const WINDOW_MS = 60_000;

/**
 * Counts one request against `bucket` in the current one-minute window. The counter lives in
 * PostgreSQL, so every API process sharing the database counts against the same window; the
 * upsert is one atomic statement, so parallel requests never lose a count.
 */
export const windowStartOf = (now: Date) => new Date(Math.floor(now.getTime() / WINDOW_MS) * WINDOW_MS);

/** The reading after `count` requests in the window that holds `now`. */
export function rateLimitReading(count: number, limit: number, now: Date): RateLimitReading {
  const windowStart = windowStartOf(now).getTime();
  return {
    limit,
    remaining: Math.max(0, limit - count),
    resetSeconds: Math.max(1, Math.ceil((windowStart + WINDOW_MS - now.getTime()) / 1000)),
    allowed: count <= limit,
  };
}

export async function consumeRateLimit(db: Knex, bucket: string, limit: number, now: Date): Promise<RateLimitReading> {
  const windowStart = windowStartOf(now).getTime();
  const result = await db.raw<{ rows: { count: number }[] }>(
    `INSERT INTO rate_limit_windows (bucket, window_start, count) VALUES (?, ?, 1)
     ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_limit_windows.count + 1
     RETURNING count`,
    [bucket, new Date(windowStart)],
  );
  return rateLimitReading(Number(result.rows[0]!.count), limit, now);
}

export async function deleteOldRateLimitWindows(db: Knex, now: Date): Promise<number> {
  return db('rate_limit_windows').where('window_start', '<', new Date(now.getTime() - 2 * WINDOW_MS)).delete();
}
