// HINFO (RFC 1035 §3.3.2): a host's CPU and operating system, two character-strings (RFC 8482
// §4.2 gives HINFO "RFC8482" "" a meaning: the minimal answer to ANY).
import { z } from 'zod';
import { characterStringField } from './fields.js';
import type { RecordTypePolicy } from './rule.js';

export type HinfoData = { cpu: string; os: string };

export const hinfoRule: RecordTypePolicy = {
  type: 'HINFO',
  data: z.strictObject({ cpu: characterStringField('cpu', { allowEmpty: true }), os: characterStringField('os', { allowEmpty: true }) }),
  ownerProblem: () => null,
  zoneKinds: ['forward', 'reverse'],
};
