// Reverse DNS over real HTTP, PostgreSQL and the in-process nameserver (docs/rdns.md): provider
// address spaces and their reverse zones, assignments (platform → tenant, reseller → customer),
// PTRs set, reset and defaulted for IPv4 and IPv6 and answered by `dig`, the bulk form's
// all-or-nothing, forward confirmation, and the /22 listing across pages.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAddress, reverseName } from '../../src/domain/ip/address.js';
import { digQuery } from '../helpers/digClient.js';
import { createRecord, createZone, type DnsLab, startDnsLab, validationErrors } from '../helpers/dnsLab.js';
import { eventually } from '../helpers/dnsQuery.js';
import { requireTool } from '../helpers/dnsTools.js';

const PATTERN = 'static.{dashed}.hosting.example.';

describe('reverse DNS: address spaces, assignments and PTRs', () => {
  let lab: DnsLab;
  let customerA: string;
  let customerB: string;
  const ids: Record<string, string> = {};
  const port = () => lab.service.nameserver!.server.port;
  /** What the nameserver answers for the PTR of `ip`, once it answers `expected` (null: NXDOMAIN or no PTR). */
  const servedPtr = (dig: string, ip: string, expected: string | null) =>
    eventually(
      async () => {
        const r = await digQuery(dig, port(), `${reverseName(parseAddress(ip))}.`, 'PTR');
        const target = r.answer.map((l) => l.split(' ').pop()!)[0] ?? null;
        return target === expected && (expected !== null || r.status === 'NXDOMAIN' || r.status === 'NOERROR') ? r : undefined;
      },
      15_000,
      `PTR of ${ip} = ${expected}`,
    );

  beforeAll(async () => {
    lab = await startDnsLab({ env: { ROLES: 'api,nameserver,worker' } });
    [customerA, customerB] = lab.tokens.tenants.customers as [string, string];
  });
  afterAll(async () => lab?.close());

  it('lets provider staff add address spaces, with their reverse zones, and nobody else', async () => {
    const denied = await lab.reseller.post('/ip-spaces', { cidr: '203.0.113.0/24', ptr_pattern: PATTERN });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('forbidden');
    expect((await lab.customerA.get('/ip-spaces')).status).toBe(403);

    const bad = await lab.platform.post('/ip-spaces', { cidr: '203.0.113.1/24', ptr_pattern: PATTERN });
    expect(bad.status).toBe(422);
    expect(validationErrors(bad)[0]).toMatchObject({ pointer: '/cidr', code: 'not_network_address' });
    const badPattern = await lab.platform.post('/ip-spaces', { cidr: '2001:db8:ab00::/40', ptr_pattern: 'static.{ip}.hosting.example.' });
    expect(badPattern.status).toBe(422);
    expect(validationErrors(badPattern)[0]).toMatchObject({ pointer: '/ptr_pattern', code: 'invalid_ptr_pattern' });

    const huge = await lab.platform.post('/ip-spaces', { cidr: '10.0.0.0/8', ptr_pattern: PATTERN });
    expect(validationErrors(huge)[0]).toMatchObject({ pointer: '/cidr', code: 'block_too_large' });

    const v4 = await lab.platform.post('/ip-spaces', { cidr: '203.0.113.0/24', ptr_pattern: PATTERN });
    expect(v4.status, v4.text).toBe(201);
    ids.v4Space = v4.body.id;
    const v6 = await lab.platform.post('/ip-spaces', { cidr: '2001:DB8:AB00::/40', ptr_pattern: PATTERN });
    expect(v6.status, v6.text).toBe(201);
    expect(v6.body.cidr).toBe('2001:db8:ab00::/40');
    const overlap = await lab.platform.post('/ip-spaces', { cidr: '203.0.113.128/25', ptr_pattern: PATTERN });
    expect(overlap.status).toBe(409);

    const zones = await lab.sql.query(`SELECT name, kind, tenant_id, reverse_block::text AS block FROM zones WHERE ip_space_id = any($1) ORDER BY name`, [
      [v4.body.id, v6.body.id],
    ]);
    expect(zones.rows).toEqual([
      { name: '113.0.203.in-addr.arpa', kind: 'provider_reverse', tenant_id: lab.tokens.tenants.platform, block: '203.0.113.0/24' },
      { name: 'b.a.8.b.d.0.1.0.0.2.ip6.arpa', kind: 'provider_reverse', tenant_id: lab.tokens.tenants.platform, block: '2001:db8:ab00::/40' },
    ]);
    // Never listed in /zones, not even for the platform.
    const listed = await lab.platform.get('/zones?limit=500');
    expect(listed.body.data.map((z: any) => z.name)).not.toContain('113.0.203.in-addr.arpa');
    expect((await lab.platform.get('/ip-spaces')).body.data.map((s: any) => s.cidr)).toEqual(['203.0.113.0/24', '2001:db8:ab00::/40']);
  });

  it('assigns blocks: platform to any tenant, a reseller to its customers only', async () => {
    const toReseller = await lab.platform.post('/ips', {
      cidr: '203.0.113.0/29',
      tenant_id: lab.tokens.tenants.reseller,
      server_name: 'rack1.reseller.example',
    });
    expect(toReseller.status, toReseller.text).toBe(201);
    ids.resellerBlock = toReseller.body.id;
    const handed = await lab.reseller.post('/ips', { cidr: '203.0.113.0/30', tenant_id: customerA, server_name: 'web1.customer-a.example.' });
    expect(handed.status, handed.text).toBe(201);
    expect(handed.body).toMatchObject({
      cidr: '203.0.113.0/30',
      family: 4,
      tenant_id: customerA,
      parent_id: toReseller.body.id,
      server_name: 'web1.customer-a.example',
    });
    ids.aV4 = handed.body.id;
    // Outside its own assignment, or overlapping what it handed on: refused.
    expect((await lab.reseller.post('/ips', { cidr: '203.0.113.16/30', tenant_id: customerA })).status).toBe(422);
    expect((await lab.reseller.post('/ips', { cidr: '203.0.113.2/31', tenant_id: customerB })).status).toBe(409);
    expect((await lab.customerA.post('/ips', { cidr: '203.0.113.0/32', tenant_id: customerA })).status).toBe(403);

    const b = await lab.platform.post('/ips', { cidr: '203.0.113.8/32', tenant_id: customerB, server_name: 'db.customer-b.example' });
    expect(b.status, b.text).toBe(201);
    ids.bV4 = b.body.id;
    const single = await lab.platform.post('/ips', { cidr: '2001:db8:ab00:1:0:0:0:10/128', tenant_id: customerA, server_name: 'web1.customer-a.example' });
    expect(single.status, single.text).toBe(201);
    expect(single.body.cidr).toBe('2001:db8:ab00:1::10/128');
    ids.aV6Single = single.body.id;
    const net = await lab.platform.post('/ips', { cidr: '2001:db8:ab00:2::/64', tenant_id: customerA, server_name: 'web2.customer-a.example' });
    expect(net.status, net.text).toBe(201);
    ids.aV6Net = net.body.id;
    expect((await lab.platform.post('/ips', { cidr: '192.0.2.0/24', tenant_id: customerA })).status).toBe(422);
  });

  it('lists assignments to their tenant and the tenants above it, filtered and paged', async () => {
    const mine = await lab.customerA.get('/ips');
    expect(mine.status).toBe(200);
    expect(mine.body.data.map((a: any) => a.cidr)).toEqual(['203.0.113.0/30', '2001:db8:ab00:1::10/128', '2001:db8:ab00:2::/64']);
    expect((await lab.customerB.get('/ips')).body.data.map((a: any) => a.cidr)).toEqual(['203.0.113.8/32']);
    expect((await lab.reseller.get('/ips')).body.data.map((a: any) => a.cidr)).toEqual([
      '203.0.113.0/29',
      '203.0.113.0/30',
      '203.0.113.8/32',
      '2001:db8:ab00:1::10/128',
      '2001:db8:ab00:2::/64',
    ]);
    expect((await lab.customerA.get('/ips?family=6')).body.data).toHaveLength(2);
    expect((await lab.customerA.get('/ips?q=web2')).body.data.map((a: any) => a.cidr)).toEqual(['2001:db8:ab00:2::/64']);
    expect((await lab.customerA.get('/ips?within=2001:db8:ab00::/48')).body.data).toHaveLength(2);
    const page = await lab.customerA.get('/ips?limit=2');
    expect(page.body.pagination.has_more).toBe(true);
    const rest = await lab.customerA.get(`/ips?limit=2&cursor=${encodeURIComponent(page.body.pagination.next_cursor)}`);
    expect(rest.body.data.map((a: any) => a.cidr)).toEqual(['2001:db8:ab00:2::/64']);
    expect((await lab.customerA.get('/ips?within=203.0.113.1/24')).status).toBe(422);
  });

  it('reads PTRs with their defaults, and only the tenant’s own', async () => {
    const one = await lab.customerA.get('/ptr/203.0.113.1');
    expect(one.status, one.text).toBe(200);
    expect(one.body).toEqual({
      ip: '203.0.113.1',
      target: 'static.203-0-113-1.hosting.example',
      source: 'default',
      default_target: 'static.203-0-113-1.hosting.example',
      zone: '113.0.203.in-addr.arpa',
      assignment_id: ids.aV4,
      prefix_id: null,
    });
    const other = await lab.customerA.get('/ptr/203.0.113.8');
    expect(other.status).toBe(403);
    expect(other.body.code).toBe('not_owner');
    expect((await lab.customerA.get('/ptr/192.0.2.1')).body.code).toBe('not_owner');
    const mapped = await lab.customerA.get('/ptr/::ffff:203.0.113.1');
    expect(mapped.status).toBe(422);
    expect(validationErrors(mapped)[0]).toMatchObject({ in: 'path', pointer: '/ip', code: 'ipv4_mapped_address' });
    expect(validationErrors(await lab.customerA.get('/ptr/203.0.113.300'))[0]).toMatchObject({ code: 'invalid_ip' });
    // The reseller sees its customer's address (and acting for it, as the customer).
    expect((await lab.reseller.get('/ptr/203.0.113.1')).status).toBe(200);
    const v6 = await lab.customerA.get('/ptr/2001:DB8:AB00:1:0::10');
    expect(v6.body).toMatchObject({ ip: '2001:db8:ab00:1::10', source: 'default', target: 'static.2001-db8-ab00-1--10.hosting.example' });
    const v6net = await lab.customerA.get('/ptr/2001:db8:ab00:2::5');
    expect(v6net.body).toMatchObject({ source: null, target: null, default_target: null, assignment_id: ids.aV6Net });
  });

  it('sets and resets IPv4 PTRs through change sets the nameserver serves', async (ctx) => {
    const dig = requireTool('dig', ctx);
    await servedPtr(dig, '203.0.113.2', 'static.203-0-113-2.hosting.example.');

    const set = await lab.customerA.put('/ptr/203.0.113.2', { target: 'Mail.Customer-A.example.' });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toMatchObject({
      ip: '203.0.113.2',
      target: 'mail.customer-a.example',
      source: 'set',
      default_target: 'static.203-0-113-2.hosting.example',
    });
    expect(set.body.changeset_id).toMatch(/^chg_/);
    expect(set.body.warnings).toEqual([expect.objectContaining({ code: 'ptr_not_forward_confirmed' })]);
    await servedPtr(dig, '203.0.113.2', 'mail.customer-a.example.');

    // An ordinary change set: its audit entry names the acting customer's request.
    const audit = await lab.sql.query(`SELECT tenant_id, details FROM audit_log WHERE target_id = $1`, [set.body.changeset_id]);
    expect(audit.rows).toEqual([
      expect.objectContaining({ tenant_id: customerA, details: expect.objectContaining({ zone: '113.0.203.in-addr.arpa', kind: 'records' }) }),
    ]);
    // Its change set and zone.changed event are the platform's (the zone's), the event naming the customer it was written for.
    const events = await lab.sql.query(`SELECT tenant_id, payload FROM events WHERE kind = 'zone.changed' AND payload->>'changeset_id' = $1`, [
      set.body.changeset_id,
    ]);
    expect(events.rows).toEqual([
      {
        tenant_id: lab.tokens.tenants.platform,
        payload: expect.objectContaining({ zone: '113.0.203.in-addr.arpa', change: 'records', acting_tenant_id: customerA }),
      },
    ]);
    const state = await lab.sql.query(`SELECT state FROM change_sets WHERE id = $1`, [set.body.changeset_id]);
    expect(['pushed', 'live']).toContain(state.rows[0].state);

    const reset = await lab.customerA.delete('/ptr/203.0.113.2');
    expect(reset.status, reset.text).toBe(200);
    expect(reset.body).toMatchObject({ source: 'default', target: 'static.203-0-113-2.hosting.example' });
    await servedPtr(dig, '203.0.113.2', 'static.203-0-113-2.hosting.example.');

    expect((await lab.customerA.put('/ptr/203.0.113.2', { target: '192.0.2.1' })).status).toBe(422);
    expect((await lab.customerA.put('/ptr/203.0.113.2', { target: 'single' })).status).toBe(422);
    expect((await lab.customerB.put('/ptr/203.0.113.2', { target: 'x.customer-b.example.' })).body.code).toBe('not_owner');
  });

  it('confirms a PTR whose target points back through the service’s own zones', async () => {
    const zone = `fwd-${Date.now().toString(36)}.test`;
    await createZone(lab.customerA, zone);
    await createRecord(lab.customerA, zone, { name: 'host', type: 'A', data: { address: '203.0.113.3' } });
    const set = await lab.customerA.put('/ptr/203.0.113.3', { target: `host.${zone}.` });
    expect(set.status, set.text).toBe(200);
    expect(set.body.warnings).toEqual([]);
  });

  it('sets, defaults and resets IPv6 PTRs', async (ctx) => {
    const dig = requireTool('dig', ctx);
    await servedPtr(dig, '2001:db8:ab00:1::10', 'static.2001-db8-ab00-1--10.hosting.example.');
    await servedPtr(dig, '2001:db8:ab00:2::5', null);
    const set = await lab.customerA.put('/ptr/2001:db8:ab00:2:0:0:0:5', { target: 'v6.customer-a.example.' });
    expect(set.status, set.text).toBe(200);
    await servedPtr(dig, '2001:db8:ab00:2::5', 'v6.customer-a.example.');
    const list = await lab.customerA.get('/ptr?within=2001:db8:ab00:2::/64');
    expect(list.body.data).toEqual([expect.objectContaining({ ip: '2001:db8:ab00:2::5', source: 'set', target: 'v6.customer-a.example' })]);
    expect((await lab.customerA.delete('/ptr/2001:db8:ab00:2::5')).body).toMatchObject({ source: null, target: null });
    await servedPtr(dig, '2001:db8:ab00:2::5', null);
    expect((await lab.customerA.get('/ptr?within=2001:db8:ab00:2::/64')).body.data).toEqual([]);

    // Unassigning the single address takes its default away: a change set of that name.
    expect((await lab.platform.delete(`/ips/${ids.aV6Single}`)).status).toBe(204);
    await servedPtr(dig, '2001:db8:ab00:1::10', null);
    expect((await lab.customerA.get('/ptr/2001:db8:ab00:1::10')).body.code).toBe('not_owner');
    expect((await lab.platform.get('/ptr/2001:db8:ab00:1::10')).body).toMatchObject({ source: null, assignment_id: null });
  });

  it('serves an RFC 2317 classless space: PTRs at <octet>.<first>-<length> under the /24', async (ctx) => {
    const dig = requireTool('dig', ctx);
    const space = await lab.platform.post('/ip-spaces', { cidr: '192.0.2.64/26', ptr_pattern: 'c{dashed}.classless.example.' });
    expect(space.status, space.text).toBe(201);
    expect((await lab.platform.post('/ips', { cidr: '192.0.2.64/26', tenant_id: customerB })).status).toBe(201);
    const one = await lab.customerB.get('/ptr/192.0.2.65');
    expect(one.body).toMatchObject({ zone: '64-26.2.0.192.in-addr.arpa', source: 'default', target: 'c192-0-2-65.classless.example' });
    const ask = (expected: string) =>
      eventually(
        async () => {
          const r = await digQuery(dig, port(), '65.64-26.2.0.192.in-addr.arpa.', 'PTR');
          return r.answer.some((l) => l.endsWith(` PTR ${expected}`)) ? r : undefined;
        },
        15_000,
        `classless PTR ${expected}`,
      );
    await ask('c192-0-2-65.classless.example.');
    expect((await lab.customerB.put('/ptr/192.0.2.65', { target: 'gw.customer-b.example.' })).status).toBe(200);
    await ask('gw.customer-b.example.');
  });

  it('writes the PTRs of a customer-owned prefix into its reverse zones (no defaults there)', async () => {
    // The prefix and its zones as POST /prefixes stores them (another part of the feature).
    const zone = async (id: string, name: string, block: string) =>
      lab.sql.query(
        `INSERT INTO zones (id, tenant_id, name, kind, status, default_ttl, soa_email, prefix_id, reverse_block, created_at, updated_at)
         VALUES ($1, $2, $3, 'reverse', 'active', 3600, 'hostmaster.example.test', 'pfx_rdnstest', $4, now(), now())`,
        [id, customerB, name, block],
      );
    await lab.sql.query(`INSERT INTO prefixes (id, tenant_id, cidr, attached_by) VALUES ('pfx_rdnstest', $1, '198.51.100.0/23', $2)`, [
      customerB,
      lab.tokens.tenants.platform,
    ]);
    await zone('zon_rdnstestprefixa', '100.51.198.in-addr.arpa', '198.51.100.0/24');
    await zone('zon_rdnstestprefixb', '0-28.101.51.198.in-addr.arpa', '198.51.101.0/28');

    const set = await lab.customerB.put('/ptr/198.51.100.5', { target: 'mx.customer-b.example.' });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toMatchObject({ zone: '100.51.198.in-addr.arpa', prefix_id: 'pfx_rdnstest', assignment_id: null, source: 'set', default_target: null });
    const classless = await lab.customerB.put('/ptr/198.51.101.3', { target: 'gw.customer-b.example.' });
    expect(classless.status, classless.text).toBe(200);
    expect(classless.body.zone).toBe('0-28.101.51.198.in-addr.arpa');
    const stored = await lab.sql.query(
      `SELECT r.name, r.tenant_id FROM records r JOIN zones z ON z.id = r.zone_id WHERE z.prefix_id = 'pfx_rdnstest' AND r.type = 'PTR' ORDER BY r.name`,
    );
    expect(stored.rows).toEqual([
      { name: '3', tenant_id: customerB },
      { name: '5', tenant_id: customerB },
    ]);
    expect((await lab.customerA.put('/ptr/198.51.100.5', { target: 'x.customer-a.example.' })).body.code).toBe('not_owner');
    expect((await lab.reseller.get('/ptr/198.51.100.5')).body.target).toBe('mx.customer-b.example');
    const list = await lab.customerB.get('/ptr?within=198.51.100.0/24&limit=500');
    expect(list.body.data).toHaveLength(256);
    expect(list.body.data.filter((p: any) => p.source !== null).map((p: any) => p.ip)).toEqual(['198.51.100.5']);
    expect((await lab.customerB.delete('/ptr/198.51.100.5')).body).toMatchObject({ source: null, target: null });
  });

  it('writes a bulk of PTRs all or nothing, one change set per reverse zone', async () => {
    const bad = await lab.customerA.post('/ptr/bulk', {
      items: [
        { ip: '203.0.113.0', target: 'a.customer-a.example.' },
        { ip: '2001:db8:ab00:2::7', target: 'not a name' },
      ],
    });
    expect(bad.status).toBe(422);
    expect(validationErrors(bad)[0].pointer).toMatch(/^\/items\/1\/target/);
    const foreign = await lab.customerA.post('/ptr/bulk', {
      items: [
        { ip: '203.0.113.0', target: 'a.customer-a.example.' },
        { ip: '203.0.113.8', target: 'b.customer-a.example.' },
      ],
    });
    expect(foreign.status).toBe(403);
    expect((await lab.customerA.get('/ptr/203.0.113.0')).body.source).toBe('default');

    const ok = await lab.customerA.post('/ptr/bulk', {
      items: [
        { ip: '203.0.113.0', target: 'a.customer-a.example.' },
        { ip: '203.0.113.1', target: 'b.customer-a.example.' },
        { ip: '2001:db8:ab00:2::7', target: 'c.customer-a.example.' },
        { ip: '203.0.113.3', target: null },
      ],
    });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.changeset_ids).toHaveLength(2);
    expect(ok.body.changeset_id).toBe(ok.body.changeset_ids[0]);
    expect(ok.body.data.map((p: any) => [p.ip, p.source])).toEqual([
      ['203.0.113.0', 'set'],
      ['203.0.113.1', 'set'],
      ['2001:db8:ab00:2::7', 'set'],
      ['203.0.113.3', 'default'],
    ]);
    const dup = await lab.customerA.post('/ptr/bulk', {
      items: [
        { ip: '203.0.113.0', target: null },
        { ip: '203.0.113.0', target: null },
      ],
    });
    expect(validationErrors(dup)[0]).toMatchObject({ pointer: '/items/1/ip', code: 'duplicate_ip' });
  });

  it('sets 1,000 PTRs of a /64 in one bulk change set, and finds assignments by PTR target', async () => {
    const items = Array.from({ length: 1000 }, (_, i) => ({ ip: `2001:db8:ab00:2::1:${i.toString(16)}`, target: `n${i}.bulk.customer-a.example.` }));
    const started = Date.now();
    const res = await lab.customerA.post('/ptr/bulk', { items });
    const ms = Date.now() - started;
    expect(res.status, res.text).toBe(200);
    expect(res.body.changeset_ids).toHaveLength(1);
    expect(res.body.data).toHaveLength(1000);
    console.log(`bulk of 1000 PTRs in a /64: ${ms} ms`);
    const summary = await lab.sql.query('SELECT item_count FROM change_sets WHERE id = $1', [res.body.changeset_id]);
    expect(summary.rows[0].item_count).toBe(1000);
    const listed = await lab.customerA.get('/ptr?within=2001:db8:ab00:2::/64&limit=500');
    expect(listed.body.data).toHaveLength(500);
    expect(listed.body.pagination.has_more).toBe(true);
    expect((await lab.customerA.get('/ips?q=n999.bulk')).body.data.map((a: any) => a.cidr)).toEqual(['2001:db8:ab00:2::/64']);
    expect((await lab.customerB.get('/ips?q=n999.bulk')).body.data).toEqual([]);
    expect((await lab.customerA.post('/ptr/bulk', { items: [...items, items[0]] })).status).toBe(422);
  });

  it('lists a /22 in pages: every address once, in order', async () => {
    const space = await lab.platform.post('/ip-spaces', { cidr: '198.18.0.0/22', ptr_pattern: 'h-{dashed}.pool.example.' });
    expect(space.status, space.text).toBe(201);
    const a = await lab.platform.post('/ips', { cidr: '198.18.0.0/22', tenant_id: customerA });
    expect(a.status, a.text).toBe(201);
    expect((await lab.customerA.get('/ptr?within=198.18.0.0/21')).status).toBe(422);
    expect((await lab.customerB.get('/ptr?within=198.18.0.0/22')).body.code).toBe('not_owner');
    const seen: any[] = [];
    let path: string | null = '/ptr?within=198.18.0.0/22&limit=500';
    let pages = 0;
    const listStarted = Date.now();
    while (path) {
      const res = await lab.customerA.get(path);
      expect(res.status, res.text).toBe(200);
      seen.push(...res.body.data);
      pages++;
      path = res.body.pagination.next_cursor ? `/ptr?within=198.18.0.0/22&limit=500&cursor=${encodeURIComponent(res.body.pagination.next_cursor)}` : null;
    }
    expect(pages).toBe(3);
    expect(seen).toHaveLength(1024);
    expect(seen[0]).toMatchObject({ ip: '198.18.0.0', source: 'default', target: 'h-198-18-0-0.pool.example', zone: '0.18.198.in-addr.arpa' });
    expect(seen[1023]).toMatchObject({ ip: '198.18.3.255', zone: '3.18.198.in-addr.arpa' });
    expect(new Set(seen.map((p) => p.ip)).size).toBe(1024);
    console.log(`/22 listing, 3 pages of 500: ${Date.now() - listStarted} ms`);
    // Removing the assignment: staff only while parts are assigned, then the space.
    expect((await lab.platform.delete(`/ip-spaces/${space.body.id}`)).status).toBe(409);
    expect((await lab.customerA.delete(`/ips/${a.body.id}`)).status).toBe(403);
    expect((await lab.platform.delete(`/ips/${a.body.id}`)).status).toBe(204);
    expect((await lab.platform.delete(`/ip-spaces/${space.body.id}`)).status).toBe(204);
    const zones = await lab.sql.query(`SELECT status FROM zones WHERE name = '0.18.198.in-addr.arpa'`);
    expect(zones.rows.every((z) => z.status === 'deleting')).toBe(true);
  });
});
