// Names in responses follow the spec's convention, "lower case, no trailing dot", whatever
// spelling came in (docs/rdns.md "PTR endpoints"): one PTR reads the same through the record API,
// /ptr/{ip}, the /ptr list, the bulk write's answer and /ips' server_name, and a default PTR's
// target is spelled like a set one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DnsLab, startDnsLab } from '../helpers/dnsLab.js';

const SHOUTED = 'Server.Example.COM.';
const SPELLED = 'server.example.com';

describe('names in responses: lower case, no trailing dot', () => {
  let lab: DnsLab;
  let customerA: string;
  let reverseZone: string;

  beforeAll(async () => {
    lab = await startDnsLab();
    customerA = lab.tokens.tenants.customers[0]!;
    // A provider space whose pattern is shouted too, an address of it assigned to customer A, and a
    // customer-owned prefix (its reverse zone is an ordinary zone of the customer's, records API included).
    const space = await lab.platform.post('/ip-spaces', { cidr: '203.0.113.0/24', ptr_pattern: 'Static.{dashed}.Hosting.EXAMPLE.' });
    expect(space.status, space.text).toBe(201);
    const prefix = await lab.platform.post('/prefixes', { cidr: '198.51.100.0/24', tenant_id: customerA });
    expect(prefix.status, prefix.text).toBe(201);
    reverseZone = prefix.body.zones[0].name;
  });
  afterAll(async () => lab?.close());

  it('/ips answers server_name as the record API would spell it', async () => {
    const assigned = await lab.platform.post('/ips', { cidr: '203.0.113.0/29', tenant_id: customerA, server_name: SHOUTED });
    expect(assigned.status, assigned.text).toBe(201);
    expect(assigned.body.server_name).toBe(SPELLED);
    const listed = await lab.customerA.get('/ips');
    expect(listed.body.data.map((a: any) => a.server_name)).toEqual([SPELLED]);
    // Found by its name as shown.
    expect((await lab.customerA.get(`/ips?q=${SPELLED}`)).body.data).toHaveLength(1);
  });

  it('a default PTR’s target and default_target: lower case, no trailing dot', async () => {
    const one = await lab.customerA.get('/ptr/203.0.113.1');
    expect(one.status, one.text).toBe(200);
    expect(one.body).toMatchObject({ source: 'default', target: 'static.203-0-113-1.hosting.example', default_target: 'static.203-0-113-1.hosting.example' });
  });

  it('U-labels become A-labels: in a pattern (stored so), its defaults and a set target', async () => {
    const space = await lab.platform.post('/ip-spaces', { cidr: '192.0.2.0/24', ptr_pattern: 'Static.{dashed}.Bücher.EXAMPLE.' });
    expect(space.status, space.text).toBe(201);
    // A pattern keeps its final dot: it is written as an absolute name (docs/rdns.md "Default PTRs").
    expect(space.body.ptr_pattern).toBe('static.{dashed}.xn--bcher-kva.example.');
    expect((await lab.platform.get(`/ip-spaces/${space.body.id}`)).body.ptr_pattern).toBe('static.{dashed}.xn--bcher-kva.example.');
    const ptr = await lab.platform.get('/ptr/192.0.2.1');
    expect(ptr.body).toMatchObject({ target: 'static.192-0-2-1.xn--bcher-kva.example', default_target: 'static.192-0-2-1.xn--bcher-kva.example' });
    const set = await lab.platform.put('/ptr/192.0.2.2', { target: 'Wäsche.Example.' });
    expect(set.body.target).toBe('xn--wsche-gra.example');
    // A placeholder inside a non-ASCII label would need another A-label for every address.
    const mixed = await lab.platform.patch(`/ip-spaces/${space.body.id}`, { ptr_pattern: 'ü{dashed}.example.' });
    expect(mixed.status).toBe(422);
    expect(mixed.body.errors[0]).toMatchObject({ pointer: '/ptr_pattern', code: 'invalid_ptr_pattern' });
  });

  it('a PTR set through /ptr/{ip} reads the same everywhere', async () => {
    const set = await lab.customerA.put('/ptr/203.0.113.2', { target: SHOUTED });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toMatchObject({ target: SPELLED, source: 'set', default_target: 'static.203-0-113-2.hosting.example' });
    expect((await lab.customerA.get('/ptr/203.0.113.2')).body.target).toBe(SPELLED);
    const listed = await lab.customerA.get('/ptr?within=203.0.113.0/29');
    expect(listed.body.data.find((p: any) => p.ip === '203.0.113.2')).toMatchObject({ target: SPELLED });
    for (const p of listed.body.data) {
      expect(p.target).toBe(p.target.toLowerCase());
      expect(p.target).not.toMatch(/\.$/);
      expect(p.default_target).not.toMatch(/\.$/);
    }
  });

  it('the bulk form answers every target spelled so', async () => {
    const bulk = await lab.customerA.post('/ptr/bulk', {
      items: [
        { ip: '203.0.113.3', target: 'Mail.Example.COM.' },
        { ip: '198.51.100.3', target: 'MX.Example.NET' },
        { ip: '203.0.113.4', target: null },
      ],
    });
    expect(bulk.status, bulk.text).toBe(200);
    expect(bulk.body.data.map((p: any) => [p.ip, p.target, p.default_target])).toEqual([
      ['203.0.113.3', 'mail.example.com', 'static.203-0-113-3.hosting.example'],
      ['198.51.100.3', 'mx.example.net', null],
      ['203.0.113.4', 'static.203-0-113-4.hosting.example', 'static.203-0-113-4.hosting.example'],
    ]);
  });

  it('the record API and /ptr agree on one PTR, whichever wrote it', async () => {
    // Written through /ptr, read through the record API …
    expect((await lab.customerA.put('/ptr/198.51.100.7', { target: SHOUTED })).status).toBe(200);
    const records = await lab.customerA.get(`/zones/${reverseZone}/records?type=PTR&name=7`);
    expect(records.status, records.text).toBe(200);
    expect(records.body.data.map((r: any) => r.data.target)).toEqual([SPELLED]);
    // … written through the record API, read through /ptr.
    const created = await lab.customerA.post(`/zones/${reverseZone}/records`, { name: '9', type: 'PTR', data: { target: 'Other.Example.ORG.' } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data.target).toBe('other.example.org');
    const ptr = await lab.customerA.get('/ptr/198.51.100.9');
    expect(ptr.body).toMatchObject({ source: 'set', target: 'other.example.org' });
  });
});
