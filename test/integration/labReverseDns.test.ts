// The lab's reverse-DNS seed (docs/lab.md "Reverse DNS seed"): address spaces, each customer's
// assignments with default PTRs that `dig -x` answers at the lab's nameserver, the first
// customer's own /24 and /48 with their reverse zones listed, a PTR set and reset over the fixed
// paths, the stats counting it, and the nightly reset bringing the seed back.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseAddress, reverseName } from '../../src/domain/ip/address.js';
import { digQuery } from '../helpers/digClient.js';
import { type DnsLab, listAll, startDnsLab } from '../helpers/dnsLab.js';
import { eventually } from '../helpers/dnsQuery.js';
import { requireTool } from '../helpers/dnsTools.js';

let lab: DnsLab;
beforeAll(async () => {
  lab = await startDnsLab({ env: { ROLES: 'api,nameserver,worker', LAB_RDNS_SEED: 'on' } });
});
afterAll(async () => lab?.close());

const port = () => lab.service.nameserver!.server.port;
const servedPtr = (ip: string, expected: string | null) =>
  eventually(
    async () => {
      const r = await digQuery(requireTool('dig')!, port(), `${reverseName(parseAddress(ip))}.`, 'PTR');
      const target = r.answer.map((l) => l.split(' ').pop()!)[0] ?? null;
      return target === expected ? r : undefined;
    },
    20_000,
    `PTR of ${ip} = ${expected}`,
  );

it('seeds each customer’s assignments with default PTRs, and the first customer’s own prefixes', async () => {
  const ips = await listAll(lab.customerA, '/ips');
  expect(ips.map((a) => a.cidr).sort()).toEqual(['192.0.2.10/32', '192.0.2.16/29', '2001:db8:100:a::/64']);
  expect((await listAll(lab.customerB, '/ips')).map((a) => a.cidr).sort()).toEqual(['192.0.2.11/32', '192.0.2.24/29', '2001:db8:100:b::/64']);
  expect((await listAll(lab.customerA, '/prefixes')).map((p) => p.prefix).sort()).toEqual(['2001:db8:a::/48', '203.0.113.0/24']);
  expect(await listAll(lab.customerB, '/prefixes')).toEqual([]);
  const reverse = await listAll(lab.customerA, '/zones?kind=reverse');
  expect(reverse.map((z) => z.name).sort()).toEqual(['113.0.203.in-addr.arpa', 'a.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa']);

  await servedPtr('192.0.2.10', 'static.192-0-2-10.lab-hosting.example.');
  await servedPtr('192.0.2.17', 'static.192-0-2-17.lab-hosting.example.');
  expect((await lab.customerA.get('/ptr/192.0.2.10')).body).toMatchObject({ source: 'default', target: 'static.192-0-2-10.lab-hosting.example' });
});

it('seeds the spaces signed, with the forward records of their default names in the platform’s lab-hosting.example', async () => {
  const spaces = (await lab.platform.get('/ip-spaces')).body.data;
  expect(spaces.map((s: any) => [s.cidr, s.dnssec, s.forward_zone])).toEqual([
    ['192.0.2.0/24', true, 'lab-hosting.example'],
    ['198.51.100.0/24', true, 'lab-hosting.example'],
    ['2001:db8:100::/48', true, 'lab-hosting.example'],
  ]);
  // The IPv4 spaces keep an A per address; the IPv6 one has no /128 assigned, so none.
  expect(spaces.map((s: any) => s.forward_records)).toEqual([
    { state: 'complete', total: 256, written: 256, stale: 0, error: null },
    { state: 'complete', total: 256, written: 256, stale: 0, error: null },
    { state: 'complete', total: 0, written: 0, stale: 0, error: null },
  ]);
  const zones = (await lab.platform.get(`/ip-spaces/${spaces[0].id}/zones`)).body.data;
  expect(zones.map((z: any) => [z.name, z.dnssec.state === 'off'])).toEqual([['2.0.192.in-addr.arpa', false]]);
  expect((await lab.platform.get('/zones/lab-hosting.example/dnssec')).body.state).not.toBe('off');
  await eventually(
    async () => {
      const r = await digQuery(requireTool('dig')!, port(), 'static.198-51-100-7.lab-hosting.example.', 'A');
      return r.answer.some((l) => l.endsWith(' 198.51.100.7')) ? r : undefined;
    },
    20_000,
    'the default name’s A record',
  );
});

it('sets and resets a PTR in the seeded /64 over the fixed paths, and counts it in the stats', async () => {
  const set = await lab.customerA.put('/ptr/2001:db8:100:a::25', { target: 'mail.customer-a.example.' });
  expect(set.status, set.text).toBe(200);
  expect(set.body).toMatchObject({ ip: '2001:db8:100:a::25', source: 'set', target: 'mail.customer-a.example' });
  await servedPtr('2001:db8:100:a::25', 'mail.customer-a.example.');
  lab.clock.advance(61_000);
  expect((await lab.customerA.get('/stats')).body.ip.ipv6).toMatchObject({ assignments: 1, prefixes: 1, ptrs: 1 });
  expect((await lab.customerA.delete('/ptr/2001:db8:100:a::25')).status).toBe(200);
  await servedPtr('2001:db8:100:a::25', null);
});

it('brings the seed back after the nightly reset', async () => {
  expect((await lab.customerA.put('/ptr/192.0.2.10', { target: 'web.customer-a.example.' })).status).toBe(200);
  await servedPtr('192.0.2.10', 'web.customer-a.example.');
  expect((await lab.platform.post('/lab/reset', {})).status).toBeLessThan(300);
  expect((await listAll(lab.customerA, '/ips')).map((a) => a.cidr).sort()).toEqual(['192.0.2.10/32', '192.0.2.16/29', '2001:db8:100:a::/64']);
  expect((await lab.customerA.get('/ptr/192.0.2.10')).body).toMatchObject({ source: 'default' });
  await servedPtr('192.0.2.10', 'static.192-0-2-10.lab-hosting.example.');
  const spaces = (await lab.platform.get('/ip-spaces')).body.data;
  expect(spaces.map((s: any) => [s.dnssec, s.forward_zone, s.forward_records.state])).toEqual(Array(3).fill([true, 'lab-hosting.example', 'complete']));
});
