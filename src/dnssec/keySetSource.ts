// The DNSSEC key sets at a signed zone's apex — DNSKEY (every key, signing or only published),
// CDS/CDNSKEY as the zone's state asks (RFC 7344, RFC 8078) — rendered by every build from the keys
// and policy the version is signed with, so that what is published is what signs. It reads nothing
// of its own: the build reads the keys for its signer, and hands them to every source.
import { keySets } from '../../nameserver/dnssec/signZone.js';
import { relativeName } from '../../nameserver/wire/name.js';
import type { RecordSource } from '../versionRecords/recordSource.js';

export const keySetSource: RecordSource<undefined> = {
  name: 'dnssecKeys',
  appliesTo: () => true,
  render: ({ zone, signing }) =>
    signing === null ? [] : keySets(zone.name, signing.keys, signing.policy).map((r) => ({ ...r, name: relativeName(r.name, zone.name) })),
};
