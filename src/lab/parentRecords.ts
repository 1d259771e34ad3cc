// What the lab's parent zones hold (docs/lab.md "Lab parent zones"): the root delegates every lab
// TLD, each TLD delegates the lab zones below it, and the service's nameserver names resolve on
// loopback. Pure: the registrar's sync (labParents.ts) stores the result.
import { isAtOrBelow, relativeName, splitLabels } from '../../nameserver/wire/name.js';
import type { ParentRRset } from '../services/labParentZones.js';

/** TLDs the lab serves from the start (the lab's own `test`, documentation names, common ones). */
export const LAB_TLDS = ['test', 'example', 'com', 'net', 'org', 'de'] as const;

/** Where the lab's nameserver names point: the embedded nameserver on loopback. */
export const LAB_NAMESERVER_ADDRESSES = { A: { address: '127.0.0.1' }, AAAA: { address: '::1' } } as const;

/** A lab zone as its parent sees it: its name and where the registry delegates it. */
export interface DelegatedZone {
  name: string;
  /** NS names at the parent; null: the service's nameservers. */
  delegation: string[] | null;
  /** DS records at the parent (the codec's data), [] for none. */
  ds: Record<string, unknown>[];
}

export const tldOf = (name: string): string => splitLabels(name).at(-1) ?? '';

/** The parent zones the lab needs: the root ('') and every TLD of LAB_TLDS, of a zone, of a nameserver name. */
export function labParentNames(zones: DelegatedZone[], nameservers: readonly string[]): string[] {
  return ['', ...new Set([...LAB_TLDS, ...zones.map((z) => tldOf(z.name)), ...nameservers.map(tldOf)])];
}

const nsSet = (owner: string, hosts: readonly string[]): ParentRRset => ({ name: owner, type: 'NS', records: hosts.map((nameserver) => ({ nameserver })) });

/**
 * The RRsets of parent zone `parent` ('' the root, else a TLD): a delegation per child, and the
 * addresses of the service's nameserver names that lie in the zone — glue where they lie below a
 * delegation (RFC 9471), the names' own data otherwise.
 */
export function parentRRsets(
  parent: string,
  tlds: readonly string[],
  zones: DelegatedZone[],
  nameservers: readonly string[],
  /** The DS of each TLD at the root (its KSKs, through the registry). */
  tldDs: ReadonlyMap<string, Record<string, unknown>[]> = new Map(),
): ParentRRset[] {
  const children: DelegatedZone[] =
    parent === '' ? tlds.filter((t) => t !== '').map((name) => ({ name, delegation: null, ds: tldDs.get(name) ?? [] })) : zones.filter((z) => tldOf(z.name) === parent);
  const rrsets = children.map((c) => nsSet(relativeName(c.name, parent), c.delegation ?? nameservers));
  for (const c of children) if (c.ds.length) rrsets.push({ name: relativeName(c.name, parent), type: 'DS', records: c.ds });
  for (const host of new Set(nameservers)) {
    if (host === parent || !isAtOrBelow(host, parent)) continue;
    const owner = relativeName(host, parent);
    rrsets.push({ name: owner, type: 'A', records: [LAB_NAMESERVER_ADDRESSES.A] }, { name: owner, type: 'AAAA', records: [LAB_NAMESERVER_ADDRESSES.AAAA] });
  }
  return rrsets;
}
