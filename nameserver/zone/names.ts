// Where a name sits in the tree. Names are absolute, lower case, without the trailing dot, '' for
// the root, in the presentation form of nameserver/wire/name.ts: a label may hold an escaped dot
// ("\."), so labels are split at unescaped dots only. Slicing the name itself (rather than
// splitting and joining labels) keeps the per-query walk free of string building.

// At-or-below and the parent live in the one name module (escapes included); re-exported for
// the answer logic and the snapshot, which walk the tree with them.

/**
 * The names from just below `ancestor` down to `name` itself, top-down:
 * ("a.b.example.com", "example.com") → ["b.example.com", "a.b.example.com"].
 * `name` must be at or below `ancestor`; for the ancestor itself the list is empty.
 */
export function namesBelow(name: string, ancestor: string): string[] {
  if (name === ancestor) return [];
  const relativeLength = ancestor === '' ? name.length : name.length - ancestor.length - 1;
  const starts = [0];
  for (let i = 0; i < relativeLength; i++) {
    const c = name.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x2e) starts.push(i + 1);
  }
  const names: string[] = [];
  for (let i = starts.length - 1; i >= 0; i--) names.push(name.slice(starts[i]));
  return names;
}

/** The wildcard that may stand for names directly below `name` (RFC 4592 §2.1.1). */
export function wildcardBelow(name: string): string {
  return name === '' ? '*' : `*.${name}`;
}

/**
 * The name on the way from `ancestor` down to `name` that has one label more than `ancestor`:
 * ("a.b.example.com", "example.com") → "b.example.com". RFC 5155 §1.3 calls it the next closer
 * name when `ancestor` is the closest encloser. `name` must be strictly below `ancestor`.
 */
export function childTowards(name: string, ancestor: string): string {
  const relativeLength = ancestor === '' ? name.length : name.length - ancestor.length - 1;
  let start = 0;
  for (let i = 0; i < relativeLength; i++) {
    const c = name.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x2e) start = i + 1;
  }
  return start === 0 ? name : name.slice(start);
}
