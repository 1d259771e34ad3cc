// What a catalog lists in its next version, and what it remembers of that (docs/catalog-zones.md
// "Moving between catalogs"). Pure: the repository reads the set's members, the catalog's
// listing, where a newcomer is still listed and where a departing member went; this decides.
//
// A zone moves between catalogs when its DNSSEC group changes under group selections, or a set's
// selection changes. A consumer following both catalogs (BIND) moves it only if the old catalog
// says so first (RFC 9432 §5.6 `coo`) and the new one lists it after that: otherwise it keeps the
// zone owned by the old catalog, ignores the new entry, and drops the zone when the old catalog
// does. So the old catalog keeps a departed member with `coo` for a grace period, and the new
// catalog holds back a newcomer another catalog still lists until that catalog's `coo` to it has
// been out for a hold time (long enough for consumers to have read it).

/** A row of the catalog's listing (table catalog_listings). */
export interface Listing {
  zoneId: string;
  /** Listed in the catalog's version; false: held back (a newcomer another catalog still lists). */
  listed: boolean;
  /** Departed to this catalog zone (id), and listed with `coo` until the grace period ends; null: a member. */
  cooTo: string | null;
  /** Departed more than the grace period ago (or its `coo` catalog is gone). */
  expired: boolean;
}

/** Another catalog that still lists a newcomer although its set no longer selects it (the zone is moving). */
export interface ListedElsewhere {
  zoneId: string;
  /** That catalog's `coo` for the zone (a catalog zone id); null: it has not said yet. */
  cooTo: string | null;
  /** Its `coo` has been out for the hold time. */
  ripe: boolean;
}

export interface ListingInputs {
  /** This catalog zone's id. */
  catalogId: string;
  /** The zones its set selects now. */
  members: readonly string[];
  listings: readonly Listing[];
  /** For members not yet listed here. */
  elsewhere: readonly ListedElsewhere[];
  /** For listed members the set no longer selects: the catalog (zone id) of another set carrying it now, if any. */
  targets: ReadonlyMap<string, string>;
}

export interface ListingPlan {
  /** The zones the version lists, with the catalog they moved to (null: a member). */
  render: { zoneId: string; movedTo: string | null }[];
  /** Rows to write: listed members (no coo), held newcomers, departures from now. */
  list: string[];
  hold: string[];
  depart: { zoneId: string; cooTo: string }[];
  /** Rows to delete: no longer listed or held. */
  drop: string[];
}

export function planListing(input: ListingInputs): ListingPlan {
  const plan: ListingPlan = { render: [], list: [], hold: [], depart: [], drop: [] };
  const rows = new Map(input.listings.map((l) => [l.zoneId, l]));
  const elsewhere = new Map<string, ListedElsewhere[]>();
  for (const e of input.elsewhere) elsewhere.set(e.zoneId, [...(elsewhere.get(e.zoneId) ?? []), e]);
  const members = new Set(input.members);

  for (const zoneId of input.members) {
    const row = rows.get(zoneId);
    if (row?.listed) {
      // A departed member selected again: a member, its `coo` withdrawn.
      if (row.cooTo !== null || row.expired) plan.list.push(zoneId);
      plan.render.push({ zoneId, movedTo: null });
      continue;
    }
    // Held while a catalog it is moving from has not said where it goes, or said here and the
    // hold time is not over; one that sent it elsewhere does not hold it (a server following
    // both keeps it where the coo says; this catalog's other servers need it now).
    const moving = elsewhere.get(zoneId) ?? [];
    if (!moving.some((e) => e.cooTo === null || (e.cooTo === input.catalogId && !e.ripe))) {
      plan.list.push(zoneId);
      plan.render.push({ zoneId, movedTo: null });
    } else if (!row) plan.hold.push(zoneId);
  }

  for (const row of input.listings) {
    if (members.has(row.zoneId)) continue;
    if (!row.listed) {
      plan.drop.push(row.zoneId);
      continue;
    }
    if (row.cooTo === null && !row.expired) {
      // Departs now: with `coo` where another set carries it, else simply removed.
      const target = input.targets.get(row.zoneId);
      if (target) {
        plan.depart.push({ zoneId: row.zoneId, cooTo: target });
        plan.render.push({ zoneId: row.zoneId, movedTo: target });
      } else plan.drop.push(row.zoneId);
      continue;
    }
    if (row.cooTo === null || row.expired) plan.drop.push(row.zoneId);
    else plan.render.push({ zoneId: row.zoneId, movedTo: row.cooTo });
  }
  return plan;
}
