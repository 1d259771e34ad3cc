// DS (RFC 4034 §5): the parent's record of a child zone's key, at a delegation point. A customer
// who delegates a subdomain to nameservers elsewhere puts the child's DS here to make the
// delegation secure; the lab's parent zones hold the DS of the zones they delegate. Never at the
// apex: a zone's own DS lives in its parent (RFC 4035 §2.4).
import { z } from 'zod';
import { addProblem, stringField, uintField } from './fields.js';
import type { RecordTypePolicy } from './rule.js';

export type DsData = { key_tag: number; algorithm: number; digest_type: number; digest: string };

/** Digest lengths in hex digits: SHA-1 (1, RFC 4034), SHA-256 (2, RFC 4509), SHA-384 (4, RFC 6605). */
const DIGEST_HEX_LENGTH: Record<number, number> = { 1: 40, 2: 64, 4: 96 };

export const dsRule: RecordTypePolicy = {
  type: 'DS',
  data: z
    .strictObject({
      key_tag: uintField('key_tag', 0xffff),
      algorithm: uintField('algorithm', 0xff),
      digest_type: uintField('digest_type', 0xff),
      digest: stringField('digest').transform((value) => value.replace(/\s+/g, '').toLowerCase()),
    })
    .superRefine((data, ctx) => {
      const wanted = DIGEST_HEX_LENGTH[data.digest_type];
      if (wanted === undefined)
        addProblem(ctx, 'unknown_digest_type', `"digest_type" ${data.digest_type} is not a DS digest type in use: 1 (SHA-1), 2 (SHA-256) or 4 (SHA-384).`, [
          'digest_type',
        ]);
      else if (!/^[0-9a-f]+$/.test(data.digest)) addProblem(ctx, 'invalid_hex', '"digest" must be hexadecimal (0-9, a-f).', ['digest']);
      else if (data.digest.length !== wanted)
        addProblem(ctx, 'invalid_length', `A digest of type ${data.digest_type} has ${wanted} hex digits; this one has ${data.digest.length}.`, ['digest']);
    }),
  ownerProblem: (owner) => {
    if (owner === '@') return "A DS record belongs at a delegation point below the apex (RFC 4035 §2.4); the zone's own DS is published by its parent.";
    if (owner.split('.')[0] === '*') return 'A wildcard name cannot be delegated, so it holds no DS (RFC 4592 §4.2).';
    return null;
  },
  zoneKinds: ['forward', 'lab_parent'],
};
