// Records as a published version holds them: zone-relative owner ('@' the apex), the TTL as
// served, the type code and the RDATA in wire form. The build encodes each record once
// (encodeRecord); nameserver processes only make the owner absolute.
import { absoluteName } from '../../nameserver/wire/name.js';
import { encodeRdata } from '../../nameserver/wire/rdata.js';
import type { ZoneRecord } from '../../nameserver/types.js';
import { typeCode } from '../../nameserver/wire/rrTypes.js';
import type { StoredWireRecord } from '../db/repositories/versionStore.js';

export type { StoredWireRecord };

/** Throws (RangeError) when the data cannot be put on the wire: a build failure. */
export function encodeRecord(r: { name: string; type: string; ttl: number; data: Record<string, unknown> }): ZoneRecord {
  const type = typeCode(r.type);
  if (type === null) throw new RangeError(`record type ${r.type} cannot be published`);
  return { name: r.name, type, ttl: r.ttl, rdata: encodeRdata(r.type, r.data) };
}

export const sameWire = (a: ZoneRecord, b: ZoneRecord) => a.name === b.name && a.type === b.type && a.ttl === b.ttl && a.rdata.equals(b.rdata);

export const toStored = ({ name, type, ttl, rdata }: ZoneRecord): StoredWireRecord => ({ name, type, ttl, rdata: rdata.toString('base64') });

export const fromStored = (r: StoredWireRecord): ZoneRecord => ({ name: r.name, type: r.type, ttl: r.ttl, rdata: Buffer.from(r.rdata, 'base64') });

/** What the nameserver holds: nothing left to check or encode. */
export const toZoneRecord = (zone: string, r: ZoneRecord): ZoneRecord => ({ name: absoluteName(r.name, zone), type: r.type, ttl: r.ttl, rdata: r.rdata });
