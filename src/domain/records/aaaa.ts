// AAAA (RFC 3596 §2.2): one IPv6 address, stored in the RFC 5952 text form.
import { isIPv6 } from 'node:net';
import { z } from 'zod';
import { IPV4_PATTERN } from './a.js';
import { addProblem, stringField } from './fields.js';
import type { RecordTypeRule } from './rule.js';

export type AaaaData = { address: string };

/** The eight 16-bit groups of an IPv6 address (any RFC 4291 §2.2 text form), or null. */
export function parseIpv6(input: string): number[] | null {
  // node:net accepts a zone index ("fe80::1%eth0"); a zone index is local and has no place in DNS.
  if (!isIPv6(input) || input.includes('%')) return null;
  let text = input;
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    // RFC 4291 §2.2 form 3: the low 32 bits as an embedded dotted quad.
    if (!IPV4_PATTERN.test(tail)) return null;
    const [a = 0, b = 0, c = 0, d = 0] = tail.split('.').map(Number);
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [left = '', right] = text.split('::');
  const head = left ? left.split(':') : [];
  const tailGroups = right === undefined ? [] : right ? right.split(':') : [];
  const missing = 8 - head.length - tailGroups.length;
  if (right === undefined ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array<string>(missing).fill('0'), ...tailGroups].map((g) => parseInt(g, 16));
  return groups.length === 8 && groups.every((g) => g >= 0 && g <= 0xffff) ? groups : null;
}

/**
 * RFC 5952 §4: lower case, no leading zeros, the longest run of two or more zero groups (the first
 * of equal runs) replaced by "::". RFC 5952 §5: IPv4-mapped addresses (::ffff:0:0/96) keep the
 * dotted quad, as inet_ntop and PostgreSQL write them; every other address is pure hex.
 */
export function formatIpv6(groups: number[]): string {
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    const [hi = 0, lo = 0] = groups.slice(6);
    return `::ffff:${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  }
  let best = { start: -1, length: 1 };
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) { i++; continue; }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.length) best = { start: i, length: j - i };
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.start < 0) return hex.join(':');
  return `${hex.slice(0, best.start).join(':')}::${hex.slice(best.start + best.length).join(':')}`;
}

/** An IPv6 address in canonical RFC 5952 form, or null when the input is not one. */
export function canonicalIpv6(input: string): string | null {
  const groups = parseIpv6(input.trim());
  return groups ? formatIpv6(groups) : null;
}

export const ipv6Field = stringField('address').transform((value, ctx) => {
  const canonical = canonicalIpv6(value);
  if (canonical) return canonical;
  const address = value.trim();
  addProblem(
    ctx,
    'invalid_ipv6',
    IPV4_PATTERN.test(address)
      ? `"${address}" is an IPv4 address; use an A record.`
      : `"${address}" is not an IPv6 address (for example 2001:db8::1).`,
  );
  return z.NEVER;
});

export const aaaaRule: RecordTypeRule = {
  type: 'AAAA',
  data: z.strictObject({ address: ipv6Field }),
  presentation: (data) => (data as AaaaData).address,
  ownerProblem: () => null,
  zoneKinds: ['forward'],
};
