// A prefix's delegation check asks the parents of all its reverse zones (up to 256 for a /16) while
// the request's transaction waits: a few lookups run at once, each zone is asked exactly once, and
// a zone the parent could not be asked about keeps its `unreachable` with the others' answers.
import { describe, expect, it } from 'vitest';
import { type ObservedDelegation, observeDelegations } from '../../../src/domain/ip/delegation.js';

const zones = Array.from({ length: 20 }, (_, i) => `${i}.2.0.192.in-addr.arpa`);

describe('observeDelegations', () => {
  it('asks every zone once, a few at a time, and keeps each answer with its zone', async () => {
    let inFlight = 0;
    let most = 0;
    const asked: string[] = [];
    const observe = async (zone: string): Promise<ObservedDelegation> => {
      asked.push(zone);
      most = Math.max(most, ++inFlight);
      // Answers come back out of order: a later zone can finish first.
      await new Promise((r) => setTimeout(r, (zones.length - zones.indexOf(zone)) % 5));
      inFlight--;
      return zone.startsWith('3.') ? { unreachable: 'timeout' } : { delegatedTo: [`ns.${zone}`] };
    };
    const seen = await observeDelegations(zones, observe);
    expect([...asked].sort()).toEqual([...zones].sort());
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(8);
    for (const zone of zones) expect(seen.get(zone)).toEqual(zone.startsWith('3.') ? { unreachable: 'timeout' } : { delegatedTo: [`ns.${zone}`] });
  });

  it('asks nothing for a prefix without zones', async () => {
    const seen = await observeDelegations([], () => Promise.reject(new Error('not asked')));
    expect(seen.size).toBe(0);
  });
});
