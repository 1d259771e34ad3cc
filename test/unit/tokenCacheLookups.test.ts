// The token cache shares one lookup among the requests of a client that miss together (issue 23:
// under load each lookup waited for a pool connection), and never shares one across an invalidation.
import { expect, it } from 'vitest';
import type { TokenRecord } from '../../src/db/repositories/identityStore.js';
import { TokenCache } from '../../src/services/tokenCache.js';

function deferredLookup() {
  let calls = 0;
  let resolve!: (t: TokenRecord | null) => void;
  const load = () => {
    calls++;
    return new Promise<TokenRecord | null>((r) => (resolve = r));
  };
  return { load, calls: () => calls, answer: (t: TokenRecord | null) => resolve(t) };
}

const token = (id: string) => ({ id }) as unknown as TokenRecord;

it('makes one lookup for requests that miss together, and all get its answer', async () => {
  const cache = new TokenCache();
  const lookup = deferredLookup();
  const gets = Array.from({ length: 5 }, () => cache.get('h1', lookup.load));
  expect(lookup.calls()).toBe(1);
  lookup.answer(token('tok_a'));
  expect((await Promise.all(gets)).map((t) => t?.id)).toEqual(Array(5).fill('tok_a'));
});

it('does not share a lookup that began before an invalidation', async () => {
  const cache = new TokenCache();
  const before = deferredLookup();
  const first = cache.get('h1', before.load);
  cache.invalidate();
  const after = deferredLookup();
  const second = cache.get('h1', after.load);
  expect([before.calls(), after.calls()]).toEqual([1, 1]);
  before.answer(token('old'));
  after.answer(token('new'));
  expect([(await first)?.id, (await second)?.id]).toEqual(['old', 'new']);
  // What was read before the invalidation is not kept: the next request reads again.
  const third = deferredLookup();
  const next = cache.get('h1', third.load);
  expect(third.calls()).toBe(0);
  expect((await next)?.id).toBe('new');
});

it('looks up again after a failed lookup', async () => {
  const cache = new TokenCache();
  await expect(cache.get('h1', () => Promise.reject(new Error('pool timeout')))).rejects.toThrow('pool timeout');
  const again = deferredLookup();
  const got = cache.get('h1', again.load);
  expect(again.calls()).toBe(1);
  again.answer(null);
  expect(await got).toBeNull();
});
