// DNSSEC's canonical order of names (RFC 4034 §6.1): compare the rightmost labels first; labels
// compare as strings of octets, with US-ASCII upper-case letters taken as lower case; a label that
// is a prefix of the other sorts first, and so does the name that runs out of labels first (the
// "absent" label sorts before any other). NSEC chains follow this order (RFC 4034 §4.1.1), and so
// do NSEC3 chains, whose owners differ only in the base32hex first label (RFC 5155 §3, §4.3: the
// extended-hex alphabet keeps the hashes' order).
//
// Names here are the presentation strings the zone holds (nameserver/types.ts: absolute, no
// trailing dot, '' for the root), in which a label may carry "\." and "\\", a character escaped as
// "\X", or an octet as "\DDD" (RFC 1035 §5.1), and a character above U+007F stands for its UTF-8
// octets (as nameserver/wire/name.ts writes it). The comparison decodes those escapes, so "\065"
// and "a" are the same label and "\200" sorts after "*" (0x2a) and "\001": the order is the one of
// the wire octets, whatever the spelling. The common case — labels of plain ASCII — is compared
// character by character without decoding or allocating.

/** Label start offsets of two names, reused between calls (a name of 255 octets has at most 127 labels). */
let startsA = new Int32Array(256);
let startsB = new Int32Array(256);
/** Decoded octets of the rest of two labels, for the escaped or non-ASCII case. */
let octetsA = new Uint16Array(256);
let octetsB = new Uint16Array(256);

/** Fills `starts` with the offset of each label of `name[0, end)`, left to right; returns the count. */
function labelStarts(name: string, end: number, starts: Int32Array): number {
  if (end === 0) return 0;
  let count = 0;
  starts[count++] = 0;
  for (let i = 0; i < end; i++) {
    const c = name.charCodeAt(i);
    if (c === 0x5c /* \ */)
      i++; // the escaped character (or the first digit of \DDD) is not a separator
    else if (c === 0x2e /* . */) starts[count++] = i + 1;
  }
  return count;
}

const lower = (c: number) => (c >= 0x41 && c <= 0x5a ? c + 0x20 : c);
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

/**
 * The octets of `name[from, to)` (part of one label), lower-cased, into `into`; returns how many.
 * Malformed text still gets a place in the order: a dangling backslash is the octet 0x5c, and a
 * \DDD above 255 its number (so such names sort after every well-formed label that shares their
 * prefix), and a lone UTF-16 surrogate the three octets of its code unit.
 */
function decodeOctets(name: string, from: number, to: number, into: Uint16Array): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    let c = name.charCodeAt(i);
    if (c === 0x5c) {
      if (i + 1 >= to) {
        into[n++] = 0x5c;
        continue;
      }
      const d1 = name.charCodeAt(i + 1);
      if (isDigit(d1) && i + 3 < to && isDigit(name.charCodeAt(i + 2)) && isDigit(name.charCodeAt(i + 3))) {
        into[n++] = lower((d1 - 0x30) * 100 + (name.charCodeAt(i + 2) - 0x30) * 10 + (name.charCodeAt(i + 3) - 0x30));
        i += 3;
        continue;
      }
      c = d1;
      i++;
    }
    if (c < 0x80) {
      into[n++] = lower(c);
      continue;
    }
    let cp = c;
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < to) {
      const low = name.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        cp = 0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00);
        i++;
      }
    }
    if (cp < 0x800) {
      into[n++] = 0xc0 | (cp >> 6);
      into[n++] = 0x80 | (cp & 0x3f);
    } else if (cp < 0x10000) {
      into[n++] = 0xe0 | (cp >> 12);
      into[n++] = 0x80 | ((cp >> 6) & 0x3f);
      into[n++] = 0x80 | (cp & 0x3f);
    } else {
      into[n++] = 0xf0 | (cp >> 18);
      into[n++] = 0x80 | ((cp >> 12) & 0x3f);
      into[n++] = 0x80 | ((cp >> 6) & 0x3f);
      into[n++] = 0x80 | (cp & 0x3f);
    }
  }
  return n;
}

/** Compares the rests of two labels octet by octet, after decoding their escapes. */
function compareDecoded(a: string, i: number, aEnd: number, b: string, j: number, bEnd: number): number {
  // Each character gives at most four octets.
  if (octetsA.length < 4 * (aEnd - i)) octetsA = new Uint16Array(4 * (aEnd - i));
  if (octetsB.length < 4 * (bEnd - j)) octetsB = new Uint16Array(4 * (bEnd - j));
  const na = decodeOctets(a, i, aEnd, octetsA);
  const nb = decodeOctets(b, j, bEnd, octetsB);
  const n = Math.min(na, nb);
  for (let k = 0; k < n; k++) if (octetsA[k] !== octetsB[k]) return octetsA[k]! - octetsB[k]!;
  return na - nb;
}

