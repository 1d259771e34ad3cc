// PTR (RFC 1035 §3.3.12): the host name of an address, in reverse zones only (RFC 1035 §3.5, RFC 3596 §2.5).
import { z } from 'zod';
import { hostnameField } from './fields.js';
import { absoluteHost } from './presentation.js';
import type { RecordTypeRule } from './rule.js';

export type PtrData = { target: string };

export const ptrRule: RecordTypeRule = {
  type: 'PTR',
  data: z.strictObject({ target: hostnameField('target') }),
  presentation: (data) => absoluteHost((data as PtrData).target),
  ownerProblem: () => null,
  zoneKinds: ['reverse'],
};
