// The SOA and apex NS set as the API shows them: rendered from the zone and NAMESERVERS exactly as
// the publication build renders them (src/domain/soa.ts), never stored. They keep the shape of a
// stored record (system: true, read-only) with ids derived from the zone's, so lists, exports,
// GET by id and the record_readonly answers stay as they were when the rows were stored.
import { createHash } from 'node:crypto';
import type { DnsRecord, Zone } from '../db/repositories/zoneRows.js';
import { type SystemRecord, systemPresentation, systemRecords } from '../domain/soa.js';

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
const zoneBody = (zone: Zone) => zone.id.slice(zone.id.indexOf('_') + 1);

/** Longer than a random record id (newId: 26 characters after the prefix), so never one of them. */
function systemRecordId(zone: Zone, r: SystemRecord): string {
  if (r.type === 'SOA') return `rec_${zoneBody(zone)}soa`;
  const digest = createHash('sha256').update(r.data.nameserver).digest();
  const tag = [...digest.subarray(0, 8)].map((b) => BASE32[b & 31]).join('');
  return `rec_${zoneBody(zone)}ns${tag}`;
}

/** Whether `id` names one of the zone's system records (without knowing NAMESERVERS). */
export const isSystemRecordId = (zone: Zone, id: string) => id.startsWith(`rec_${zoneBody(zone)}`) && id.length > `rec_${zoneBody(zone)}`.length;

export function renderSystemRecords(zone: Zone, nameservers: readonly string[]): DnsRecord[] {
  return systemRecords(nameservers, zone.soaEmail, zone.serial).map((r) => ({
    id: systemRecordId(zone, r),
    zoneId: zone.id,
    name: r.name,
    type: r.type,
    // The apex RRsets follow the zone's default TTL.
    ttl: null,
    data: { ...r.data },
    content: systemPresentation(r),
    comment: null,
    system: true,
    // Every version renders them; their last write is the zone's newest change set.
    publication: { state: zone.publication.state ?? 'pending', changesetId: zone.publication.changesetId ?? '' },
    createdAt: zone.createdAt,
    updatedAt: zone.publication.updatedAt ?? zone.updatedAt,
  }));
}

/** A system record named by id in a write, for the planner to refuse (record_readonly). */
export function systemRecordStub(zone: Zone, id: string): DnsRecord {
  const type = id.slice(`rec_${zoneBody(zone)}`.length).startsWith('soa') ? 'SOA' : 'NS';
  return {
    id, zoneId: zone.id, name: '@', type, ttl: null, data: {}, content: '', comment: null, system: true,
    publication: { state: zone.publication.state ?? 'pending', changesetId: zone.publication.changesetId ?? '' },
    createdAt: zone.createdAt, updatedAt: zone.updatedAt,
  };
}
