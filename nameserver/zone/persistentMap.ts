// An immutable string-keyed map that shares structure between versions: a hash array mapped trie
// (Bagwell, "Ideal Hash Trees", 2001). Each level consumes five bits of a 32-bit hash and keeps only
// the children that exist, behind a 32-bit bitmap, so a version costs memory in proportion to its
// entries, and changing one entry copies one path of at most seven small arrays — whatever the size
// of the map. This is what lets a one-record change to a zone of a million names cost about what it
// costs in a zone of a hundred, while the previous snapshot keeps answering unchanged.
//
// Many changes at once (building a zone, a large diff) go through a MapEditor: nodes created by an
// editor carry its token and are changed in place until `done()`; nodes of earlier versions never
// carry the token and are copied on first write (Clojure's transients, the same idea).

const BITS = 5;
const MASK = 0x1f;

/** An editor's identity; a node created under it may be changed in place while the editor is open. */
type Token = object;

class Leaf<V> {
  constructor(
    readonly hash: number,
    readonly key: string,
    readonly value: V,
  ) {}
}

class Branch<V> {
  constructor(
    public token: Token | null,
    public bitmap: number,
    public children: Node<V>[],
  ) {}
}

/** Keys whose 32-bit hashes are equal (all bits consumed); compared one by one. */
class Collision<V> {
  constructor(
    public token: Token | null,
    readonly hash: number,
    public leaves: Leaf<V>[],
  ) {}
}

type Node<V> = Leaf<V> | Branch<V> | Collision<V>;

/** FNV-1a (32 bits) starts from this offset basis... */
export const FNV_BASIS = 0x811c9dc5;

/** ...and folds in one code unit or octet at a time; the hash is the result `>>> 0`. */
export function fnvStep(h: number, unit: number): number {
  return Math.imul(h ^ unit, 0x01000193);
}

/** FNV-1a over the UTF-16 code units; names are short ASCII strings. */
export function stringHash(key: string): number {
  let h = FNV_BASIS;
  for (let i = 0; i < key.length; i++) h = fnvStep(h, key.charCodeAt(i));
  return h >>> 0;
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

const bitAt = (hash: number, shift: number) => 1 << ((hash >>> shift) & MASK);
const indexOf = (bitmap: number, bit: number) => popcount(bitmap & (bit - 1));

function ownBranch<V>(node: Branch<V>, token: Token): Branch<V> {
  return node.token === token ? node : new Branch(token, node.bitmap, node.children.slice());
}

function ownCollision<V>(node: Collision<V>, token: Token): Collision<V> {
  return node.token === token ? node : new Collision(token, node.hash, node.leaves.slice());
}

/** A branch (or chain of branches) holding two nodes whose hashes differ. */
function split<V>(a: Leaf<V> | Collision<V>, b: Leaf<V>, shift: number, token: Token): Node<V> {
  if (a.hash === b.hash) return new Collision(token, a.hash, [a as Leaf<V>, b]);
  const ia = (a.hash >>> shift) & MASK;
  const ib = (b.hash >>> shift) & MASK;
  // Hashes that differ differ in some bit 0..31, which shifts 0..30 reach: the recursion ends.
  if (ia === ib) return new Branch(token, 1 << ia, [split(a, b, shift + BITS, token)]);
  return new Branch(token, (1 << ia) | (1 << ib), ia < ib ? [a, b] : [b, a]);
}

interface Counter {
  size: number;
}

function insert<V>(node: Node<V>, shift: number, leaf: Leaf<V>, token: Token, count: Counter): Node<V> {
  if (node instanceof Branch) {
    const bit = bitAt(leaf.hash, shift);
    const at = indexOf(node.bitmap, bit);
    if ((node.bitmap & bit) === 0) {
      count.size++;
      const own = ownBranch(node, token);
      own.children.splice(at, 0, leaf);
      own.bitmap |= bit;
      return own;
    }
    const child = node.children[at]!;
    const next = insert(child, shift + BITS, leaf, token, count);
    if (next === child) return node;
    const own = ownBranch(node, token);
    own.children[at] = next;
    return own;
  }
  if (node instanceof Leaf) {
    if (node.key === leaf.key) return leaf;
    count.size++;
    return split(node, leaf, shift, token);
  }
  if (node.hash !== leaf.hash) {
    count.size++;
    return split(node, leaf, shift, token);
  }
  const own = ownCollision(node, token);
  const at = own.leaves.findIndex((l) => l.key === leaf.key);
  if (at >= 0) own.leaves[at] = leaf;
  else {
    own.leaves.push(leaf);
    count.size++;
  }
  return own;
}

/** The node without `key`: the same node when absent, null when nothing is left. */
function remove<V>(node: Node<V>, shift: number, hash: number, key: string, token: Token, count: Counter): Node<V> | null {
  if (node instanceof Branch) {
    const bit = bitAt(hash, shift);
    if ((node.bitmap & bit) === 0) return node;
    const at = indexOf(node.bitmap, bit);
    const child = node.children[at]!;
    const next = remove(child, shift + BITS, hash, key, token, count);
    if (next === child) return node;
    if (next === null && node.bitmap === bit) return shift === 0 ? new Branch(token, 0, []) : null;
    // A branch left with one leaf collapses into it: lookups compare keys at the leaf, so a leaf
    // may sit higher than its hash prefix requires. The root stays a branch.
    if (shift > 0 && node.children.length === 2 && next === null) {
      const other = node.children[1 - at]!;
      if (!(other instanceof Branch)) return other;
    }
    if (shift > 0 && node.children.length === 1 && next !== null && !(next instanceof Branch)) return next;
    const own = ownBranch(node, token);
    if (next === null) {
      own.children.splice(at, 1);
      own.bitmap &= ~bit;
    } else own.children[at] = next;
    return own;
  }
  if (node instanceof Leaf) {
    if (node.key !== key) return node;
    count.size--;
    return null;
  }
  if (node.hash !== hash) return node;
  const at = node.leaves.findIndex((l) => l.key === key);
  if (at < 0) return node;
  count.size--;
  if (node.leaves.length === 2) return node.leaves[1 - at]!;
  const own = ownCollision(node, token);
  own.leaves.splice(at, 1);
  return own;
}

function lookup<V>(root: Branch<V>, key: string): V | undefined {
  const hash = stringHash(key);
  let node: Node<V> = root;
  let shift = 0;
  for (;;) {
    if (node instanceof Branch) {
      const bit = bitAt(hash, shift);
      if ((node.bitmap & bit) === 0) return undefined;
      node = node.children[indexOf(node.bitmap, bit)]!;
      shift += BITS;
    } else if (node instanceof Leaf) {
      return node.key === key ? node.value : undefined;
    } else {
      for (const leaf of node.leaves) if (leaf.key === key) return leaf.value;
      return undefined;
    }
  }
}

function* valuesOf<V>(root: Branch<V>): IterableIterator<V> {
  const stack: Node<V>[] = [root];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (node instanceof Branch) for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
    else if (node instanceof Leaf) yield node.value;
    else for (const leaf of node.leaves) yield leaf.value;
  }
}

