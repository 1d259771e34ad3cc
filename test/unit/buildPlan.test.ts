// What a build does, decided from the zone's row, its keys and NAMESERVERS alone (buildPlan.ts).
import { describe, expect, it } from 'vitest';
import type { KeyRow } from '../../src/db/repositories/dnssecKeys.js';
import type { BuildZone } from '../../src/db/repositories/versionStore.js';
import { needsKeys, planBuild, RESIGN_AFTER_MS, signPolicy, stillApplies } from '../../src/publication/version/buildPlan.js';

const NS = ['ns1.dns.test', 'ns2.dns.test'];
const NOW = new Date('2026-11-28T12:00:00Z');

const zone = (over: Partial<BuildZone> = {}): BuildZone => ({
  id: 'zon_1',
  name: 'example.test',
  tenant_id: 'ten_1',
  status: 'active',
  default_ttl: 3600,
  soa_email: 'hostmaster.example.test',
  created_at: new Date('2026-11-01T00:00:00Z'),
  serial_floor: null,
  changeset_seq: 3,
  published_seq: 2,
  published_serial: 2026112701,
  served_nameservers: NS,
  dnssec_state: 'off',
  dnssec_denial: 'nsec3',
  served_signing: null,
  served_at: new Date('2026-11-28T11:00:00Z'),
  pending_touched: [['www']],
  build_lock: true,
  kind: 'forward',
  ip_space_id: null,
  reverse_block: null,
  catalog_stamp: null,
  served_catalog_stamp: null,
  catalog_due: false,
  ...over,
});
const key = (id: string) => ({ id, state: 'active' }) as KeyRow;

describe('planBuild', () => {
  it('has nothing to build when the served version is current', () => {
    expect(planBuild(zone({ published_seq: 3 }), [], NS, NOW)).toBeNull();
  });

  it('builds again, whole, when NAMESERVERS changed even with no change set', () => {
    const plan = planBuild(zone({ published_seq: 3 }), [], ['ns9.dns.test'], NOW)!;
    expect(plan).not.toBeNull();
    expect(plan.serial).toBeGreaterThan(2026112701);
  });

  it('builds a catalog again when its members changed since the served version, with no change set of its own', () => {
    const catalog = { kind: 'catalog', published_seq: 3, pending_touched: [] };
    expect(planBuild(zone({ ...catalog, catalog_stamp: '2:abc', served_catalog_stamp: '2:abc' }), [], NS, NOW)).toBeNull();
    expect(planBuild(zone({ ...catalog, catalog_stamp: '3:def', served_catalog_stamp: '2:abc' }), [], NS, NOW)).toMatchObject({
      touched: [],
      whole: false,
      fromSerial: 2026112701,
    });
    // A zone moving between catalogs due its next step: built with its members' stamp unchanged.
    expect(planBuild(zone({ ...catalog, catalog_stamp: '2:abc', served_catalog_stamp: '2:abc', catalog_due: true }), [], NS, NOW)).not.toBeNull();
  });

  it('builds the touched names of an unsigned zone incrementally', () => {
    const plan = planBuild(zone({ pending_touched: [['www'], ['mail', 'www']] }), [], NS, NOW)!;
    expect(plan).toMatchObject({ touched: ['www', 'mail'], whole: false, byChange: false, fromSerial: 2026112701, signing: null });
  });

  it('reads whole when a change set touched the whole zone, or on the first build', () => {
    expect(planBuild(zone({ pending_touched: [['www'], null] }), [], NS, NOW)).toMatchObject({ touched: null, whole: true });
    expect(planBuild(zone({ published_serial: null, served_nameservers: null }), [], NS, NOW)).toMatchObject({ fromSerial: null, whole: true });
  });

  it('gives a zone’s first version the creation day’s serial, or one above its name’s previous zone’s last', () => {
    const first = (floor: number | null) => planBuild(zone({ published_serial: null, served_nameservers: null, serial_floor: floor }), [], NS, NOW)!.serial;
    expect(first(null)).toBe(2026110101);
    // The previous zone of the name ended later the same day, or on a later day: above it.
    expect(first(2026110104)).toBe(2026110105);
    expect(first(2026112702)).toBe(2026112703);
    // Long ago: the creation day's serial is above it already.
    expect(first(2025010101)).toBe(2026110101);
  });

  it('signs a change by its names while keys and policy stay, and whole otherwise', () => {
    const keys = [key('k1'), key('k2')];
    const signing = planBuild(zone({ dnssec_state: 'active' }), keys, NS, NOW)!.signing;
    const same = planBuild(zone({ dnssec_state: 'active', served_signing: signing }), keys, NS, NOW)!;
    expect(same).toMatchObject({ byChange: true, whole: false });
    expect(planBuild(zone({ dnssec_state: 'active', served_signing: signing }), [key('k1'), key('k3')], NS, NOW)).toMatchObject({
      byChange: false,
      whole: true,
    });
    expect(planBuild(zone({ dnssec_state: 'active', served_signing: signing, pending_touched: [['a\\046b']] }), keys, NS, NOW)).toMatchObject({
      byChange: false,
      whole: true,
    });
  });

  it('signs whole, with no change of its own, a zone whose served version lays its DNSSEC records out otherwise (key sets made by the signer)', () => {
    const keys = [key('k1'), key('k2')];
    const earlierLayout = 'nsec3 keys k1:active k2:active';
    expect(planBuild(zone({ dnssec_state: 'active', served_signing: earlierLayout, published_seq: 3 }), keys, NS, NOW)).toMatchObject({
      byChange: false,
      whole: true,
    });
  });

  it('re-signs a signed zone whole once its version is a day old, with no change of its own', () => {
    const keys = [key('k1')];
    const signing = planBuild(zone({ dnssec_state: 'active' }), keys, NS, NOW)!.signing;
    const old = new Date(NOW.getTime() - RESIGN_AFTER_MS);
    expect(planBuild(zone({ dnssec_state: 'active', served_signing: signing, published_seq: 3 }), keys, NS, NOW)).toBeNull();
    expect(planBuild(zone({ dnssec_state: 'active', served_signing: signing, published_seq: 3, served_at: old }), keys, NS, NOW)).toMatchObject({
      whole: true,
      byChange: false,
    });
  });

  it('needs the keys of a zone that is or was signed', () => {
    expect(needsKeys(zone())).toBe(false);
    expect(needsKeys(zone({ dnssec_state: 'active' }))).toBe(true);
    expect(needsKeys(zone({ served_signing: 'nsec3 keys k1:active' }))).toBe(true);
  });
});

