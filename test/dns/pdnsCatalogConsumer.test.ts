// A fleet that provisions itself, with PowerDNS (pdns_server 4.7 and its PostgreSQL backend,
// Debian's packages) as the consumer (docs/catalog-zones.md): the only zone made with pdnsutil is
// the secondary set's catalog, of kind CONSUMER. Zones created through the API are then served by
// PowerDNS; a change reaches it (by AXFR: PowerDNS 4.7 asks for IXFR only for a zone whose IXFR
// metadata is 1, which a member made from a catalog has not; with it, by IXFR); a version is
// `live` only once PowerDNS serves it; a deleted zone is removed; a zone created again under the
// same name gets a new member label, which PowerDNS takes as a new zone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memberLabel } from '../../src/catalog/catalogRecords.js';
import { createRecord, createZone, type DnsLab, startDnsLab } from '../helpers/dnsLab.js';
import { eventually, queryDns } from '../helpers/dnsQuery.js';
import { requireTool } from '../helpers/dnsTools.js';
import { type PdnsSecondary, startPdnsCatalogConsumer } from '../helpers/pdns.js';
import { portOutsideEphemeralRange } from '../helpers/reservedPort.js';

const pdnsServer = requireTool('pdns_server');
const ZONE = 'pdns-member.example';
const RCODE_REFUSED = 5;

