// The lag of the secondary sets' secondaries as /metrics and /healthz read it.
import { describe, expect, it } from 'vitest';
import { LAG_DEGRADED_MS, SecondaryLag } from '../../src/publication/secondaryLag.js';

const edge = { setId: 'sst_1', setName: 'edge', host: '192.0.2.53', port: 53 };
const v6 = { setId: 'sst_1', setName: 'edge', host: '2001:db8::53', port: 5353 };
const at = (s: number) => new Date(Date.UTC(2026, 0, 1) + s * 1000);

describe('SecondaryLag', () => {
  it('keeps the largest lag in serials and the oldest wait per secondary, and clears a zone it serves', () => {
    const lag = new SecondaryLag();
    lag.observe(edge, 'zon_a', 10, { kind: 'serial', serial: 7 }, at(0));
    lag.observe(edge, 'zon_b', 5, { kind: 'serial', serial: 4 }, at(30));
    lag.observe(edge, 'zon_a', 11, { kind: 'serial', serial: 8 }, at(60));
    expect(lag.readings(at(100))).toEqual([{ setId: 'sst_1', setName: 'edge', address: '192.0.2.53:53', serials: 3, seconds: 100 }]);
    lag.observe(edge, 'zon_a', 11, { kind: 'serial', serial: 11 }, at(120));
    expect(lag.readings(at(130))[0]).toMatchObject({ serials: 1, seconds: 100 });
    lag.observe(edge, 'zon_b', 5, { kind: 'serial', serial: 6 }, at(140));
    expect(lag.readings(at(150))[0]).toMatchObject({ serials: 0, seconds: 0 });
  });

  it('reports -1 for a secondary that answered no serial, across serial wrap-around otherwise', () => {
    const lag = new SecondaryLag();
    lag.observe(v6, 'zon_a', 2, { kind: 'serial', serial: 2 ** 32 - 1 }, at(0));
    expect(lag.readings(at(1))[0]).toMatchObject({ address: '[2001:db8::53]:5353', serials: 3 });
    lag.observe(v6, 'zon_b', 2, { kind: 'unreachable', message: 'timeout' }, at(0));
    expect(lag.readings(at(1))[0]!.serials).toBe(-1);
  });

  it('names a secondary lagging longer than LAG_DEGRADED_MS, and forgets one taken out of its set', () => {
    const lag = new SecondaryLag();
    lag.observe(edge, 'zon_a', 10, { kind: 'not_served', rcode: 5 }, at(0));
    expect(SecondaryLag.lagging(lag.readings(at(LAG_DEGRADED_MS / 1000 - 1)))).toEqual([]);
    expect(SecondaryLag.lagging(lag.readings(at(LAG_DEGRADED_MS / 1000 + 1)))).toHaveLength(1);
    lag.keepOnly('zon_a', [v6]);
    expect(lag.readings(at(1000))).toEqual([]);
  });
});
