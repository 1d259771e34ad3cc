// What an ACME DNS-01 issuance through RFC 2136 must show on the recording taps (test/helpers/
// dnsTap.ts), whichever server took the UPDATEs: shared by the Knot anchor and our service.
import { expect } from 'vitest';
import type { TappedMessage } from './dnsTap.js';

export interface TappedIssuance {
  /** What the client sent and the server answered (the client's tap). */
  sent: TappedMessage[];
  /** What pebble asked and the server answered (the validator's tap). */
  asked: TappedMessage[];
  /** The zone after the run (AXFR), one record a line. */
  after: string[];
  transcript: string;
}

export const updatesOf = (sent: TappedMessage[], from: 'client' | 'server') => sent.filter((m) => m.opcode === 'UPDATE' && m.from === from);

/**
 * Two UPDATEs (publish, clean up), each signed with `algorithm` (its wire name) and answered
 * NOERROR; the first adds the TXT at `challenge` (absolute, with the final dot); pebble's TXT
 * query for it got the TXT; no `_acme-challenge` record is left in the zone.
 */
export function expectCleanIssuance(o: TappedIssuance, challenge: string, algorithm: string): void {
  const updates = updatesOf(o.sent, 'client');
  expect(updates.length, o.transcript).toBe(2); // publish, clean up
  for (const u of updates) expect(u.tsig?.algorithm.toLowerCase(), o.transcript).toBe(algorithm);
  expect(
    updates[0]!.authority.some((r) => r.name === challenge && r.type === 'TXT' && r.class === 'IN'),
    o.transcript,
  ).toBe(true);
  expect(updatesOf(o.sent, 'server').map((m) => m.rcode)).toEqual(['NOERROR', 'NOERROR']);
  const validated = o.asked.filter((m) => m.from === 'server' && m.question?.name.toLowerCase() === challenge && m.question.type === 'TXT');
  expect(
    validated.some((m) => m.answer.some((r) => r.type === 'TXT')),
    o.transcript,
  ).toBe(true);
  expect(o.after.filter((l) => l.toLowerCase().includes('_acme-challenge'))).toEqual([]);
}
