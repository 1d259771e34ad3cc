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
 * PostgreSQL text and jsonb cannot hold U+0000, so no input string (or key) may contain it. In a
 * top-level field holding a file's text (`textFields`: an imported zone file) the error names the
 * line of the first one.
 */
function nulCharacterErrors(
  value: unknown,
  location: FieldError['in'],
  segments: string[] = [],
  out: FieldError[] = [],
  textFields: readonly string[] = [],
): FieldError[] {
  const add = (at: string[], line?: number) =>
    out.push({
      ...(location && location !== 'body' ? { in: location } : {}),
      pointer: `/${at.join('/')}`.replace(/\/$/, '') || '',
      ...(line !== undefined ? { line } : {}),
      code: 'invalid_character',
      detail: 'The value contains the character U+0000, which is not allowed.',
    });
  if (typeof value === 'string') {
    const nul = value.indexOf('\u0000');
    const isText = segments.length === 1 && textFields.includes(segments[0]!);
    if (nul >= 0) add(segments, isText ? value.slice(0, nul).split('\n').length : undefined);
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => nulCharacterErrors(item, location, [...segments, String(i)], out, textFields));
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const at = [...segments, escapePointer(key)];
      if (key.includes('\u0000')) add(at);
      else nulCharacterErrors(item, location, at, out, textFields);
    }
  }
  return out;
}

export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, location: FieldError['in'], textFields: readonly string[] = []): z.output<S> {
  const result = schema.safeParse(value);
  const errors = [...(result.success ? [] : issuesToFieldErrors(result.error.issues, location)), ...nulCharacterErrors(value, location, [], [], textFields)];
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
