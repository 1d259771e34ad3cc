// Build step 2: the records the service manages, rendered for this version: the SOA with the
// version's serial (RFC 1035 §3.3.13; MNAME the first configured nameserver) and the apex NS set
// from the NAMESERVERS configuration. They are not stored anywhere else: a change of NAMESERVERS
// reaches every zone with its next build.
import { systemRecords } from '../../domain/soa.js';
import { encodeRecord, type WireRecord } from '../zoneRecords.js';
import type { VersionDraft } from './versionDraft.js';

export function synthesizeSystemRecords(
  zone: VersionDraft['zone'],
  serial: number,
  nameservers: readonly string[],
  before: WireRecord[],
): VersionDraft['system'] {
  // The apex RRsets take the zone's default TTL, as a record without a TTL of its own does.
  const after = systemRecords(nameservers, zone.soaEmail, serial).map((r) => encodeRecord({ ...r, ttl: zone.defaultTtl }));
  return { before, after, nameservers: [...nameservers] };
}
