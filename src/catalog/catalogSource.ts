// A catalog zone's records as a record source (docs/catalog-zones.md "The catalog zone"): its
// members read in the build's transaction, rendered by catalogRecords (the version property, a PTR
// per member, its group where the set groups). The SOA and NS are the apex source's. Every build
// renders the whole member list; the version's diff against the served one is what changed, so a
// one-zone change is a one-PTR IXFR.
import { type CatalogInputs, readCatalogInputs } from '../db/repositories/catalogMembers.js';
import { type DnssecState, isSigned } from '../domain/dnssec/states.js';
import { memberGroup } from '../domain/secondarySets.js';
import type { RecordSource } from '../versionRecords/recordSource.js';
import { catalogRecords } from './catalogRecords.js';

export const catalogSource: RecordSource<CatalogInputs> = {
  name: 'catalog',
  appliesTo: (zone) => zone.kind === 'catalog',
  read: (trx, zone) => readCatalogInputs(trx, zone),
  // At the zone's default TTL: consumers poll the SOA, never these records' TTL (RFC 9432 §5.1
  // leaves it to the producer); one TTL for every record of a zone keeps one rule.
  render: ({ zone }, { groupBy, members }) =>
    catalogRecords(
      members.map((m) => ({ zoneId: m.zoneId, name: m.name, group: memberGroup(groupBy, isSigned(m.dnssecState as DnssecState)) })),
      zone.defaultTtl,
    ),
};
