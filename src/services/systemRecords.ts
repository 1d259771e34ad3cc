// The SOA and apex NS set as the API shows them: rendered from the zone and NAMESERVERS exactly as
// the publication build renders them (src/domain/soa.ts), never stored. They keep the shape of a
// stored record (system: true, read-only) with ids derived from the zone's, so lists, exports,
// GET by id and the record_readonly answers stay as they were when the rows were stored.
import type { DbContext } from '../db/context.js';
import { createHash } from 'node:crypto';
import type { DnsRecord } from '../domain/model/record.js';
import type { Zone } from '../domain/model/zone.js';
import { lastChangeSetOfKinds } from '../db/repositories/changeSetStore.js';
import type { ChangeSetState } from '../domain/publication.js';
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

/** The change set that last wrote the system records' inputs: the zone's creation or settings. */
export interface SystemRecordsWrite {
  changesetId: string;
  state: ChangeSetState;
  at: Date;
}

export async function lastSystemWrite(ctx: DbContext, zone: Zone): Promise<SystemRecordsWrite | null> {
  const row = await lastChangeSetOfKinds(ctx.scoped, zone.id, ['zone_create', 'zone_settings']);
  return row ? { changesetId: row.id, state: row.state, at: row.created_at } : null;
}

export function renderSystemRecords(zone: Zone, nameservers: readonly string[], lastWrite: SystemRecordsWrite | null = null): DnsRecord[] {
  const publication = lastWrite ?? { changesetId: zone.publication.changesetId ?? '', state: zone.publication.state ?? 'pending', at: zone.updatedAt };
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
    // Rendered from the zone's settings: they change when the zone row does.
    version: zone.version,
    // Their last write: the zone's creation or its newest settings change (SOA RNAME, default TTL).
    publication: { state: publication.state, changesetId: publication.changesetId },
    createdAt: zone.createdAt,
    updatedAt: publication.at,
  }));
}

/** A system record named by id in a write, for the planner to refuse (record_readonly). */
export function systemRecordStub(zone: Zone, id: string): DnsRecord {
  const type = id.slice(`rec_${zoneBody(zone)}`.length).startsWith('soa') ? 'SOA' : 'NS';
  return {
    id,
    zoneId: zone.id,
    name: '@',
    type,
    ttl: null,
    data: {},
    content: '',
    comment: null,
    system: true,
    version: zone.version,
    publication: { state: zone.publication.state ?? 'pending', changesetId: zone.publication.changesetId ?? '' },
    createdAt: zone.createdAt,
    updatedAt: zone.updatedAt,
  };
}
