// URI (RFC 7553): a URI for a service at _service._proto.name, with SRV-like priority and weight.
import { z } from 'zod';
import { addProblem, stringField, uintField } from './fields.js';
import type { RecordTypePolicy } from './rule.js';

export type UriData = { priority: number; weight: number; target: string };

/** Our bound on the target: longer URIs are not served in practice. */
const MAX_URI_LENGTH = 2048;
// RFC 3986 §3: scheme ":" hier-part; a URI is printable ASCII without blank space (§2).
const ABSOLUTE_URI = /^[A-Za-z][A-Za-z0-9+.-]*:[\x21-\x7e]*$/;

export const uriRule: RecordTypePolicy = {
  type: 'URI',
  data: z.strictObject({
    priority: uintField('priority', 65535),
    weight: uintField('weight', 65535),
    target: stringField('target').superRefine((target, ctx) => {
      if (!target) addProblem(ctx, 'too_small', '"target" must not be empty (RFC 7553 §4.5).');
      else if (target.length > MAX_URI_LENGTH)
        addProblem(ctx, 'too_big', `"target" is ${target.length} characters long; at most ${MAX_URI_LENGTH} are allowed.`);
      else if (!ABSOLUTE_URI.test(target)) {
        addProblem(
          ctx,
          'invalid_uri',
          `"target" must be an absolute URI (RFC 3986 §4.3), for example "https://www.example.com/" or "mailto:admin@example.com", printable ASCII without spaces; "${target}" is not.`,
        );
      }
    }),
  }),
  ownerProblem: () => null,
  zoneKinds: ['forward'],
};
