// RFC 1035 §5 master files as real servers write them (BIND's named-compilezone, Knot's zone
// dumps, our own export) turned into records of our supported types. Pure and total: any string
// gives a result, every problem is a ZoneFileError with its line, nothing throws.
//
// Interpretation, record by record (RFC 1035 §5.1):
//   <owner> [<ttl>] [<class>] <type> <rdata>   (TTL and class in either order, both optional)
// - owner: absolute ("www.example.com."), relative to the current $ORIGIN ("www"), "@" (the
//   origin), or blank (the line starts with blank space: the previous record's owner).
// - TTL: on the line ('explicit'); else the last $TTL (RFC 2308 §4, 'directive'); else the last
//   explicit TTL of an earlier record (RFC 1035 §5.1, 'previous'); else none (null: the zone's
//   default applies). TTL units as in BIND: 1w2d3h4m5s, case-insensitive.
// - class: IN only; other classes are `unsupported_class`.
// - directives: $ORIGIN (absolute or relative to the current origin), $TTL; $INCLUDE is refused
//   (`include_not_supported`: an upload is one file); anything else is `unknown_directive`.
//
// Error codes: unterminated_quote, unbalanced_parentheses, invalid_escape (lexical);
// unknown_directive, invalid_directive, include_not_supported; missing_owner, outside_zone,
// invalid_origin and the name codes of src/domain/names.ts (invalid_character, empty_label, …);
// invalid_ttl, unsupported_class, missing_type, unknown_type, unexpected_quoted_string;
// invalid_rdata (detail names the field). A zone name that is itself invalid is reported on line 0.
import { isAtOrBelow } from '../../../nameserver/wire/name.js';
import { NameError, toAsciiName } from '../names.js';
import type { RecordType } from '../records/types.js';
import { absoluteText, parseName, parseTtl, type TextProblem } from './presentationText.js';
import { rdataFromPresentation } from './rdataFromPresentation.js';
import { classOf, typeDisposition, typeMnemonic } from './rrTypes.js';
import { forEachLogicalRecord, type LogicalRecord, type Token } from './tokenize.js';

export interface ZoneFileEntry {
  line: number; // 1-based line where the record starts
  owner: string; // absolute, lower-case A-label, no trailing dot
  ttl: number | null; // seconds, null when no TTL applies
  ttlSource: 'explicit' | 'directive' | 'previous' | 'none'; // on the line / from $TTL / last explicit TTL (RFC 1035) / none
  type: RecordType; // one of the supported types (src/domain/records/types.ts)
  data: Record<string, unknown>; // our `data` object for the type, BEFORE parseRecordData (the caller validates/normalises it)
}
export interface SkippedEntry {
  line: number;
  /** As an entry's owner; '.' for an SOA at the root (older Cloudflare exports write one). */
  owner: string;
  type: string;
  /** `managed`: the zone's RRset there is kept by another object (docs/records.md "Managed records"). */
  reason: 'soa' | 'apex_ns' | 'dnssec' | 'unsupported_type' | 'managed';
}
export interface ZoneFileError {
  line: number;
  code: string;
  detail: string;
}
export interface ParsedZoneFile {
  entries: ZoneFileEntry[];
  skipped: SkippedEntry[];
  errors: ZoneFileError[];
}

/**
 * An owner once resolved: the name, or the problem that every record using it inherits (`root`:
 * the owner is the root name, outside every zone).
 */
type Owner = { ok: true; name: string } | ({ ok: false; line: number; root?: true } & TextProblem);

interface State {
  zone: string;
  /** Current $ORIGIN, absolute without trailing dot ('' = root); null after an invalid $ORIGIN. */
  origin: string | null;
  originLine: number;
  defaultTtl: number | null;
  lastTtl: number | null;
  previousOwner: Owner | null;
}

function nameProblem(e: unknown, fallback: string): TextProblem {
  if (e instanceof NameError) return { code: e.code, detail: e.message };
  return { code: 'invalid_name', detail: fallback };
}

const ownerFailure = (token: Token, code: string, detail: string, root?: true): Owner => ({
  ok: false,
  line: token.line,
  code,
  detail,
  ...(root ? { root } : {}),
});

