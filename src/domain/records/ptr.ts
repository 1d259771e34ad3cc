// PTR (RFC 1035 §3.3.12): the host name of an address, in reverse zones only (RFC 1035 §3.5, RFC 3596 §2.5).
import { z } from 'zod';
import { hostnameField } from './fields.js';
import type { RecordTypePolicy } from './rule.js';

export type PtrData = { target: string };

export const ptrRule: RecordTypePolicy = {
  type: 'PTR',
  data: z.strictObject({ target: hostnameField('target') }),
  ownerProblem: () => null,
  zoneKinds: ['reverse', 'provider_reverse'],
};
