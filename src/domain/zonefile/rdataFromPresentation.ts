// The RDATA tokens of one master-file record turned into our `data` object for its type (the
// fields of src/domain/records/<type>.ts), BEFORE parseRecordData: this module checks the shape
// of the presentation (field count, numbers, quoting, escapes) and resolves relative names; the
// values themselves (address syntax, ranges, host name rules, CAA tags) are parseRecordData's.
import type { RecordType } from '../records/types.js';
import { absoluteText, parseName, tokensText, type Decoded } from './presentationText.js';
import { rdataFromWire, type RdataResult } from './rdataFromWire.js';
import type { Token } from './tokenize.js';

export type { RdataResult } from './rdataFromWire.js';

/** How one field is written. */
type FieldKind =
  | 'word' // one unquoted token, escapes decoded (addresses, CAA tags)
  | 'uint' // one unquoted decimal number
  | 'name' // one unquoted domain name, relative to the origin
  | 'string' // one <character-string>, quoted or not (CAA value)
  | 'strings' // one or more <character-string>s joined with nothing between (TXT)
  | 'hex'; // one or more unquoted tokens of hex joined (TLSA; RFC 6698 §2.2 allows blank space)

/** Field order of each type's presentation (RFC 1035 §3.3, RFC 2782, RFC 6698 §2.2, RFC 8659 §4.1.1). */
const LAYOUT: Record<RecordType, readonly (readonly [field: string, kind: FieldKind])[]> = {
  A: [['address', 'word']],
  AAAA: [['address', 'word']],
  CNAME: [['target', 'name']],
  NS: [['nameserver', 'name']],
  PTR: [['target', 'name']],
  MX: [['preference', 'uint'], ['exchange', 'name']],
  SRV: [['priority', 'uint'], ['weight', 'uint'], ['port', 'uint'], ['target', 'name']],
  TXT: [['text', 'strings']],
  CAA: [['flags', 'uint'], ['tag', 'word'], ['value', 'string']],
  TLSA: [['usage', 'uint'], ['selector', 'uint'], ['matching_type', 'uint'], ['certificate_data', 'hex']],
};

const DECIMAL = /^[0-9]+$/;
const HEX = /^[0-9a-fA-F]*$/;

const invalid = (detail: string): { ok: false; code: string; detail: string } => ({ ok: false, code: 'invalid_rdata', detail });

/**
 * A name inside RDATA as our data holds it: absolute, lower case, without trailing dot; the root
 * stays '.'. `@` is the origin. `origin` is the current $ORIGIN ('' = root), null when invalid.
 */
export function rdataName(token: Token, origin: string | null, what: string): Decoded<string> {
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
export function genericRdata(tokens: readonly Token[], type: string): Decoded<Uint8Array> {
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
export const isGenericRdata = (tokens: readonly Token[]) => tokens[0] !== undefined && !tokens[0].quoted && tokens[0].text === '\\#';

/**
 * Our `data` object for RDATA tokens of a supported type, in the type's presentation form or the
 * RFC 3597 generic form. Errors are `invalid_rdata` (detail names the field), `invalid_escape`,
 * name errors (`invalid_character`, `empty_label`) and `invalid_origin`.
 */
export function rdataFromPresentation(type: RecordType, tokens: readonly Token[], origin: string | null): RdataResult {
  if (isGenericRdata(tokens)) {
    const wire = genericRdata(tokens, type);
    return wire.ok ? rdataFromWire(type, wire.value) : wire;
  }
  const layout = LAYOUT[type];
  const data: Record<string, unknown> = {};
  let k = 0;
  for (const [field, kind] of layout) {
    const what = `${type} "${field}"`;
    const token = tokens[k];
    if (!token) {
      const missing = layout.slice(layout.findIndex(([f]) => f === field)).map(([f]) => `"${f}"`);
      return invalid(`${type} has ${layout.length} field${layout.length > 1 ? 's' : ''} (${layout.map(([f]) => f).join(', ')}); ${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} missing.`);
    }
    switch (kind) {
      case 'uint':
        if (token.quoted || !DECIMAL.test(token.text)) return invalid(`${what} must be a decimal number, not "${token.text}".`);
        data[field] = Number(token.text);
        k++;
        break;
      case 'word': {
        if (token.quoted) return invalid(`${what} cannot be a quoted string.`);
        const text = tokensText([token.text], what);
        if (!text.ok) return text;
        data[field] = text.value;
        k++;
        break;
      }
      case 'string': {
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
        const text = tokensText(tokens.slice(k).map((t) => t.text), what);
        if (!text.ok) return text;
        data[field] = text.value;
        k = tokens.length;
        break;
      }
      case 'hex': {
        const rest = tokens.slice(k);
        if (rest.some((t) => t.quoted)) return invalid(`${what} is hexadecimal and cannot be quoted.`);
        data[field] = rest.map((t) => t.text).join('');
        k = tokens.length;
        break;
      }
    }
  }
  const extra = tokens[k];
  if (extra) {
    const last = layout[layout.length - 1]![0];
    return invalid(`${type} has ${layout.length} field${layout.length > 1 ? 's' : ''} (${layout.map(([f]) => f).join(', ')}); unexpected "${extra.text}" after "${last}".`);
  }
  return { ok: true, value: data };
}
