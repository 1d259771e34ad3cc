// A and AAAA differ only in their address field: the rest of their policy is one.
import { z } from 'zod';
import type { RecordTypePolicy } from './rule.js';

/** The policy of an address type: `data` is the one address, any owner may hold it. */
export const addressRule = (type: 'A' | 'AAAA', address: z.ZodType<string>): RecordTypePolicy => ({
  type,
  data: z.strictObject({ address }),
  ownerProblem: () => null,
  // In the lab's parent zones: glue and the addresses of the service's nameserver names.
  zoneKinds: ['forward', 'lab_parent'],
});
