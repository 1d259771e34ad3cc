import { z } from 'zod';
import type { LocateItem } from '../../../domain/changeSets/planChangeSet.js';
import { TTL_BOUNDS } from '../../../domain/records/ttl.js';
import { CHANGESET_STATES } from '../../../domain/publication.js';
import { repeatable } from '../../routing/validate.js';

export const ttlSchema = z.number().int().min(TTL_BOUNDS.min).max(TTL_BOUNDS.max).describe(`Seconds, ${TTL_BOUNDS.min}–${TTL_BOUNDS.max}.`);
export const zoneParam = z.string().min(1).max(300).describe('Zone name, A-label or U-label form.');
export const recordIdParam = z.string().regex(/^rec_[a-z2-7]+$/, 'must be a record id (rec_…)');
export const changeSetIdParam = z.string().regex(/^chg_[a-z2-7]+$/, 'must be a change set id (chg_…)');
export const stateFilter = repeatable(z.enum(CHANGESET_STATES));

const DATA_DOC =
  "Type-specific (docs/records.md): A/AAAA `address`; CNAME `target`; MX `preference`, `exchange`; TXT `text`; SRV `priority`, `weight`, `port`, `target`; CAA `flags`, `tag`, `value`; TLSA `usage`, `selector`, `matching_type`, `certificate_data`; NS `nameserver`; PTR `target`; SSHFP `algorithm`, `fingerprint_type`, `fingerprint`; URI `priority`, `weight`, `target`; HINFO `cpu`, `os`; RP `mailbox`, `text`; OPENPGPKEY `public_key`; SMIMEA as TLSA; NAPTR `order`, `preference`, `flags`, `services`, `regexp`, `replacement`; CERT `cert_type`, `key_tag`, `algorithm`, `certificate`; LOC `latitude`, `longitude`, `altitude`, `size`, `horizontal_precision`, `vertical_precision`; TYPEnnn (RFC 3597) `rdata`. Each named type's schema is `components.schemas.<TYPE>Data`.";

export const recordInputSchema = z.strictObject({
  type: z
    .string()
    .max(10)
    .describe(
      'A, AAAA, CNAME, MX, TXT, SRV, CAA, TLSA, NS (below the apex), PTR (reverse zones), SSHFP, URI, HINFO, RP, OPENPGPKEY, SMIMEA, NAPTR, CERT, LOC, TYPEnnn (RFC 3597, opaque).',
    ),
  name: z.string().max(300).describe('Zone-relative owner; `@` is the apex; an absolute name ending in a dot is accepted.'),
  ttl: ttlSchema.nullable().optional().describe('Omitted: the RRset’s TTL (or the zone default); null: the zone default. Applies to the whole RRset.'),
  data: z.record(z.string(), z.unknown()).describe(DATA_DOC),
  comment: z.string().max(500).nullable().optional(),
});

export const recordPatchSchema = z.strictObject({
  name: recordInputSchema.shape.name.optional(),
  ttl: recordInputSchema.shape.ttl,
  data: recordInputSchema.shape.data.optional().describe('The complete data object for the record’s type.'),
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
    records: z.array(z.record(z.string(), z.unknown())).max(1000).describe('Data objects; an empty list deletes the RRset.'),
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
