// How many request numbers an API process takes from the shared window at once
// (src/services/rateLimiter.ts blockSize): one at a time near the limit, so no process admits a
// request numbered above it; blocks far from it, so one upsert serves many requests.
import { describe, expect, it } from 'vitest';
import { blockSize } from '../../src/services/rateLimiter.js';

describe('blockSize(limit, counted)', () => {
  it.each([
    [6, 0, 1],
    [10, 0, 1],
    [300, 0, 18],
    [300, 280, 1],
    [300, 299, 1],
    [1_000_000, 0, 64],
    [1_000_000, 999_990, 1],
    [300, 300, 64],
    [300, 5000, 64],
  ])('limit %i with %i counted → %i', (limit, counted, size) => {
    expect(blockSize(limit, counted)).toBe(size);
  });

  it('never takes more than is left, while anything is left', () => {
    const tooLarge: string[] = [];
    for (let limit = 1; limit <= 2000; limit += 7) {
      for (let counted = 0; counted < limit; counted += 3) if (blockSize(limit, counted) > limit - counted) tooLarge.push(`${limit}/${counted}`);
    }
    expect(tooLarge).toEqual([]);
  });
});
