// The persistent map under every zone snapshot: it must behave like a Map, and every earlier
// version must stay exactly as it was, whatever is done to later ones.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PersistentMap } from '../../../nameserver/zone/persistentMap.js';

// Pairs of keys with the same 32-bit FNV-1a hash (found by search): they share a collision node.
const COLLIDING = ['n512789.example.com', 'n749192.example.com', 'n512788.example.com', 'n749193.example.com'];

const contents = (m: PersistentMap<number>) => new Map([...m.values()].map((v) => [`k${v}`, v]));

describe('PersistentMap', () => {
  it('behaves like a Map, and earlier versions never change', () => {
    const key = fc.oneof(
      fc.integer({ min: 0, max: 3000 }).map((n) => `k${n}`),
      fc.constantFrom(...COLLIDING),
    );
    const op = fc.record({ del: fc.boolean(), key, value: fc.integer({ min: 0, max: 1e6 }) });
    fc.assert(
      fc.property(fc.array(fc.array(op, { maxLength: 300 }), { minLength: 1, maxLength: 6 }), (batches) => {
        let map = PersistentMap.empty<string>();
        const model = new Map<string, string>();
        const versions: [PersistentMap<string>, Map<string, string>][] = [];
        for (const batch of batches) {
          const editor = map.edit();
          for (const { del, key, value } of batch) {
            if (del) {
              editor.delete(key);
              model.delete(key);
            } else {
              editor.set(key, `${key}=${value}`);
              model.set(key, `${key}=${value}`);
            }
          }
          map = editor.done();
          expect(map.size).toBe(model.size);
          expect([...map.values()].sort()).toEqual([...model.values()].sort());
          for (const k of [...model.keys(), 'absent', ...COLLIDING]) expect(map.get(k)).toBe(model.get(k));
          versions.push([map, new Map(model)]);
        }
        for (const [version, expected] of versions) {
          expect(version.size).toBe(expected.size);
          expect([...version.values()].sort()).toEqual([...expected.values()].sort());
        }
      }),
      { numRuns: 60 },
    );
  });

  it('handles keys whose hashes collide, alone and among many others', () => {
    const editor = PersistentMap.empty<number>().edit();
    for (let i = 0; i < 20_000; i++) editor.set(`k${i}`, i);
    const many = editor.done();
    let map = many;
    for (const [i, k] of COLLIDING.entries()) {
      const e = map.edit();
      e.set(k, -1 - i);
      map = e.done();
    }
    for (const [i, k] of COLLIDING.entries()) expect(map.get(k)).toBe(-1 - i);
    expect(map.size).toBe(20_004);
    for (const k of COLLIDING) {
      const e = map.edit();
      e.delete(k);
      map = e.done();
      expect(map.get(k)).toBeUndefined();
    }
    expect(contents(map as PersistentMap<number>)).toEqual(contents(many));
    expect(many.get(COLLIDING[0]!)).toBeUndefined();
  });

  it('refuses an editor used after done()', () => {
    const editor = PersistentMap.empty<number>().edit();
    editor.set('a', 1);
    editor.done();
    expect(() => editor.set('b', 2)).toThrow(/after done/);
  });
});
