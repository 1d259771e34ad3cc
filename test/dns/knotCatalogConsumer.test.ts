// A fleet that provisions itself (docs/catalog-zones.md): Knot DNS (knotd from Debian's packages)
// is configured with nothing but a secondary set's catalog zone (`catalog-role: interpret`, a
// template per `group`). Zones created through the API are then served by Knot without any edit of
// its configuration; a change reaches it by IXFR; a deleted zone is purged; a zone created again
// under the same name gets a new member label, which Knot takes as a new zone. A customer's own set,
// with its own TSIG key and no address of the fleet in DNS_TRANSFER_ALLOW: Knot transfers the
// catalog and the customer's zones signed with that key, and the key opens no other zone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memberLabel } from '../../src/catalog/catalogRecords.js';
import { createRecord, createZone, type DnsLab, startDnsLab } from '../helpers/dnsLab.js';
import { eventually, queryDns } from '../helpers/dnsQuery.js';
import { requireTool, runToolAsync } from '../helpers/dnsTools.js';
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
    // Knot answers no SOA for a catalog it interprets: the catalog's versions must not wait on it
    // (the set's lag would grow and /healthz turn degraded though Knot is up to date).
    const zone = await eventually(
      async () => {
        await lab.service.publication!.reconcile();
        const z = (await lab.customerA.get(`/zones/${ZONE}`)).body;
        return z.publication.state === 'live' ? z : undefined;
      },
      30_000,
      'the member to be live',
    );
    expect(zone.publication.waiting_on).toEqual([]);
    const lag = (await lab.customerA.get('/metrics')).text.split('\n').filter((l) => l.startsWith('secondary_lag_serials'));
    expect(lag).toEqual([expect.stringMatching(/ 0$/)]);
    const waiting = await lab.sql.query(`SELECT z.name FROM secondary_lag l JOIN zones z ON z.id = l.zone_id`);
    expect(waiting.rows).toEqual([]);
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
    const lastSerial = (await lab.customerA.get(`/zones/${ZONE}`)).body.serial as number;
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
    // Above the deleted zone's last serial (its withdrawal's, one more): a secondary still holding
    // the old zone would otherwise see no newer serial, and the verifier take the old one for the new.
    const served = (await fromKnot(ZONE, 'SOA')).answers[0]!.serial as number;
    expect(served).toBeGreaterThan(lastSerial + 1);
    expect((await lab.customerA.get(`/zones/${ZONE}`)).body.serial).toBe(served);
  });
});

describe.skipIf(!knotd && process.env.REQUIRE_DNS_TOOLS !== '1')('Knot following a customer’s own set, with the set’s key', () => {
  const MEMBER = 'own-fleet.example';
  const NOT_MEMBER = 'someone-elses.example';
  let lab: DnsLab;
  let knot: KnotSecondary;
  let knotPort: number;
  let key: { name: string; secret: Buffer };

  beforeAll(async () => {
    knotPort = await portOutsideEphemeralRange();
    // No local address may transfer by the deployment's rules: only the set's grant lets Knot in.
    lab = await startDnsLab({ env: { ROLES: 'api,nameserver,worker', DNS_TRANSFER_ALLOW: '192.0.2.0/24' } });
    const created = await lab.customerA.post('/tsig-keys', { name: 'own-fleet-xfr.customer.example' });
    expect(created.status, created.text).toBe(201);
    key = { name: created.body.name, secret: Buffer.from(created.body.secret, 'base64') };
    const set = await lab.customerA.post('/secondary-sets', {
      name: 'own',
      secondaries: [{ address: '127.0.0.1', port: knotPort }],
      tsig_key: created.body.id,
    });
    expect(set.status, set.text).toBe(201);
    await createZone(lab.customerB, NOT_MEMBER);
    knot = await startKnotCatalogConsumer({
      port: async () => knotPort,
      primaryPort: lab.service.nameserver!.server.port,
      catalog: set.body.catalog_zone,
      groups: [],
      key,
    });
  });
  afterAll(async () => {
    await knot?.close();
    await lab?.close();
  });

  it('serves the customer’s new zone, transferred signed with the set’s key', async () => {
    await createZone(lab.customerA, MEMBER, { records: [{ name: 'www', type: 'A', data: { address: '192.0.2.93' } }] });
    await eventually(
      async () => ((await queryDns(knotPort, `www.${MEMBER}`, 'A')).answers.some((a) => a.address === '192.0.2.93') ? true : undefined),
      30_000,
      'Knot to serve the member',
    );
    const zone = await eventually(
      async () => {
        const z = (await lab.customerA.get(`/zones/${MEMBER}`)).body;
        return z.publication.state === 'live' ? z : undefined;
      },
      30_000,
      'the member to be live',
    );
    expect((await queryDns(knotPort, MEMBER, 'SOA')).answers[0]!.serial).toBe(zone.serial);
    // Knot's only key is the set's and nothing local is in DNS_TRANSFER_ALLOW: the transfer was signed with it.
    expect(knot.log()).toMatch(new RegExp(`\\[${MEMBER.replace(/\./g, '\\.')}\\.\\] AXFR, incoming, remote 127\\.0\\.0\\.1@\\d+, finished`));
  });

  it('opens no zone outside the set with that key, and no member without it', async () => {
    const kdig = requireTool('kdig')!;
    const axfr = async (zone: string, signed: boolean) => {
      const run = await runToolAsync(kdig, [
        '-p',
        String(lab.service.nameserver!.server.port),
        '@127.0.0.1',
        ...(signed ? ['-y', `hmac-sha256:${key.name}:${key.secret.toString('base64')}`] : []),
        'AXFR',
        zone,
      ]);
      return `${run.stdout}${run.stderr}`;
    };
    expect(await axfr(NOT_MEMBER, true)).toMatch(/REFUSED/);
    expect(await axfr(MEMBER, false)).toMatch(/REFUSED/);
    const member = await axfr(MEMBER, true);
    expect(member).toMatch(new RegExp(`www\\.${MEMBER.replace(/\./g, '\\.')}\\.\\s+\\d+\\s+IN\\s+A\\s+192\\.0\\.2\\.93`));
  });
});
