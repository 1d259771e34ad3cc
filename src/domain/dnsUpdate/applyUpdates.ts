// RFC 2136 §3.4.2: the update section applied to the zone's RRsets in memory, record by record
// in the order sent, so that a delete followed by an add in one message (lego's "present")
// leaves the add. What the service decides where the RFC leaves room or the service manages the
// data itself (docs/dynamic-update.md "What an update may change"):
//
//   - SOA: every SOA record of an update is ignored. The service keeps the SOA (its serial moves
//     with each published version); the RFC's own rule ignores an SOA whose serial is not higher.
//   - Apex NS: deletions are ignored (§3.4.2.3 and §3.4.2.4 protect the apex NS set; ours is the
//     service's NAMESERVERS, rendered). Adding an apex NS the set already holds changes nothing;
//     adding another is REFUSED, as the API refuses it (record_readonly).
//   - DNSSEC types (DNSKEY, RRSIG, NSEC, NSEC3, NSEC3PARAM, CDS, CDNSKEY): the signer's alone;
//     any update naming one is REFUSED.
//   - Types the API does not write (HINFO, SSHFP, HTTPS, …): adding one is REFUSED; deleting one
//     changes nothing, since the zone cannot hold it.
//   - CNAME exclusivity (§3.4.2.2): an add of a CNAME at a name holding other data, or of other
//     data at a CNAME, is ignored, as BIND and Knot ignore it; the rest of the message applies.
//     A CNAME added where one is replaces it (one CNAME per name).
//   - An add of a record the RRset holds already changes nothing but, per §3.4.2.2 ("zrr = rr"),
//     the TTL; a different TTL on an add becomes the whole RRset's (RFC 2181 §5.2).
//
// Everything else the API's rules decide when the result is planned (planChangeSet): TTL bounds,
// record data, owner names, managed records, quotas, the credential's policy. Pure.
import { DNSSEC_TYPES } from '../../../nameserver/wire/rrTypes.js';
import { isRecordType } from '../records/types.js';
import type { UpdateItem } from './updateRecords.js';
import type { ZoneRRsets } from './zoneRRsets.js';

export type UpdateOutcome =
  /** Applied; `ignored` says which records the rules above passed over (for the log). */
  | { refused: null; ignored: string[] }
  /** Nothing of the message may apply: REFUSED, for this reason (for the log). */
  | { refused: string; ignored: string[] };

export function applyUpdates(zone: ZoneRRsets, updates: readonly UpdateItem[]): UpdateOutcome {
  const ignored: string[] = [];
  const apex = zone.zone.name;
  for (const u of updates) {
    const what = `${u.name} ${u.type}`;
    if (DNSSEC_TYPES.has(u.type)) return { refused: `${what}: DNSSEC records are written by the service's signer only`, ignored };
    if (u.type === 'SOA') {
      ignored.push(`${what}: the service keeps the SOA`);
      continue;
    }
    const apexNs = u.name === apex && u.type === 'NS';
    switch (u.kind) {
      case 'add': {
        if (!isRecordType(u.type)) return { refused: `${what}: the service does not hold ${u.type} records`, ignored };
        const value = u.value!;
        if (value.key === null) return { refused: `${what}: ${value.problem}`, ignored };
        if (apexNs) {
          if (zone.rrset(apex, 'NS')?.records.has(value.key)) continue;
          return { refused: `${what}: the apex NS set is the service's (NAMESERVERS)`, ignored };
        }
        const others = zone.types(u.name).filter((t) => t !== 'CNAME');
        if (u.type === 'CNAME' ? others.length > 0 : zone.rrset(u.name, 'CNAME') !== undefined) {
          ignored.push(`${what}: a CNAME cannot share its name with other data (RFC 2136 §3.4.2.2)`);
          continue;
        }
        const set = zone.touch(u.name, u.type);
        if (u.type === 'CNAME') set.records.clear();
        // The RRset's TTL as stored stays while it is the one asked for (a TTL null follows the default).
        if (set.records.size === 0 || zone.effectiveTtl(set) !== u.ttl) set.ttl = u.ttl;
        set.records.set(value.key, value.data);
        break;
      }
      case 'delete_rrset':
        if (apexNs) ignored.push(`${what}: the apex NS set is the service's`);
        else if (zone.rrset(u.name, u.type)) zone.touch(u.name, u.type).records.clear();
        break;
      case 'delete_name':
        // §3.4.2.3: at the apex, every RRset but the SOA and NS.
        for (const type of zone.types(u.name)) if (!zone.rrset(u.name, type)!.system) zone.touch(u.name, type).records.clear();
        break;
      case 'delete_record': {
        if (apexNs) {
          ignored.push(`${what}: the apex NS set is the service's`);
          continue;
        }
        const key = u.value?.key;
        if (key != null && zone.rrset(u.name, u.type)?.records.has(key)) zone.touch(u.name, u.type).records.delete(key);
        break;
      }
    }
  }
  return { refused: null, ignored };
}
