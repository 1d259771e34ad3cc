// Which names may become zones (spec "Create zone checks", steps 1 and 2, and reverse zones).
import { parse } from 'tldts';
import { isAtOrBelow } from '../../nameserver/wire/name.js';
import { DomainError } from './errors.js';
import { isReverseZoneName, NameError, toAsciiName } from './names.js';

export interface ZoneNamePolicy {
  protectedNames: string[];
  /** Accepted as public suffixes beyond the ICANN list (the lab's `test`, `example`). */
  extraPublicSuffixes: string[];
}

const invalid = (code: string, detail: string) => new DomainError('validation_failed', {}, [{ pointer: '/name', code, detail }]);

// Label-wise, from the one name module (services check protected names with it too).

/** The public suffix of a name: an extra suffix when one matches, else the ICANN list's. */
function publicSuffixOf(name: string, extra: string[]): { suffix: string; known: boolean } {
  const own = extra.filter((s) => isAtOrBelow(name, s)).sort((a, b) => b.length - a.length)[0];
  if (own) return { suffix: own, known: true };
  const p = parse(name, { allowPrivateDomains: false });
  return { suffix: p.publicSuffix ?? name, known: p.isIcann === true };
}

/**
 * Normalises a zone name (U-labels to A-labels, lower case, trailing dot stripped) and applies
 * the checks in the spec's order: a registrable domain or a subdomain of one
 * (validation_failed), reverse zones (reverse_zone_managed), protected names (zone_protected).
 */
export function checkNewZoneName(input: string, policy: ZoneNamePolicy): string {
  let name: string;
  try {
    name = toAsciiName(input);
  } catch (e) {
    if (e instanceof NameError) throw invalid(e.code, e.message);
    throw e;
  }
  if (name.includes('*')) throw invalid('invalid_wildcard', 'A zone name cannot contain a wildcard.');
  if (name.includes('_')) throw invalid('invalid_character', 'Zone names are host names (letters, digits, hyphens): no underscores.');
  if (isReverseZoneName(name)) {
    throw new DomainError('reverse_zone_managed', { name });
  }
  const { suffix, known } = publicSuffixOf(name, policy.extraPublicSuffixes);
  if (!known) throw invalid('unknown_tld', `${name} does not end in a known public suffix.`);
  if (name === suffix) throw invalid('public_suffix', `${name} is a public suffix; use a domain registered below it.`);
  if (policy.protectedNames.some((p) => isAtOrBelow(name, p))) throw new DomainError('zone_protected', { name });
  return name;
}

/** A zone given in a path: A-label or U-label form, any case, optional trailing dot. */
export function zoneNameFromPath(input: string): string | null {
  try {
    return toAsciiName(decodeURIComponent(input));
  } catch {
    return null;
  }
}

/** The names at and above `name` up to (not including) its public suffix: candidate ancestors. */
export function ancestorsOf(name: string): string[] {
  const labels = name.split('.');
  return labels.slice(1).map((_, i) => labels.slice(i + 1).join('.'));
}
