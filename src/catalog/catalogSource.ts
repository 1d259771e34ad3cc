// A catalog zone's records as a record source (docs/catalog-zones.md "The catalog zone"): its
// set's members and its listing read in the build's transaction, what the version lists decided
// by planListing (a zone moving to another catalog kept with `coo` for a while, one moving in held
// back until the old catalog has said so) and written to the listing in the same transaction, so
// the listing commits with the version that says it; rendered by catalogRecords (the version
// property, a PTR per member, its group where the set groups). The SOA and NS are the apex
// source's. Every build renders the whole member list; the version's diff against the served one
// is what changed, so a one-zone change is a one-PTR IXFR.
import { readCatalogMoves, readCatalogState, writeCatalogListing } from '../db/repositories/catalogMembers.js';
import { planListing } from '../domain/catalogListing.js';
import { type DnssecState, isSigned } from '../domain/dnssec/states.js';
import { type GroupBy, memberGroup } from '../domain/secondarySets.js';
import type { RecordSource } from '../versionRecords/recordSource.js';
import { type CatalogMember, catalogRecords } from './catalogRecords.js';

/** What a catalog is rendered from: plain data, it crosses to the signing thread. */
export interface CatalogInputs {
  groupBy: GroupBy;
  members: { zoneId: string; name: string; dnssecState: string; movedTo: string | null }[];
}

export const catalogSource: RecordSource<CatalogInputs> = {
  name: 'catalog',
  appliesTo: (zone) => zone.kind === 'catalog',
  read: async (trx, zone) => {
    const state = await readCatalogState(trx, zone);
    if (!state) return null;
    const listed = new Map(state.listings.map((l) => [l.zoneId, l]));
    const newcomers = state.members.filter((m) => !listed.get(m.zoneId)?.listed).map((m) => m.zoneId);
    const selected = new Set(state.members.map((m) => m.zoneId));
    const departing = state.listings.filter((l) => l.listed && l.cooTo === null && !l.expired && !selected.has(l.zoneId)).map((l) => l.zoneId);
    const moves = await readCatalogMoves(trx, { id: zone.id, setId: state.setId }, newcomers, departing);
    const plan = planListing({
      catalogId: zone.id,
      members: state.members.map((m) => m.zoneId),
      listings: state.listings,
      elsewhere: moves.elsewhere,
      targets: new Map([...moves.targets].map(([zoneId, c]) => [zoneId, c.id])),
    });
    await writeCatalogListing(trx, zone.id, plan);
    const zones = new Map([...state.members, ...state.listings].map((z) => [z.zoneId, z]));
    const catalogNames = new Map<string, string>([...moves.targets.values()].map((c) => [c.id, c.name]));
    for (const l of state.listings) if (l.cooTo && l.cooName) catalogNames.set(l.cooTo, l.cooName);
    const members = plan.render.map(({ zoneId, movedTo }) => {
      const z = zones.get(zoneId)!;
      return { zoneId, name: z.name, dnssecState: z.dnssecState, movedTo: movedTo && (catalogNames.get(movedTo) ?? null) };
    });
    return { groupBy: state.groupBy, members };
  },
  // At the zone's default TTL: consumers poll the SOA, never these records' TTL (RFC 9432 §5.1
  // leaves it to the producer); one TTL for every record of a zone keeps one rule.
  render: ({ zone }, { groupBy, members }) =>
    catalogRecords(
      members.map(
        (m): CatalogMember => ({
          zoneId: m.zoneId,
          name: m.name,
          group: memberGroup(groupBy, isSigned(m.dnssecState as DnssecState)),
          movedTo: m.movedTo,
        }),
      ),
      zone.defaultTtl,
    ),
};
