// Issue 23: near the limit the rate limiter takes one request number per upsert, and requests of
// one client waited for those upserts in turn — each upsert itself waiting for a pool connection.
// Under load, requests sat unanswered for 20 s before their body was read. Requests waiting
// together now share one upsert that takes a number for each of them.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createDb, type Db } from '../../src/db/knex.js';
import { windowStartOf } from '../../src/db/rateLimitWindows.js';
import { RateLimiter } from '../../src/services/rateLimiter.js';
import { createDatabase } from '../helpers/testService.js';

let database: Awaited<ReturnType<typeof createDatabase>>;
let db: Db;
let upserts = 0;

beforeAll(async () => {
  database = await createDatabase();
  db = createDb(database.url, 4);
  db.on('query', (q: { sql: string }) => {
    if (/^INSERT INTO rate_limit_windows/.test(q.sql)) upserts++;
  });
});
afterAll(async () => {
  await db?.destroy();
  await database?.drop();
});

it('serves requests that wait together near the limit with one upsert, each with its own number, the limit exact', async () => {
  const limit = 300;
  const now = new Date();
  // 20 left in the window: blocks of one from here (blockSize), 40 requests at once.
  await db('rate_limit_windows').insert({ bucket: 'client:near', window_start: windowStartOf(now), count: limit - 20 });
  const limiter = new RateLimiter(db);
  upserts = 0;
  const readings = await Promise.all(Array.from({ length: 40 }, () => limiter.consume('client:near', limit, now)));
  expect(readings.filter((r) => r.allowed)).toHaveLength(20);
  // Each admitted request saw its own number: the remaining counts 19 … 0, once each.
  expect(
    readings
      .filter((r) => r.allowed)
      .map((r) => r.remaining)
      .sort((a, b) => b - a),
  ).toEqual(Array.from({ length: 20 }, (_, i) => 19 - i));
  // The first upsert for the first request, then one for all that waited on it (not one each).
  expect(upserts).toBeLessThanOrEqual(2);
  const row = await db('rate_limit_windows').where({ bucket: 'client:near' }).first('count');
  expect(Number(row.count)).toBe(limit - 20 + 40);
});

it('far from the limit still takes a block, which serves requests arriving after it', async () => {
  const limiter = new RateLimiter(db);
  const now = new Date();
  upserts = 0;
  await limiter.consume('client:far', 1_000_000, now);
  for (let i = 0; i < 50; i++) expect((await limiter.consume('client:far', 1_000_000, now)).allowed).toBe(true);
  expect(upserts).toBe(1);
});
