// CNAME (RFC 1034 §3.6.2, RFC 1035 §3.3.1): an alias for one canonical host name.
import { z } from 'zod';
import { hostnameField } from './fields.js';
import type { RecordTypePolicy } from './rule.js';

export type CnameData = { target: string };

export const cnameRule: RecordTypePolicy = {
  type: 'CNAME',
  data: z.strictObject({ target: hostnameField('target') }),
  ownerProblem: (owner) => (owner === '@' ? 'A CNAME cannot be at the zone apex, which holds the SOA and NS records (RFC 1034 §3.6.2).' : null),
  // RFC 2317: classless reverse delegation is CNAMEs in the parent reverse zone (in the lab, the
  // registry's in-addr.arpa, a lab parent zone).
  zoneKinds: ['forward', 'reverse', 'lab_parent'],
};
