// What a catalog lists when zones move between catalogs (docs/catalog-zones.md "Moving between
// catalogs"): a departing member keeps its PTR with a coo to the set that carries it now, for the
// grace period; a newcomer another catalog still lists waits for that catalog's coo to it to
// ripen; a member selected again loses its coo.
import { describe, expect, it } from 'vitest';
import { type Listing, planListing } from '../../../src/domain/catalogListing.js';

const ME = 'zon_cat_b';
const OTHER = 'zon_cat_a';
const member = (zoneId: string): Listing => ({ zoneId, listed: true, cooTo: null, expired: false });
const plan = (over: Partial<Parameters<typeof planListing>[0]>) =>
  planListing({ catalogId: ME, members: [], listings: [], elsewhere: [], targets: new Map(), ...over });

describe('planListing', () => {
  it('lists a new zone no other catalog lists at once, and writes nothing for members already listed', () => {
    const p = plan({ members: ['zon_new', 'zon_old'], listings: [member('zon_old')] });
    expect(p.render).toEqual([
      { zoneId: 'zon_new', movedTo: null },
      { zoneId: 'zon_old', movedTo: null },
    ]);
    expect(p).toMatchObject({ list: ['zon_new'], hold: [], depart: [], drop: [] });
  });

  it('keeps a departing member with a coo to the catalog of the set that carries it now, or removes it when none does', () => {
    const p = plan({ listings: [member('zon_moves'), member('zon_gone')], targets: new Map([['zon_moves', OTHER]]) });
    expect(p.render).toEqual([{ zoneId: 'zon_moves', movedTo: OTHER }]);
    expect(p.depart).toEqual([{ zoneId: 'zon_moves', cooTo: OTHER }]);
    expect(p.drop).toEqual(['zon_gone']);
  });

  it('keeps a departed member with its coo through the grace period, and drops it after', () => {
    const departed = { zoneId: 'zon_moved', listed: true, cooTo: OTHER, expired: false };
    expect(plan({ listings: [departed] })).toMatchObject({ render: [{ zoneId: 'zon_moved', movedTo: OTHER }], depart: [], drop: [] });
    expect(plan({ listings: [{ ...departed, expired: true }] })).toMatchObject({ render: [], drop: ['zon_moved'] });
    // Its coo catalog deleted (the column set to null): expired, dropped.
    expect(plan({ listings: [{ ...departed, cooTo: null, expired: true }] })).toMatchObject({ render: [], drop: ['zon_moved'] });
  });

  it('holds back a newcomer another catalog still lists until that catalog’s coo to this one has ripened; not when it sent the zone elsewhere', () => {
    const held = plan({ members: ['zon_in'], elsewhere: [{ zoneId: 'zon_in', cooTo: null, ripe: false }] });
    expect(held).toMatchObject({ render: [], hold: ['zon_in'], list: [] });
    const stillHeld = plan({
      members: ['zon_in'],
      listings: [{ ...member('zon_in'), listed: false }],
      elsewhere: [{ zoneId: 'zon_in', cooTo: ME, ripe: false }],
    });
    expect(stillHeld).toMatchObject({ render: [], hold: [], list: [], drop: [] });
    // Sent to a third catalog: not held here.
    const elsewhereTo = plan({ members: ['zon_in'], elsewhere: [{ zoneId: 'zon_in', cooTo: 'zon_cat_c', ripe: false }] });
    expect(elsewhereTo).toMatchObject({ render: [{ zoneId: 'zon_in', movedTo: null }], list: ['zon_in'] });
    const ripe = plan({ members: ['zon_in'], listings: [{ ...member('zon_in'), listed: false }], elsewhere: [{ zoneId: 'zon_in', cooTo: ME, ripe: true }] });
    expect(ripe).toMatchObject({ render: [{ zoneId: 'zon_in', movedTo: null }], list: ['zon_in'] });
  });

  it('drops a held newcomer the set no longer selects, and withdraws the coo of a member selected again', () => {
    expect(plan({ listings: [{ ...member('zon_held'), listed: false }] })).toMatchObject({ render: [], drop: ['zon_held'] });
    const back = plan({ members: ['zon_back'], listings: [{ zoneId: 'zon_back', listed: true, cooTo: OTHER, expired: false }] });
    expect(back).toMatchObject({ render: [{ zoneId: 'zon_back', movedTo: null }], list: ['zon_back'] });
  });
});
