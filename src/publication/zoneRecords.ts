// Stored records → what the nameserver holds: absolute owner names and RDATA in wire form.
import { absoluteName } from '../../nameserver/wire/name.js';
import { encodeRdata } from '../../nameserver/wire/rdata.js';
import { TYPE, type ZoneRecord } from '../../nameserver/types.js';

/** A record as published: zone-relative name ('@' the apex), the TTL as served. */
export interface PublishedRecord {
  name: string;
  type: string;
  ttl: number;
  data: Record<string, unknown>;
}

/** Throws (RangeError) when the data cannot be put on the wire: a build failure. */
export function toZoneRecord(zone: string, r: PublishedRecord): ZoneRecord {
  const type = TYPE[r.type as keyof typeof TYPE];
  if (type === undefined) throw new RangeError(`record type ${r.type} cannot be published`);
  return { name: absoluteName(r.name, zone), type, ttl: r.ttl, rdata: encodeRdata(r.type, r.data) };
}
