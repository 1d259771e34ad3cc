// RFC 2136 §3.2: the prerequisite section against the zone as it is, under the zone's lock. The
// checks a message can fail on its own (TTL, class, RDATA of ANY and NONE, owners outside the
// zone: FORMERR and NOTZONE) were made by the nameserver (wire/update.ts checkUpdateForm); here
// the zone's data decides. Pure.
import type { Prerequisite, UpdateRcode } from './updateRecords.js';
import type { ZoneRRsets } from './zoneRRsets.js';

/**
 * NOERROR when every prerequisite holds, else the rcode of the first that does not, in the
 * order of §3.2.5: each record's own test as it comes (NXDOMAIN, NXRRSET, YXDOMAIN, YXRRSET),
 * then the value-dependent RRsets (§2.4.2), each compared as a set with the zone's RRset, TTLs
 * aside: NXRRSET when one differs.
 */
export function evaluatePrerequisites(zone: ZoneRRsets, prerequisites: readonly Prerequisite[]): UpdateRcode {
  /** §3.2.3's temp: the records each value-dependent RRset must hold, by owner and type. */
  const wanted = new Map<string, { name: string; type: string; keys: Set<string | null> }>();
  for (const p of prerequisites) {
    switch (p.kind) {
      case 'name_in_use':
        if (!zone.nameInUse(p.name)) return 'NXDOMAIN';
        break;
      case 'name_not_in_use':
        if (zone.nameInUse(p.name)) return 'YXDOMAIN';
        break;
      case 'rrset_exists':
        if (!zone.rrset(p.name, p.type)) return 'NXRRSET';
        break;
      case 'rrset_does_not_exist':
        if (zone.rrset(p.name, p.type)) return 'YXRRSET';
        break;
      case 'rrset_equals': {
        const k = `${p.name}\u0000${p.type}`;
        const entry = wanted.get(k) ?? { name: p.name, type: p.type, keys: new Set() };
        // RDATA the service cannot hold is in no RRset of the zone: the comparison fails.
        entry.keys.add(p.value?.key ?? null);
        wanted.set(k, entry);
        break;
      }
    }
  }
  for (const { name, type, keys } of wanted.values()) {
    const have = zone.rrset(name, type);
    if (!have || have.records.size !== keys.size || [...keys].some((k) => k === null || !have.records.has(k))) return 'NXRRSET';
  }
  return 'NOERROR';
}
