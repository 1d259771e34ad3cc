// Customer-owned prefixes (docs/rdns.md "Prefixes", "Delegation checks"; docs/lab.md "Reverse
// parents"): attached by staff, their reverse zones created, listed and served at once; PTRs
// written through the record API answered by `dig -x` at the lab nameserver (an RFC 2317
// classless zone through the lab registry's CNAME); the delegation check against the lab registry
// set correct, missing and wrong; delv validating a PTR of a signed reverse zone from the lab root.
import type { TestContext } from 'vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DnsLab, startDnsLab } from '../helpers/dnsLab.js';
import { eventually } from '../helpers/dnsQuery.js';
import { ALL_ROLES, delv, dnsPort, passLabTime, untilDnssecState, untilLabTrustAnchor } from '../helpers/dnssecLab.js';
import { requireTool } from '../helpers/dnsTools.js';
import { runAsync } from '../helpers/digClient.js';
import { resolverDelegationObserver } from '../../src/rdns/delegationCheck.js';
import { checkDueDelegations, DAILY_MS } from '../../src/rdns/delegationWorker.js';

describe('customer prefixes and their reverse zones', { timeout: 120_000 }, () => {
  let lab: DnsLab;
  let customerId: string;

  /** `dig -x ip` at the lab nameserver, non-recursive: the answer lines. */
  const digX = async (ctx: TestContext, ip: string) => {
    const dig = requireTool('dig', ctx);
    const run = await runAsync(dig, ['@127.0.0.1', '-p', String(dnsPort(lab)), '-x', ip, '+norec', '+noall', '+answer', '+time=2', '+tries=1']);
    return run.stdout
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => l.trim().split(/\s+/).join(' '));
  };
  const dig = async (ctx: TestContext, name: string, type: string) => {
    const tool = requireTool('dig', ctx);
    const run = await runAsync(tool, [
      '@127.0.0.1',
      '-p',
      String(dnsPort(lab)),
      name,
      type,
      '+norec',
      '+noall',
      '+answer',
      '+authority',
      '+time=2',
      '+tries=1',
    ]);
    return run.stdout
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => l.trim().split(/\s+/).join(' '));
  };
  const untilActive = (zone: string) =>
    eventually(async () => ((await lab.customerA.get(`/zones/${zone}`)).body.status === 'active' ? true : undefined), 20_000, `${zone} to be active`);

  beforeAll(async () => {
    lab = await startDnsLab({ env: ALL_ROLES });
    lab.service.labReset?.stop();
    customerId = lab.tokens.tenants.customers[0]!;
  });
  afterAll(async () => lab?.close());

  it('attaches an IPv4 /24 (platform), a /26 (the reseller) and an IPv6 /48, with their reverse zones', async () => {
    const v4 = await lab.platform.post('/prefixes', { cidr: '192.0.2.0/24', tenant_id: customerId });
    expect(v4.status, v4.text).toBe(201);
    expect(v4.headers.get('location')).toBe('/api/v1/prefixes/192.0.2.0-24');
    expect(v4.body).toMatchObject({
      id: expect.stringMatching(/^pfx_/),
      prefix: '192.0.2.0/24',
      family: 4,
      tenant_id: customerId,
      zones: [{ name: '2.0.192.in-addr.arpa', kind: 'octet', delegation: { state: 'unchecked', seen: [], checked_at: null } }],
    });
    const classless = await lab.reseller.post('/prefixes', { cidr: '198.51.100.64/26', tenant_id: customerId });
    expect(classless.status, classless.text).toBe(201);
    expect(classless.body.zones).toEqual([
      { name: '64-26.100.51.198.in-addr.arpa', kind: 'classless', delegation: expect.objectContaining({ state: 'unchecked' }) },
    ]);
    const v6 = await lab.platform.post('/prefixes', { cidr: '2001:DB8:a:0::/48', tenant_id: customerId });
    expect(v6.status, v6.text).toBe(201);
    expect(v6.body).toMatchObject({ prefix: '2001:db8:a::/48', family: 6, zones: [{ name: 'a.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa', kind: 'nibble' }] });
  });

  it('refuses customers, overlaps, bad blocks and non-customers', async () => {
    const byCustomer = await lab.customerA.post('/prefixes', { cidr: '203.0.113.0/24', tenant_id: customerId });
    expect(byCustomer.status, byCustomer.text).toBe(403);
    expect(byCustomer.body.code).toBe('forbidden');
    const overlap = await lab.platform.post('/prefixes', { cidr: '192.0.2.128/25', tenant_id: lab.tokens.tenants.customers[1] });
    expect(overlap.status, overlap.text).toBe(409);
    expect(overlap.body.code).toBe('prefix_overlap');
    // The provider's own address space (docs/rdns.md: written by /ip-spaces; here directly).
    await lab.sql.query(`INSERT INTO ip_spaces (id, cidr, ptr_pattern) VALUES ('isp_overlap', '203.0.113.0/24', 'static.{dashed}.hosting.example.')`);
    try {
      const space = await lab.platform.post('/prefixes', { cidr: '203.0.113.128/25', tenant_id: customerId });
      expect(space.status, space.text).toBe(409);
      expect(space.body).toMatchObject({ code: 'prefix_overlap', detail: expect.stringContaining("203.0.113.0/24 (the provider's address space)") });
    } finally {
      await lab.sql.query(`DELETE FROM ip_spaces WHERE id = 'isp_overlap'`);
    }
    expect((await lab.customerA.get('/prefixes')).body.data.map((p: any) => p.prefix)).not.toContain('203.0.113.128/25');
    const notNetwork = await lab.platform.post('/prefixes', { cidr: '203.0.113.1/24', tenant_id: customerId });
    expect(notNetwork.status).toBe(422);
    expect(notNetwork.body.errors[0]).toMatchObject({ pointer: '/cidr', code: 'not_network_address' });
    const reseller = await lab.platform.post('/prefixes', { cidr: '203.0.113.0/24', tenant_id: lab.tokens.tenants.reseller });
    expect(reseller.status).toBe(422);
    expect(reseller.body.errors[0]).toMatchObject({ pointer: '/tenant_id', code: 'not_a_customer' });
    const mapped = await lab.platform.post('/prefixes', { cidr: '::ffff:192.0.2.0/120', tenant_id: customerId });
    expect(mapped.status).toBe(422);
    expect(mapped.body.errors[0]).toMatchObject({ code: 'ipv4_mapped_address' });
    // POST /zones for a reverse name stays refused.
    const zone = await lab.customerA.post('/zones', { name: '113.0.203.in-addr.arpa' });
    expect(zone.status).toBe(403);
    expect(zone.body.code).toBe('reverse_zone_managed');
  });

  it('lists and reads prefixes (family filter, URL forms); the zones are in /zones with kind reverse', async () => {
    const all = await lab.customerA.get('/prefixes');
    expect(all.status, all.text).toBe(200);
    expect(all.body.data.map((p: any) => p.prefix)).toEqual(['192.0.2.0/24', '198.51.100.64/26', '2001:db8:a::/48']);
    const v6 = await lab.customerA.get('/prefixes?family=6');
    expect(v6.body.data.map((p: any) => p.prefix)).toEqual(['2001:db8:a::/48']);
    const page = await lab.reseller.get('/prefixes?limit=2');
    expect(page.body.data).toHaveLength(2);
    const rest = await lab.reseller.get(`/prefixes?limit=2&cursor=${page.body.pagination.next_cursor}`);
    expect(rest.body.data.map((p: any) => p.prefix)).toEqual(['2001:db8:a::/48']);
    expect((await lab.customerA.get('/prefixes/2001:db8:a::-48')).body.prefix).toBe('2001:db8:a::/48');
    expect((await lab.customerA.get('/prefixes/192.0.2.0%2F24')).body.prefix).toBe('192.0.2.0/24');
    expect((await lab.customerA.get('/prefixes/192.0.2.1-24')).status).toBe(422);
    for (const bad of ['192.0.2.0%25', 'nonsense', '192.0.2.0-33', '2001:db8::-129']) {
      const res = await lab.customerA.get(`/prefixes/${bad}`);
      expect(res.status, `${bad}: ${res.text}`).toBe(422);
      expect(res.body.errors[0]).toMatchObject({ in: 'path', pointer: '/prefix' });
    }
    expect((await lab.customerB.get('/prefixes/192.0.2.0-24')).status).toBe(404);
    expect((await lab.customerB.get('/prefixes')).body.data).toEqual([]);

    const zones = await lab.customerA.get('/zones?kind=reverse');
    expect(zones.status, zones.text).toBe(200);
    expect(zones.body.data.map((z: any) => [z.name, z.kind]).sort()).toEqual([
      ['2.0.192.in-addr.arpa', 'reverse'],
      ['64-26.100.51.198.in-addr.arpa', 'reverse'],
      ['a.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa', 'reverse'],
    ]);
    expect((await lab.customerA.get('/zones?kind=forward')).body.data.every((z: any) => z.kind === 'forward')).toBe(true);
  });

  it('serves PTRs written through the record API to dig -x, the classless one through the registry’s CNAME', async (ctx) => {
    for (const zone of ['2.0.192.in-addr.arpa', '64-26.100.51.198.in-addr.arpa', 'a.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa']) await untilActive(zone);
    const put = async (zone: string, name: string, target: string) => {
      const res = await lab.customerA.post(`/zones/${zone}/records`, { type: 'PTR', name, data: { target } });
      expect(res.status, res.text).toBe(201);
    };
    await put('2.0.192.in-addr.arpa', '10', 'host10.example.');
    await put('64-26.100.51.198.in-addr.arpa', '70', 'host70.example.');
    await put('a.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa', '1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0', 'v6host.example.');
    // Only PTR and NS (and CNAME) in a reverse zone.
    const a = await lab.customerA.post('/zones/2.0.192.in-addr.arpa/records', { type: 'A', name: 'x', data: { address: '192.0.2.1' } });
    expect(a.status).toBe(422);

    await eventually(
      async () => ((await digX(ctx, '192.0.2.10')).some((l) => l.endsWith('IN PTR host10.example.')) ? true : undefined),
      20_000,
      'the IPv4 PTR',
    );
    await eventually(
      async () => ((await digX(ctx, '2001:db8:a::1')).some((l) => l.endsWith('IN PTR v6host.example.')) ? true : undefined),
      20_000,
      'the IPv6 PTR',
    );
    // RFC 2317: the lab registry's in-addr.arpa points the address at the classless zone.
    const cname = await eventually(
      async () => {
        const lines = await digX(ctx, '198.51.100.70');
        return lines.some((l) => l.includes('IN CNAME 70.64-26.100.51.198.in-addr.arpa.')) ? lines : undefined;
      },
      20_000,
      'the RFC 2317 CNAME',
    );
    expect(cname[0]).toMatch(/^70\.100\.51\.198\.in-addr\.arpa\. \d+ IN CNAME 70\.64-26\.100\.51\.198\.in-addr\.arpa\.$/);
    expect(await dig(ctx, '70.64-26.100.51.198.in-addr.arpa', 'PTR')).toEqual([expect.stringMatching(/ IN PTR host70\.example\.$/)]);
    // The registry delegates the classless zone, and the /24's other addresses are not the customer's.
    expect(await dig(ctx, '64-26.100.51.198.in-addr.arpa', 'NS')).toEqual(expect.arrayContaining([expect.stringMatching(/ IN NS ns1\.lab-dns\.test\.$/)]));
    expect((await digX(ctx, '198.51.100.10')).filter((l) => l.includes('CNAME'))).toEqual([]);
  });

  it('checks the delegation: ok, then 429, missing and wrong as the lab registry is set', async () => {
    const check = () => lab.customerA.post('/prefixes/192.0.2.0-24/delegation-check', {});
    const first = await check();
    expect(first.status, first.text).toBe(200);
    expect(first.body.zones[0].delegation).toMatchObject({ state: 'ok', seen: ['ns1.lab-dns.test', 'ns2.lab-dns.test'], checked_at: expect.any(String) });
    // The zone object shows the same.
    const zone = await lab.customerA.get(`/zones/${first.body.zones[0].name}`);
    expect(zone.body.delegation).toMatchObject({
      status: 'ok',
      seen: ['ns1.lab-dns.test', 'ns2.lab-dns.test'],
      checked_at: first.body.zones[0].delegation.checked_at,
    });
    const again = await check();
    expect(again.status).toBe(429);
    expect(again.body.code).toBe('rate_limited');
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(0);

    const setLab = (state: string) => lab.platform.put('/lab/prefix-delegations/192.0.2.0-24', { state });
    expect((await lab.customerA.put('/lab/prefix-delegations/192.0.2.0-24', { state: 'missing' })).status).toBe(403);
    const missing = await setLab('missing');
    expect(missing.status, missing.text).toBe(200);
    expect(missing.body).toEqual({ prefix: '192.0.2.0/24', state: 'missing' });
    lab.clock.advance(61_000);
    const seenMissing = await check();
    expect(seenMissing.status, seenMissing.text).toBe(200);
    expect(seenMissing.body.zones[0].delegation).toMatchObject({ state: 'missing', seen: [] });

    expect((await setLab('wrong')).status).toBe(200);
    lab.clock.advance(61_000);
    const wrong = await check();
    expect(wrong.body.zones[0].delegation).toMatchObject({ state: 'wrong', seen: ['ns1.elsewhere.example', 'ns2.elsewhere.example'] });
    // What was seen stays on the prefix.
    expect((await lab.customerA.get('/prefixes/192.0.2.0-24')).body.zones[0].delegation.state).toBe('wrong');

    expect((await setLab('correct')).status).toBe(200);
    lab.clock.advance(61_000);
    expect((await check()).body.zones[0].delegation.state).toBe('ok');
  });

  it('asks the parents before its transaction opens: no connection waits for their answers', async () => {
    // A slow parent: every lookup of the check waits until the test lets it go on, then asks the
    // lab registry as usual.
    const rdns = lab.service.services.rdns;
    const ask = rdns.observeDelegation;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let asked = 0;
    let firstAskedAt: Promise<Date> | null = null;
    rdns.observeDelegation = async (zone) => {
      asked++;
      firstAskedAt ??= lab.sql.query('SELECT clock_timestamp() AS at').then((r) => r.rows[0].at as Date);
      await gate;
      return ask(zone);
    };
    try {
      lab.clock.advance(61_000);
      const checking = lab.customerA.post('/prefixes/192.0.2.0-24/delegation-check', {});
      await eventually(async () => (asked > 0 ? true : undefined), 10_000, 'the lookup');
      const lookupsBegan = await firstAskedAt!;
      await new Promise((r) => setTimeout(r, 300));
      // Transactions open since before the lookups began and idle since: the request's would be one.
      const open = await lab.sql.query(
        `SELECT pid, state, query FROM pg_stat_activity WHERE datname = current_database() AND xact_start < $1 AND pid <> pg_backend_pid() AND state LIKE 'idle in transaction%'`,
        [lookupsBegan],
      );
      expect(open.rows).toEqual([]);
      release();
      const done = await checking;
      expect(done.status, done.text).toBe(200);
      expect(done.body.zones[0].delegation).toMatchObject({ state: 'ok', checked_at: lab.clock.now().toISOString() });
      // The check was made: a second one this minute is refused, and asks no parent.
      const before = asked;
      expect((await lab.customerA.post('/prefixes/192.0.2.0-24/delegation-check', {})).status).toBe(429);
      expect(asked).toBe(before);
    } finally {
      rdns.observeDelegation = ask;
      release();
    }
  });

  it('asks the parent the production way: its apex and nameservers through the resolver, then the parent itself', async () => {
    // The lab nameserver as the "resolver" and as every server (its port): it serves in-addr.arpa
    // and, being authoritative for the child too, answers the child's NS itself (docs/lab.md).
    const observe = resolverDelegationObserver({ host: '127.0.0.1', port: dnsPort(lab) }, dnsPort(lab));
    expect(await observe('2.0.192.in-addr.arpa')).toEqual({ delegatedTo: ['ns1.lab-dns.test', 'ns2.lab-dns.test'] });
    expect(await observe('a.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa')).toEqual({ delegatedTo: ['ns1.lab-dns.test', 'ns2.lab-dns.test'] });
    // No delegation at the parent: NXDOMAIN from in-addr.arpa.
    expect(await observe('9.9.198.in-addr.arpa')).toEqual({ delegatedTo: null });
    // No resolver configured: nothing can be asked.
    expect(await resolverDelegationObserver(null)('2.0.192.in-addr.arpa')).toMatchObject({ unreachable: expect.stringContaining('DNSSEC_RESOLVER') });
  });

  it('validates a PTR of a signed reverse zone with delv from the lab root', async (ctx) => {
    requireTool('delv', ctx);
    await untilLabTrustAnchor(lab);
    const zone = '2.0.192.in-addr.arpa';
    const enabled = await lab.customerA.post(`/zones/${zone}/dnssec/enable`, {});
    expect(enabled.status, enabled.text).toBe(202);
    await untilDnssecState(lab, zone, 'active', 90_000);
    await eventually(
      async () => {
        await passLabTime(lab);
        return /; fully validated/.test(await delv(ctx, lab, '10.2.0.192.in-addr.arpa', 'PTR')) ? true : undefined;
      },
      60_000,
      'the PTR to validate from the lab root',
    );
    const out = await delv(ctx, lab, '10.2.0.192.in-addr.arpa', 'PTR');
    expect(out).toMatch(/10\.2\.0\.192\.in-addr\.arpa\.\s+\d+\s+IN\s+PTR\s+host10\.example\./);
  });

  it('checks again once a day in the worker: zones never checked or checked a day ago', async () => {
    const { services } = lab.service;
    const run = () =>
      checkDueDelegations({
        db: services.db,
        clock: lab.clock,
        nameservers: services.config.zones.nameservers,
        observe: (z) => services.rdns.observeDelegation(z),
      });
    // The worker role's own job may have looked already: every zone is made unchecked again.
    await lab.sql.query(`UPDATE zones SET delegation = '{"state":"unchecked","seen":[],"checked_at":null}' WHERE prefix_id IS NOT NULL`);
    const stateOf = async (prefix: string) => (await lab.customerA.get(`/prefixes/${prefix}`)).body.zones[0].delegation;
    expect((await stateOf('2001:db8:a::-48')).state).toBe('unchecked');
    expect(await run()).toBeGreaterThan(0);
    expect(await stateOf('2001:db8:a::-48')).toMatchObject({ state: 'ok', seen: ['ns1.lab-dns.test', 'ns2.lab-dns.test'] });
    expect((await stateOf('198.51.100.64-26')).state).toBe('ok');
    expect(await run()).toBe(0);
    expect((await lab.platform.put('/lab/prefix-delegations/198.51.100.64-26', { state: 'missing' })).status).toBe(200);
    // A day on (last, as it moves the clock away from real time, which delv checks signatures against).
    lab.clock.advance(DAILY_MS + 1000);
    await run();
    expect((await stateOf('198.51.100.64-26')).state).toBe('missing');
    expect((await lab.platform.put('/lab/prefix-delegations/198.51.100.64-26', { state: 'correct' })).status).toBe(200);
  });

  it('detaches: customers may not, staff may; the reverse zones go', async () => {
    // The zone alone cannot be deleted: it goes with its prefix.
    const alone = await lab.customerA.delete('/zones/64-26.100.51.198.in-addr.arpa?confirm=64-26.100.51.198.in-addr.arpa');
    expect(alone.status, alone.text).toBe(403);
    expect(alone.body.code).toBe('reverse_zone_managed');
    const byCustomer = await lab.customerA.delete('/prefixes/198.51.100.64-26');
    expect(byCustomer.status).toBe(403);
    const byReseller = await lab.reseller.delete('/prefixes/198.51.100.64-26');
    expect(byReseller.status, byReseller.text).toBe(204);
    expect((await lab.customerA.get('/prefixes/198.51.100.64-26')).status).toBe(404);
    const zone = await lab.customerA.get('/zones/64-26.100.51.198.in-addr.arpa');
    expect(zone.status === 404 || zone.body.status === 'deleting', zone.text).toBe(true);
  });
});
