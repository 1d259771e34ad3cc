// A record's RDATA as a client writes it: `data` (the fields of its type) or `content` (the
// presentation text the API returns, what `dig` prints). Content is read by the zone-file reader
// as if it were the RDATA of a line in a file whose $ORIGIN is the zone; the result then goes
// through parseRecordData exactly as `data` does, so every rule of a type holds for both inputs
// and both store the same record (docs/records.md "Data or content").
import { codecOf } from '../../../nameserver/wire/types/index.js';
import { rdataFromContent } from '../zonefile/rdataFromPresentation.js';
import { type ParseRecordDataResult, parseRecordData, type RecordDataError } from './parseRecordData.js';
import type { RecordType } from './types.js';

export interface RecordDataInput {
  data?: unknown;
  content?: unknown;
}

/** True when the input carries RDATA of either kind (a PATCH may carry none). */
export const givesRecordData = (input: RecordDataInput) => input.data !== undefined || input.content !== undefined;

/**
 * The stored `data` of a record given as `data` or `content` (exactly one of them). `origin` is
 * the zone (absolute, no trailing dot; '' for the root) that relative names in `content` are
 * relative to. Errors point into the record body: `/data…` for data, `/content` for content (the
 * detail then names the field).
 */
export function parseRecordInput(type: RecordType, input: RecordDataInput, origin: string): ParseRecordDataResult {
  const { data, content } = input;
  if (data !== undefined && content !== undefined) {
    return fail('/content', 'data_and_content', 'Give the record as "data" or as "content", not both.');
  }
  if (content === undefined) {
    if (data === undefined) return fail('/data', 'required', `Give the record's "data" (the fields of type ${type}) or its "content" (presentation text).`);
    return prefixed(parseRecordData(type, data), '/data');
  }
  if (typeof content !== 'string') return fail('/content', 'invalid_type', '"content" must be a string: the record data in presentation format.');
  const read = rdataFromContent(type, content, origin);
  if (!read.ok) return fail('/content', read.code, read.detail);
  const parsed = parseRecordData(type, read.value);
  if (parsed.ok) return parsed;
  // The fields exist only inside the text: the problem is at /content, its detail names the field.
  return {
    ok: false,
    errors: parsed.errors.map((e) => ({ pointer: '/content', code: e.code, detail: e.pointer ? `${type} "${e.pointer.slice(1)}": ${e.detail}` : e.detail })),
  };
}

const fail = (pointer: string, code: string, detail: string): ParseRecordDataResult => ({ ok: false, errors: [{ pointer, code, detail }] });

function prefixed(result: ParseRecordDataResult, prefix: string): ParseRecordDataResult {
  if (result.ok) return result;
  return { ok: false, errors: result.errors.map((e: RecordDataError) => ({ ...e, pointer: `${prefix}${e.pointer}` })) };
}

/**
 * Names in data read from content that end in the origin twice (`mail.example.com` without the
 * final dot, in the zone example.com): relative as written, so almost surely meant absolute. The
 * name fields are the codec's, so this holds for every type.
 */
export function namesRepeatingOrigin(type: RecordType, data: Record<string, unknown>, origin: string): string[] {
  if (origin === '') return [];
  const twice = `${origin}.${origin}`;
  const fields = codecOf(type)?.fields ?? [];
  return fields
    .filter(([, kind]) => kind === 'name')
    .map(([field]) => data[field])
    .filter((v): v is string => typeof v === 'string' && (v === twice || v.endsWith(`.${twice}`)));
}