function compareLabels(a: string, i: number, aEnd: number, b: string, j: number, bEnd: number): number {
  while (i < aEnd && j < bEnd) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(j);
    // Everything before here was one octet per character on both sides, so the rests line up.
    if (x === 0x5c || y === 0x5c || x >= 0x80 || y >= 0x80) return compareDecoded(a, i, aEnd, b, j, bEnd);
    if (x !== y) {
      const d = lower(x) - lower(y);
      if (d !== 0) return d;
    }
    i++;
    j++;
  }
  // Any character left stands for at least one octet: the label with more left is the longer one.
  return aEnd - i - (bEnd - j);
}

/**
 * RFC 4034 §6.1 canonical order of two names: negative when `a` sorts first, 0 when they are the
 * same name (whatever their case or escaping), positive when `b` does. Only the sign is meaningful.
 */
export function compareCanonical(a: string, b: string): number {
  return a === b ? 0 : compareRanges(a, a.length, b, b.length);
}

/**
 * compareCanonical for two names at or below `origin`, where each name given is `origin` itself
 * or ends in "." + `origin` (a zone's names, as the snapshot checks them): only the parts before
 * the origin are compared, since the rightmost labels are the same. An index of a zone compares
 * this way (a third of the characters read for names like "h123.z1.bench.example"); names of any
 * other shape get a wrong answer.
 */
export function canonicalOrderBelow(origin: string): (a: string, b: string) => number {
  const n = origin.length;
  if (n === 0) return compareCanonical;
  const relative = (name: string) => (name.length === n ? 0 : name.length - n - 1);
  // A search compares one key sought (always `b`) with about twenty in a row: where its last label
  // starts is found once.
  let sought: string | undefined;
  let soughtLength = 0;
  let soughtDot = 0;
  return (a, b) => {
    if (a === b) return 0;
    if (b !== sought) {
      sought = b;
      soughtLength = relative(b);
      soughtDot = lastDot(b, soughtLength);
    }
    return compareRanges(a, relative(a), b, soughtLength, soughtDot);
  };
}

/** The last dot in `name[0, end)`, or -1. */
function lastDot(name: string, end: number): number {
  let i = end - 1;
  while (i >= 0 && name.charCodeAt(i) !== 0x2e) i--;
  return i;
}

/** compareRanges' `bLastDot` when the caller has not looked. */
const UNKNOWN = -2;

/**
 * The names `a[0, aLength)` and `b[0, bLength)` in canonical order, label by label from the right.
 * A dot right after a backslash may be escaped ("\." is, "\\." is not): then the whole
 * comparison is left to compareByLabels, which reads every escape. Escapes inside a label are
 * compareLabels' business.
 */
function compareRanges(a: string, aLength: number, b: string, bLength: number, bLastDot = UNKNOWN): number {
  let aEnd = aLength > 0 ? aLength : -1;
  let bEnd = bLength > 0 ? bLength : -1;
  for (let first = true; ; first = false) {
    if (aEnd < 0) return bEnd < 0 ? 0 : -1;
    if (bEnd < 0) return 1;
    const aDot = lastDot(a, aEnd);
    const bDot = first && bLastDot !== UNKNOWN ? bLastDot : lastDot(b, bEnd);
    if ((aDot > 0 && a.charCodeAt(aDot - 1) === 0x5c) || (bDot > 0 && b.charCodeAt(bDot - 1) === 0x5c)) return compareByLabels(a, aLength, b, bLength);
    const d = compareLabels(a, aDot + 1, aEnd, b, bDot + 1, bEnd);
    if (d !== 0) return d;
    // -1 when that was the leftmost label: none left.
    aEnd = aDot;
    bEnd = bDot;
  }
}

/** The general case: split both names into labels, decode escapes where there are any. */
function compareByLabels(a: string, aLength: number, b: string, bLength: number): number {
  if (startsA.length <= aLength) startsA = new Int32Array(aLength + 1);
  if (startsB.length <= bLength) startsB = new Int32Array(bLength + 1);
  const na = labelStarts(a, aLength, startsA);
  const nb = labelStarts(b, bLength, startsB);
  for (let ia = na - 1, ib = nb - 1; ia >= 0 && ib >= 0; ia--, ib--) {
    const aEnd = ia + 1 < na ? startsA[ia + 1]! - 1 : aLength;
    const bEnd = ib + 1 < nb ? startsB[ib + 1]! - 1 : bLength;
    const d = compareLabels(a, startsA[ia]!, aEnd, b, startsB[ib]!, bEnd);
    if (d !== 0) return d;
  }
  return na - nb;
}

/**
 * A total order on name strings that refines the canonical one: names that are the same in
 * canonical order but spelled differently ("a" and "\097") are told apart by their text, so that an
 * index keyed by this order holds exactly the strings a hash map keyed by them would.
 */
export function compareNameKeys(a: string, b: string): number {
  return compareCanonical(a, b) || (a < b ? -1 : a > b ? 1 : 0);
}
