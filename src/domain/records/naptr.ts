// NAPTR (RFC 3403): a rewrite rule of the Dynamic Delegation Discovery System (ENUM, SIP, S-NAPTR).
import { z } from 'zod';
import { addProblem, characterStringField, hostnameField, uintField } from './fields.js';
import { naptrRegexpProblem } from './naptrRegexp.js';
import type { RecordTypePolicy } from './rule.js';

export type NaptrData = { order: number; preference: number; flags: string; services: string; regexp: string; replacement: string };

export const naptrRule: RecordTypePolicy = {
  type: 'NAPTR',
  data: z
    .strictObject({
      order: uintField('order', 65535),
      preference: uintField('preference', 65535),
      // RFC 3403 §4.1: flags are single characters A-Z and 0-9 (case-insensitive).
      flags: characterStringField('flags', { allowEmpty: true }).superRefine((flags, ctx) => {
        if (!/^[A-Za-z0-9]*$/.test(flags))
          addProblem(ctx, 'invalid_flags', `"flags" holds single letters and digits, for example "S", "A", "U" or "" (RFC 3403 §4.1); "${flags}" does not.`);
      }),
      services: characterStringField('services', { allowEmpty: true }),
      regexp: characterStringField('regexp', { allowEmpty: true }).superRefine((regexp, ctx) => {
        const problem = naptrRegexpProblem(regexp);
        if (problem) addProblem(ctx, 'invalid_regexp', `"regexp" is refused as BIND refuses it: ${problem}`);
      }),
      replacement: hostnameField('replacement', { allowRoot: true }),
    })
    .superRefine((d, ctx) => {
      // RFC 3403 §4.1: "The Regexp and Replacement fields are mutually exclusive."
      if (d.regexp !== '' && d.replacement !== '.') {
        addProblem(
          ctx,
          'regexp_and_replacement',
          `"regexp" and "replacement" are mutually exclusive (RFC 3403 §4.1): with a regexp the replacement is "."; this one is "${d.replacement}".`,
          ['replacement'],
        );
      }
    }),
  ownerProblem: () => null,
  zoneKinds: ['forward', 'reverse'],
};
