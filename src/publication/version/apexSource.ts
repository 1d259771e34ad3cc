// The apex records the service manages: the SOA with the version's serial (RFC 1035 §3.3.13;
// MNAME the first configured nameserver) and the NS set from the NAMESERVERS configuration, at the
// zone's default TTL as a record without a TTL of its own. Stored nowhere: a change of NAMESERVERS
// reaches every zone with its next build (zonesRenderedElsewise).
import { systemRecords } from '../../domain/soa.js';
import { encodeRecord } from '../../versionRecords/zoneRecords.js';
import type { RecordSource } from '../../versionRecords/recordSource.js';

export const apexSource: RecordSource<undefined> = {
  name: 'apex',
  appliesTo: () => true,
  render: ({ zone, serial, nameservers }) => systemRecords(nameservers, zone.soaEmail, serial).map((r) => encodeRecord({ ...r, ttl: zone.defaultTtl })),
};
