// Domain names: the one name module of the service (API validation, zone files, the publication
// build and the server). Names are handled as absolute, lower case dotted strings without the
// trailing dot ('' is the root); a label may carry a dot escaped as "\." (an SOA RNAME's local
// part) and other characters as \DDD (RFC 1035 §5.1). Here: escapes, the tree relations
// (at-or-below, parent), names relative to an origin, and the wire form (RFC 1035 §3.1) both ways.

/** RFC 1035 §2.3.4: a label holds at most 63 octets, a name at most 255 (with length octets). */
export const MAX_LABEL_OCTETS = 63;
export const MAX_NAME_OCTETS = 255;

/** Why a presentation name has no wire form; a RangeError, with a stable code for API problems. */
export class NameSyntaxError extends RangeError {
  constructor(
    readonly code: 'invalid_escape' | 'empty_label' | 'label_too_long' | 'name_too_long' | 'invalid_character',
    message: string,
  ) {
    super(message);
    this.name = 'NameSyntaxError';
  }
}

/** Splits a dotted name into presentation labels, honouring "\." and "\DDD" escapes. */
export function splitLabels(name: string): string[] {
  const labels: string[] = [];
  let start = 0;
  const end = presentationEnd(name);
  while (start < end) {
    const stop = labelEnd(name, start, end);
    labels.push(name.slice(start, stop));
    start = stop + 1;
  }
  return labels;
}

/** Length of `name` without the trailing dot that makes it absolute ("." and "" are the root). */
export function presentationEnd(name: string): number {
  const n = name.length;
  if (n === 0 || name.charCodeAt(n - 1) !== 0x2e) return n;
  // The final dot is escaped when an odd number of backslashes precede it.
  let backslashes = 0;
  for (let i = n - 2; i >= 0 && name.charCodeAt(i) === 0x5c; i--) backslashes++;
  return backslashes % 2 === 1 ? n : n - 1;
}

/**
 * The service's spelling of a name that needs no validation (configuration, key names, DNS
 * answers, names only compared): lower case, without ONE trailing dot. Every other module spells
 * names through this function (or through src/domain/names.ts, which builds on it) rather than by hand.
 */
