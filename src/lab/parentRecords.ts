// What the lab's parent zones hold (docs/lab.md "Lab parent zones"): the root delegates every lab
// TLD and the reverse parents in-addr.arpa and ip6.arpa, each of those delegates the lab zones
// below it (RFC 2317 classless zones with their CNAMEs), and the service's nameserver names
// resolve on loopback. Pure: the registrar's sync (labParents.ts) stores the result.
import { blockSize, formatAddress, parseBlock } from '../domain/ip/address.js';
import { isAtOrBelow, relativeName, splitLabels } from '../../nameserver/wire/name.js';
import type { ParentRRset } from '../services/labParentZones.js';

/** TLDs the lab serves from the start (the lab's own `test`, documentation names, common ones). */
const LAB_TLDS = ['test', 'example', 'com', 'net', 'org', 'de'] as const;

/** The reverse parents: the lab's registry for every reverse zone the service hosts. */
const LAB_REVERSE_PARENTS = ['in-addr.arpa', 'ip6.arpa'] as const;

/** Where the lab's nameserver names point: the embedded nameserver on loopback. */
const LAB_NAMESERVER_ADDRESSES = { A: { address: '127.0.0.1' }, AAAA: { address: '::1' } } as const;

/** A lab zone as its parent sees it: its name and where the registry delegates it. */
export interface DelegatedZone {
  name: string;
  /** NS names at the parent; null: the service's nameservers. */
  delegation: string[] | null;
  /** DS records at the parent (the codec's data), [] for none. */
  ds: Record<string, unknown>[];
  /** An RFC 2317 classless reverse zone's block (CIDR): the parent holds a CNAME per address. */
  classless?: string;
}

/** The lab parent zone of a name: in-addr.arpa or ip6.arpa for reverse names, else its TLD. */
export function labParentOf(name: string): string {
  const reverse = LAB_REVERSE_PARENTS.find((p) => name !== p && isAtOrBelow(name, p));
  return reverse ?? splitLabels(name).at(-1) ?? '';
}

/** The parent zones the lab needs: the root (''), every TLD of LAB_TLDS, the reverse parents, a zone's and a nameserver name's parent. */
export function labParentNames(zones: DelegatedZone[], nameservers: readonly string[]): string[] {
  return ['', ...new Set([...LAB_TLDS, ...LAB_REVERSE_PARENTS, ...zones.map((z) => labParentOf(z.name)), ...nameservers.map(labParentOf)])];
}

/**
 * RFC 2317 §4: the /24's zone points every address of a classless block at the classless zone
 * (`5.2.0.192.in-addr.arpa CNAME 5.0-26.2.0.192.in-addr.arpa`). In the lab the registry's
 * in-addr.arpa plays the holder of that /24 (docs/lab.md "Reverse parents").
 */
function classlessCnames(zone: DelegatedZone, parent: string): ParentRRset[] {
  const block = parseBlock(zone.classless!);
  const rrsets: ParentRRset[] = [];
  for (let i = 0n; i < blockSize(block); i++) {
    const octets = formatAddress({ family: 4, value: block.network + i }).split('.');
    const owner = `${octets.reverse().join('.')}.in-addr.arpa`;
    rrsets.push({ name: relativeName(owner, parent), type: 'CNAME', records: [{ target: `${octets[0]}.${zone.name}` }] });
  }
  return rrsets;
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
    parent === ''
      ? tlds.filter((t) => t !== '').map((name) => ({ name, delegation: null, ds: tldDs.get(name) ?? [] }))
      : zones.filter((z) => labParentOf(z.name) === parent);
  const rrsets = children.map((c) => nsSet(relativeName(c.name, parent), c.delegation ?? nameservers));
  for (const c of children) if (c.ds.length) rrsets.push({ name: relativeName(c.name, parent), type: 'DS', records: c.ds });
  for (const c of children) if (c.classless) rrsets.push(...classlessCnames(c, parent));
  for (const host of new Set(nameservers)) {
    if (host === parent || !isAtOrBelow(host, parent)) continue;
    const owner = relativeName(host, parent);
    rrsets.push({ name: owner, type: 'A', records: [LAB_NAMESERVER_ADDRESSES.A] }, { name: owner, type: 'AAAA', records: [LAB_NAMESERVER_ADDRESSES.AAAA] });
  }
  return rrsets;
}
