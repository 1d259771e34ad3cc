// An immutable sorted set that shares structure between versions: a B+ tree (keys in the leaves,
// separators above) whose nodes are never changed once a version is sealed; a change copies the one
// path from the root to the leaf it touches (path copying). With 16 to 32 entries per node a set of
// a million keys is four or five levels deep: adding or removing a key costs about twenty
// comparisons and a few small array copies, and the set itself costs little more than one pointer
// per key, far less than a binary tree's node per key.
//
// Batches of changes go through a SortedSetEditor, with the same ownership tokens as the hash
// trie's MapEditor (./persistentMap.ts): nodes made by an open editor are changed in place, nodes of
// earlier versions are copied on first write.
//
// Searches take a second, coarser order (`seek`): the one the caller asks in. Every key it calls
// equal to the one sought counts as a match (see KeyOrder).

/** An editor's identity; a node created under it may be changed in place while the editor is open. */
type Token = object;

/** Most entries of a node; a node of an earlier version is never below MIN unless it is the root. */
const MAX = 32;
const MIN = MAX / 2;

class Leaf<K> {
  constructor(
    public token: Token | null,
    public keys: K[],
  ) {}
}

/** Child i holds the keys k with seps[i - 1] <= k < seps[i] (seps.length === children.length - 1). */
class Inner<K> {
  constructor(
    public token: Token | null,
    public seps: K[],
    public children: Node<K>[],
    /** True while `seps` is still the array of the node this one was copied from: copy before writing. */
    public sepsShared = false,
  ) {}
}

type Node<K> = Leaf<K> | Inner<K>;

export interface KeyOrder<K> {
  /** A total order: 0 only for the same key. It places keys in the set. */
  readonly compare: (a: K, b: K) => number;
  /**
   * The order searches are made in: the same as `compare`, or coarser (keys `compare` tells apart
   * may be equal here), never contrary to it: compare(a, b) < 0 implies seek(a, c) <= seek(b, c)
   * in sign for every c.
   */
  readonly seek: (a: K, b: K) => number;
}

const sizeOf = <K>(node: Node<K>) => (node instanceof Leaf ? node.keys.length : node.children.length);