export function normalizeName(name: string): string {
  const lower = name.toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

/**
 * True when `name` equals `ancestor` or lies below it, label-wise (RFC 1034 §3.1), not
 * string-wise: "badexample.com" is not below "example.com", nor is "a\\.example.com" (one label
 * "a.example"). Both names in the same case (the service keeps them lower case); '' is the root.
 */
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

/** The name one label up: "www.example.com" → "example.com", "com" → "" (the root). */
export function parentName(name: string): string {
  const dot = labelEnd(name, 0);
  return dot >= name.length ? '' : name.slice(dot + 1);
}

/**
 * The absolute name of a name stored relative to `origin`, the service's convention for record
 * owners: '@' is the origin itself; `origin` '' is the root.
 */
export function absoluteName(relative: string, origin: string): string {
  if (relative === '@') return origin;
  return origin === '' ? relative : `${relative}.${origin}`;
}

/** `name` relative to `origin`, at or below which it lies: the inverse of absoluteName. */
export function relativeName(name: string, origin: string): string {
  if (name === origin) return '@';
  return origin === '' ? name : name.slice(0, -(origin.length + 1));
}

/** Index of the unescaped dot ending the label that starts at `start` (or `end`). */
export function labelEnd(name: string, start: number, end = name.length): number {
  let i = start;
  while (i < end) {
    const c = name.charCodeAt(i);
    if (c === 0x2e) return i;
    i += c === 0x5c ? 2 : 1;
  }
  return end;
}

/**
 * Writes one label (length octet and octets) of the presentation text `name[start, end)` at
 * `offset`, decoding escapes and writing non-ASCII characters as UTF-8; A–Z become a–z when
 * `lowerCase` (RFC 4034 §6.2 canonical form). Returns the offset after the label. Throws a
 * RangeError for an empty label, one over 63 octets, a \DDD above 255 or a dangling backslash.
 * Writes at most 64 octets past `offset` before it can fail; callers keep that much room.
 */
export function writeLabel(target: Buffer, offset: number, name: string, start: number, end: number, lowerCase = false): number {
  let pos = offset + 1;
  for (let i = start; i < end; i++) {
    if (pos - offset > MAX_LABEL_OCTETS) throw new NameSyntaxError('label_too_long', `A label of "${name}" is longer than ${MAX_LABEL_OCTETS} octets.`);
    let c = name.charCodeAt(i);
    if (c === 0x5c) {
      if (i + 1 >= end) throw new NameSyntaxError('invalid_escape', `A backslash at the end of a label of "${name}" escapes nothing.`);
      const d1 = name.charCodeAt(i + 1) - 0x30;
      if (d1 >= 0 && d1 <= 9) {
        const d2 = name.charCodeAt(i + 2) - 0x30;
        const d3 = name.charCodeAt(i + 3) - 0x30;
        if (i + 3 >= end || !(d2 >= 0 && d2 <= 9 && d3 >= 0 && d3 <= 9))
          throw new NameSyntaxError('invalid_escape', `"${name}": a \\DDD escape has exactly three decimal digits.`);
        c = d1 * 100 + d2 * 10 + d3;
        if (c > 255) throw new NameSyntaxError('invalid_escape', `"${name}": a \\DDD escape is a decimal octet from 000 to 255.`);
        i += 3;
      } else {
        i += 1;
        c = name.charCodeAt(i);
        if (c >= 0x80) {
          pos = writeUtf8(target, pos, name, i);
          if (c >= 0xd800 && c <= 0xdbff) i++;
          continue;
        }
      }
    } else if (c >= 0x80) {
      pos = writeUtf8(target, pos, name, i);
      if (c >= 0xd800 && c <= 0xdbff) i++;
      continue;
    }
    target[pos++] = lowerCase && c >= 0x41 && c <= 0x5a ? c + 0x20 : c;
  }
  const length = pos - offset - 1;
  if (length === 0) throw new NameSyntaxError('empty_label', `The name "${name}" contains an empty label (two dots in a row, or a leading dot).`);
  if (length > MAX_LABEL_OCTETS)
    throw new NameSyntaxError('label_too_long', `A label of "${name}" is ${length} octets long; at most ${MAX_LABEL_OCTETS} are allowed.`);
  target[offset] = length;
  return pos;
}

/** UTF-8 of the character at `i` (a whole surrogate pair); a lone surrogate has no encoding. */
function writeUtf8(target: Buffer, pos: number, text: string, i: number): number {
  const cp = text.codePointAt(i)!;
  if (cp >= 0xd800 && cp <= 0xdfff) throw new NameSyntaxError('invalid_character', `"${text}" contains an unpaired UTF-16 surrogate.`);
  if (cp < 0x800) {
    target[pos] = 0xc0 | (cp >> 6);
    target[pos + 1] = 0x80 | (cp & 0x3f);
    return pos + 2;
  }
  if (cp < 0x10000) {
    target[pos] = 0xe0 | (cp >> 12);
    target[pos + 1] = 0x80 | ((cp >> 6) & 0x3f);
    target[pos + 2] = 0x80 | (cp & 0x3f);
    return pos + 3;
  }
  target[pos] = 0xf0 | (cp >> 18);
  target[pos + 1] = 0x80 | ((cp >> 12) & 0x3f);
  target[pos + 2] = 0x80 | ((cp >> 6) & 0x3f);
  target[pos + 3] = 0x80 | (cp & 0x3f);
  return pos + 4;
}

/**
 * Writes the uncompressed wire form of `name` at `offset` and returns the offset after it.
 * Throws a RangeError for a malformed name (see writeLabel) or one over 255 octets. The target
 * needs 255 + 64 octets of room at `offset` (a failing name may overrun before it is detected).
 */
export function writeName(target: Buffer, offset: number, name: string, lowerCase = false): number {
  const end = presentationEnd(name);
  let pos = offset;
  let start = 0;
  while (start < end) {
    const stop = labelEnd(name, start, end);
    pos = writeLabel(target, pos, name, start, stop, lowerCase);
    if (pos - offset + 1 > MAX_NAME_OCTETS)
      throw new NameSyntaxError('name_too_long', `The name "${name}" is longer than ${MAX_NAME_OCTETS} octets in wire form.`);
    start = stop + 1;
    // "a..b" and ".a" leave an empty label between dots.
    if (start === end && stop < end)
      throw new NameSyntaxError('empty_label', `The name "${name}" contains an empty label (two dots in a row, or a leading dot).`);
  }
  target[pos++] = 0;
  return pos;
}

const nameScratch = Buffer.alloc(MAX_NAME_OCTETS + 2 * (MAX_LABEL_OCTETS + 1));

/** Wire form of a name (labels as given; callers lower-case what must be lower case). */
export function encodeName(name: string, lowerCase = false): Buffer {
  const end = writeName(nameScratch, 0, name, lowerCase);
  return Buffer.from(nameScratch.subarray(0, end));
}

/** Letters, digits, '-', '_' and '*' stand for themselves in presentation; others are escaped. */
function isPlain(b: number): boolean {
  return (b >= 0x61 && b <= 0x7a) || (b >= 0x41 && b <= 0x5a) || (b >= 0x30 && b <= 0x39) || b === 0x2d || b === 0x5f || b === 0x2a;
}

/** Presentation text of each octet: itself, a backslash before "." and "\\", or \DDD (RFC 1035 §5.1). */
const OCTET_TEXT: readonly string[] = Array.from({ length: 256 }, (_, b) =>
  isPlain(b) ? String.fromCharCode(b) : b === 0x2e || b === 0x5c ? `\\${String.fromCharCode(b)}` : `\\${String(b).padStart(3, '0')}`,
);
/** The same with A–Z as a–z. */
const LOWER_OCTET_TEXT: readonly string[] = OCTET_TEXT.map((text, b) => (b >= 0x41 && b <= 0x5a ? text.toLowerCase() : text));

/**
 * Reads a name at `offset`, following compression pointers (only backwards, at most 127 hops).
 * Returns the dotted name (case kept, or lower case when `lowerCase`) and the offset just after
 * the name in the original place, or null when the bytes do not form a name.
 */
export function decodeName(buf: Buffer, offset: number, lowerCase = false): { name: string; end: number } | null {
  const text = lowerCase ? LOWER_OCTET_TEXT : OCTET_TEXT;
  let name = '';
  let pos = offset;
  let end = -1;
  let hops = 0;
  let octets = 1;
  for (;;) {
    if (pos >= buf.length) return null;
    const len = buf[pos]!;
    if (len === 0) {
      if (end < 0) end = pos + 1;
      break;
    }
    if ((len & 0xc0) === 0xc0) {
      if (pos + 1 >= buf.length) return null;
      const target = ((len & 0x3f) << 8) | buf[pos + 1]!;
      if (end < 0) end = pos + 2;
      if (target >= pos || ++hops > 127) return null;
      pos = target;
      continue;
    }
    if ((len & 0xc0) !== 0) return null;
    if (pos + 1 + len > buf.length) return null;
    octets += 1 + len;
    if (octets > MAX_NAME_OCTETS) return null;
    if (octets > 2 + len) name += '.';
    for (let i = pos + 1; i <= pos + len; i++) name += text[buf[i]!];
    pos += 1 + len;
  }
  return { name, end };
}

/**
 * Reads a name that stands alone in RDATA at `offset` (RFC 3597 §4: no compression pointers
 * outside a message, and none in the RDATA the service stores); null when the bytes there are
 * not an uncompressed name. Same result shape as decodeName.
 */
export function decodeUncompressedName(buf: Buffer, offset: number, lowerCase = false): { name: string; end: number } | null {
  for (let pos = offset; pos < buf.length; pos += 1 + buf[pos]!) {
    if ((buf[pos]! & 0xc0) !== 0) return null;
    if (buf[pos] === 0) return decodeName(buf, offset, lowerCase);
  }
  return null;
}

/**
 * Offset just after the (possibly compressed) name at `offset`, without decoding it, or -1 when
 * the bytes there do not start a well-formed name (the cheap walk used when only skipping).
 */
export function skipName(buf: Buffer, offset: number): number {
  let pos = offset;
  let octets = 1;
  for (;;) {
    if (pos >= buf.length) return -1;
    const len = buf[pos]!;
    if (len === 0) return pos + 1;
    if ((len & 0xc0) === 0xc0) return pos + 2 <= buf.length ? pos + 2 : -1;
    if ((len & 0xc0) !== 0) return -1;
    octets += 1 + len;
    if (octets > MAX_NAME_OCTETS) return -1;
    pos += 1 + len;
  }
}
