// CNAME (RFC 1034 §3.6.2, RFC 1035 §3.3.1): an alias for one canonical host name.
import { z } from 'zod';
import { hostnameField } from './fields.js';
import { absoluteHost } from './presentation.js';
import type { RecordTypeRule } from './rule.js';

export type CnameData = { target: string };

export const cnameRule: RecordTypeRule = {
  type: 'CNAME',
  data: z.strictObject({ target: hostnameField('target') }),
  presentation: (data) => absoluteHost((data as CnameData).target),
  // RFC 1034 §3.6.2 / RFC 2181 §10.1: a CNAME has no other data beside it, and the apex always
  // holds the SOA and NS records. (Exclusivity at other names is checked on the change set.)
  ownerProblem: (owner) =>
    owner === '@' ? 'A CNAME cannot be at the zone apex, which holds the SOA and NS records (RFC 1034 §3.6.2).' : null,
  // RFC 2317: classless reverse delegation is CNAMEs in the parent reverse zone.
  zoneKinds: ['forward', 'reverse'],
};
