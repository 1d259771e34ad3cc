import { z } from 'zod';
import type { LocateItem } from '../../../domain/changeSets/planChangeSet.js';
import { TTL_BOUNDS } from '../../../domain/records/ttl.js';
import { RECORD_TYPES } from '../../../domain/records/types.js';
import { CHANGESET_STATES } from '../../../domain/publication.js';
import { repeatable } from '../../routing/validate.js';

export const ttlSchema = z.number().int().min(TTL_BOUNDS.min).max(TTL_BOUNDS.max).describe(`Seconds, ${TTL_BOUNDS.min}–${TTL_BOUNDS.max}.`);
export const zoneParam = z.string().min(1).max(300).describe('Zone name, A-label or U-label form.');
export const recordIdParam = z.string().regex(/^rec_[a-z2-7]+$/, 'must be a record id (rec_…)');
export const changeSetIdParam = z.string().regex(/^chg_[a-z2-7]+$/, 'must be a change set id (chg_…)');
export const stateFilter = repeatable(z.enum(CHANGESET_STATES));

// From the type table: a type added there is described here without an edit of this file.
const DATA_DOC = `Type-specific fields (docs/records.md "Record types"): each type's object is \`components.schemas.RecordData<TYPE>\`; a type written \`TYPEnnn\` (RFC 3597, a number with no registered type) holds \`rdata\` (hex).`;

const CONTENT_DOC =
  'Instead of `data`: the record data in presentation format, exactly as `content` is returned and as `dig` prints it (`10 mail` for an MX, `"hello world"` for a TXT), or the RFC 3597 generic form `\\# <length> <hex>` for any type. Relative names are relative to the zone (a zone file with `$ORIGIN` the zone); quotes, `\\DDD` escapes and parentheses as in a zone file. Read by the same codec and checked by the same rules as `data`; the stored record is the same. Exactly one of `data` and `content` (docs/records.md "Data or content").';

/** Presentation text of one record's data; a TXT of 65,535 octets written with \DDD escapes fits. */
const contentSchema = z.string().max(300_000).describe(CONTENT_DOC);

export const recordInputSchema = z.strictObject({
  type: z
    .string()
    .max(10)
    .describe(`${RECORD_TYPES.join(', ')}, or TYPEnnn (RFC 3597, opaque); NS only below the apex, PTR only in reverse zones (docs/records.md).`),
  name: z.string().max(300).describe('Zone-relative owner; `@` is the apex; an absolute name ending in a dot is accepted.'),
  ttl: ttlSchema.nullable().optional().describe('Omitted: the RRset’s TTL (or the zone default); null: the zone default. Applies to the whole RRset.'),
  data: z.record(z.string(), z.unknown()).optional().describe(`${DATA_DOC} Exactly one of \`data\` and \`content\`.`),
  content: contentSchema.optional(),
  comment: z.string().max(500).nullable().optional(),
});

export const recordPatchSchema = z.strictObject({
  name: recordInputSchema.shape.name.optional(),
  ttl: recordInputSchema.shape.ttl,
  data: recordInputSchema.shape.data.describe('The complete data object for the record’s type; or `content` instead, not both.'),
  content: contentSchema.optional(),
  comment: recordInputSchema.shape.comment,
  type: z.string().max(10).optional().describe('Immutable: must equal the current type if sent.'),
});

const etag = z.string().max(200);

const changeItemSchema = z.discriminatedUnion('op', [
  z.strictObject({ op: z.literal('create'), record: recordInputSchema }),
  z.strictObject({ op: z.literal('update'), id: recordIdParam, if_match: etag.optional(), record: recordPatchSchema }),
  z.strictObject({ op: z.literal('delete'), id: recordIdParam, if_match: etag.optional() }),
  z.strictObject({
    op: z.literal('replace_rrset'),
    name: recordInputSchema.shape.name,
    type: recordInputSchema.shape.type,
    ttl: ttlSchema.nullable().optional(),
    records: z
      .array(z.union([z.record(z.string(), z.unknown()), contentSchema]))
      .max(1000)
      .describe('Each a data object or a string of presentation text (as `content`); an empty list deletes the RRset.'),
  }),
]);

const MAX_CHANGES = 1000;

export const changeSetRequestSchema = z.strictObject({
  changes: z.array(changeItemSchema).min(1).max(MAX_CHANGES),
  comment: z.string().max(500).nullable().optional(),
  zone_if_match: etag.optional().describe('The zone ETag; a mismatch is 412 and nothing is stored.'),
  dry_run: z.boolean().optional(),
});

/**
 * Single-record endpoints are change sets of one item; their problems point into the record
 * body itself (`/data/address`, not `/changes/0/record/data/address`), If-Match is a header and
 * the record id a path segment.
 */
export const singleRecordItem: LocateItem = (_index, inner) => {
  if (inner === '/if_match') return { in: 'header', pointer: '/If-Match' };
  if (inner === '/id') return { in: 'path', pointer: '' };
  return { pointer: inner.replace(/^\/record(?=\/|$)/, '') };
};
