// Where a name sits in the tree. Names are absolute, lower case, without the trailing dot, '' for
// the root, in the presentation form of nameserver/wire/name.ts: a label may hold an escaped dot
// ("\."), so labels are split at unescaped dots only. Slicing the name itself (rather than
// splitting and joining labels) keeps the per-query walk free of string building.

/** Index of the first dot that separates labels, or -1 for a single-label name. */
function firstSeparator(name: string): number {
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c === 0x5c /* \ */) i++; // the escaped character (or the first digit of \DDD) is not a separator
    else if (c === 0x2e /* . */) return i;
  }
  return -1;
}

/** The name one label up: "www.example.com" → "example.com", "com" → "" (the root). */
export function parentName(name: string): string {
  const dot = firstSeparator(name);
  return dot < 0 ? '' : name.slice(dot + 1);
}

/** True when `name` equals `ancestor` or lies below it (label-wise, not string-wise). */
export function isAtOrBelow(name: string, ancestor: string): boolean {
  if (name === ancestor || ancestor === '') return true;
  if (name.length <= ancestor.length + 1 || !name.endsWith(ancestor)) return false;
  const dot = name.length - ancestor.length - 1;
  if (name.charCodeAt(dot) !== 0x2e) return false;
  // The dot separates labels only if it is not itself escaped: an even run of backslashes before it.
  let backslashes = 0;
  for (let i = dot - 1; i >= 0 && name.charCodeAt(i) === 0x5c; i--) backslashes++;
  return backslashes % 2 === 0;
}

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
