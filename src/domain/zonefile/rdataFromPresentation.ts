// The RDATA tokens of one master-file record turned into our `data` object for its type (the
// fields of src/domain/records/<type>.ts), BEFORE parseRecordData: this module checks the shape
// of the presentation (field count, numbers, quoting, escapes) and resolves relative names; the
// values themselves (address syntax, ranges, host name rules, CAA tags) are parseRecordData's.
import { encodeRdata, rdataToData } from '../../../nameserver/wire/rdata.js';
import { codecOf } from '../../../nameserver/wire/types/index.js';
import { absoluteText, parseName, tokensText, type Decoded } from './presentationText.js';
import { svcParamsFromTokens } from './svcParams.js';
import { forEachLogicalRecord, type LexError, type Token } from './tokenize.js';

export type RdataResult = Decoded<Record<string, unknown>>;

const DECIMAL = /^[0-9]+$/;
const HEX = /^[0-9a-fA-F]*$/;

const invalid = (detail: string): { ok: false; code: string; detail: string } => ({ ok: false, code: 'invalid_rdata', detail });

/**
 * A name inside RDATA as our data holds it: absolute, lower case, without trailing dot; the root
 * stays '.'. `@` is the origin. `origin` is the current $ORIGIN ('' = root), null when invalid.
 */
function rdataName(token: Token, origin: string | null, what: string): Decoded<string> {
  if (token.quoted) return invalid(`${what} is a domain name and cannot be quoted.`);
  if (token.text === '@') {
    if (origin === null) return { ok: false, code: 'invalid_origin', detail: `${what} is "@" but the current $ORIGIN is invalid.` };
    return { ok: true, value: origin === '' ? '.' : origin };
  }
  const parsed = parseName(token.text);
  if (!parsed.ok) return { ...parsed, detail: `${what}: ${parsed.detail}` };
  if (!parsed.value.absolute && origin === null) {
    return { ok: false, code: 'invalid_origin', detail: `${what} "${token.text}" is relative but the current $ORIGIN is invalid.` };
  }
  const text = absoluteText(parsed.value, origin ?? '');
  return { ok: true, value: text === '' ? '.' : text.toLowerCase() };
}

/**
 * The RFC 3597 §5 generic RDATA `\# <length> <hex…>` (the `\#` token included), as wire octets.
 * The hex may be split into several tokens; `\# 0` is empty RDATA.
 */
function genericRdata(tokens: readonly Token[], type: string): Decoded<Uint8Array> {
  const what = `${type} (generic \\# form)`;
  const length = tokens[1];
  if (!length || length.quoted || !DECIMAL.test(length.text)) return invalid(`${what}: "\\#" must be followed by the RDATA length in octets.`);
  const hexTokens = tokens.slice(2);
  if (hexTokens.some((t) => t.quoted || !HEX.test(t.text))) return invalid(`${what}: the RDATA must be hexadecimal.`);
  const hex = hexTokens.map((t) => t.text).join('');
  if (hex.length % 2 !== 0) return invalid(`${what}: the hex RDATA has an odd number of digits.`);
  const octets = Number(length.text);
  if (hex.length / 2 !== octets) return invalid(`${what}: the length says ${length.text} octets but the hex has ${hex.length / 2}.`);
  const wire = new Uint8Array(octets);
  for (let k = 0; k < octets; k++) wire[k] = parseInt(hex.slice(2 * k, 2 * k + 2), 16);
  return { ok: true, value: wire };
}

/** True when the RDATA is in the RFC 3597 generic form (an unquoted `\#` first). */
const isGenericRdata = (tokens: readonly Token[]) => tokens[0] !== undefined && !tokens[0].quoted && tokens[0].text === '\\#';

/** RFC 4034 §3.2: an RRSIG time, YYYYMMDDHHmmSS in UTC or (RFC 4034 §3.2) plain seconds. */
function rrsigTime(text: string): number | null {
  if (/^[0-9]{14}$/.test(text)) {
    const ms = Date.UTC(+text.slice(0, 4), +text.slice(4, 6) - 1, +text.slice(6, 8), +text.slice(8, 10), +text.slice(10, 12), +text.slice(12, 14));
    return Number.isNaN(ms) ? null : (ms / 1000) % 2 ** 32;
  }
  return DECIMAL.test(text) && Number(text) <= 0xffffffff ? Number(text) : null;
}

/**
 * Our `data` object for wire RDATA of a type with a codec (the RFC 3597 generic form of a zone
 * file, the records of an RFC 2136 UPDATE): the codec reads it, and a name holding a dot or an
 * octet our names cannot hold inside a label is refused here, as in the presentation form.
 * `what` names the RDATA in the problem's detail.
 */
export function rdataFromWire(type: string, wire: Uint8Array, what: string = type): RdataResult {
  const codec = codecOf(type);
  if (!codec) return invalid(`${type} records cannot be read.`);
  const data = rdataToData(type, wire);
  if (!data) return invalid(`${what}: the RDATA does not have the fields of ${type} (${codec.fields.map(([f]) => f).join(', ')}).`);
  for (const [field, kind] of codec.fields) {
    // The name module writes a dot or an octet outside a–z, 0–9, "-", "_", "*" inside a label as an escape.
    if (kind === 'name' && String(data[field]).includes('\\')) {
      return { ok: false, code: 'invalid_character', detail: `${what} "${field}": a label contains a dot or an octet other than a-z, 0-9, "-" and "_".` };
    }
  }
  return { ok: true, value: data };
}

/**
 * Our `data` object for RDATA tokens of a type with a codec (its field layout is the codec's,
 * nameserver/wire/types/), in the type's presentation form or the RFC 3597 generic form (read by
 * the same codec). Errors are `invalid_rdata` (detail names the field), `invalid_escape`, name
 * errors (`invalid_character`, `empty_label`) and `invalid_origin`.
 */
