// A fleet that provisions itself (docs/catalog-zones.md): Knot DNS (knotd from Debian's packages)
// is configured with nothing but a secondary set's catalog zone (`catalog-role: interpret`, a
// template per `group`). Zones created through the API are then served by Knot without any edit of
// its configuration; a change reaches it by IXFR; a deleted zone is purged; a zone created again
// under the same name gets a new member label, which Knot takes as a new zone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memberLabel } from '../../src/catalog/catalogRecords.js';
import { createRecord, createZone, type DnsLab, startDnsLab } from '../helpers/dnsLab.js';
import { eventually, queryDns } from '../helpers/dnsQuery.js';
import { requireTool } from '../helpers/dnsTools.js';
import { type KnotSecondary, startKnotCatalogConsumer } from '../helpers/knot.js';
import { portOutsideEphemeralRange } from '../helpers/reservedPort.js';

const knotd = requireTool('knotd');
const ZONE = 'fleet-member.example';

describe.skipIf(!knotd && process.env.REQUIRE_DNS_TOOLS !== '1')('Knot as a catalog consumer of a secondary set', () => {
  let lab: DnsLab;
  let knot: KnotSecondary;
  let knotPort: number;
  let catalog: string;

  const zoneId = async (name: string) =>
    (await lab.sql.query<{ id: string }>(`SELECT id FROM zones WHERE name = $1 AND status <> 'deleting'`, [name])).rows[0]?.id;
  const fromKnot = (name: string, type: string) => queryDns(knotPort, name, type);

  beforeAll(async () => {
    knotPort = await portOutsideEphemeralRange();
    lab = await startDnsLab({ env: { ROLES: 'api,nameserver,worker' } });
    const set = await lab.customerA.post('/secondary-sets', { name: 'fleet', secondaries: [{ address: '127.0.0.1', port: knotPort }], group_by: 'dnssec' });
    expect(set.status, set.text).toBe(201);
    catalog = set.body.catalog_zone;
    knot = await startKnotCatalogConsumer({
      port: async () => knotPort,
      primaryPort: lab.service.nameserver!.server.port,
      catalog,
      groups: ['signed', 'unsigned'],
    });
  });
  afterAll(async () => {
    await knot?.close();
    await lab?.close();
  });

  it('serves a zone created through the API, with no edit of its configuration, and the catalog it came from', async () => {
    await createZone(lab.customerA, ZONE, { records: [{ name: 'www', type: 'A', data: { address: '192.0.2.90' } }] });
    const answer = await eventually(
      async () => {
        const r = await fromKnot(`www.${ZONE}`, 'A');
        return r.rcode === 0 && r.aa && r.answers.length ? r : undefined;
      },
      30_000,
      'Knot to serve the new member',
    );
    expect(answer.answers.map((a) => a.address)).toEqual(['192.0.2.90']);
    // Knot learnt the zone from the catalog it transferred, the only zone in its configuration.
    expect(knot.log()).toMatch(new RegExp(`\\[${catalog.replace(/\./g, '\\.')}\\.\\] AXFR, incoming`));
  });

  it('gets a change of the member by IXFR', async () => {
    await createRecord(lab.customerA, ZONE, { name: 'api', type: 'A', data: { address: '192.0.2.91' } });
    await eventually(
      async () => ((await fromKnot(`api.${ZONE}`, 'A')).answers.some((a) => a.address === '192.0.2.91') ? true : undefined),
      30_000,
      'the change at Knot',
    );
    expect(knot.log()).toMatch(new RegExp(`\\[${ZONE.replace(/\./g, '\\.')}\\.\\] IXFR, incoming`));
  });

  it('purges a deleted zone, and takes a zone created again under the same name as a new member (a new label)', async () => {
    const firstId = (await zoneId(ZONE))!;
    const del = await lab.customerA.delete(`/zones/${ZONE}?confirm=${ZONE}`);
    expect([200, 202, 204]).toContain(del.status);
    await eventually(
      async () => {
        const r = await fromKnot(`www.${ZONE}`, 'A');
        return r.rcode !== 0 || !r.aa ? true : undefined;
      },
      30_000,
      'Knot to purge the deleted member',
    );

    await eventually(async () => ((await zoneId(ZONE)) === undefined ? true : undefined), 30_000, 'the zone row to go');
    await createZone(lab.customerA, ZONE, { records: [{ name: 'www', type: 'A', data: { address: '192.0.2.92' } }] });
    const secondId = (await zoneId(ZONE))!;
    expect(memberLabel(secondId)).not.toBe(memberLabel(firstId));
    await eventually(
      async () => ((await fromKnot(`www.${ZONE}`, 'A')).answers.some((a) => a.address === '192.0.2.92') ? true : undefined),
      30_000,
      'Knot to serve the zone created again',
    );
  });
});
