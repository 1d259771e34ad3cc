// The zone's RRsets at the names an RFC 2136 UPDATE names, as the update sees and changes them:
// the stored records and the apex records the service renders (SOA and NS, `system`), keyed by
// owner (absolute) and type. The prerequisites read it; the update section changes it in memory,
// in order; what differs from the start at the end becomes the change set's replace_rrset items.
// Pure.
import { absoluteName } from '../../../nameserver/wire/name.js';
import type { ChangeItem } from '../changeSets/planChangeSet.js';
import { valueKey } from './updateRecords.js';

/** A record as the zone holds it (zone-relative owner, '@' the apex: the stored form). */
export interface ZoneRecordInput {
  name: string;
  type: string;
  ttl: number | null;
  data: Record<string, unknown>;
  /** The SOA and apex NS the service renders: read by prerequisites, never written by an update. */
  system: boolean;
}

export interface ZoneRRset {
  /** As stored: null follows the zone's default TTL. */
  ttl: number | null;
  /** By key (updateRecords.ts valueKey); the data as stored or sent. */
  records: Map<string, Record<string, unknown>>;
  system: boolean;
}

const rrsetKey = (name: string, type: string) => `${name}\u0000${type}`;
/** What an RRset is, for telling whether an update changed it. */
const signature = (s: ZoneRRset | undefined) => (s?.records.size ? `${s.ttl ?? '-'}\u0000${[...s.records.keys()].sort().join('\u0000')}` : '');

export class ZoneRRsets {
  private readonly sets = new Map<string, Map<string, ZoneRRset>>();
  /** The signature of each RRset an update touched, as it was before the first touch; in touch order. */
  private readonly before = new Map<string, { name: string; type: string; was: string }>();

  constructor(
    readonly zone: { name: string; defaultTtl: number },
    records: readonly ZoneRecordInput[],
  ) {
    for (const r of records) {
      const set = this.rrsetFor(absoluteName(r.name, zone.name), r.type, r.system);
      // One TTL per RRset (RFC 2181 §5.2): stored RRsets are aligned already.
      set.ttl = r.ttl;
      set.records.set(valueKey(r.type, r.data), r.data);
    }
  }

  private rrsetFor(name: string, type: string, system = false): ZoneRRset {
    let types = this.sets.get(name);
    if (!types) this.sets.set(name, (types = new Map()));
    let set = types.get(type);
    if (!set) types.set(type, (set = { ttl: null, records: new Map(), system }));
    return set;
  }

  /** The RRset of `type` at `name`, or undefined when there is none (no records). */
  rrset(name: string, type: string): ZoneRRset | undefined {
    const set = this.sets.get(name)?.get(type);
    return set?.records.size ? set : undefined;
  }

  /** The types of the RRsets at `name`. */
  types(name: string): string[] {
    return [...(this.sets.get(name) ?? new Map<string, ZoneRRset>()).entries()].filter(([, s]) => s.records.size).map(([t]) => t);
  }

  /** RFC 2136 §2.4.4: at least one RR at the name. */
  nameInUse(name: string): boolean {
    return this.types(name).length > 0;
  }

  /** The RRset to change (made empty when there is none); remembers how it was. */
  touch(name: string, type: string): ZoneRRset {
    const k = rrsetKey(name, type);
    if (!this.before.has(k)) this.before.set(k, { name, type, was: signature(this.rrset(name, type)) });
    return this.rrsetFor(name, type);
  }

  /** The TTL the RRset is served with. */
  effectiveTtl(set: ZoneRRset): number {
    return set.ttl ?? this.zone.defaultTtl;
  }

  /**
   * One replace_rrset per RRset the update changed (records or TTL), in the order they were first
   * touched; an RRset left as it was gives none. Names absolute with the final dot.
   */
  changeItems(): ChangeItem[] {
    const items: ChangeItem[] = [];
    for (const { name, type, was } of this.before.values()) {
      const set = this.rrset(name, type);
      if (signature(set) === was) continue;
      items.push({ op: 'replace_rrset', name: `${name}.`, type, ttl: set?.ttl ?? null, records: set ? [...set.records.values()] : [] });
    }
    return items;
  }
}
