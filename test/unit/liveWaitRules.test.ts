// The pure halves of `Prefer: wait` (docs/api-conventions.md "Waiting until live"): reading the
// header as RFC 7240 §2 and §4.3 write it, and what several change sets waited for together are.
import { describe, expect, it } from 'vitest';
import { preferredWaitSeconds } from '../../src/api/routing/prefer.js';
import { combinedLiveWaitState, isSettled } from '../../src/domain/publication.js';

describe('Prefer: wait (RFC 7240)', () => {
  it.each([
    ['wait=10', 10],
    ['wait=0', 0],
    ['WAIT=7', 7],
    ['Wait = 7', 7],
    ['wait="12"', 12],
    ['respond-async, wait=100', 100],
    ['return=minimal,wait=3', 3],
    ['wait=3; foo="a,b", respond-async', 3],
    ['foo="wait=9, x", wait=4', 4],
    // §2: of a preference given twice only the first counts.
    ['wait=5, wait=9', 5],
    ['wait=abc, wait=9', null],
    ['wait=99999999999999999999', Number.MAX_SAFE_INTEGER],
  ])('%s → %s', (header, seconds) => {
    expect(preferredWaitSeconds(header)).toBe(seconds);
  });

  it.each([undefined, '', 'wait', 'wait=', 'wait=-1', 'wait=1.5', 'wait=1e3', 'wait= 5x', 'wait="5', 'waiting=5', 'respond-async', 'return=minimal'])(
    'ignores %j',
    (header) => {
      expect(preferredWaitSeconds(header)).toBeNull();
    },
  );
});

describe('the state of change sets waited for together', () => {
  it.each([
    [['live', 'live'], 'live'],
    [['live', 'pushed'], 'pushed'],
    [['pushed', 'pending', 'live'], 'pending'],
    [['live', undefined], 'pending'],
    [['pending', 'failed'], 'failed'],
    [['gone', 'pending'], 'gone'],
    [['gone', 'failed'], 'failed'],
  ] as const)('%j → %s', (states, combined) => {
    expect(combinedLiveWaitState(states)).toBe(combined);
  });

  it('ends a wait at live, failed and gone only', () => {
    expect(['pending', 'pushed', 'live', 'failed', 'gone'].filter((s) => isSettled(s as never))).toEqual(['live', 'failed', 'gone']);
  });
});