/** The owner named by a token, absolute and canonical, inside the zone. */
function resolveOwner(token: Token, state: State): Owner {
  if (token.quoted) return ownerFailure(token, 'unexpected_quoted_string', `The owner name cannot be a quoted string ("${token.text}").`);
  let text: string;
  if (token.text === '@') {
    if (state.origin === null) return ownerFailure(token, 'invalid_origin', `The owner is "@" but the $ORIGIN on line ${state.originLine} is invalid.`);
    text = state.origin;
  } else {
    const parsed = parseName(token.text);
    if (!parsed.ok) return ownerFailure(token, parsed.code, parsed.detail);
    if (!parsed.value.absolute && state.origin === null) {
      return ownerFailure(token, 'invalid_origin', `The owner "${token.text}" is relative but the $ORIGIN on line ${state.originLine} is invalid.`);
    }
    text = absoluteText(parsed.value, state.origin ?? '');
  }
  if (text === '') return ownerFailure(token, 'outside_zone', `The owner "${token.text}" is the root, not inside the zone "${state.zone}".`, true);
  let name: string;
  try {
    name = toAsciiName(text);
  } catch (e) {
    const p = nameProblem(e, `The owner "${token.text}" is not a valid name.`);
    return ownerFailure(token, p.code, p.detail);
  }
  if (!isAtOrBelow(name, state.zone)) return ownerFailure(token, 'outside_zone', `The owner "${name}." is not inside the zone "${state.zone}".`);
  return { ok: true, name };
}

type Result = ParsedZoneFile;

function directive(record: LogicalRecord, state: State, out: Result): void {
  const [head, ...args] = record.tokens as [Token, ...Token[]];
  const name = head.text.toUpperCase();
  const error = (code: string, detail: string): void => {
    out.errors.push({ line: record.line, code, detail });
  };
  if (name === '$INCLUDE') {
    error('include_not_supported', '$INCLUDE is not supported: upload the whole zone as one file.');
  } else if (name === '$ORIGIN') {
    const arg = args[0];
    if (!arg || args.length > 1 || arg.quoted) {
      error('invalid_directive', '$ORIGIN takes exactly one domain name.');
      return;
    }
    const parsed = parseName(arg.text);
    const invalidOrigin = (code: string, detail: string) => {
      state.origin = null;
      state.originLine = record.line;
      error(code, `$ORIGIN: ${detail}`);
    };
    if (!parsed.ok) return invalidOrigin(parsed.code, parsed.detail);
    if (!parsed.value.absolute && state.origin === null) {
      return invalidOrigin('invalid_origin', `"${arg.text}" is relative to the $ORIGIN on line ${state.originLine}, which is invalid.`);
    }
    const text = absoluteText(parsed.value, state.origin ?? '');
    if (text === '') {
      state.origin = '';
    } else {
      try {
        state.origin = toAsciiName(text);
      } catch (e) {
        const p = nameProblem(e, `"${arg.text}" is not a valid name.`);
        return invalidOrigin(p.code, p.detail);
      }
    }
    state.originLine = record.line;
  } else if (name === '$TTL') {
    const arg = args[0];
    const ttl = arg && !arg.quoted && args.length === 1 ? parseTtl(arg.text) : null;
    if (ttl === null) {
      error(
        arg && args.length === 1 ? 'invalid_ttl' : 'invalid_directive',
        `$TTL takes one TTL in seconds or with units (3600, 1h, 1d12h); "${args.map((a) => a.text).join(' ')}" is not.`,
      );
      return;
    }
    state.defaultTtl = ttl;
  } else {
    error('unknown_directive', `Unknown directive "${head.text}"; only $ORIGIN and $TTL are supported.`);
  }
}

function report(out: Result, line: number, code: string, detail: string): void {
  out.errors.push({ line, code, detail });
}

