// Decoding of master-file tokens (RFC 1035 §5.1): `\DDD` (decimal octet) and `\X` (X itself)
// escapes in character-strings, domain names relative to an origin (escapes decoded by the name
// module), and TTLs with BIND-style units.
import { encodeName, NameSyntaxError, presentationEnd } from '../../../nameserver/wire/name.js';

/** A decoding problem: a stable code and a sentence for the user. */
export interface TextProblem {
  code: string;
  detail: string;
}

export type Decoded<T> = { ok: true; value: T } | ({ ok: false } & TextProblem);

const BACKSLASH = 0x5c;
const DOT = 0x2e;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

// fatal: refuse invalid UTF-8 instead of replacing it; ignoreBOM: an EF BB BF at the start of a TXT
// string is data, not a byte order mark to strip.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The text of UTF-8 octets, or null when they are not valid UTF-8. */
function decodeUtf8(octets: Uint8Array): string | null {
  try {
    return utf8.decode(octets);
  } catch {
    return null;
  }
}

/** Appends the UTF-8 encoding of one code point (a lone surrogate becomes U+FFFD, as TextEncoder does). */
function pushUtf8(out: number[], cp: number): void {
  if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;
  if (cp < 0x80) out.push(cp);
  else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 0x3f));
  else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
  else out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
}

/**
 * Reads the escape starting at the backslash `i`: `\DDD` is one octet (000–255, exactly three
 * digits), `\X` is the character X. Returns the octets appended and the index after the escape.
 */
function readEscape(text: string, i: number, out: number[]): Decoded<{ next: number; octet: number | null }> {
  const c1 = text.charCodeAt(i + 1);
  if (Number.isNaN(c1)) return { ok: false, code: 'invalid_escape', detail: 'A backslash at the end of a token escapes nothing.' };
  if (isDigit(c1)) {
    const c2 = text.charCodeAt(i + 2);
    const c3 = text.charCodeAt(i + 3);
    if (!isDigit(c2) || !isDigit(c3)) {
      return { ok: false, code: 'invalid_escape', detail: `"${text.slice(i, i + 4)}": a \\DDD escape has exactly three decimal digits.` };
    }
    const octet = (c1 - 0x30) * 100 + (c2 - 0x30) * 10 + (c3 - 0x30);
    if (octet > 255) {
      return { ok: false, code: 'invalid_escape', detail: `"${text.slice(i, i + 4)}": a \\DDD escape is a decimal octet from 000 to 255.` };
    }
    out.push(octet);
    return { ok: true, value: { next: i + 4, octet } };
  }
  const cp = text.codePointAt(i + 1)!;
  pushUtf8(out, cp);
  return { ok: true, value: { next: i + 1 + (cp > 0xffff ? 2 : 1), octet: cp < 0x80 ? cp : null } };
}

/** The octets of a token (a <character-string>), escapes decoded. */
export function tokenOctets(text: string): Decoded<number[]> {
  const out: number[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) {
      const esc = readEscape(text, i, out);
      if (!esc.ok) return esc;
      i = esc.value.next;
    } else {
      const cp = text.codePointAt(i)!;
      pushUtf8(out, cp);
      i += cp > 0xffff ? 2 : 1;
    }
  }
  return { ok: true, value: out };
}

/** The text of one or more tokens joined with nothing between them (TXT, CAA values), as UTF-8. */
export function tokensText(texts: readonly string[], what: string): Decoded<string> {
  // Fast path: without escapes the token text is the text (the file was decoded already).
  let escaped = false;
  for (const t of texts) if (t.includes('\\')) escaped = true;
  if (!escaped) return { ok: true, value: texts.length === 1 ? texts[0]! : texts.join('') };
  const octets: number[] = [];
  for (const t of texts) {
    const decoded = tokenOctets(t);
    if (!decoded.ok) return decoded;
    for (const o of decoded.value) octets.push(o);
  }
  const value = decodeUtf8(Uint8Array.from(octets));
  if (value === null) return { ok: false, code: 'invalid_rdata', detail: `${what}: the octets (after decoding \\DDD escapes) are not valid UTF-8.` };
  return { ok: true, value };
}

/** A domain name in presentation form, split into labels. */
export interface PresentationName {
  /** Decoded labels, leftmost first; empty for the root. */
  labels: string[];
  /** Ends with an unescaped dot (or is "."): not relative to the origin. */
  absolute: boolean;
}

/**
 * Splits a name token into labels at unescaped dots and decodes escapes, with the name module's
 * one escape decoder (nameserver/wire/name.ts: the token goes to wire form and back). A label
 * containing a dot (`\.` or `\046`) cannot be represented in our names: `invalid_character`.
 * Labels must be UTF-8 (IDNA then applies); an empty label (`a..b`, `.a`) is `empty_label`; bad
 * escapes are `invalid_escape`; labels over 63 and names over 255 octets are refused here too.
 */
export function parseName(text: string): Decoded<PresentationName> {
  if (text === '.') return { ok: true, value: { labels: [], absolute: true } };
  if (text === '') return { ok: false, code: 'empty_name', detail: 'The name is empty.' };
  const absolute = presentationEnd(text) < text.length;
  let wire: Buffer;
  try {
    wire = encodeName(text);
  } catch (e) {
    if (e instanceof NameSyntaxError) return { ok: false, code: e.code, detail: e.message };
    throw e;
  }
  const labels: string[] = [];
  for (let pos = 0; wire[pos]! > 0; pos += 1 + wire[pos]!) {
    const octets = wire.subarray(pos + 1, pos + 1 + wire[pos]!);
    if (octets.includes(DOT)) {
      return {
        ok: false,
        code: 'invalid_character',
        detail: `The name "${text}" has a label containing an escaped dot; labels may contain only a-z, 0-9, "-" and "_".`,
      };
    }
    const label = decodeUtf8(octets);
    if (label === null) return { ok: false, code: 'invalid_character', detail: `A label of "${text}" is not valid UTF-8 after decoding its escapes.` };
    labels.push(label);
  }
  return { ok: true, value: { labels, absolute } };
}

/**
 * The absolute name (no trailing dot; '' for the root) of a parsed name: relative names get the
 * origin appended ('' = the root origin).
 */
export function absoluteText(name: PresentationName, origin: string): string {
  const own = name.labels.join('.');
  if (name.absolute || origin === '') return own;
  return own === '' ? origin : `${own}.${origin}`;
}

/** RFC 2181 §8: a TTL is an unsigned 31-bit number. */
const MAX_TTL = 2_147_483_647;

const UNIT_SECONDS: Record<string, number> = { w: 604_800, d: 86_400, h: 3_600, m: 60, s: 1 };
const PLAIN_SECONDS = /^[0-9]+$/;
const WITH_UNITS = /^(?:[0-9]+[wdhms])+$/i;
const UNIT_PART = /([0-9]+)([wdhms])/gi;

/**
 * A TTL in seconds: plain decimal seconds, or BIND's unit form (`1h`, `2d`, `1w2d3h4m5s`; units
 * w, d, h, m, s in any case). Null when not a TTL or above 2^31 − 1 (RFC 2181 §8).
 */
export function parseTtl(text: string): number | null {
  let seconds: number;
  if (PLAIN_SECONDS.test(text)) {
    seconds = Number(text);
  } else if (WITH_UNITS.test(text)) {
    seconds = 0;
    for (const m of text.matchAll(UNIT_PART)) seconds += Number(m[1]) * UNIT_SECONDS[m[2]!.toLowerCase()]!;
  } else {
    return null;
  }
  return Number.isSafeInteger(seconds) && seconds <= MAX_TTL ? seconds : null;
}