describe.skipIf(!pdnsServer && process.env.REQUIRE_DNS_TOOLS !== '1')('PowerDNS as a catalog consumer of a secondary set', () => {
  let lab: DnsLab;
  let pdns: PdnsSecondary;
  let pdnsPort: number;
  let catalog: string;
  let setId: string;

  const zoneId = async (name: string) =>
    (await lab.sql.query<{ id: string }>(`SELECT id FROM zones WHERE name = $1 AND status <> 'deleting'`, [name])).rows[0]?.id;
  const zone = async () => (await lab.customerA.get(`/zones/${ZONE}`)).body;
  const fromPdns = (name: string, type: string) => queryDns(pdnsPort, name, type);
  const servedAddress = (name: string, address: string) =>
    eventually(
      async () => ((await fromPdns(name, 'A')).answers.some((a) => a.address === address) ? true : undefined),
      30_000,
      `${name} ${address} at PowerDNS`,
    );
  const liveZone = () =>
    eventually(
      async () => {
        await lab.service.publication!.reconcile();
        const z = await zone();
        return z.publication.state === 'live' ? z : undefined;
      },
      30_000,
      'the zone to be live',
    );
  const member = async (name: string) => (await pdns.domains()).find((d) => d.name === name);

  beforeAll(async () => {
    pdnsPort = await portOutsideEphemeralRange();
    lab = await startDnsLab({ env: { ROLES: 'api,nameserver,worker' } });
    const set = await lab.customerA.post('/secondary-sets', { name: 'fleet', secondaries: [{ address: '127.0.0.1', port: pdnsPort }] });
    expect(set.status, set.text).toBe(201);
    catalog = set.body.catalog_zone;
    setId = set.body.id;
    pdns = await startPdnsCatalogConsumer({ port: async () => pdnsPort, primaryPort: lab.service.nameserver!.server.port, catalog });
  });
  afterAll(async () => {
    await pdns?.close();
    await lab?.close();
  });

  it('serves a zone created through the API, learnt from the catalog; the zone and the catalog are live with PowerDNS serving them', async () => {
    // The catalog is all pdnsutil was told about.
    expect((await pdns.domains()).map((d) => [d.name, d.type])).toEqual([[catalog, 'CONSUMER']]);
    await createZone(lab.customerA, ZONE, { records: [{ name: 'www', type: 'A', data: { address: '192.0.2.90' } }] });
    const answer = await eventually(
      async () => {
        const r = await fromPdns(`www.${ZONE}`, 'A');
        return r.rcode === 0 && r.aa && r.answers.length ? r : undefined;
      },
      30_000,
      'PowerDNS to serve the new member',
    );
    expect(answer.answers.map((a) => a.address)).toEqual(['192.0.2.90']);
    // PowerDNS made the zone a secondary of our nameserver from the catalog's PTR, and keeps the member label.
    expect(pdns.log()).toContain(`AXFR-in zone: '${catalog}', primary: '127.0.0.1', Catalog-Zone create zone '${ZONE}'`);
    const row = (await member(ZONE))!;
    expect(row).toMatchObject({ type: 'SLAVE', catalog, master: `127.0.0.1:${lab.service.nameserver!.server.port}` });
    expect(JSON.parse(row.options!)).toEqual({ consumer: { unique: `${memberLabel((await zoneId(ZONE))!)}.` } });

    const live = await liveZone();
    expect((await fromPdns(ZONE, 'SOA')).answers[0]!.serial).toBe(live.serial);
    // PowerDNS answers the catalog's SOA too (a CONSUMER zone is served like a secondary one): the
    // catalog's versions are verified on it, and the set lags on nothing.
    await eventually(
      async () => {
        await lab.service.publication!.reconcile();
        const metrics = (await lab.customerA.get('/metrics')).text;
        return metrics.includes(`secondary_lag_serials{set="${setId}",address="127.0.0.1:${pdnsPort}"} 0`) ? true : undefined;
      },
      30_000,
      'no lag at PowerDNS',
    );
    const catalogSoa = await fromPdns(catalog, 'SOA');
    expect(catalogSoa.aa).toBe(true);
    const published = await lab.sql.query<{ published_serial: string }>(`SELECT published_serial FROM zones WHERE name = $1`, [catalog]);
    expect(catalogSoa.answers[0]!.serial).toBe(Number(published.rows[0]!.published_serial));
  });

  it('gets a change of the member by AXFR, and by IXFR once the zone’s IXFR metadata is 1', async () => {
    await createRecord(lab.customerA, ZONE, { name: 'api', type: 'A', data: { address: '192.0.2.91' } });
    await servedAddress(`api.${ZONE}`, '192.0.2.91');
    const byAxfr = (await liveZone()).serial;
    expect(pdns.log()).toContain(`AXFR-in zone: '${ZONE}', primary: '127.0.0.1', zone committed with serial ${byAxfr}`);
    expect(pdns.log()).not.toContain(`IXFR-in zone: '${ZONE}'`);

    // What an operator would set on each member for IXFR (pdnsutil, or SQL on the domainmetadata table).
    await pdns.pdnsutil('set-meta', ZONE, 'IXFR', '1');
    await createRecord(lab.customerA, ZONE, { name: 'mail', type: 'A', data: { address: '192.0.2.92' } });
    await servedAddress(`mail.${ZONE}`, '192.0.2.92');
    const byIxfr = (await liveZone()).serial;
    expect(pdns.log()).toContain(`IXFR-in zone: '${ZONE}', primary: '127.0.0.1', got 1 delta, zone committed with serial ${byIxfr}`);
  });

  it('keeps a change pushed while PowerDNS is down, and live once PowerDNS serves it again', async () => {
    // PowerDNS 4.7 asks for a secondary zone's SOA at its refresh (the SOA's, 3 h) or on NOTIFY, not
    // when it starts: it catches up here on the NOTIFY our nameserver still retries (5 tries, about
    // 31 s); after a longer outage, at the refresh or on `pdns_control retrieve`.
    await pdns.stop();
    await createRecord(lab.customerA, ZONE, { name: 'later', type: 'A', data: { address: '192.0.2.93' } });
    await eventually(async () => ((await zone()).publication.state === 'pushed' ? true : undefined), 20_000, 'the change set pushed');
    await lab.service.publication!.reconcile();
    expect((await zone()).publication.state).toBe('pushed');

    await pdns.restart();
    const live = await liveZone();
    expect((await fromPdns(`later.${ZONE}`, 'A')).answers.map((a) => a.address)).toEqual(['192.0.2.93']);
    expect((await fromPdns(ZONE, 'SOA')).answers[0]!.serial).toBe(live.serial);
  });

  it('removes a deleted zone, and takes a zone created again under the same name as a new member (a new label)', async () => {
    const firstId = (await zoneId(ZONE))!;
    const del = await lab.customerA.delete(`/zones/${ZONE}?confirm=${ZONE}`);
    expect([200, 202, 204]).toContain(del.status);
    await eventually(async () => ((await fromPdns(`www.${ZONE}`, 'A')).rcode === RCODE_REFUSED ? true : undefined), 30_000, 'PowerDNS to drop the member');
    expect(pdns.log()).toContain(`AXFR-in zone: '${catalog}', primary: '127.0.0.1', Catalog-Zone delete zone '${ZONE}'`);
    expect(await member(ZONE)).toBeUndefined();

    await eventually(async () => ((await zoneId(ZONE)) === undefined ? true : undefined), 30_000, 'the zone row to go');
    await createZone(lab.customerA, ZONE, { records: [{ name: 'www', type: 'A', data: { address: '192.0.2.94' } }] });
    const secondId = (await zoneId(ZONE))!;
    expect(memberLabel(secondId)).not.toBe(memberLabel(firstId));
    await servedAddress(`www.${ZONE}`, '192.0.2.94');
    expect(JSON.parse((await member(ZONE))!.options!)).toEqual({ consumer: { unique: `${memberLabel(secondId)}.` } });
    // A new zone: none of the first one's records.
    expect((await fromPdns(`api.${ZONE}`, 'A')).answers).toEqual([]);
  });
});
