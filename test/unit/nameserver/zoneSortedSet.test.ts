// The persistent sorted set under a snapshot's canonical-order indexes: it must behave like a
// sorted array under any sequence of additions and removals (through splits, merges and
// redistributions), stay balanced, answer neighbour searches, and leave every earlier version
// exactly as it was.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type KeyOrder, PersistentSortedSet } from '../../../nameserver/zone/persistentSortedSet.js';
import { mulberry32 } from '../../helpers/seededRandom.js';

const NUMBERS: KeyOrder<number> = { compare: (a, b) => a - b, seek: (a, b) => a - b };

/** The model's answer to a neighbour search: the last (or first) key meeting `ok`. */
const lastWhere = (keys: number[], ok: (k: number) => boolean) => keys.filter(ok).at(-1);
const firstWhere = (keys: number[], ok: (k: number) => boolean) => keys.find(ok);

/** The B+ tree as the module builds it (read through a cast: the shape is private). */
interface TreeNode {
  keys?: number[];
  seps?: number[];
  children?: TreeNode[];
}

/**
 * The invariants the module promises: every node but the root holds 16 to 32 entries, every leaf
 * is at the same depth, and each separator lies above every key to its left and at or below every
 * key to its right. Returns the keys in the order the tree holds them.
 */
function checkTree(set: PersistentSortedSet<number>): number[] {
  const root = (set as unknown as { root: TreeNode }).root;
  const depths = new Set<number>();
  const faults: string[] = [];
  const walk = (node: TreeNode, depth: number, low: number, high: number): number[] => {
    const entries = node.keys?.length ?? node.children!.length;
    if (node !== root && (entries < 16 || entries > 32)) faults.push(`a node of ${entries} entries at depth ${depth}`);
    if (node.keys) {
      depths.add(depth);
      for (const k of node.keys) if (!(k >= low && k < high)) faults.push(`${k} outside [${low}, ${high})`);
      return node.keys;
    }
    if (node.seps!.length !== node.children!.length - 1) faults.push(`${node.seps!.length} separators for ${node.children!.length} children`);
    return node.children!.flatMap((child, i) => walk(child, depth + 1, i === 0 ? low : node.seps![i - 1]!, i < node.seps!.length ? node.seps![i]! : high));
  };
  const keys = walk(root, 0, -Infinity, Infinity);
  if (depths.size > 1) faults.push(`leaves at depths ${[...depths].join(', ')}`);
  expect(faults.slice(0, 5)).toEqual([]);
  return keys;
}

function expectSame(set: PersistentSortedSet<number>, model: Set<number>) {
  const keys = [...model].sort((a, b) => a - b);
  expect([...set.values()]).toEqual(keys);
  expect(checkTree(set)).toEqual(keys);
  expect(set.size).toBe(keys.length);
  expect(set.first()).toBe(keys[0]);
  expect(set.last()).toBe(keys.at(-1));
  // Balanced: non-root nodes hold at least 16 entries, so the height is logarithmic in the size.
  expect(set.height).toBeLessThanOrEqual(2 + Math.floor(Math.log(Math.max(1, keys.length)) / Math.log(16)));
  return keys;
}

