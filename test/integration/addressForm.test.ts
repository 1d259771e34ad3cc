// One text form per IPv6 address (nameserver/wire/address.ts, docs/records.md): what the API
// shows is what dig and kdig read from the real nameserver and what the zone export writes.
// Regression: the API wrote the IPv4-compatible ::192.0.2.1 as "::c000:201" while the served
// data read "::192.0.2.1". The form is BIND's (dig, named-compilezone, glibc's inet_ntop); kdig
// 3.2 prints IPv4-compatible addresses in hex, so with kdig the test checks the same address.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digQuery } from '../helpers/digClient.js';
import { createRecord, createZone, type DnsLab, startDnsLab } from '../helpers/dnsLab.js';
import { eventually } from '../helpers/dnsQuery.js';
import { requireTool } from '../helpers/dnsTools.js';
import { canonicalIpv6 } from '../../nameserver/wire/address.js';

const ZONE = 'address-form.example';

let lab: DnsLab;
beforeAll(async () => {
  lab = await startDnsLab({ env: { ROLES: 'api,nameserver,worker' } });
});
afterAll(() => lab?.close());

const dnsPort = () => lab.service.nameserver!.server.port;

describe('IPv6 addresses read alike in the API, the served data and the zone export', () => {
  // Input spellings and the RFC 5952 form every reader must show.
  const CASES = [
    { name: 'compat', input: '::c000:201', form: '::192.0.2.1' }, // IPv4-compatible (RFC 4291 §2.5.5.1)
    { name: 'compat-dotted', input: '0:0:0:0:0:0:198.51.100.7', form: '::198.51.100.7' },
    { name: 'mapped', input: '::FFFF:C000:0201', form: '::ffff:192.0.2.1' }, // IPv4-mapped (RFC 4291 §2.5.5.2)
    { name: 'plain', input: '2001:DB8:0:0:1:0:0:1', form: '2001:db8::1:0:0:1' }, // first longest zero run (RFC 5952 §4.2.3)
    { name: 'loopback', input: '0:0:0:0:0:0:0:1', form: '::1' },
    { name: 'low', input: '::1:c000:201', form: '::1:c000:201' }, // no well-known prefix: hex
  ];

  it('API data and content, dig and kdig answers, and the export agree', async (ctx) => {
    const tools = [requireTool('dig', ctx), requireTool('kdig', ctx)];
    await createZone(lab.customerA, ZONE);
    let last = '';
    for (const c of CASES) {
      const record = await createRecord(lab.customerA, ZONE, { type: 'AAAA', name: c.name, ttl: 300, data: { address: c.input } });
      expect(record.data.address, c.input).toBe(c.form);
      expect(record.content, c.input).toBe(c.form);
      last = record.publication.changeset_id;
    }
    await eventually(
      async () => {
        const res = await lab.customerA.get(`/zones/${ZONE}/changesets/${last}`);
        return res.body.state === 'live' ? true : undefined;
      },
      15_000,
      'the records to be live',
    );

    for (const c of CASES) {
      const [dig, kdig] = await Promise.all(tools.map((tool) => digQuery(tool, dnsPort(), `${c.name}.${ZONE}`, 'AAAA')));
      expect(dig!.status, dig!.output).toBe('NOERROR');
      expect(dig!.answer, `dig ${c.input}`).toEqual([`${c.name}.${ZONE}. 300 IN AAAA ${c.form}`]);
      expect(kdig!.status, kdig!.output).toBe('NOERROR');
      expect(
        kdig!.answer.map((l) => canonicalIpv6(l.split(' ')[4]!)),
        `kdig ${c.input}`,
      ).toEqual([c.form]);
    }

    const exported = await lab.customerA.get(`/zones/${ZONE}/export?include_system=false`);
    expect(exported.status).toBe(200);
    const lines = exported.text
      .split('\n')
      .filter((l) => l.includes('\tAAAA\t'))
      .map((l) => l.split(/\s+/).join(' '))
      .sort();
    expect(lines).toEqual(CASES.map((c) => `${c.name}.${ZONE}. 300 IN AAAA ${c.form}`).sort());
  });

  it('the same address in another spelling is the same record (409-free duplicate detection works on the one form)', async () => {
    const res = await lab.customerA.post(`/zones/${ZONE}/records`, { type: 'AAAA', name: 'compat', ttl: 300, data: { address: '::192.0.2.1' } });
    expect(res.status, res.text).toBe(422);
    expect(JSON.stringify(res.body)).toMatch(/duplicate/);
  });
});
