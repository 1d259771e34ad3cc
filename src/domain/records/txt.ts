// TXT (RFC 1035 §3.3.14): one or more character-strings. The API stores the text as ONE string,
// exactly as given (whitespace and case are significant); splitting into character-strings of at
// most 255 octets happens only in the presentation (and wire) form.
import { z } from 'zod';
import { addProblem, stringField } from './fields.js';
import type { RecordTypePolicy } from './rule.js';

export type TxtData = { text: string };

/**
 * Our bound: 8192 octets of UTF-8. That is 33 character-strings, 8225 RDATA octets: room for
 * 4096-bit DKIM keys and long SPF/verification strings, far below the 65535-octet RDATA limit
 * (RFC 1035 §3.2.1), and small enough that an answer still fits a TCP/EDNS response comfortably.
 */
const MAX_TXT_OCTETS = 8192;

// With the u flag a surrogate code unit matches only when it is unpaired.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

export const txtRule: RecordTypePolicy = {
  type: 'TXT',
  data: z.strictObject({
    text: stringField('text').superRefine((text, ctx) => {
      const octets = Buffer.byteLength(text, 'utf8');
      if (octets === 0) addProblem(ctx, 'too_small', '"text" must not be empty.');
      else if (octets > MAX_TXT_OCTETS) {
        addProblem(ctx, 'too_big', `"text" is ${octets} octets of UTF-8; at most ${MAX_TXT_OCTETS} are allowed.`);
      }
      // PostgreSQL text cannot hold U+0000; an unpaired surrogate has no UTF-8 encoding.
      if (text.includes('\u0000') || LONE_SURROGATE.test(text)) {
        addProblem(ctx, 'invalid_character', '"text" contains U+0000 or an unpaired UTF-16 surrogate.');
      }
    }),
  }),
  ownerProblem: () => null,
  zoneKinds: ['forward'],
};