describe('stillApplies', () => {
  const keys = [key('k1')];
  const then = planBuild(zone({ dnssec_state: 'active' }), keys, NS, NOW)!;

  it('holds while nothing was published and the signing is the same', () => {
    expect(stillApplies(then, planBuild(zone({ dnssec_state: 'active', changeset_seq: 5 }), keys, NS, NOW)!)).toBe(true);
  });

  it('fails when a version was published meanwhile, or the keys changed', () => {
    expect(stillApplies(then, planBuild(zone({ dnssec_state: 'active', published_serial: 2026112801 }), keys, NS, NOW)!)).toBe(false);
    expect(stillApplies(then, planBuild(zone({ dnssec_state: 'active' }), [key('k2')], NS, NOW)!)).toBe(false);
  });
});

describe('signPolicy', () => {
  it('back-dates an hour, expires within two weeks less a per-zone jitter, refreshes with a week left', () => {
    const t = NOW.getTime() / 1000;
    const p = signPolicy({ id: 'zon_1', dnssec_state: 'active', dnssec_denial: 'nsec3' }, NOW, 3600);
    expect(p.window.inception).toBe(t - 3600);
    expect(p.window.expiration).toBeLessThanOrEqual(t + 14 * 86400);
    expect(p.window.expiration).toBeGreaterThan(t + 14 * 86400 - 12 * 3600);
    expect(p.refreshBefore).toBe(t + 7 * 86400);
    expect(p).toMatchObject({ denial: 'nsec3', cds: 'keys', dnskeyTtl: 3600 });
    expect(signPolicy({ id: 'zon_2', dnssec_state: 'active', dnssec_denial: 'nsec3' }, NOW, 3600).window.expiration).not.toBe(p.window.expiration);
  });

  it('publishes the CDS delete form while the DS is being removed', () => {
    expect(signPolicy({ id: 'zon_1', dnssec_state: 'ds_removing', dnssec_denial: 'nsec' }, NOW, 3600).cds).toBe('delete');
  });
});
