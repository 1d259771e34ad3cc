import { z } from 'zod';
import { DomainError, type FieldError } from '../../domain/errors.js';

const escapePointer = (segment: PropertyKey) => String(segment).replace(/~/g, '~0').replace(/\//g, '~1');

/** Zod issues as the problem's `errors`: a JSON pointer each, and the list index where there is one. */
export function issuesToFieldErrors(issues: z.core.$ZodIssue[], location: FieldError['in']): FieldError[] {
  const out: FieldError[] = [];
  for (const issue of issues) {
    const base = issue.path.map(escapePointer);
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [null];
    for (const key of keys) {
      const segments = key === null ? base : [...base, escapePointer(key)];
      const index = issue.path.find((p): p is number => typeof p === 'number');
      out.push({
        ...(location && location !== 'body' ? { in: location } : {}),
        pointer: `/${segments.join('/')}`.replace(/\/$/, '') || '',
        ...(index !== undefined ? { index } : {}),
        code: key === null ? issue.code : 'unknown_field',
        detail: key === null ? issue.message : `Unknown field "${key}".`,
      });
    }
  }
  return out;
}

/**
 * How deeply objects and arrays may nest in a request body. Our deepest schema (a change set's
 * item data) needs five levels; the bound keeps every later walk (validation, the idempotency
 * fingerprint, JSON.stringify into jsonb) far from the stack's end.
 */
const MAX_NESTING_DEPTH = 64;

/**
 * Refuses a body nested deeper than MAX_NESTING_DEPTH (400 nesting_too_deep). Iterative, so that
 * no input can exhaust the stack; run before anything else walks the body.
 */
export function assertNestingDepth(value: unknown, limit = MAX_NESTING_DEPTH): void {
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 1 }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    if (next.value === null || typeof next.value !== 'object') continue;
    if (next.depth > limit) throw new DomainError('nesting_too_deep', { limit });
    for (const child of Array.isArray(next.value) ? next.value : Object.values(next.value)) {
      if (child !== null && typeof child === 'object') pending.push({ value: child, depth: next.depth + 1 });
    }
  }
}

// An unpaired UTF-16 surrogate is no Unicode character: PostgreSQL refuses it in jsonb and text
// would hold U+FFFD instead of what was sent.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The first character PostgreSQL cannot store as sent, with its offset. */
function unstorableCharacter(s: string): { at: number; detail: string } | null {
  const nul = s.indexOf('\u0000');
  const surrogate = LONE_SURROGATE.exec(s)?.index ?? -1;
  if (nul >= 0 && (surrogate < 0 || nul < surrogate)) {
    return { at: nul, detail: 'The value contains the character U+0000, which is not allowed.' };
  }
  if (surrogate >= 0) {
    return { at: surrogate, detail: 'The value contains an unpaired UTF-16 surrogate (such as "\\ud800"), which is not a Unicode character.' };
  }
  return null;
}

/**
 * PostgreSQL text and jsonb cannot hold U+0000 or unpaired surrogates, so no input string (or
 * key) may contain them: refused here, the same way for every field of every operation. In a
 * top-level field holding a file's text (`textFields`: an imported zone file) the error names the
 * line of the first one. Recursive: bodies reach it only after assertNestingDepth.
 */
function characterErrors(
  value: unknown,
  location: FieldError['in'],
  segments: string[] = [],
  out: FieldError[] = [],
  textFields: readonly string[] = [],
): FieldError[] {
  const add = (at: string[], detail: string, line?: number) =>
    out.push({
      ...(location && location !== 'body' ? { in: location } : {}),
      pointer: `/${at.join('/')}`.replace(/\/$/, '') || '',
      ...(line !== undefined ? { line } : {}),
      code: 'invalid_character',
      detail,
    });
  if (typeof value === 'string') {
    const bad = unstorableCharacter(value);
    const isText = segments.length === 1 && textFields.includes(segments[0]!);
    if (bad) add(segments, bad.detail, isText ? value.slice(0, bad.at).split('\n').length : undefined);
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => characterErrors(item, location, [...segments, String(i)], out, textFields));
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const at = [...segments, escapePointer(key)];
      const bad = unstorableCharacter(key);
      if (bad) add(at, bad.detail.replace('The value', 'The field name'));
      else characterErrors(item, location, at, out, textFields);
    }
  }
  return out;
}

export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, location: FieldError['in'], textFields: readonly string[] = []): z.output<S> {
  const result = schema.safeParse(value);
  const errors = [...(result.success ? [] : issuesToFieldErrors(result.error.issues, location)), ...characterErrors(value, location, [], [], textFields)];
  if (errors.length) throw new DomainError('validation_failed', {}, errors);
  return result.data as z.output<S>;
}

/** A query parameter that may be repeated (`?type=A&type=AAAA`) or comma-separated. */
export const repeatable = <T extends z.ZodType<unknown, string>>(item: T) =>
  z
    .union([z.string(), z.array(z.string())])
    .transform((v) => (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(',')).filter(Boolean))
    .pipe(z.array(item));

export const limitParam = z.coerce.number().int().min(1).max(500).default(50).describe('Page size, 1 to 500.');
export const cursorParam = z.string().max(2048).optional().describe('Opaque cursor from `pagination.next_cursor`.');
export const booleanParam = z.enum(['true', 'false']).transform((v) => v === 'true');
