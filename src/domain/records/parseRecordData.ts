// A record's `data` object checked against its type's schema and brought into the stored form.
// Errors carry a JSON pointer relative to `data` ('' for the object itself) and a stable code.
import type { z } from 'zod';
import { encodeRdata } from '../../../nameserver/wire/rdata.js';
import { type RecordType, ruleOf } from './types.js';

export interface RecordDataError {
  pointer: string;
  code: string;
  detail: string;
}

export type ParseRecordDataResult = { ok: true; data: Record<string, unknown> } | { ok: false; errors: RecordDataError[] };

const escapePointer = (segment: PropertyKey) => String(segment).replace(/~/g, '~0').replace(/\//g, '~1');
const pointerOf = (path: readonly PropertyKey[]) => path.map((p) => `/${escapePointer(p)}`).join('');
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function toErrors(type: RecordType, data: unknown, issues: readonly z.core.$ZodIssue[]): RecordDataError[] {
  const errors: RecordDataError[] = [];
  for (const issue of issues) {
    const pointer = pointerOf(issue.path);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        errors.push({ pointer: pointerOf([...issue.path, key]), code: 'unknown_field', detail: `Unknown field "${key}" for type ${type}.` });
      }
    } else if (issue.code === 'custom') {
      const code = typeof issue.params?.code === 'string' ? issue.params.code : 'invalid_value';
      errors.push({ pointer, code, detail: issue.message });
    } else if (issue.code === 'invalid_type' && issue.path.length === 1 && isObject(data) && data[String(issue.path[0])] === undefined) {
      errors.push({ pointer, code: 'required', detail: `The field "${String(issue.path[0])}" is required for type ${type}.` });
    } else if (issue.code === 'invalid_type' && issue.path.length === 0) {
      errors.push({ pointer, code: 'invalid_type', detail: `"data" must be an object with the fields of type ${type}.` });
    } else {
      errors.push({ pointer, code: issue.code, detail: issue.message });
    }
  }
  return errors;
}

/**
 * The type's policy first (its zod schema: business rules and the stored form), then the codec:
 * what the codec cannot put on the wire is refused here (`invalid_rdata`), so the API never stores
 * a record the publication build or the nameserver could not serve (one codec decides, deSEC's
 * model).
 */
export function parseRecordData(type: RecordType, data: unknown): ParseRecordDataResult {
  const result = ruleOf(type).data.safeParse(data);
  if (!result.success) return { ok: false, errors: toErrors(type, data, result.error.issues) };
  try {
    encodeRdata(type, result.data);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    // The codec names the field first: "<TYPE> <field>: <problem>".
    const field = /^\S+ (\w+):/.exec(e.message)?.[1];
    const pointer = field !== undefined && Object.hasOwn(result.data, field) ? `/${field}` : '';
    return { ok: false, errors: [{ pointer, code: 'invalid_rdata', detail: `The record cannot be put on the wire: ${e.message}.` }] };
  }
  return { ok: true, data: result.data };
}
