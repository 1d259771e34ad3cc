// A fleet that provisions itself (docs/catalog-zones.md), with BIND 9 (named from Debian's bind9)
// as the consumer: named is configured with nothing but a secondary set's catalog zone
// (`catalog-zones`, `allow-new-zones yes`). Zones created through the API are then served by
// named without any edit of its configuration, and are `live` only once it serves their serial;
// a change reaches it by IXFR; a deleted zone is removed; a zone created again under the same
// name gets a new member label, and named serves the new zone's data.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memberLabel } from '../../src/catalog/catalogRecords.js';
import { type BindSecondary, startBindCatalogConsumer } from '../helpers/bind.js';
import { createRecord, createZone, type DnsLab, startDnsLab } from '../helpers/dnsLab.js';
import { eventually, queryDns, RCODE_NAME } from '../helpers/dnsQuery.js';
import { requireTool } from '../helpers/dnsTools.js';
import { portOutsideEphemeralRange } from '../helpers/reservedPort.js';

const named = requireTool('named');
const ZONE = 'bind-member.example';
const escaped = (s: string) => s.replace(/\./g, '\\.');

describe.skipIf(!named && process.env.REQUIRE_DNS_TOOLS !== '1')('BIND as a catalog consumer of a secondary set', () => {
  let lab: DnsLab;
  let bind: BindSecondary;
  let bindPort: number;
  let catalog: string;

  const zoneId = async (name: string) =>
    (await lab.sql.query<{ id: string }>(`SELECT id FROM zones WHERE name = $1 AND status <> 'deleting'`, [name])).rows[0]?.id;
  /** The deleted zone's row is removed once our nameservers stop serving it; until then the name is taken. */
  const rowGone = (name: string) =>
    eventually(
      async () => ((await lab.sql.query(`SELECT 1 FROM zones WHERE name = $1`, [name])).rowCount === 0 ? true : undefined),
      30_000,
      `the row of ${name} to go`,
    );
  const fromBind = (name: string, type: string) => queryDns(bindPort, name, type);

  /**
   * Waits for the zone to be `live` and checks that named already serves the serial the service
   * calls live when it first says so (named is asked after the service: it only moves forward).
   */
  const liveOnlyWhenBindServes = async (name: string) => {
    const seen = await eventually(
      async () => {
        const zone = (await lab.customerA.get(`/zones/${name}`)).body;
        const soa = await fromBind(name, 'SOA');
        return zone.publication.state === 'live' ? { live: zone.serial, named: soa.aa ? soa.answers[0]?.serial : RCODE_NAME[soa.rcode] } : undefined;
      },
      30_000,
      `${name} to be live`,
    );
    expect(seen.named, `the serial named answers when ${name} is live`).toBe(seen.live);
  };

  beforeAll(async () => {
    bindPort = await portOutsideEphemeralRange();
    lab = await startDnsLab({ env: { ROLES: 'api,nameserver,worker' } });
    // With `group` properties, as a platform set grouped for Knot templates has: BIND 9.18 logs
    // each as an invalid record of the catalog, ignores it, and takes the member.
    const set = await lab.customerA.post('/secondary-sets', { name: 'bindfleet', secondaries: [{ address: '127.0.0.1', port: bindPort }], group_by: 'dnssec' });
    expect(set.status, set.text).toBe(201);
    catalog = set.body.catalog_zone;
    // named is started once the catalog is served, as an operator configures it after creating
    // the set: asked before that (the catalog's first version is built ~70 ms after the POST),
    // named's refresh fails (the lab's root zone answers NXDOMAIN), it drops the NOTIFYs that
    // arrive meanwhile and did not ask again within 30 s (one run in five here).
    const primaryPort = lab.service.nameserver!.server.port;
    await eventually(
      async () => {
        const soa = await queryDns(primaryPort, catalog, 'SOA');
        return soa.rcode === 0 && soa.aa ? true : undefined;
      },
      10_000,
      'the catalog served',
    );
    bind = await startBindCatalogConsumer({ port: async () => bindPort, primaryPort, catalog });
  });
  afterAll(async () => {
    await bind?.close();
    await lab?.close();
  });

  it('serves a zone created through the API, with no edit of its configuration, added from the catalog; live once it does', async () => {
    await createZone(lab.customerA, ZONE, { records: [{ name: 'www', type: 'A', data: { address: '192.0.2.100' } }] });
    await liveOnlyWhenBindServes(ZONE);
    const answer = await fromBind(`www.${ZONE}`, 'A');
    expect(answer.rcode).toBe(0);
    expect(answer.aa).toBe(true);
    expect(answer.answers.map((a) => a.address)).toEqual(['192.0.2.100']);
    expect(bind.log()).toMatch(new RegExp(`catz: adding zone '${escaped(ZONE)}' from catalog '${escaped(catalog)}'`));
  });

  it('gets a change of the member by IXFR', async () => {
    await createRecord(lab.customerA, ZONE, { name: 'api', type: 'A', data: { address: '192.0.2.101' } });
    await eventually(
      async () => ((await fromBind(`api.${ZONE}`, 'A')).answers.some((a) => a.address === '192.0.2.101') ? true : undefined),
      30_000,
      'the change at named',
    );
    expect(bind.log()).toMatch(new RegExp(`transfer of '${escaped(ZONE)}/IN' from 127\\.0\\.0\\.1#\\d+: got incremental response`));
    await liveOnlyWhenBindServes(ZONE);
  });

  it('removes a deleted zone, and takes a zone created again under the same name as a new member (a new label)', async () => {
    const firstId = (await zoneId(ZONE))!;
    const del = await lab.customerA.delete(`/zones/${ZONE}?confirm=${ZONE}`);
    expect([200, 202, 204]).toContain(del.status);
    await eventually(
      async () => {
        const r = await fromBind(`www.${ZONE}`, 'A');
        return r.rcode !== 0 || !r.aa ? true : undefined;
      },
      30_000,
      'named to remove the deleted member',
    );
    expect(bind.log()).toMatch(new RegExp(`catz: deleting zone '${escaped(ZONE)}' from catalog '${escaped(catalog)}'`));

    await rowGone(ZONE);
    await createZone(lab.customerA, ZONE, { records: [{ name: 'www', type: 'A', data: { address: '192.0.2.102' } }] });
    const secondId = (await zoneId(ZONE))!;
    expect(memberLabel(secondId)).not.toBe(memberLabel(firstId));
    await eventually(
      async () => ((await fromBind(`www.${ZONE}`, 'A')).answers.some((a) => a.address === '192.0.2.102') ? true : undefined),
      30_000,
      'named to serve the zone created again',
    );
    await liveOnlyWhenBindServes(ZONE);
  });
});
