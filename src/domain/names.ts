// DNS names as the service accepts and stores them: lower case, A-label form, no trailing dot
// (spec "General conventions": names in responses are lower case without a trailing dot; U-labels
// in input are converted to A-labels). One function per kind of name:
//
// - toAsciiName:        any name (zone names, owner names once made absolute)
// - normalizeOwner:     a record's owner, stored zone-relative ('@' = apex)
// - normalizeHostname:  a target host name inside RDATA (CNAME, MX, SRV, NS, PTR)
// - canonicalName:      the same spelling for a name that needs no validation (read from DNS
//                       answers or configuration, or only compared): never spell it by hand
//
// Lengths are counted in the text form without the trailing dot: 253 characters there are the
// 255 wire octets of RFC 1035 §2.3.4 (each label adds one length octet, the root one more).
import { domainToASCII } from 'node:url';
import { canonicalIpv4, canonicalIpv6 } from '../../nameserver/wire/address.js';
import {
  absoluteName,
  isAtOrBelow,
  normalizeName,
  relativeName,
  MAX_LABEL_OCTETS,
  MAX_NAME_OCTETS as MAX_NAME_WIRE_OCTETS,
} from '../../nameserver/wire/name.js';

/** A name that cannot be used; `code` is stable and ends up in a problem's `errors[].code`. */
export class NameError extends Error {
  constructor(
    readonly code: string,
    detail: string,
  ) {
    super(detail);
    this.name = 'NameError';
  }
}

/** RFC 1035 §2.3.4: names 255 wire octets or less, i.e. 253 characters in text without the final dot. */
const MAX_NAME_OCTETS = MAX_NAME_WIRE_OCTETS - 2;

// IDNA (UTS #46 §4) treats these full-width and ideographic full stops as label separators.
const IDEOGRAPHIC_DOTS = /[\u3002\uff0e\uff61]/g;
const ENDS_WITH_DOT = /[.\u3002\uff0e\uff61]$/;
// Host names (RFC 952/1123 §2.1) allow letters, digits and hyphens; underscores are allowed too
// because service labels (_dmarc, _domainkey, _sip._tcp; RFC 8552) are ordinary owner names.
const LABEL_CHARS = /^[a-z0-9_-]+$/;
const NON_ASCII = /[^\x00-\x7f]/;

function labelToAscii(label: string, name: string): string {
  if (NON_ASCII.test(label)) {
    // RFC 5891 §4.2.3.1: a U-label neither begins nor ends with a hyphen. The A-label would hide it.
    if (label.startsWith('-') || label.endsWith('-')) {
      throw new NameError('invalid_hyphen', `The label "${label}" of "${name}" begins or ends with a hyphen.`);
    }
    // node:url applies UTS #46 mapping and Punycode (RFC 3492). It would also strip or map some
    // ASCII, which is why only labels with non-ASCII characters go through it.
    const ascii = domainToASCII(label);
    if (!ascii || ascii.includes('.')) {
      throw new NameError('invalid_character', `The label "${label}" of "${name}" is not a valid internationalised label.`);
    }
    return ascii;
  }
  // An A-label must decode to a valid U-label (RFC 5890 §2.3.2.1); "xn--zz" does not.
  if (label.startsWith('xn--') && domainToASCII(label) !== label) {
    throw new NameError('invalid_a_label', `The label "${label}" of "${name}" is not a valid A-label (xn--…).`);
  }
  return label;
}

/**
 * Any DNS name in canonical form: trimmed, lower case, without ONE trailing dot, U-labels converted
 * to A-labels. Validates label and name length, characters and the wildcard position.
 * Throws NameError.
 */
