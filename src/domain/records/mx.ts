// MX (RFC 1035 §3.3.9, RFC 5321 §5.1): preference and mail exchange host.
import { z } from 'zod';
import { addProblem, hostnameField, isUint, uintField } from './fields.js';
import type { RecordTypePolicy } from './rule.js';

export type MxData = { preference: number; exchange: string };

export const mxRule: RecordTypePolicy = {
  type: 'MX',
  data: z
    .strictObject({
      preference: uintField('preference', 65535),
      // RFC 7505: the "null MX" (exchange ".") says the domain accepts no mail.
      exchange: hostnameField('exchange', { allowRoot: true }),
    })
    .superRefine((d, ctx) => {
      // RFC 7505 §3: the null MX has preference 0.
      if (d.exchange === '.' && isUint(d.preference, 65535) && d.preference !== 0) {
        addProblem(ctx, 'null_mx_preference', 'A null MX (exchange ".") must have preference 0 (RFC 7505 §3).', ['preference']);
      }
    }),
  ownerProblem: () => null,
  zoneKinds: ['forward'],
};
