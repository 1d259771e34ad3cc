// Automatic ZSK rollover by pre-publication (RFC 6781 §4.1.1.1), as one pure decision the worker
// applies (docs/dnssec.md "Key rollover"): a ZSK that has signed for its lifetime gets a successor
// published beside it; once every server serves the successor and the DNSKEY TTL has passed, the
// successor signs and the old key retires (still published: resolvers may hold signatures made
// with it); once the longest TTL in the zone has passed, the old key goes. At no moment does a
// resolver hold a signature whose key it cannot find, nor a DNSKEY set without the signing key.

export interface RolloverKey {
  id: string;
  role: 'ksk' | 'zsk';
  state: 'published' | 'active' | 'retired';
  createdAt: Date;
  activatedAt: Date | null;
  retiredAt: Date | null;
}

export type RolloverStep = { kind: 'prepublish' } | { kind: 'activate'; successor: string; predecessor: string } | { kind: 'remove'; key: string };

export interface RolloverTimes {
  now: Date;
  /** How long a ZSK signs before its successor is published. */
  lifetimeMs: number;
  /** DNSKEY TTL: how long a published successor waits before it signs. */
  dnskeyTtlMs: number;
  /** The longest TTL of the zone's records: how long a retired key stays published. */
  maxTtlMs: number;
  /** Every server serves every key of the zone (the successor included). */
  keysServed: boolean;
}

const age = (since: Date | null, now: Date) => (since ? now.getTime() - since.getTime() : 0);

export function zskRolloverStep(keys: readonly RolloverKey[], t: RolloverTimes): RolloverStep | null {
  const zsks = keys.filter((k) => k.role === 'zsk');
  const retired = zsks.find((k) => k.state === 'retired');
  if (retired) return age(retired.retiredAt, t.now) >= t.maxTtlMs ? { kind: 'remove', key: retired.id } : null;
  const active = zsks.find((k) => k.state === 'active');
  const successor = zsks.find((k) => k.state === 'published');
  if (!active) return null;
  if (successor) {
    return age(successor.createdAt, t.now) >= t.dnskeyTtlMs && t.keysServed ? { kind: 'activate', successor: successor.id, predecessor: active.id } : null;
  }
  return age(active.activatedAt, t.now) >= t.lifetimeMs ? { kind: 'prepublish' } : null;
}
