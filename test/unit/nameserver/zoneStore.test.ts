// The zone store: which zone a name belongs to, one-step swaps, and the IXFR journal.
import { describe, expect, it } from 'vitest';
import { TYPE, type ZoneDiff, type ZoneRecord } from '../../../nameserver/types.js';
import { encodeRdata } from '../../../nameserver/wire/rdata.js';
import { buildZoneSnapshot, ZoneError } from '../../../nameserver/zone/snapshot.js';
import { ZoneStore } from '../../../nameserver/zone/store.js';

const soa = (origin: string, serial: number): ZoneRecord => ({
  name: origin,
  type: TYPE.SOA,
  ttl: 3600,
  rdata: encodeRdata('SOA', { mname: `ns.${origin}`, rname: `hostmaster.${origin}`, serial, refresh: 7200, retry: 3600, expire: 1209600, minimum: 300 }),
});
const txt = (name: string, text: string): ZoneRecord => ({ name, type: TYPE.TXT, ttl: 300, rdata: encodeRdata('TXT', { text }) });
const zoneAt = (origin: string, serial = 1) => buildZoneSnapshot(origin, [soa(origin, serial)]);
/** The diff from `serial` to `serial + 1`, with `text` as a new TXT record at the apex. */
const step = (origin: string, serial: number, text = `v${serial + 1}`): ZoneDiff => ({
  fromSerial: serial,
  toSerial: serial + 1,
  removed: [soa(origin, serial)],
  added: [soa(origin, serial + 1), txt(origin, text)],
});

describe('ZoneStore.find: the closest enclosing zone', () => {
  const store = new ZoneStore();
  for (const origin of ['example.com', 'sub.example.com', 'test', 'lab.test']) store.set(zoneAt(origin));

  it.each([
    ['example.com', 'example.com'],
    ['www.example.com', 'example.com'],
    ['sub.example.com', 'sub.example.com'],
    ['a.b.sub.example.com', 'sub.example.com'],
    ['xsub.example.com', 'example.com'],
    ['test', 'test'],
    ['host.lab.test', 'lab.test'],
    ['lab.test.example.com', 'example.com'],
    ['example.org', undefined],
    ['com', undefined],
    ['', undefined],
  ])('%s → %s', (name, origin) => {
    expect(store.find(name)?.origin).toBe(origin);
  });

  it('lists, gets and removes zones', () => {
    expect(store.origins().sort()).toEqual(['example.com', 'lab.test', 'sub.example.com', 'test']);
    const copy = new ZoneStore();
    copy.set(zoneAt('test'));
    copy.set(zoneAt('lab.test'));
    expect(copy.remove('lab.test')).toBe(true);
    expect(copy.remove('lab.test')).toBe(false);
    expect(copy.find('host.lab.test')?.origin).toBe('test');
    expect(copy.get('lab.test')).toBeUndefined();
  });

  it('finds names under a root zone', () => {
    const root = new ZoneStore();
    root.set(zoneAt(''));
    expect(root.find('www.example.com')?.origin).toBe('');
  });
});

describe('ZoneStore swaps', () => {
  it('replaces a zone in one step and counts every change in its generation', () => {
    const store = new ZoneStore();
    const g0 = store.generation;
    const first = zoneAt('example.com', 1);
    store.set(first);
    const second = store.applyDiff('example.com', step('example.com', 1));
    expect(store.get('example.com')).toBe(second);
    expect(store.find('www.example.com')).toBe(second);
    expect(first.serial).toBe(1);
    store.remove('example.com');
    expect(store.generation).toBe(g0 + 3);
  });

  it('keeps the zone (and its journal) when a diff does not apply', () => {
    const store = new ZoneStore();
    const zone = zoneAt('example.com', 1);
    store.set(zone);
    store.applyDiff('example.com', step('example.com', 1));
    const generation = store.generation;
    expect(() => store.applyDiff('example.com', step('example.com', 7))).toThrow(ZoneError);
    expect(store.get('example.com')!.serial).toBe(2);
    expect(store.diffsSince('example.com', 1)).toHaveLength(1);
    expect(store.generation).toBe(generation);
    expect(() => store.applyDiff('nowhere.test', step('nowhere.test', 1))).toThrow(/not served/);
  });
});

describe('ZoneStore journal (IXFR)', () => {
  function storeWithDiffs(count: number, options?: ConstructorParameters<typeof ZoneStore>[0]) {
    const store = new ZoneStore(options);
    store.set(zoneAt('example.com', 1));
    for (let s = 1; s <= count; s++) store.applyDiff('example.com', step('example.com', s));
    return store;
  }

  it('gives the consecutive diffs from a serial to the current one', () => {
    const store = storeWithDiffs(5);
    expect(store.diffsSince('example.com', 3)!.map((d) => [d.fromSerial, d.toSerial])).toEqual([
      [3, 4],
      [4, 5],
      [5, 6],
    ]);
    expect(store.diffsSince('example.com', 1)).toHaveLength(5);
    expect(store.diffsSince('example.com', 6)).toEqual([]);
  });

  it('answers null (AXFR instead) for serials it does not know, and for zones it does not serve', () => {
    const store = storeWithDiffs(3);
    expect(store.diffsSince('example.com', 99)).toBeNull();
    expect(store.diffsSince('example.org', 1)).toBeNull();
  });

  it('starts over when a zone is loaded whole', () => {
    const store = storeWithDiffs(3);
    store.set(zoneAt('example.com', 10));
    expect(store.diffsSince('example.com', 3)).toBeNull();
    expect(store.diffsSince('example.com', 10)).toEqual([]);
  });

  it('keeps the last 100 diffs by default', () => {
    const store = storeWithDiffs(120);
    expect(store.diffsSince('example.com', 20)).toBeNull();
    expect(store.diffsSince('example.com', 21)).toHaveLength(100);
  });

  it('keeps no more bytes than its budget', () => {
    // Each diff: two SOAs and one TXT of ~1 KB.
    const store = new ZoneStore({ journal: { maxBytes: 5000 } });
    store.set(zoneAt('example.com', 1));
    for (let s = 1; s <= 10; s++) store.applyDiff('example.com', step('example.com', s, 'x'.repeat(1000)));
    const kept = store.diffsSince('example.com', 7);
    expect(kept).toHaveLength(4);
    expect(store.diffsSince('example.com', 6)).toBeNull();
  });

  it('refuses to guess when a serial appears twice (after wrap-around)', () => {
    const store = new ZoneStore();
    store.set(zoneAt('example.com', 1));
    store.applyDiff('example.com', step('example.com', 1));
    store.applyDiff('example.com', { fromSerial: 2, toSerial: 1, removed: [soa('example.com', 2)], added: [soa('example.com', 1)] });
    store.applyDiff('example.com', { ...step('example.com', 1, 'again'), removed: [soa('example.com', 1)] });
    expect(store.diffsSince('example.com', 1)).toBeNull();
  });

  it('keeps its own copy of each diff', () => {
    const store = new ZoneStore();
    store.set(zoneAt('example.com', 1));
    const diff = step('example.com', 1);
    store.applyDiff('example.com', diff);
    diff.added.length = 0;
    expect(store.diffsSince('example.com', 1)![0]!.added).toHaveLength(2);
  });
});
