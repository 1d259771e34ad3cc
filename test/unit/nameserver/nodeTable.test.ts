import { describe, expect, it } from 'vitest';
import { finish } from '../../../nameserver/zone/steps.js';
import { NodeTable, type NodeTableEditor, type StoredRRset, type ZoneNode } from '../../../nameserver/zone/nodeTable.js';
import { mulberry32 } from '../../helpers/seededRandom.js';

const set = (key: number, type: number, rdatas: number[][], extra: Partial<Pick<StoredRRset, 'ttls' | 'targets'>> = {}): StoredRRset => ({
  key,
  rrset: { name: '', type, ttl: extra.ttls ? Math.min(...extra.ttls) : 300, rdatas: rdatas.map((r) => Buffer.from(r)) },
  ttls: extra.ttls ?? null,
  targets: extra.targets ?? null,
});

function node(name: string, sets: StoredRRset[], descendants = 0): ZoneNode {
  return { name, descendants, sets: sets.map((s) => ({ ...s, rrset: { ...s.rrset, name } })) };
}

/** A node as plain data, to compare what the table gives back with what went in. */
const plain = (n: ZoneNode | undefined) =>
  n && {
    name: n.name,
    descendants: n.descendants,
    sets: n.sets.map((s) => ({
      key: s.key,
      name: s.rrset.name,
      type: s.rrset.type,
      ttl: s.rrset.ttl,
      rdatas: s.rrset.rdatas.map((r) => [...r]),
      ttls: s.ttls,
      targets: s.targets,
    })),
  };

const commit = (editor: NodeTableEditor) => {
  finish(editor.compact());
  return editor.done();
};

describe('NodeTable: a zone’s nodes packed into one buffer, with an overlay of later changes', () => {
  it('gives back every part of a node: sets, signatures, per-record TTLs, targets, empty non-terminals', () => {
    const nodes = [
      node('example.', [set(6, 6, [[1, 2, 3]]), set(2, 2, [[0], [1]], { targets: ['ns1.example.', 'ns2.example.'] })], 3),
      node('www.example.', [
        set(
          1,
          1,
          [
            [192, 0, 2, 1],
            [192, 0, 2, 2],
          ],
          { ttls: [600, 300] },
        ),
        set(0x10001, 46, [[9, 9]]),
      ]),
      node('mx.example.', [
        set(
          15,
          15,
          [
            [0, 10, 0],
            [0, 20, 0],
          ],
          { targets: ['a.example.', null] },
        ),
      ]),
      node('ent.example.', [], 1),
      node('big.example.', [set(16, 16, [Array.from({ length: 5000 }, (_, i) => i % 256)])]),
    ];
    const table = finish(NodeTable.of(nodes));
    expect(table.size).toBe(5);
    for (const n of nodes) expect(plain(table.get(n.name))).toEqual(plain(n));
    expect(table.get('nothere.example.')).toBeUndefined();
    expect(table.has('ent.example.')).toBe(true);
    expect(table.has('WWW.example.')).toBe(false);
    expect([...table.values()].map(plain).sort((a, b) => a!.name.localeCompare(b!.name))).toEqual(
      nodes.map(plain).sort((a, b) => a!.name.localeCompare(b!.name)),
    );
  });

  it('packs a node larger than a building chunk (1 MiB) whole, between ordinary ones', () => {
    const big = node('huge.example.', [
      set(
        16,
        16,
        Array.from({ length: 20 }, (_, i) => Array.from({ length: 60_000 }, (_, j) => (i + j) % 256)),
      ),
    ]);
    const nodes = [
      ...Array.from({ length: 3000 }, (_, i) => node(`a${i}.example.`, [set(1, 1, [[192, 0, 2, i & 255]])])),
      big,
      ...Array.from({ length: 3000 }, (_, i) => node(`b${i}.example.`, [set(1, 1, [[198, 51, 100, i & 255]])])),
    ];
    const table = finish(NodeTable.of(nodes));
    for (const n of [nodes[0]!, nodes[2999]!, big, nodes[3001]!, nodes.at(-1)!]) expect(plain(table.get(n.name))).toEqual(plain(n));
    expect([...table.values()]).toHaveLength(6001);
  });

  it('keeps a name that is not ASCII as objects, and still finds it', () => {
    const odd = node('caf\u00e9.example.', [set(1, 1, [[192, 0, 2, 9]])]);
    const table = finish(NodeTable.of([odd, node('a.example.', [set(1, 1, [[192, 0, 2, 1]])])]));
    expect(plain(table.get('caf\u00e9.example.'))).toEqual(plain(odd));
    expect(table.get('caf\u00c3\u00a9.example.')).toBeUndefined();
    expect([...table.values()]).toHaveLength(2);
  });

  it('matches a plain map through many versions of changes, repacking as the overlay grows, and never changes an older version', () => {
    const random = mulberry32(28);
    const reference = new Map<string, ZoneNode>();
    for (let i = 0; i < 3000; i++) {
      const n = node(`h${i}.example.`, [set(1, 1, [[10, 0, i >> 8, i & 255]])]);
      reference.set(n.name, n);
    }
    let table = finish(NodeTable.of(reference.values()));
    const versions: [NodeTable, Map<string, ZoneNode>][] = [[table, new Map(reference)]];
    for (let version = 0; version < 12; version++) {
      const editor = table.edit();
      for (let k = 0; k < 400; k++) {
        const name = `h${Math.floor(random() * 4000)}.example.`;
        if (random() < 0.35) {
          editor.delete(name);
          reference.delete(name);
        } else {
          const n = node(name, [set(16, 16, [[version, k & 255]], { ttls: [60 + version] })], k);
          editor.set(name, n);
          reference.set(name, n);
        }
        expect(editor.size).toBe(reference.size);
      }
      table = commit(editor);
      versions.push([table, new Map(reference)]);
    }
    for (const [t, expected] of versions) {
      expect(t.size).toBe(expected.size);
      for (let i = 0; i < 4000; i++) expect(plain(t.get(`h${i}.example.`))).toEqual(plain(expected.get(`h${i}.example.`)));
      expect([...t.values()].map((n) => n.name).sort()).toEqual([...expected.keys()].sort());
    }
  });

  it('repacks once the overlay outgrows its share, and a deleted name stays deleted after that', () => {
    const nodes = Array.from({ length: 100 }, (_, i) => node(`n${i}.example.`, [set(1, 1, [[192, 0, 2, i]])]));
    let table = finish(NodeTable.of(nodes));
    let editor = table.edit();
    editor.delete('n7.example.');
    for (let i = 0; i < 1100; i++) editor.set(`new${i}.example.`, node(`new${i}.example.`, [set(1, 1, [[198, 51, 100, i & 255]])]));
    table = commit(editor);
    expect(table.has('n7.example.')).toBe(false);
    expect(table.size).toBe(99 + 1100);
    editor = table.edit();
    editor.set('n7.example.', node('n7.example.', [set(1, 1, [[203, 0, 113, 7]])]));
    table = commit(editor);
    expect([...table.get('n7.example.')!.sets[0]!.rrset.rdatas[0]!]).toEqual([203, 0, 113, 7]);
    expect([...table.values()]).toHaveLength(1200);
  });
});
