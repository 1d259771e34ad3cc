// ZSK rollover by pre-publication (RFC 6781 §4.1.1.1): every step of the decision.
import { describe, expect, it } from 'vitest';
import { type RolloverKey, zskRolloverStep } from '../../../src/domain/dnssec/rollover.js';

const DAY = 86_400_000;
const t0 = new Date('2026-01-01T00:00:00Z');
const at = (ms: number) => new Date(t0.getTime() + ms);
const key = (
  id: string,
  role: 'ksk' | 'zsk',
  state: RolloverKey['state'],
  created: number,
  activated: number | null = created,
  retired: number | null = null,
): RolloverKey => ({
  id,
  role,
  state,
  createdAt: at(created),
  activatedAt: activated === null ? null : at(activated),
  retiredAt: retired === null ? null : at(retired),
});
const times = (now: number, keysServed = true) => ({ now: at(now), lifetimeMs: 90 * DAY, dnskeyTtlMs: 3_600_000, maxTtlMs: DAY, keysServed });

describe('ZSK rollover', () => {
  const ksk = key('k', 'ksk', 'active', 0);

  it('does nothing while the ZSK is within its lifetime', () => {
    expect(zskRolloverStep([ksk, key('z1', 'zsk', 'active', 0)], times(89 * DAY))).toBeNull();
  });

  it('pre-publishes a successor once the lifetime is over', () => {
    expect(zskRolloverStep([ksk, key('z1', 'zsk', 'active', 0)], times(90 * DAY))).toEqual({ kind: 'prepublish' });
  });

  it('activates the successor only after the DNSKEY TTL and once every server serves it', () => {
    const keys = [ksk, key('z1', 'zsk', 'active', 0), key('z2', 'zsk', 'published', 90 * DAY, null)];
    expect(zskRolloverStep(keys, times(90 * DAY + 3_599_000))).toBeNull();
    expect(zskRolloverStep(keys, times(90 * DAY + 3_600_000, false))).toBeNull();
    expect(zskRolloverStep(keys, times(90 * DAY + 3_600_000))).toEqual({ kind: 'activate', successor: 'z2', predecessor: 'z1' });
  });

  it('removes the retired key after the longest TTL of the zone, and only then starts counting the new one', () => {
    const keys = [ksk, key('z1', 'zsk', 'retired', 0, 0, 91 * DAY), key('z2', 'zsk', 'active', 90 * DAY, 91 * DAY)];
    expect(zskRolloverStep(keys, times(91 * DAY + DAY - 1))).toBeNull();
    expect(zskRolloverStep(keys, times(92 * DAY))).toEqual({ kind: 'remove', key: 'z1' });
    expect(zskRolloverStep([ksk, key('z2', 'zsk', 'active', 90 * DAY, 91 * DAY)], times(92 * DAY))).toBeNull();
  });

  it('never touches the KSK', () => {
    expect(zskRolloverStep([key('k', 'ksk', 'active', 0)], times(1000 * DAY))).toBeNull();
  });
});
