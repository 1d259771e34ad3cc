// RP (RFC 1183 §2.2): who is responsible for a name: a mailbox written as a domain name (the
// first label is the local part, like the SOA RNAME) and a name with TXT records about them;
// "." for either means none.
import { z } from 'zod';
import { hostnameField, stringField } from './fields.js';
import type { RecordTypePolicy } from './rule.js';

export type RpData = { mailbox: string; text: string };

export const rpRule: RecordTypePolicy = {
  type: 'RP',
  data: z.strictObject({
    // "hostmaster@example.com" is taken for "hostmaster.example.com" (RFC 1183 §2.2 writes the mailbox as a name).
    mailbox: stringField('mailbox')
      .transform((value) => value.trim().replace(/^([^@.\s]+)@(?=[^@]+$)/, '$1.'))
      .pipe(hostnameField('mailbox', { allowRoot: true })),
    text: hostnameField('text', { allowRoot: true }),
  }),
  ownerProblem: () => null,
  zoneKinds: ['forward', 'reverse'],
};
