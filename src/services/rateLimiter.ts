import type { Pool, Transaction } from '../db/context.js';
import type { Tenant } from '../db/repositories/tenantRows.js';
import { type RateLimitReading, rateLimitReading, returnWindowCount, takeWindowCounts, windowStartOf } from '../db/rateLimitWindows.js';

export type { RateLimitReading };

/**
 * How many request numbers to take from the shared window at once, given the limit and the
 * window's count when last seen. Far from the limit a process takes a block (one upsert serves
 * many requests); near it, one at a time, so the limit is exact wherever a refusal is near: no
 * process ever admits a request numbered above the limit. Over the limit every request is
 * refused anyway, so blocks are large again.
 */
export function blockSize(limit: number, counted: number): number {
  const left = limit - counted;
  if (left <= 0) return MAX_BLOCK;
  return Math.min(MAX_BLOCK, Math.max(1, Math.floor(left / BLOCK_DIVISOR)));
}
const MAX_BLOCK = 64;
/** The most numbers one upsert takes for the requests waiting on it. */
const MAX_ROUND = 1000;
// A block is at most 1/16 of what is left: what one process holds unused (its client went to
// another process) is at most that, and shrinks as the window fills (docs/api-conventions.md).
const BLOCK_DIVISOR = 16;

interface Window {
  start: number;
  /** The next request number this process may hand out, and the last one it holds. */
  next: number;
  last: number;
  taking: Promise<void> | null;
  /** Requests of this process waiting for the bucket's next block. */
  waiting: number;
}

/**
 * Counts requests per bucket ("client:<id>", "tenant:<id>") in one-minute windows shared by every
 * API process through PostgreSQL. Each request gets its own number in the window — the
 * RateLimit-Remaining it sees is the limit minus that number — from blocks of numbers this
 * process takes with one upsert (blockSize).
 */
export class RateLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(private readonly db: Pool) {}

  /**
   * `trx`: a caller inside a transaction counts on its connection (never a second pool connection
   * while it holds one); a count it rolls back was not spent.
   */
  async consume(bucket: string, limit: number, now: Date, trx?: Transaction): Promise<RateLimitReading> {
    const start = windowStartOf(now).getTime();
    for (;;) {
      let w = this.windows.get(bucket);
      if (!w || w.start !== start) {
        if (!w) this.forgetEndedWindows(start);
        w = { start, next: 1, last: 0, taking: null, waiting: 0 };
        this.windows.set(bucket, w);
      }
      if (w.next <= w.last) return rateLimitReading(w.next++, limit, now);
      // One upsert at a time per bucket; requests arriving meanwhile wait for its block.
      w.waiting += 1;
      w.taking ??= this.takeBlock(bucket, w, limit, trx).finally(() => {
        w.taking = null;
      });
      try {
        await w.taking;
      } finally {
        w.waiting -= 1;
      }
    }
  }

  /**
   * Returns the number a request took from `bucket`'s window at `now` (the request turned out
   * not to count). The database's count goes down; numbers this process still holds stay its own.
   */
  async giveBack(bucket: string, now: Date): Promise<void> {
    await returnWindowCount(this.db, bucket, windowStartOf(now));
  }

  /**
   * At least one number for every request waiting when it starts: near the limit blocks are of
   * one, and requests of a busy client were served one upsert each, in turn — each upsert waiting
   * for a pool connection behind the transactions. Under load that multiplied a 1 s pool wait by
   * the queue's length: requests unanswered for 20 s before their body was read. The
   * numbers taken for waiting requests are all handed out at once, so none is held unused.
   */
  private async takeBlock(bucket: string, w: Window, limit: number, trx?: Transaction): Promise<void> {
    const size = Math.min(MAX_ROUND, Math.max(blockSize(limit, w.last), w.waiting));
    const last = await takeWindowCounts(trx ?? this.db, bucket, new Date(w.start), size);
    w.next = last - size + 1;
    w.last = last;
  }

  /** Buckets of past windows hold nothing still usable. */
  private forgetEndedWindows(currentStart: number) {
    if (this.windows.size < 1000) return;
    for (const [bucket, w] of this.windows) if (w.start < currentStart && !w.taking) this.windows.delete(bucket);
  }
}

/** Acting for a customer also counts against the customer's own limit, whoever acts. */
export const consumeCustomerLimit = (limiter: RateLimiter, customer: Tenant, now: Date) =>
  limiter.consume(`tenant:${customer.id}`, customer.limits.apiRateLimitPerMinute, now);

/**
 * A request without a valid token has no API client to count against: it counts against its
 * source address (the peer; no proxy header is trusted), so that its response carries RateLimit-*
 * like every other and trying tokens is bounded (docs/api-conventions.md).
 */
const UNAUTHENTICATED_LIMIT_PER_MINUTE = 60;

export const consumeAddressLimit = (limiter: RateLimiter, address: string, now: Date) =>
  limiter.consume(`address:${address}`, UNAUTHENTICATED_LIMIT_PER_MINUTE, now);
