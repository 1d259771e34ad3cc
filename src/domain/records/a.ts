// A (RFC 1035 §3.4.1): one IPv4 address.
import { z } from 'zod';
import { addProblem, stringField } from './fields.js';
import type { RecordTypeRule } from './rule.js';

export type AData = { address: string };

const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
/**
 * Dotted quad, each octet 0–255 in decimal WITHOUT leading zeros: "010" is octal to inet_aton and
 * decimal to others, so it is refused rather than guessed. The accepted text is already canonical.
 */
export const IPV4_PATTERN = new RegExp(`^${OCTET}(?:\\.${OCTET}){3}$`);

export const ipv4Field = stringField('address').transform((value, ctx) => {
  const address = value.trim();
  if (IPV4_PATTERN.test(address)) return address;
  const detail = /^\d+(\.\d+){3}$/.test(address) && address.split('.').every((o) => Number(o) <= 255)
    ? `"${address}" has a leading zero in an octet; write each octet without leading zeros.`
    : address.includes(':')
      ? `"${address}" is an IPv6 address; use an AAAA record.`
      : `"${address}" is not an IPv4 address in dotted-quad form (for example 192.0.2.1).`;
  addProblem(ctx, 'invalid_ipv4', detail);
  return z.NEVER;
});

export const aRule: RecordTypeRule = {
  type: 'A',
  data: z.strictObject({ address: ipv4Field }),
  presentation: (data) => (data as AData).address,
  ownerProblem: () => null,
  zoneKinds: ['forward'],
};
