// AAAA (RFC 3596 §2.2): one IPv6 address, stored in the codec's one text form (RFC 5952;
// nameserver/wire/address.ts), the form the served data and the zone export show.
import { z } from 'zod';
import { canonicalIpv4, canonicalIpv6 } from '../../../nameserver/wire/address.js';
import { addressRule } from './addressRule.js';
import { addProblem, stringField } from './fields.js';
import type { RecordTypePolicy } from './rule.js';

export type AaaaData = { address: string };

const ipv6Field = stringField('address').transform((value, ctx) => {
  const address = value.trim();
  const canonical = canonicalIpv6(address);
  if (canonical) return canonical;
  addProblem(
    ctx,
    'invalid_ipv6',
    canonicalIpv4(address) !== null ? `"${address}" is an IPv4 address; use an A record.` : `"${address}" is not an IPv6 address (for example 2001:db8::1).`,
  );
  return z.NEVER;
});

export const aaaaRule: RecordTypePolicy = addressRule('AAAA', ipv6Field);
