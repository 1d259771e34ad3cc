// The zones a catalog zone (RFC 9432 §4.1) lists: the targets of the PTR records one label below
// `zones.<catalog>`. Read from the snapshot the nameserver serves, so that what a consumer may
// transfer is exactly what the catalog it transferred told it to; kept per snapshot (snapshots
// never change), so a fleet provisioning its members reads each version of the catalog once.
import { TYPE } from '../types.js';
import { parentName } from '../wire/name.js';
import { rrsetAt, type ZoneSnapshot } from '../zone/snapshot.js';

const members = new WeakMap<ZoneSnapshot, ReadonlySet<string>>();

/** The lower-case origins the catalog lists as members (no trailing dot). */
export function catalogMembers(catalog: ZoneSnapshot): ReadonlySet<string> {
  let listed = members.get(catalog);
  if (!listed) {
    listed = readMembers(catalog);
    members.set(catalog, listed);
  }
  return listed;
}

function readMembers(catalog: ZoneSnapshot): ReadonlySet<string> {
  const zonesLabel = `zones.${catalog.origin}`;
  const listed = new Set<string>();
  for (const record of catalog.records()) {
    if (record.type !== TYPE.PTR || parentName(record.name.toLowerCase()) !== zonesLabel) continue;
    const node = catalog.node(record.name);
    for (const target of (node && rrsetAt(node, TYPE.PTR)?.targets) ?? []) if (target) listed.add(target);
  }
  return listed;
}
