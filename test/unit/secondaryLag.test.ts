// The lag of the secondary sets' secondaries as /metrics and /healthz read it from the verifier's rows.
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
  it('gives every set secondary a reading: the largest lag in serials and the oldest wait, 0 for one behind on nothing', () => {
    const fleet: FleetLag = {
      sets,
      behind: [
        { setId: 'sst_1', host: '192.0.2.53', port: 53, serial: 7, published: 10, since: at(0) },
        { setId: 'sst_1', host: '192.0.2.53', port: 53, serial: 4, published: 5, since: at(30) },
      ],
    };
    expect(lagReadings(fleet, at(100))).toEqual([
      { setId: 'sst_1', address: '192.0.2.53:53', serials: 3, seconds: 100 },
      { setId: 'sst_1', address: '[2001:db8::53]:5353', serials: 0, seconds: 0 },
    ]);
  });

  it('reports -1 for a secondary that answered no serial, across serial wrap-around otherwise', () => {
    const wrapped: FleetLag = { sets, behind: [{ setId: 'sst_1', host: '2001:db8::53', port: 5353, serial: 2 ** 32 - 1, published: 2, since: at(0) }] };
    expect(lagReadings(wrapped, at(1))[1]).toMatchObject({ serials: 3 });
    const down: FleetLag = {
      sets,
      behind: [...wrapped.behind, { setId: 'sst_1', host: '2001:db8::53', port: 5353, serial: null, published: 2, since: at(0) }],
    };
    expect(lagReadings(down, at(1))[1]!.serials).toBe(-1);
  });

  it('names a secondary lagging longer than LAG_DEGRADED_MS, and ignores rows of secondaries no longer in the set', () => {
    const fleet: FleetLag = {
      sets,
      behind: [
        { setId: 'sst_1', host: '192.0.2.53', port: 53, serial: null, published: 10, since: at(0) },
        { setId: 'sst_1', host: '198.51.100.1', port: 53, serial: null, published: 10, since: at(0) },
      ],
    };
    expect(lagging(lagReadings(fleet, at(LAG_DEGRADED_MS / 1000 - 1)))).toEqual([]);
    expect(lagging(lagReadings(fleet, at(LAG_DEGRADED_MS / 1000 + 1))).map((r) => r.address)).toEqual(['192.0.2.53:53']);
  });
});