/** The first index whose key is >= `key` (`strict` false) or > `key` (`strict` true). */
function bound<K>(keys: readonly K[], key: K, cmp: (a: K, b: K) => number, strict: boolean): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = cmp(keys[mid]!, key);
    if (c < 0 || (strict && c === 0)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function firstOf<K>(node: Node<K>): K | undefined {
  while (node instanceof Inner) node = node.children[0]!;
  return node.keys[0];
}

function lastOf<K>(node: Node<K>): K | undefined {
  while (node instanceof Inner) node = node.children[node.children.length - 1]!;
  return node.keys[node.keys.length - 1];
}

/**
 * The greatest key k with seek(k, key) <= 0 (`strict` false) or < 0 (`strict` true). Keys of
 * later children are at or above a separator that is past `key`; when the chosen child holds no
 * key that qualifies, the last key of the one before it does (it lies below a separator that is not
 * past `key`).
 */
function below<K>(node: Node<K>, key: K, seek: (a: K, b: K) => number, strict: boolean): K | undefined {
  if (node instanceof Leaf) {
    const at = bound(node.keys, key, seek, !strict) - 1;
    return at >= 0 ? node.keys[at] : undefined;
  }
  const at = bound(node.seps, key, seek, !strict);
  return below(node.children[at]!, key, seek, strict) ?? (at > 0 ? lastOf(node.children[at - 1]!) : undefined);
}

/** The least key k with seek(k, key) >= 0 (`strict` false) or > 0 (`strict` true); mirrors `below`. */
function above<K>(node: Node<K>, key: K, seek: (a: K, b: K) => number, strict: boolean): K | undefined {
  if (node instanceof Leaf) {
    const at = bound(node.keys, key, seek, strict);
    return at < node.keys.length ? node.keys[at] : undefined;
  }
  const at = bound(node.seps, key, seek, strict);
  return above(node.children[at]!, key, seek, strict) ?? (at + 1 < node.children.length ? firstOf(node.children[at + 1]!) : undefined);
}

function contains<K>(node: Node<K>, key: K, compare: (a: K, b: K) => number): boolean {
  while (node instanceof Inner) node = node.children[bound(node.seps, key, compare, true)]!;
  const at = bound(node.keys, key, compare, false);
  return at < node.keys.length && compare(node.keys[at]!, key) === 0;
}

function* keysOf<K>(root: Node<K>): IterableIterator<K> {
  const stack: Node<K>[] = [root];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (node instanceof Leaf) yield* node.keys;
    else for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
}

/**
 * A copy of an inner node that this editor may change. Most changes replace one child and leave
 * the separators alone, so the copy shares them until it writes one (writableSeps): a one-key
 * change then copies one array per level instead of two.
 */
function ownInner<K>(node: Inner<K>, token: Token): Inner<K> {
  return node.token === token ? node : new Inner(token, node.seps, node.children.slice(), true);
}

function writableSeps<K>(node: Inner<K>): K[] {
  if (node.sepsShared) {
    node.seps = node.seps.slice();
    node.sepsShared = false;
  }
  return node.seps;
}

/** `keys` with `key` inserted at `at`, in an array of exactly the size needed (a copy kept by later versions). */
function inserted<K>(keys: readonly K[], at: number, key: K): K[] {
  const out = new Array<K>(keys.length + 1);
  for (let i = 0; i < at; i++) out[i] = keys[i]!;
  out[at] = key;
  for (let i = at; i < keys.length; i++) out[i + 1] = keys[i]!;
  return out;
}

/** `keys` without the one at `at`, likewise. */
function removed<K>(keys: readonly K[], at: number): K[] {
  const out = new Array<K>(keys.length - 1);
  for (let i = 0; i < at; i++) out[i] = keys[i]!;
  for (let i = at + 1; i < keys.length; i++) out[i - 1] = keys[i]!;
  return out;
}

/** What an insertion hands up besides the changed node: the new right sibling when it split. */
interface Split<K> {
  sep: K;
  right: Node<K>;
}

class Change<K> {
  size: number;
  split: Split<K> | null = null;

  constructor(
    readonly token: Token,
    readonly compare: (a: K, b: K) => number,
    size: number,
  ) {
    this.size = size;
  }
}

function insert<K>(node: Node<K>, key: K, change: Change<K>): Node<K> {
  const { compare, token } = change;
  if (node instanceof Leaf) {
    const at = bound(node.keys, key, compare, false);
    if (at < node.keys.length && compare(node.keys[at]!, key) === 0) return node;
    change.size++;
    let own = node;
    if (node.token === token) node.keys.splice(at, 0, key);
    else own = new Leaf(token, inserted(node.keys, at, key));
    if (own.keys.length > MAX) {
      const right = new Leaf(token, own.keys.slice(MAX / 2));
      own.keys = own.keys.slice(0, MAX / 2);
      change.split = { sep: right.keys[0]!, right };
    }
    return own;
  }
  const at = bound(node.seps, key, compare, true);
  const child = node.children[at]!;
  const next = insert(child, key, change);
  const split = change.split;
  if (next === child && split === null) return node;
  const own = ownInner(node, token);
  own.children[at] = next;
  change.split = null;
  if (split) {
    own.children.splice(at + 1, 0, split.right);
    writableSeps(own).splice(at, 0, split.sep);
    if (own.children.length > MAX) {
      const half = MAX / 2;
      const right = new Inner(token, own.seps.slice(half), own.children.slice(half));
      change.split = { sep: own.seps[half - 1]!, right };
      own.seps = own.seps.slice(0, half - 1);
      own.children = own.children.slice(0, half);
    }
  }
  return own;
}

function remove<K>(node: Node<K>, key: K, change: Change<K>): Node<K> {
  const { compare, token } = change;
  if (node instanceof Leaf) {
    const at = bound(node.keys, key, compare, false);
    if (at >= node.keys.length || compare(node.keys[at]!, key) !== 0) return node;
    change.size--;
    if (node.token !== token) return new Leaf(token, removed(node.keys, at));
    node.keys.splice(at, 1);
    return node;
  }
  const at = bound(node.seps, key, compare, true);
  const child = node.children[at]!;
  const size = change.size;
  const next = remove(child, key, change);
  // Not `next === child`: a child this editor owns shrinks in place, and may need rebalancing.
  if (change.size === size) return node;
  const own = ownInner(node, token);
  own.children[at] = next;
  if (sizeOf(next) < MIN) rebalance(own, at, token);
  return own;
}

/**
 * Child `at` of `parent` (owned) fell below MIN: merge it with a neighbour when both fit in one
 * node, else share their entries evenly between the two. Either way both stay at or above MIN.
 */
function rebalance<K>(parent: Inner<K>, at: number, token: Token): void {
  writableSeps(parent);
  const l = at > 0 ? at - 1 : at;
  const left = parent.children[l]!;
  const right = parent.children[l + 1]!;
  const sep = parent.seps[l]!;
  if (left instanceof Leaf && right instanceof Leaf) {
    const keys = left.keys.concat(right.keys);
    if (keys.length <= MAX) {
      parent.children.splice(l, 2, new Leaf(token, keys));
      parent.seps.splice(l, 1);
    } else {
      const half = keys.length >>> 1;
      parent.children.splice(l, 2, new Leaf(token, keys.slice(0, half)), new Leaf(token, keys.slice(half)));
      parent.seps[l] = keys[half]!;
    }
    return;
  }
  const a = left as Inner<K>;
  const b = right as Inner<K>;
  const children = a.children.concat(b.children);
  const seps = [...a.seps, sep, ...b.seps];
  if (children.length <= MAX) {
    parent.children.splice(l, 2, new Inner(token, seps, children));
    parent.seps.splice(l, 1);
  } else {
    const half = children.length >>> 1;
    parent.children.splice(l, 2, new Inner(token, seps.slice(0, half - 1), children.slice(0, half)), new Inner(token, seps.slice(half), children.slice(half)));
    parent.seps[l] = seps[half - 1]!;
  }
}

/** Splits `count` entries into the fewest groups of at most MAX, as even as can be (so each >= MIN). */
function groups(count: number): number[] {
  const n = Math.max(1, Math.ceil(count / MAX));
  return Array.from({ length: n }, (_, i) => Math.floor((count * (i + 1)) / n) - Math.floor((count * i) / n));
}

export class PersistentSortedSet<K> {
  private constructor(
    private readonly root: Node<K>,
    readonly size: number,
    readonly order: KeyOrder<K>,
  ) {
    Object.freeze(this);
  }

  static empty<K>(order: KeyOrder<K>): PersistentSortedSet<K> {
    return new PersistentSortedSet<K>(new Leaf<K>(null, []), 0, order);
  }

  /** A set of `keys`, which must be in strictly increasing `order.compare` order: built bottom-up in O(n). */
  static fromSorted<K>(keys: readonly K[], order: KeyOrder<K>): PersistentSortedSet<K> {
    for (let i = 1; i < keys.length; i++) {
      if (order.compare(keys[i - 1]!, keys[i]!) >= 0) throw new RangeError('fromSorted needs keys in strictly increasing order');
    }
    let level: Node<K>[] = [];
    let lows: K[] = [];
    let from = 0;
    for (const n of groups(keys.length)) {
      level.push(new Leaf<K>(null, keys.slice(from, from + n)));
      lows.push(keys[from]!);
      from += n;
    }
    while (level.length > 1) {
      const up: Node<K>[] = [];
      const upLows: K[] = [];
      from = 0;
      for (const n of groups(level.length)) {
        up.push(new Inner<K>(null, lows.slice(from + 1, from + n), level.slice(from, from + n)));
        upLows.push(lows[from]!);
        from += n;
      }
      level = up;
      lows = upLows;
    }
    return new PersistentSortedSet(level[0]!, keys.length, order);
  }

  has(key: K): boolean {
    return contains(this.root, key, this.order.compare);
  }

  // Each search may name a seek order of its own (one that holds for the key sought, e.g. a
  // cheaper one for keys of a known shape); it must meet the same condition as `order.seek`.

  /** The greatest key at or before `key` (in the `seek` order), or undefined. */
  atOrBefore(key: K, seek = this.order.seek): K | undefined {
    return below(this.root, key, seek, false);
  }

  /** The greatest key before `key`, or undefined. */
  before(key: K, seek = this.order.seek): K | undefined {
    return below(this.root, key, seek, true);
  }

  /** The least key at or after `key`, or undefined. */
  atOrAfter(key: K, seek = this.order.seek): K | undefined {
    return above(this.root, key, seek, false);
  }

  /** The least key after `key`, or undefined. */
  after(key: K, seek = this.order.seek): K | undefined {
    return above(this.root, key, seek, true);
  }

  first(): K | undefined {
    return firstOf(this.root);
  }

  last(): K | undefined {
    return lastOf(this.root);
  }

  /** Every key, in order. */
  values(): IterableIterator<K> {
    return keysOf(this.root);
  }

  /** Levels from the root to the leaves (1 for a single leaf): log_32(size) at most, plus one. */
  get height(): number {
    let height = 1;
    for (let node = this.root; node instanceof Inner; node = node.children[0]!) height++;
    return height;
  }

  /** Starts a batch of changes; this version stays as it is. */
  edit(): SortedSetEditor<K> {
    return new SortedSetEditor<K>(this, this.root, this.size, (root, size) => new PersistentSortedSet(root, size, this.order));
  }
}

/** Changes a set in place until `done()`, which returns the new version. */
export class SortedSetEditor<K> {
  /** Made on the first change: most edits of a zone's NSEC and NSEC3 sets change nothing. */
  private change: Change<K> | null = null;
  private closed = false;

  constructor(
    private readonly base: PersistentSortedSet<K>,
    private root: Node<K>,
    private readonly baseSize: number,
    private readonly seal: (root: Node<K>, size: number) => PersistentSortedSet<K>,
  ) {}

  get order(): KeyOrder<K> {
    return this.base.order;
  }

  get size(): number {
    return this.change?.size ?? this.baseSize;
  }

  has(key: K): boolean {
    return contains(this.root, key, this.base.order.compare);
  }

  add(key: K): this {
    const change = this.open();
    const root = insert(this.root, key, change);
    const split = change.split;
    change.split = null;
    this.root = split ? new Inner(change.token, [split.sep], [root, split.right]) : root;
    return this;
  }

  delete(key: K): this {
    let root = remove(this.root, key, this.open());
    // The root alone may hold fewer than MIN; an inner root left with one child gives way to it.
    while (root instanceof Inner && root.children.length === 1) root = root.children[0]!;
    this.root = root;
    return this;
  }

  /** The new version; the same object as before when nothing changed. */
  done(): PersistentSortedSet<K> {
    if (this.closed) throw new Error('SortedSetEditor used after done()');
    // From here on no node carries a live token (the editor's token dies with it): every later
    // change copies what it touches.
    this.closed = true;
    return this.change === null ? this.base : this.seal(this.root, this.change.size);
  }

  private open(): Change<K> {
    if (this.closed) throw new Error('SortedSetEditor used after done()');
    return (this.change ??= new Change({}, this.base.order.compare, this.baseSize));
  }
}