function interpret(record: LogicalRecord, state: State, out: Result): void {
  const tokens = record.tokens;
  if (record.errors.length > 0) {
    for (const e of record.errors) out.errors.push({ line: e.line, code: e.code, detail: e.detail });
    // Later blank-owner lines still belong to this record's owner.
    const first = tokens[0];
    if (!record.blankOwner && first && !(first.text.startsWith('$') && !first.quoted)) state.previousOwner = resolveOwner(first, state);
    return;
  }
  const first = tokens[0];
  if (!first) return;
  if (!record.blankOwner && !first.quoted && first.text.startsWith('$')) return directive(record, state, out);

  // Owner: blank means the previous record's (RFC 1035 §5.1).
  let k = 0;
  let owner: Owner;
  if (record.blankOwner) {
    if (!state.previousOwner) return report(out, record.line, 'missing_owner', 'The line starts with blank space, but no earlier record names an owner.');
    owner = state.previousOwner;
  } else {
    owner = resolveOwner(first, state);
    state.previousOwner = owner;
    k = 1;
  }

  // TTL and class, in either order, each at most once.
  let ttl: number | null = null;
  let klass: 'IN' | 'other' | null = null;
  let klassText = '';
  for (let seen = 0; seen < 2; seen++) {
    const t = tokens[k];
    if (!t || t.quoted) break;
    const c = t.text.charCodeAt(0);
    if (ttl === null && c >= 0x30 && c <= 0x39) {
      ttl = parseTtl(t.text);
      if (ttl === null)
        return report(
          out,
          record.line,
          'invalid_ttl',
          `"${t.text}" is not a TTL (seconds up to ${2 ** 31 - 1}, or with units such as 1h, 1d12h) nor a record type.`,
        );
      state.lastTtl = ttl;
      k++;
    } else if (klass === null && (klass = classOf(t.text)) !== null) {
      klassText = t.text;
      k++;
    } else {
      break;
    }
  }

  if (!owner.ok) {
    // Cloudflare's older exports write their SOA as `@` under `$ORIGIN .`, so at the root. An SOA
    // is never imported, so it is skipped like any other; any other record there is an error.
    const typeToken = tokens[k];
    if (owner.root && klass !== 'other' && typeToken && !typeToken.quoted && typeMnemonic(typeToken.text) === 'SOA') {
      out.skipped.push({ line: record.line, owner: '.', type: 'SOA', reason: 'soa' });
      return;
    }
    return report(
      out,
      record.line,
      owner.code,
      owner.line === record.line ? owner.detail : `${owner.detail} (the owner of line ${owner.line}, inherited by a line starting with blank space)`,
    );
  }
  if (klass === 'other')
    return report(out, record.line, 'unsupported_class', `Class ${klassText.toUpperCase()} is not supported; only IN records can be imported.`);

  const typeToken = tokens[k];
  if (!typeToken) return report(out, record.line, 'missing_type', 'The record has no type.');
  if (typeToken.quoted)
    return report(out, record.line, 'unexpected_quoted_string', `A quoted string ("${typeToken.text}") stands where the record type belongs.`);
  const mnemonic = typeMnemonic(typeToken.text);
  if (mnemonic === null) return report(out, record.line, 'unknown_type', `"${typeToken.text}" is not a record type.`);
  const entryTtl: Pick<ZoneFileEntry, 'ttl' | 'ttlSource'> =
    ttl !== null
      ? { ttl, ttlSource: 'explicit' }
      : state.defaultTtl !== null
        ? { ttl: state.defaultTtl, ttlSource: 'directive' }
        : state.lastTtl !== null
          ? { ttl: state.lastTtl, ttlSource: 'previous' }
          : { ttl: null, ttlSource: 'none' };

  const disposition = typeDisposition(mnemonic);
  // The apex NS set is the service's own (docs/records.md).
  if (disposition.kind === 'skip' || (disposition.type === 'NS' && owner.name === state.zone)) {
    const reason = disposition.kind === 'skip' ? disposition.reason : 'apex_ns';
    out.skipped.push({ line: record.line, owner: owner.name, type: mnemonic, reason });
    return;
  }
  const rdata = tokens.slice(k + 1);
  const data = rdataFromPresentation(disposition.type, rdata, state.origin);
  if (!data.ok) return report(out, record.line, data.code, data.detail);
  out.entries.push({ line: record.line, owner: owner.name, ...entryTtl, type: disposition.type, data: data.value });
}

/**
 * Parses a master file for the zone `zoneName` (any form toAsciiName accepts). The initial
 * $ORIGIN is the zone. Records of our supported types become entries, the others are reported in
 * `skipped`; entries' data still go through parseRecordData at the caller.
 */
export function parseZoneFile(text: string, zoneName: string): ParsedZoneFile {
  const out: ParsedZoneFile = { entries: [], skipped: [], errors: [] };
  let zone: string;
  try {
    zone = toAsciiName(String(zoneName));
  } catch (e) {
    const p = nameProblem(e, `The zone name "${String(zoneName)}" is not valid.`);
    out.errors.push({ line: 0, code: p.code, detail: p.detail });
    return out;
  }
  const state: State = { zone, origin: zone, originLine: 0, defaultTtl: null, lastTtl: null, previousOwner: null };
  const source = typeof text === 'string' ? text : String(text);
  forEachLogicalRecord(source, (record) => {
    try {
      interpret(record, state, out);
    } catch (e) {
      // Not expected (the fuzz test holds us to it); a defect must still not become a 500.
      out.errors.push({ line: record.line, code: 'internal_error', detail: `The record could not be read (${e instanceof Error ? e.message : String(e)}).` });
    }
  });
  return out;
}
