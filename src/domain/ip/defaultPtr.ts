// Default PTRs (docs/rdns.md "Default PTRs"): the host name an address space's pattern gives an
// address. Pure, so that the publication build (which renders them) and the PTR reads (which show
// them) cannot disagree.
import { canonicalName, NameError, toAsciiName } from '../names.js';
import { type Address, type Block, dashedAddress, formatAddress, isClasslessZoneName, reverseName } from './address.js';

/** The pattern filled for `a`, without the trailing dot (as PTR targets are stored). */
export function renderDefaultPtr(pattern: string, a: Address): string {
  const reversed = reverseName(a).replace(/\.(in-addr|ip6)\.arpa$/, '');
  return canonicalName(pattern.replaceAll('{dashed}', dashedAddress(a)).replaceAll('{ip}', formatAddress(a)).replaceAll('{reversed}', reversed));
}

/**
 * A checked pattern as it is stored: each label without a placeholder spelled as toAsciiName
 * spells names (lower case, U-labels as A-labels: `Bücher` → `xn--bcher-kva`), labels with one in
 * lower case, the final dot kept (a pattern is absolute). A label mixing a placeholder with
 * non-ASCII characters would need another A-label for every address: NameError.
 */
export function canonicalPattern(pattern: string): string {
  const labels = pattern.trim().replace(/\.$/, '').split('.');
  return `${labels
    .map((label) => {
      if (!label.includes('{')) return toAsciiName(label);
      if (/[^\x00-\x7f]/.test(label))
        throw new NameError('invalid_character', `The label "${label}" has a placeholder and characters other than ASCII; write such a label as its A-label.`);
      return label.toLowerCase();
    })
    .join('.')}.`;
}

/** Why a pattern cannot serve a block, or null: it must name a placeholder that varies per address, and {ip} only for IPv4 (colons are no host-name characters). */
export function patternProblem(pattern: string, block: Block): string | null {
  if (!pattern.endsWith('.')) return 'The pattern must be an absolute name ending in ".".';
  if (!/\{dashed\}|\{ip\}|\{reversed\}/.test(pattern)) return 'The pattern must contain {dashed}, {ip} or {reversed}, so that every address gets its own name.';
  if (/\{(?!dashed\}|ip\}|reversed\})[^}]*\}/.test(pattern)) return 'Only {dashed}, {ip} and {reversed} can be used.';
  if (block.family === 6 && pattern.includes('{ip}')) return '{ip} is for IPv4 spaces only: an IPv6 address is no host-name label; use {dashed}.';
  return null;
}

/**
 * What every name of a pattern ends with: the labels after the label of its last placeholder
 * (`static.{dashed}.hosting.example.` → `hosting.example`; `{dashed}.` → ''). A zone holds every
 * name of the pattern when this is the zone or lies below it.
 */
export function patternSuffix(pattern: string): string {
  const afterPlaceholder = pattern.slice(pattern.lastIndexOf('}') + 1);
  const dot = afterPlaceholder.indexOf('.');
  return dot < 0 ? '' : canonicalName(afterPlaceholder.slice(dot + 1));
}

/** The owner of an address's PTR relative to its reverse zone; in an RFC 2317 classless zone (`0-26.2.0.192.in-addr.arpa`) the last octet. */
export function ownerOfAddress(a: Address, zoneName: string): string {
  if (isClasslessZoneName(zoneName)) return formatAddress(a).split('.')[3]!;
  const full = reverseName(a);
  return full === zoneName ? '@' : full.slice(0, -(zoneName.length + 1));
}
