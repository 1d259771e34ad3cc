// RFC 3597: a type nobody here has a codec for (`TYPE65534`, private-use and new types), written
// and served as opaque RDATA, `{ "rdata": "<hex>" }`, presented as `\# <length> <hex>`.
import { z } from 'zod';
import { addProblem, stringField } from './fields.js';
import type { RecordType, RecordTypePolicy } from './rule.js';

/** Our bound on opaque RDATA: 8192 octets, as for TXT. */
const MAX_OPAQUE_OCTETS = 8192;

const data = z.strictObject({
  rdata: stringField('rdata')
    .transform((value) => value.replace(/\s+/g, '').toLowerCase())
    .superRefine((hex, ctx) => {
      if (!/^[0-9a-f]*$/.test(hex)) addProblem(ctx, 'invalid_hex', '"rdata" must be hexadecimal (0-9, a-f); "" is no RDATA.');
      else if (hex.length % 2) addProblem(ctx, 'invalid_hex', '"rdata" must have an even number of hex digits (whole octets).');
      else if (hex.length / 2 > MAX_OPAQUE_OCTETS)
        addProblem(ctx, 'too_big', `"rdata" has ${hex.length / 2} octets; at most ${MAX_OPAQUE_OCTETS} are allowed.`);
    }),
});

export function opaqueRule(type: RecordType): RecordTypePolicy {
  return { type, data, ownerProblem: () => null, zoneKinds: ['forward', 'reverse'] };
}
