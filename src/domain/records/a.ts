// A (RFC 1035 §3.4.1): one IPv4 address.
import { z } from 'zod';
import { canonicalIpv4 } from '../../../nameserver/wire/address.js';
import { addressRule } from './addressRule.js';
import { addProblem, stringField } from './fields.js';
import type { RecordTypePolicy } from './rule.js';

export type AData = { address: string };

const ipv4Field = stringField('address').transform((value, ctx) => {
  // The codec's parser refuses leading zeros ("010" is octal to inet_aton, decimal to others).
  const address = value.trim();
  const canonical = canonicalIpv4(address);
  if (canonical !== null) return canonical;
  const detail =
    /^\d+(\.\d+){3}$/.test(address) && address.split('.').every((o) => Number(o) <= 255)
      ? `"${address}" has a leading zero in an octet; write each octet without leading zeros.`
      : address.includes(':')
        ? `"${address}" is an IPv6 address; use an AAAA record.`
        : `"${address}" is not an IPv4 address in dotted-quad form (for example 192.0.2.1).`;
  addProblem(ctx, 'invalid_ipv4', detail);
  return z.NEVER;
});

export const aRule: RecordTypePolicy = addressRule('A', ipv4Field);