export function rdataFromPresentation(type: string, tokens: readonly Token[], origin: string | null): RdataResult {
  const codec = codecOf(type);
  if (!codec) return invalid(`${type} records cannot be read.`);
  if (isGenericRdata(tokens)) {
    const wire = genericRdata(tokens, type);
    return wire.ok ? rdataFromWire(type, wire.value, `${type} (generic \\# form)`) : wire;
  }
  if (codec.readPresentation) {
    if (tokens.some((t) => t.quoted)) return invalid(`${type} has no quoted fields.`);
    const read = codec.readPresentation(tokens.map((t) => t.text));
    return typeof read === 'string' ? invalid(`${type} ${read}.`) : { ok: true, value: read };
  }
  const layout = codec.fields;
  const data: Record<string, unknown> = {};
  let k = 0;
  for (const [field, kind] of layout) {
    const what = `${type} "${field}"`;
    const token = tokens[k];
    // RFC 5155 §3.3: an NSEC3 of an empty non-terminal lists no types; RFC 9460 §2.1: SvcParams may be none.
    if (!token && (kind === 'types' || kind === 'svcparams')) {
      data[field] = kind === 'types' ? [] : {};
      continue;
    }
    if (!token) {
      const missing = layout.slice(layout.findIndex(([f]) => f === field)).map(([f]) => `"${f}"`);
      return invalid(
        `${type} has ${layout.length} field${layout.length > 1 ? 's' : ''} (${layout.map(([f]) => f).join(', ')}); ${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} missing.`,
      );
    }
    switch (kind) {
      case 'uint':
        if (token.quoted || !DECIMAL.test(token.text)) return invalid(`${what} must be a decimal number, not "${token.text}".`);
        data[field] = Number(token.text);
        k++;
        break;
      // A word and a string are one token each; only a string may be quoted.
      case 'word':
      case 'string': {
        if (kind === 'word' && token.quoted) return invalid(`${what} cannot be a quoted string.`);
        const text = tokensText([token.text], what);
        if (!text.ok) return text;
        data[field] = text.value;
        k++;
        break;
      }
      case 'name': {
        const name = rdataName(token, origin, what);
        if (!name.ok) return name;
        data[field] = name.value;
        k++;
        break;
      }
      case 'strings': {
        const text = tokensText(
          tokens.slice(k).map((t) => t.text),
          what,
        );
        if (!text.ok) return text;
        data[field] = text.value;
        k = tokens.length;
        break;
      }
      case 'hex':
      case 'base64': {
        const rest = tokens.slice(k);
        if (rest.some((t) => t.quoted)) return invalid(`${what} is ${kind === 'hex' ? 'hexadecimal' : 'base64'} and cannot be quoted.`);
        data[field] = rest.map((t) => t.text).join('');
        k = tokens.length;
        break;
      }
      case 'time': {
        const seconds = token.quoted ? null : rrsigTime(token.text);
        if (seconds === null) return invalid(`${what} must be a time as YYYYMMDDHHmmSS, not "${token.text}".`);
        data[field] = seconds;
        k++;
        break;
      }
      case 'types': {
        const rest = tokens.slice(k);
        if (rest.some((t) => t.quoted)) return invalid(`${what} lists type mnemonics and cannot be quoted.`);
        data[field] = rest.map((t) => t.text.toUpperCase());
        k = tokens.length;
        break;
      }
      case 'svcparams': {
        const params = svcParamsFromTokens(tokens.slice(k), what);
        if (!params.ok) return params;
        data[field] = params.value;
        k = tokens.length;
        break;
      }
    }
  }
  const extra = tokens[k];
  if (extra) {
    const last = layout[layout.length - 1]![0];
    return invalid(
      `${type} has ${layout.length} field${layout.length > 1 ? 's' : ''} (${layout.map(([f]) => f).join(', ')}); unexpected "${extra.text}" after "${last}".`,
    );
  }
  return { ok: true, value: data };
}

/**
 * One record's RDATA written as text on its own, as in a zone file with `$ORIGIN origin` ('' =
 * the root): the tokenizer and rdataFromPresentation above, so text reads exactly as a zone
 * file's line does (quotes, escapes, parentheses, `;` comments, the RFC 3597 `\#` form). More
 * than one logical record (a line break outside parentheses) is refused.
 */
export function rdataFromContent(type: string, text: string, origin: string | null): RdataResult {
  const records: (readonly Token[])[] = [];
  const problems: LexError[] = [];
  forEachLogicalRecord(text, (r) => {
    if (r.errors.length) problems.push(...r.errors);
    else if (r.tokens.length) records.push(r.tokens);
  });
  const lexical = problems[0];
  if (lexical) return { ok: false, code: lexical.code, detail: lexical.detail };
  if (records.length > 1) return invalid(`Exactly one ${type} record's data, on one line (or across lines inside parentheses).`);
  return rdataFromPresentation(type, records[0] ?? [], origin);
}

/**
 * One record's RDATA written as text ("12345 13 2 <hex>" for a DS), to wire form through
 * rdataFromContent (names relative to the root) and the codec: for values given outside a zone
 * file (the lab's DS, trust anchors from the environment). `{ ok: false, detail }` for anything
 * but exactly one valid RDATA.
 */
export function rdataFromText(type: string, text: string): Decoded<Buffer> {
  const parsed = rdataFromContent(type, text, '');
  if (!parsed.ok) return parsed;
  try {
    return { ok: true, value: encodeRdata(type, parsed.value) };
  } catch (e) {
    return { ok: false, code: 'invalid_rdata', detail: (e as Error).message };
  }
}
