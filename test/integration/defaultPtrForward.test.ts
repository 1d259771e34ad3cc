// Forward records of default PTRs (docs/rdns.md "Forward records of default PTRs"): an address
// space naming a zone of the provider keeps there an A record for every IPv4 address of the space
// and an AAAA for every IPv6 address assigned alone, as ordinary records marked as the space's
// (managed_by), each change one change set; `dig` at the lab's nameserver resolves the default
// names back to their addresses, the record API cannot change them, and a new pattern, a new
// zone or the space's removal moves or removes them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAddress, reverseName } from '../../src/domain/ip/address.js';
import { digQuery } from '../helpers/digClient.js';
import { expectProblem } from '../helpers/assertions.js';
import { createRecord, createZone, type DnsLab, listAll, startDnsLab, validationErrors } from '../helpers/dnsLab.js';
import { eventually } from '../helpers/dnsQuery.js';
import { requireTool } from '../helpers/dnsTools.js';

const ZONE = 'hosting.example';
const PATTERN = 'static.{dashed}.hosting.example.';

describe('forward records of default PTRs', () => {
  let lab: DnsLab;
  let customerA: string;
  const ids: Record<string, string> = {};
  const port = () => lab.service.nameserver!.server.port;
  /** What the nameserver answers for `name` `type` (the data of the answer), once it is `expected`. */
  const served = (name: string, type: string, expected: string[]) =>
    eventually(
      async () => {
        const r = await digQuery(requireTool('dig')!, port(), `${name}.`, type);
        const data = r.answer.map((l) => l.split(' ').pop()!).sort();
        return JSON.stringify(data) === JSON.stringify(expected) ? data : undefined;
      },
      20_000,
      `${name} ${type} = ${expected.join(', ')}`,
    );
  const kept = async (zone = ZONE) =>
    (await listAll(lab.platform, `/zones/${zone}/records?include_system=false`))
      .filter((r) => r.managed_by !== null)
      .map((r) => `${r.name} ${r.type} ${r.content} ${r.managed_by}`);
  const changeSets = async (zone = ZONE) => (await listAll(lab.platform, `/zones/${zone}/changesets`)).length;

  beforeAll(async () => {
    lab = await startDnsLab({ env: { ROLES: 'api,nameserver,worker' } });
    customerA = lab.tokens.tenants.customers[0]!;
    await createZone(lab.platform, ZONE);
    await createZone(lab.customerA, 'customer-a.example');
  });
  afterAll(async () => lab?.close());

  it('refuses a zone that is not the provider’s, one not hosted, and a pattern outside the zone', async () => {
    const customerZone = await lab.platform.post('/ip-spaces', {
      cidr: '192.0.2.0/24',
      ptr_pattern: 'static.{dashed}.customer-a.example.',
      forward_zone: 'customer-a.example',
    });
    expect(validationErrors(customerZone)[0]).toMatchObject({ pointer: '/forward_zone', code: 'not_platform_zone' });
    const missing = await lab.platform.post('/ip-spaces', { cidr: '192.0.2.0/24', ptr_pattern: PATTERN, forward_zone: 'nowhere.example' });
    expect(validationErrors(missing)[0]).toMatchObject({ pointer: '/forward_zone', code: 'zone_not_found' });
    const outside = await lab.platform.post('/ip-spaces', { cidr: '192.0.2.0/24', ptr_pattern: 'static.{dashed}.other.example.', forward_zone: ZONE });
    expect(validationErrors(outside)[0]).toMatchObject({ pointer: '/forward_zone', code: 'pattern_outside_forward_zone' });
    // A placeholder in the last label: the names are no zone's.
    const atTop = await lab.platform.post('/ip-spaces', { cidr: '192.0.2.0/24', ptr_pattern: 'hosting.example.{dashed}.', forward_zone: ZONE });
    expect(validationErrors(atTop)[0]).toMatchObject({ pointer: '/forward_zone', code: 'pattern_outside_forward_zone' });
    expect((await lab.platform.get('/ip-spaces')).body.data).toEqual([]);
    expect(await changeSets()).toBe(1);
  });

  it('keeps an A record for every IPv4 address of a space, in one change set, resolving back', async () => {
    const before = await changeSets();
    const v4 = await lab.platform.post('/ip-spaces', { cidr: '192.0.2.0/24', ptr_pattern: PATTERN, forward_zone: 'Hosting.Example.' });
    expect(v4.status, v4.text).toBe(201);
    expect(v4.body).toMatchObject({ forward_zone: ZONE, ptr_pattern: PATTERN });
    // One chunk (at most 4,096 records) is written by the request itself: nothing left for the worker.
    expect(v4.body.forward_records).toEqual({ state: 'complete', total: 256, written: 256, stale: 0, error: null });
    ids.v4 = v4.body.id;
    expect(await changeSets()).toBe(before + 1);
    const records = await kept();
    expect(records).toHaveLength(256);
    expect(records).toContain(`static.192-0-2-10 A 192.0.2.10 ${ids.v4}`);
    await served('static.192-0-2-10.hosting.example', 'A', ['192.0.2.10']);
    await served('static.192-0-2-255.hosting.example', 'A', ['192.0.2.255']);
    // The default PTR and its forward record agree.
    await served(reverseName(parseAddress('192.0.2.10')), 'PTR', ['static.192-0-2-10.hosting.example.']);
  });

  it('is kept by the space: the record API cannot change it', async () => {
    const one = (await listAll(lab.platform, `/zones/${ZONE}/records?include_system=false&name=static.192-0-2-10`)).find((r) => r.type === 'A');
    expectProblem(await lab.platform.patch(`/zones/${ZONE}/records/${one.id}`, { data: { address: '192.0.2.99' } }), 409, 'record_managed');
    expectProblem(await lab.platform.delete(`/zones/${ZONE}/records/${one.id}`), 409, 'record_managed');
    expect(await kept()).toHaveLength(256);
  });

  it('stays when a customer sets a PTR of its own, which then is forward-confirmed', async () => {
    expect((await lab.platform.post('/ips', { cidr: '192.0.2.10/32', tenant_id: customerA })).status).toBe(201);
    const set = await lab.customerA.put('/ptr/192.0.2.10', { target: 'www.customer-a.example.' });
    expect(set.status, set.text).toBe(200);
    expect(set.body.warnings.map((w: any) => w.code)).toEqual(['ptr_not_forward_confirmed']);
    await served(reverseName(parseAddress('192.0.2.10')), 'PTR', ['www.customer-a.example.']);
    await served('static.192-0-2-10.hosting.example', 'A', ['192.0.2.10']);
    // Back to the default name: it resolves to the address, so no warning.
    const back = await lab.customerA.put('/ptr/192.0.2.10', { target: 'static.192-0-2-10.hosting.example.' });
    expect(back.body.warnings).toEqual([]);
  });

  it('keeps an AAAA for each IPv6 address assigned alone, added and removed with the assignment', async () => {
    const v6 = await lab.platform.post('/ip-spaces', { cidr: '2001:db8:100::/48', ptr_pattern: PATTERN, forward_zone: ZONE });
    expect(v6.status, v6.text).toBe(201);
    ids.v6 = v6.body.id;
    // No /128 yet: no default names, nothing written.
    expect((await kept()).filter((r) => r.includes(' AAAA '))).toEqual([]);
    const before = await changeSets();
    const net = await lab.platform.post('/ips', { cidr: '2001:db8:100:a::/64', tenant_id: customerA });
    expect(net.status, net.text).toBe(201);
    expect(await changeSets()).toBe(before);
    const single = await lab.platform.post('/ips', { cidr: '2001:db8:100::10/128', tenant_id: customerA });
    expect(single.status, single.text).toBe(201);
    expect(await changeSets()).toBe(before + 1);
    expect((await kept()).filter((r) => r.includes(' AAAA '))).toEqual([`static.2001-db8-100--10 AAAA 2001:db8:100::10 ${ids.v6}`]);
    await served('static.2001-db8-100--10.hosting.example', 'AAAA', ['2001:db8:100::10']);
    expect((await lab.platform.delete(`/ips/${single.body.id}`)).status).toBe(204);
    expect((await kept()).filter((r) => r.includes(' AAAA '))).toEqual([]);
    await served('static.2001-db8-100--10.hosting.example', 'AAAA', []);
    expect((await lab.platform.delete(`/ips/${net.body.id}`)).status).toBe(204);
  });

  it('renames them with a new pattern, and the default PTRs follow', async () => {
    const before = await changeSets();
    const patched = await lab.platform.patch(`/ip-spaces/${ids.v4}`, { ptr_pattern: 'host-{dashed}.hosting.example.' });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.ptr_pattern).toBe('host-{dashed}.hosting.example.');
    expect(await changeSets()).toBe(before + 1);
    const records = await kept();
    expect(records.filter((r) => r.includes(' A '))).toHaveLength(256);
    expect(records).toContain(`host-192-0-2-20 A 192.0.2.20 ${ids.v4}`);
    expect(records.some((r) => r.startsWith('static.192-'))).toBe(false);
    await served('host-192-0-2-20.hosting.example', 'A', ['192.0.2.20']);
    await served(reverseName(parseAddress('192.0.2.20')), 'PTR', ['host-192-0-2-20.hosting.example.']);
    // A pattern the zone cannot hold: refused, nothing changed.
    const outside = await lab.platform.patch(`/ip-spaces/${ids.v4}`, { ptr_pattern: 'static.{dashed}.elsewhere.example.' });
    expect(validationErrors(outside)[0]).toMatchObject({ pointer: '/forward_zone', code: 'pattern_outside_forward_zone' });
    expect((await lab.platform.get(`/ip-spaces/${ids.v4}`)).body.ptr_pattern).toBe('host-{dashed}.hosting.example.');
  });

  it('refuses a zone where the provider has records of its own at a default name, storing nothing', async () => {
    await createZone(lab.platform, 'pool.example');
    await createRecord(lab.platform, 'pool.example', { type: 'A', name: 'host-192-0-2-7', data: { address: '198.51.100.7' } });
    const moved = await lab.platform.patch(`/ip-spaces/${ids.v4}`, { ptr_pattern: 'host-{dashed}.pool.example.', forward_zone: 'pool.example' });
    expectProblem(moved, 409, 'record_managed');
    expect(moved.body.errors[0]).toMatchObject({ pointer: '/forward_zone' });
    expect(await kept()).toHaveLength(256);
    expect(await kept('pool.example')).toEqual([]);
  });

  it('removes them with forward_zone null, and with the space', async () => {
    const off = await lab.platform.patch(`/ip-spaces/${ids.v4}`, { forward_zone: null });
    expect(off.status, off.text).toBe(200);
    expect(off.body.forward_zone).toBeNull();
    expect(await kept()).toEqual([]);
    await served('host-192-0-2-20.hosting.example', 'A', []);

    expect((await lab.platform.patch(`/ip-spaces/${ids.v4}`, { forward_zone: ZONE })).status).toBe(200);
    expect(await kept()).toHaveLength(256);
    const a = (await listAll(lab.platform, '/ips')).find((x) => x.cidr === '192.0.2.10/32');
    expect((await lab.platform.delete(`/ips/${a.id}`)).status).toBe(204);
    const before = await changeSets();
    expect((await lab.platform.delete(`/ip-spaces/${ids.v4}`)).status).toBe(204);
    expect(await changeSets()).toBe(before + 1);
    expect(await kept()).toEqual([]);
  });
});
