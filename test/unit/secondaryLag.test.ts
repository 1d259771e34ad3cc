// The lag of the secondary sets' secondaries as /metrics and /healthz read it: one reading per set
// secondary from the verifier's rows summed up per secondary (readFleetLag; its SQL is exercised
// in test/integration/secondarySets.test.ts).
import { describe, expect, it } from 'vitest';
import type { FleetLag } from '../../src/db/repositories/secondaryLagRows.js';
import { LAG_DEGRADED_MS, lagging, lagReadings } from '../../src/publication/secondaryLag.js';

const at = (s: number) => new Date(Date.UTC(2026, 0, 1) + s * 1000);
const sets: FleetLag['sets'] = [
  {
    id: 'sst_1',
    secondaries: [
      { address: '192.0.2.53', port: 53 },
      { address: '2001:db8::53', port: 5353 },
    ],
  },
];

describe('lagReadings', () => {
  it('gives every set secondary a reading: its lag and oldest wait, 0 and 0 for one behind on nothing, -1 for one silent', () => {
    const fleet: FleetLag = { sets, behind: [{ setId: 'sst_1', host: '192.0.2.53', port: 53, serials: 3, silent: false, since: at(0) }] };
    expect(lagReadings(fleet, at(100))).toEqual([
      { setId: 'sst_1', address: '192.0.2.53:53', serials: 3, seconds: 100 },
      { setId: 'sst_1', address: '[2001:db8::53]:5353', serials: 0, seconds: 0 },
    ]);
    const silent: FleetLag = { sets, behind: [{ setId: 'sst_1', host: '2001:db8::53', port: 5353, serials: 2, silent: true, since: at(0) }] };
    expect(lagReadings(silent, at(1))[1]!.serials).toBe(-1);
  });

  it('names a secondary lagging longer than LAG_DEGRADED_MS, and ignores rows of secondaries no longer in the set', () => {
    const fleet: FleetLag = {
      sets,
      behind: [
        { setId: 'sst_1', host: '192.0.2.53', port: 53, serials: 0, silent: true, since: at(0) },
        { setId: 'sst_1', host: '198.51.100.1', port: 53, serials: 0, silent: true, since: at(0) },
      ],
    };
    expect(lagging(lagReadings(fleet, at(LAG_DEGRADED_MS / 1000 - 1)))).toEqual([]);
    expect(lagging(lagReadings(fleet, at(LAG_DEGRADED_MS / 1000 + 1))).map((r) => r.address)).toEqual(['192.0.2.53:53']);
  });
});