describe('PersistentSortedSet', () => {
  it('behaves like a sorted array, answers neighbour searches, and earlier versions never change', () => {
    const op = fc.record({ del: fc.boolean(), key: fc.integer({ min: 0, max: 4000 }) });
    // Long runs of one kind grow the tree several levels and shrink it again.
    const batch = fc.oneof(
      fc.array(op, { maxLength: 400 }),
      fc.array(
        op.map((o) => ({ ...o, del: true })),
        { maxLength: 1500 },
      ),
      fc.array(
        op.map((o) => ({ ...o, del: false })),
        { maxLength: 1500 },
      ),
    );
    fc.assert(
      fc.property(fc.array(batch, { minLength: 1, maxLength: 6 }), fc.array(fc.integer({ min: -1, max: 4001 }), { maxLength: 30 }), (batches, probes) => {
        let set = PersistentSortedSet.empty(NUMBERS);
        const model = new Set<number>();
        const versions: [PersistentSortedSet<number>, number[]][] = [];
        for (const changes of batches) {
          const editor = set.edit();
          for (const { del, key } of changes) {
            if (del) {
              editor.delete(key);
              model.delete(key);
            } else {
              editor.add(key);
              model.add(key);
            }
            expect(editor.size).toBe(model.size);
          }
          set = editor.done();
          const keys = expectSame(set, model);
          for (const p of [...probes, ...keys.slice(0, 5)]) {
            expect(set.has(p)).toBe(model.has(p));
            expect(set.atOrBefore(p)).toBe(lastWhere(keys, (k) => k <= p));
            expect(set.before(p)).toBe(lastWhere(keys, (k) => k < p));
            expect(set.atOrAfter(p)).toBe(firstWhere(keys, (k) => k >= p));
            expect(set.after(p)).toBe(firstWhere(keys, (k) => k > p));
          }
          versions.push([set, keys]);
        }
        // Separators included: an earlier version must still search right, not only list right.
        for (const [version, keys] of versions) expect(checkTree(version)).toEqual(keys);
      }),
      { numRuns: 40 },
    );
  });

  it('keeps its shape through growth and shrinkage over several levels (splits, merges, redistributions)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), (seed) => {
        const next = mulberry32(seed);
        const random = (n: number) => Math.floor(next() * n);
        const model = new Set(Array.from({ length: 12_000 }, (_, i) => i * 2));
        let set = PersistentSortedSet.fromSorted([...model], NUMBERS);
        const first = set;
        const history: [PersistentSortedSet<number>, number[]][] = [];
        for (let round = 0; round < 6; round++) {
          const editor = set.edit();
          // Mostly removals, some additions, in random order: the tree shrinks from three levels.
          for (let i = 0; i < 3000; i++) {
            const key = random(26_000);
            if (random(5) === 0) {
              editor.add(key);
              model.add(key);
            } else {
              editor.delete(key);
              model.delete(key);
            }
          }
          set = editor.done();
          expectSame(set, model);
          history.push([set, [...model].sort((x, y) => x - y)]);
        }
        for (const [version, keys] of history) expect(checkTree(version)).toEqual(keys);
        expect(checkTree(first)).toEqual(Array.from({ length: 12_000 }, (_, i) => i * 2));
      }),
      { numRuns: 5 },
    );
  });

  it('shares structure: one change to a large set leaves the old version intact and copies one path', () => {
    const keys = Array.from({ length: 100_000 }, (_, i) => 2 * i);
    const big = PersistentSortedSet.fromSorted(keys, NUMBERS);
    const plusOne = big.edit().add(12_345).done();
    const minusOne = plusOne.edit().delete(0).done();
    expect(big.size).toBe(100_000);
    expect(big.has(12_345)).toBe(false);
    expect([...big.values()]).toEqual(keys);
    expect(plusOne.size).toBe(100_001);
    expect(plusOne.atOrBefore(12_346)).toBe(12_346);
    expect(plusOne.before(12_346)).toBe(12_345);
    expect(minusOne.first()).toBe(2);
    expect(plusOne.first()).toBe(0);
    expect(big.height).toBeLessThanOrEqual(5);
  });

  it('returns the same set from an editor that changed nothing, and refuses use after done()', () => {
    const set = PersistentSortedSet.fromSorted([1, 2, 3], NUMBERS);
    expect(set.edit().done()).toBe(set);
    const editor = set.edit();
    editor.add(4);
    editor.done();
    expect(() => editor.add(5)).toThrow(/after done/);
    expect(() => editor.done()).toThrow(/after done/);
    expect([...set.values()]).toEqual([1, 2, 3]);
  });

  it('builds from sorted keys in any count, and refuses keys out of order or repeated', () => {
    for (const n of [0, 1, 31, 32, 33, 1023, 1025, 40_000]) {
      const keys = Array.from({ length: n }, (_, i) => i * 3);
      const set = PersistentSortedSet.fromSorted(keys, NUMBERS);
      expect([...set.values()]).toEqual(keys);
      // Bottom-up nodes are valid nodes: removing down to nothing goes through every merge.
      const editor = set.edit();
      for (const k of keys) editor.delete(k);
      expect([...editor.done().values()]).toEqual([]);
    }
    expect(() => PersistentSortedSet.fromSorted([1, 3, 2], NUMBERS)).toThrow(RangeError);
    expect(() => PersistentSortedSet.fromSorted([1, 1], NUMBERS)).toThrow(RangeError);
  });

  it('searches in the coarser seek order: every key equal to the one sought there is a match', () => {
    // Keys placed by their exact text, sought case-insensitively.
    const caseless = (a: string, b: string) => (a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : 0);
    const order: KeyOrder<string> = { compare: (a, b) => caseless(a, b) || (a < b ? -1 : a > b ? 1 : 0), seek: caseless };
    const editor = PersistentSortedSet.empty(order).edit();
    for (const k of ['b', 'B', 'a', 'C', 'c', 'd']) editor.add(k);
    const set = editor.done();
    expect([...set.values()]).toEqual(['a', 'B', 'b', 'C', 'c', 'd']);
    expect(set.has('b') && set.has('B') && !set.has('A')).toBe(true);
    expect(set.atOrBefore('b')).toBe('b');
    expect(set.atOrBefore('B')).toBe('b');
    expect(set.before('B')).toBe('a');
    expect(set.atOrAfter('c')).toBe('C');
    expect(set.after('C')).toBe('d');
  });
});
