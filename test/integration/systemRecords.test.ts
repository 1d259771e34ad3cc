// The SOA and the apex NS set are rendered by every publication build (docs/publication.md), not
// stored: the serial lives in the published version only, the apex NS set follows NAMESERVERS
// (a restart with another list changes what every zone serves, without a write), and the API
// still shows them as read-only system records.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRecord, createZone, type DnsLab, startDnsLab } from '../helpers/dnsLab.js';
import { eventually, queryDns } from '../helpers/dnsQuery.js';

const ALL_ROLES = { ROLES: 'api,nameserver,worker' };
const dnsPort = (lab: DnsLab) => lab.service.nameserver!.server.port;
const ZONE = 'rendered.example';

const untilActive = (lab: DnsLab, zone: string) =>
  eventually(
    async () => {
      const res = await lab.customerA.get(`/zones/${zone}`);
      return res.body.status === 'active' ? res.body : undefined;
    },
    10_000,
    `${zone} to become active`,
  );

describe('system records are rendered by the build', () => {
  let first: DnsLab;
  let second: DnsLab | null = null;
  beforeAll(async () => {
    first = await startDnsLab({ env: ALL_ROLES });
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  it('stores neither the SOA nor the apex NS nor a copy of the serial; the API and DNS show them', async () => {
    await createZone(first.customerA, ZONE);
    const www = await createRecord(first.customerA, ZONE, { name: 'www', type: 'A', data: { address: '192.0.2.7' } });
    await eventually(
      async () => {
        const set = (await first.customerA.get(`/zones/${ZONE}/changesets/${www.publication.changeset_id}`)).body;
        return set.state === 'live' ? set : undefined;
      },
      10_000,
      'www live',
    );
    const zone = (await first.customerA.get(`/zones/${ZONE}`)).body;

    const stored = await first.sql.query(`SELECT r.name, r.type FROM records r JOIN zones z ON z.id = r.zone_id WHERE z.name = $1`, [ZONE]);
    expect(stored.rows).toEqual([{ name: 'www', type: 'A' }]);
    const columns = await first.sql.query(`SELECT column_name FROM information_schema.columns WHERE table_name = 'zones' AND column_name LIKE '%serial%'`);
    // serial_floor is no copy: the last serial of the name's previous zone, fixed at creation.
    expect(columns.rows.map((c) => c.column_name).sort()).toEqual(['published_serial', 'serial_floor']);
    expect((await first.sql.query(`SELECT serial_floor FROM zones WHERE name = $1`, [ZONE])).rows[0].serial_floor).toBeNull();
    const served = await first.sql.query(`SELECT p.type FROM published_records p JOIN zones z ON z.id = p.zone_id WHERE z.name = $1`, [ZONE]);
    expect(served.rows).toEqual([{ type: 1 }]);
    const counted = await first.sql.query(`SELECT record_count FROM zones WHERE name = $1`, [ZONE]);
    expect(counted.rows[0].record_count).toBe(1);

    const soa = await queryDns(dnsPort(first), ZONE, 'SOA');
    expect(soa.answers[0]).toMatchObject({ serial: zone.serial, primary: 'ns1.lab-dns.test', ttl: zone.default_ttl });

    const list = (await first.customerA.get(`/zones/${ZONE}/records`)).body.data;
    expect(list.map((r: any) => `${r.name} ${r.type} ${r.content} ${r.system}`)).toEqual([
      '@ NS ns1.lab-dns.test. true',
      '@ NS ns2.lab-dns.test. true',
      `@ SOA ns1.lab-dns.test. hostmaster.lab-dns.test. ${zone.serial} 10800 3600 1209600 300 true`,
      'www A 192.0.2.7 false',
    ]);
    const soaRecord = list.find((r: any) => r.type === 'SOA');
    expect((await first.customerA.get(`/zones/${ZONE}/records/${soaRecord.id}`)).body).toEqual(soaRecord);
    expect((await first.customerA.patch(`/zones/${ZONE}/records/${soaRecord.id}`, { ttl: 60 })).body.code).toBe('record_readonly');
    expect((await first.customerA.delete(`/zones/${ZONE}/records/${list[0].id}`)).status).toBe(403);
    // A page boundary between rendered and stored records loses and repeats nothing.
    const page1 = (await first.customerA.get(`/zones/${ZONE}/records?limit=2`)).body;
    const page2 = (await first.customerA.get(`/zones/${ZONE}/records?limit=2&cursor=${page1.pagination.next_cursor}`)).body;
    expect([...page1.data, ...page2.data].map((r: any) => r.id)).toEqual(list.map((r: any) => r.id));
  });

  it('serves the apex NS set and SOA MNAME of the new NAMESERVERS after a restart, without a write', async () => {
    const before = (await first.customerA.get(`/zones/${ZONE}`)).body;
    await first.service.stop();
    second = await startDnsLab({ env: { ...ALL_ROLES, NAMESERVERS: 'a.ns.other.test,b.ns.other.test,c.ns.other.test' }, databaseUrl: first.databaseUrl });
    const lab = second;

    const ns = await eventually(
      async () => {
        const reply = await queryDns(dnsPort(lab), ZONE, 'NS');
        const names = reply.answers.map((a) => a.ns).sort();
        return names[0] === 'a.ns.other.test' ? names : undefined;
      },
      10_000,
      'the new apex NS set',
    );
    expect(ns).toEqual(['a.ns.other.test', 'b.ns.other.test', 'c.ns.other.test']);
    const soa = (await queryDns(dnsPort(lab), ZONE, 'SOA')).answers[0]!;
    expect(soa.primary).toBe('a.ns.other.test');
    expect(soa.serial).toBeGreaterThan(before.serial);
    // The records a user wrote are served as before.
    expect((await queryDns(dnsPort(lab), `www.${ZONE}`, 'A')).answers.map((a) => a.address)).toEqual(['192.0.2.7']);

    const after = (await lab.customerA.get(`/zones/${ZONE}`)).body;
    expect(after.serial).toBe(soa.serial);
    const list = (await lab.customerA.get(`/zones/${ZONE}/records?type=NS`)).body.data;
    expect(list.map((r: any) => r.content)).toEqual(['a.ns.other.test.', 'b.ns.other.test.', 'c.ns.other.test.']);
    const file = (await lab.customerA.get(`/zones/${ZONE}/export`)).text;
    expect(file).toContain(`${ZONE}.\t\tIN\tSOA\ta.ns.other.test. hostmaster.lab-dns.test. ${after.serial} `);
    expect(file).toContain(`${ZONE}.\t\tIN\tNS\tc.ns.other.test.`);
    expect(file).not.toContain('lab-dns.test.\n');
  });
});
