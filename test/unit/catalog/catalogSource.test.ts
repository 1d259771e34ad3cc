// The catalog's record source: which zones it renders in, and the group each member gets from the
// set's grouping and the member's DNSSEC state (signed while the zone is served signed).
import { describe, expect, it } from 'vitest';
import { memberOwner } from '../../../src/catalog/catalogRecords.js';
import { catalogSource } from '../../../src/catalog/catalogSource.js';
import type { BuildZone } from '../../../src/db/repositories/versionStore.js';
import { TYPE } from '../../../nameserver/types.js';

const ctx = {
  zone: { id: 'zon_cat', name: 'edge.catalog.invalid', defaultTtl: 3600, soaEmail: 'hostmaster.example' },
  serial: 1,
  nameservers: [],
  signing: null,
};
const members = [
  { zoneId: 'zon_a', name: 'a.example', movedTo: null, dnssecState: 'active' },
  { zoneId: 'zon_b', name: 'b.example', movedTo: null, dnssecState: 'off' },
  { zoneId: 'zon_c', name: 'c.example', movedTo: null, dnssecState: 'unsigning' },
  { zoneId: 'zon_d', name: 'd.example', movedTo: null, dnssecState: 'signing' },
];
const groups = (records: ReturnType<typeof catalogSource.render>) =>
  Object.fromEntries(records.filter((r) => r.type === TYPE.TXT && r.name.startsWith('group.')).map((r) => [r.name.slice(6), r.rdata.subarray(1).toString()]));

describe('catalogSource', () => {
  it('renders in catalog zones only', () => {
    expect(catalogSource.appliesTo({ kind: 'catalog' } as BuildZone)).toBe(true);
    expect(catalogSource.appliesTo({ kind: 'forward' } as BuildZone)).toBe(false);
  });

  it('groups by DNSSEC: signed while the zone is served signed, unsigned otherwise; no group without grouping', () => {
    const grouped = catalogSource.render(ctx, { groupBy: 'dnssec', members });
    expect(groups(grouped)).toEqual({
      [memberOwner('zon_a')]: 'signed',
      [memberOwner('zon_b')]: 'unsigned',
      [memberOwner('zon_c')]: 'unsigned',
      [memberOwner('zon_d')]: 'signed',
    });
    const plain = catalogSource.render(ctx, { groupBy: 'none', members });
    expect(groups(plain)).toEqual({});
    expect(plain.filter((r) => r.type === TYPE.PTR)).toHaveLength(4);
    expect(new Set(plain.map((r) => r.ttl))).toEqual(new Set([3600]));
  });

  it('lists a member that moved to another catalog with its coo property, beside its PTR', () => {
    const moved = catalogSource.render(ctx, { groupBy: 'none', members: [{ ...members[0]!, movedTo: 'signed.catalog.invalid' }] });
    const owner = memberOwner('zon_a');
    expect(moved.filter((r) => r.type === TYPE.PTR).map((r) => r.name)).toEqual([owner, `coo.${owner}`]);
  });
});