export function toAsciiName(input: string): string {
  // Lower case before the ideographic dots become '.': a Greek final sigma depends on what follows it.
  const name = normalizeName(input.trim().toLowerCase().replace(IDEOGRAPHIC_DOTS, '.'));
  if (name === '') throw new NameError('empty_name', 'The name is empty.');
  const labels = name.split('.').map((label, i) => {
    if (label === '') throw new NameError('empty_label', `The name "${input.trim()}" contains an empty label (two dots in a row, or a leading dot).`);
    const ascii = labelToAscii(label, name);
    if (ascii.length > MAX_LABEL_OCTETS) {
      throw new NameError('label_too_long', `The label "${label}" is ${ascii.length} octets long; at most ${MAX_LABEL_OCTETS} are allowed.`);
    }
    // RFC 4592 §2.1.1: the asterisk label is a wildcard only as the whole leftmost label.
    if (ascii.includes('*')) {
      if (ascii !== '*' || i !== 0) {
        throw new NameError('invalid_wildcard', `"*" is allowed only as the whole leftmost label (as in "*.example.com"), not in "${name}".`);
      }
      return ascii;
    }
    if (!LABEL_CHARS.test(ascii)) {
      throw new NameError('invalid_character', `The label "${label}" contains a character other than a-z, 0-9, "-" and "_".`);
    }
    // RFC 952 / RFC 1123 §2.1: a label neither begins nor ends with a hyphen.
    if (ascii.startsWith('-') || ascii.endsWith('-')) {
      throw new NameError('invalid_hyphen', `The label "${label}" begins or ends with a hyphen.`);
    }
    return ascii;
  });
  const ascii = labels.join('.');
  if (ascii.length > MAX_NAME_OCTETS) {
    throw new NameError('name_too_long', `The name is ${ascii.length} characters long; at most ${MAX_NAME_OCTETS} are allowed.`);
  }
  return ascii;
}

/**
 * A name in the spelling of responses and stored rows (spec: lower case, no trailing dot) without
 * validating it: for names a DNS answer or the configuration gives, or that are only compared
 * with stored ones. Client input is validated with toAsciiName or normalizeHostname instead.
 * The root stays ".".
 */
export function canonicalName(name: string): string {
  const trimmed = name.trim();
  return trimmed === '.' ? '.' : normalizeName(trimmed);
}

/**
 * A record owner as stored: relative to the zone, '@' for the apex. `www`, `_dmarc`, `*.dev`, `a.b`.
 * Input ending in a dot is absolute and must lie in the zone; otherwise it is relative, except that
 * the zone's own name (with or without the dot) means the apex. `zone` is a stored zone name
 * (canonical; '' the root, whose names are all relative and absolute alike).
 */
export function normalizeOwner(input: string, zone: string): string {
  const trimmed = input.trim();
  if (trimmed === '' || trimmed === '@') return '@';
  const name = toAsciiName(trimmed);
  if (name === zone) return '@';
  let relative = name;
  if (ENDS_WITH_DOT.test(trimmed)) {
    if (!isAtOrBelow(name, zone)) {
      throw new NameError(
        'outside_zone',
        `"${trimmed}" is not inside the zone "${zone}". Write the name relative to the zone, or absolute with a trailing dot.`,
      );
    }
    relative = relativeName(name, zone);
  }
  const absolute = absoluteName(relative, zone);
  if (absolute.length > MAX_NAME_OCTETS) {
    throw new NameError('name_too_long', `The name "${absolute}" is ${absolute.length} characters long; at most ${MAX_NAME_OCTETS} are allowed.`);
  }
  return relative;
}

// The absolute name (no trailing dot) of a stored relative owner ('@' the zone): the name module's.

/**
 * A target host name inside RDATA (CNAME target, MX exchange, SRV target, NS nameserver, PTR
 * target): canonical like toAsciiName, never an IP address, never a wildcard, at least two labels.
 * "." (the root) only with `allowRoot` (null MX, RFC 7505; "no service" SRV, RFC 2782); it stays ".".
 */
export function normalizeHostname(input: string, opts: { allowRoot?: boolean } = {}): string {
  const trimmed = input.trim();
  if (trimmed === '.') {
    if (opts.allowRoot) return '.';
    throw new NameError('root_not_allowed', 'The root name "." is not allowed here; give a host name.');
  }
  const bare = normalizeName(trimmed.replace(/^\[(.*)\]$/, '$1'));
  // RFC 1034 §3.6.2 / RFC 1035 §3.3: these fields hold a domain name, never an address.
  if (canonicalIpv4(bare) !== null || canonicalIpv6(bare) !== null) {
    throw new NameError('ip_not_allowed', `"${trimmed}" is an IP address; give a host name that has address records.`);
  }
  const name = toAsciiName(trimmed);
  if (name.split('.')[0] === '*') {
    throw new NameError('invalid_wildcard', `A wildcard cannot be the target host name "${name}".`);
  }
  if (!name.includes('.')) {
    throw new NameError('single_label', `"${name}" is a single label; give the fully-qualified host name, for example "${name}.example.com".`);
  }
  return name;
}

/** True for in-addr.arpa (RFC 1035 §3.5) and ip6.arpa (RFC 3596 §2.5) and every name below them. */
export function isReverseZoneName(name: string): boolean {
  const n = canonicalName(name);
  return ['in-addr.arpa', 'ip6.arpa'].some((root) => isAtOrBelow(n, root));
}