export class PersistentMap<V> {
  private constructor(
    private readonly root: Branch<V>,
    readonly size: number,
  ) {
    Object.freeze(this);
  }

  static empty<V>(): PersistentMap<V> {
    return new PersistentMap<V>(new Branch<V>(null, 0, []), 0);
  }

  get(key: string): V | undefined {
    return lookup(this.root, key);
  }

  has(key: string): boolean {
    return lookup(this.root, key) !== undefined;
  }

  /** Values in hash order (stable for a given set of keys, unrelated to insertion order). */
  values(): IterableIterator<V> {
    return valuesOf(this.root);
  }

  /** Starts a batch of changes; this version stays as it is. */
  edit(): MapEditor<V> {
    return new MapEditor<V>(this.root, this.size, (root, size) => new PersistentMap(root, size));
  }
}

/** Changes a map in place until `done()`, which returns the new version. Values must not be undefined. */
export class MapEditor<V> {
  private token: Token | null = {};
  private readonly count: Counter;

  constructor(
    private root: Branch<V>,
    size: number,
    private readonly seal: (root: Branch<V>, size: number) => PersistentMap<V>,
  ) {
    this.count = { size };
  }

  get size(): number {
    return this.count.size;
  }

  get(key: string): V | undefined {
    return lookup(this.root, key);
  }

  has(key: string): boolean {
    return lookup(this.root, key) !== undefined;
  }

  set(key: string, value: V): this {
    this.root = insert(this.root, 0, new Leaf(stringHash(key), key, value), this.open(), this.count) as Branch<V>;
    return this;
  }

  delete(key: string): this {
    this.root = remove(this.root, 0, stringHash(key), key, this.open(), this.count) as Branch<V>;
    return this;
  }

  done(): PersistentMap<V> {
    this.open();
    // From here on no node carries a live token: every later change copies what it touches.
    this.token = null;
    return this.seal(this.root, this.count.size);
  }

  private open(): Token {
    if (this.token === null) throw new Error('MapEditor used after done()');
    return this.token;
  }
}
