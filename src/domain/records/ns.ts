// NS (RFC 1035 §3.3.11): here only delegations of a subdomain; the apex NS set is the service's.
import { z } from 'zod';
import { hostnameField } from './fields.js';
import type { RecordTypePolicy } from './rule.js';

export type NsData = { nameserver: string };

export const nsRule: RecordTypePolicy = {
  type: 'NS',
  data: z.strictObject({ nameserver: hostnameField('nameserver') }),
  ownerProblem: (owner) => {
    if (owner === '@') {
      return 'The apex NS set is managed by the service; NS records are allowed only below the apex, to delegate a subdomain.';
    }
    // RFC 4592 §4.2: a wildcard NS set does not delegate anything usable.
    if (owner.split('.')[0] === '*') return 'A wildcard name cannot be delegated (RFC 4592 §4.2).';
    return null;
  },
  // Reverse zones delegate too (RFC 2317 classless delegation, sub-prefixes); the lab's parent
  // zones hold nothing but delegations and their glue.
  zoneKinds: ['forward', 'reverse', 'lab_parent'],
};
