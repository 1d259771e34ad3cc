// /stats: the IP space of the acting subtree (per family: assignments, prefixes, IPv4 addresses,
// PTRs set), the platform's ip.ipv6 section (networks, handed out per source) and the backend
// zone-quota reading the worker takes (platform only; never a live call).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type DnsLab, startDnsLab } from '../helpers/dnsLab.js';

let lab: DnsLab;
beforeAll(async () => {
  lab = await startDnsLab({ env: { ROLES: 'api,worker' } });
});
afterAll(async () => lab?.close());

const id = (prefix: string) => `${prefix}_${randomUUID().replace(/-/g, '').slice(0, 26)}`;

it('counts assignments, prefixes and addresses per family for each scope; the platform also IPv6 networks and who handed them out', async () => {
  const [a, b] = lab.tokens.tenants.customers;
  const { platform: platformId, reseller: resellerId } = lab.tokens.tenants;
  const v4 = id('ips');
  const v6 = id('ips');
  await lab.sql.query(
    `INSERT INTO ip_spaces (id, cidr, ptr_pattern) VALUES ($1, '198.18.0.0/24', 'static.{dashed}.lab.example.'), ($2, '2001:db8:ff00::/40', 'static.{dashed}.lab.example.')`,
    [v4, v6],
  );
  const resellerV6 = id('ipa');
  await lab.sql.query(
    `INSERT INTO ip_assignments (id, space_id, tenant_id, cidr, parent_id, assigned_by) VALUES
       ($1, $2, $3, '198.18.0.8/29', NULL, $4), ($5, $2, $3, '198.18.0.20/32', NULL, $4), ($6, $7, $8, '2001:db8:ff00:1::/64', NULL, $4),
       ($9, $7, $10, '2001:db8:ff00::/56', NULL, $4), ($11, $7, $3, '2001:db8:ff00:2::/64', $9, $10)`,
    [id('ipa'), v4, a, platformId, id('ipa'), id('ipa'), v6, b, resellerV6, resellerId, id('ipa')],
  );
  await lab.sql.query(`INSERT INTO prefixes (id, tenant_id, cidr, attached_by) VALUES ($1, $2, '203.0.113.0/24', $3)`, [id('pfx'), a, platformId]);

  const customerA = (await lab.customerA.get('/stats')).body;
  expect(customerA.ip).toEqual({ ipv4: { assignments: 2, prefixes: 1, addresses: 9, ptrs: 0 }, ipv6: { assignments: 1, prefixes: 0, ptrs: 0 } });
  expect(customerA.backend).toBeUndefined();
  const reseller = (await lab.reseller.get('/stats')).body;
  expect(reseller.ip.ipv6.assignments).toBe(3);
  expect(reseller.ip.ipv4.addresses).toBe(9);
  const platform = (await lab.platform.get('/stats')).body;
  expect(platform.ip.ipv6).toMatchObject({ assignments: 3, networks: 1, handed_out: { provider: 2, reseller: 1 } });
  expect(platform.ip.ipv6).not.toHaveProperty('addresses');
  // Read by the worker at start, not by this request.
  expect(platform.backend.zone_quota).toMatchObject({ capacity: expect.any(Number), zones: expect.any(Number), read_at: expect.any(String) });
  expect(platform.backend.zone_quota.available).toBe(platform.backend.zone_quota.capacity - platform.backend.zone_quota.zones);
});

it('counts the PTRs set inside the subtree’s blocks, not those beside them, nor those of a zone being deleted', async () => {
  const a = lab.tokens.tenants.customers[0]!;
  for (const [cidr, assigned] of [
    ['198.18.1.0/24', '198.18.1.8/29'],
    ['2001:db8:fe00::/48', '2001:db8:fe00:5::/64'],
  ] as const) {
    expect((await lab.platform.post('/ip-spaces', { cidr, ptr_pattern: 'static.{dashed}.lab.example.' })).status).toBe(201);
    expect((await lab.platform.post('/ips', { cidr: assigned, tenant_id: a })).status).toBe(201);
  }
  const put = async (api: typeof lab.platform, ip: string) => expect((await api.put(`/ptr/${ip}`, { target: 'host.lab.example.' })).status).toBe(200);
  // A's own: two IPv4 addresses of its /29, one address of its /64 and one deeper in it.
  for (const ip of ['198.18.1.9', '198.18.1.15', '2001:db8:fe00:5::1', '2001:db8:fe00:5:1:2:3:4']) await put(lab.customerA, ip);
  // Staff's, beside A's blocks in the same zones.
  for (const ip of ['198.18.1.7', '198.18.1.16', '2001:db8:fe00:6::1', '2001:db8:fe00:4:ffff:ffff:ffff:ffff']) await put(lab.platform, ip);
  lab.clock.advance(61_000);
  const ip = (await lab.customerA.get('/stats')).body.ip;
  expect([ip.ipv4.ptrs, ip.ipv6.ptrs]).toEqual([2, 2]);
  // The platform's stats count every PTR in its spaces' assignments (A's /29 and /64: the same four).
  expect([(await lab.platform.get('/stats')).body.ip.ipv4.ptrs]).toEqual([2]);

  // A zone on its way out is served no more: its PTRs leave the count.
  await lab.sql.query("UPDATE zones SET status = 'deleting' WHERE name = '1.18.198.in-addr.arpa'");
  lab.clock.advance(61_000);
  const after = (await lab.customerA.get('/stats')).body.ip;
  expect([after.ipv4.ptrs, after.ipv6.ptrs]).toEqual([0, 2]);
});
