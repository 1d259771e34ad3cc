// Zones (spec "Zone", "Endpoints / Zones", "Errors", "Limits"): creation with its checks in the
// spec's order, the created zone, the zone list and every query parameter, reading with ETags,
// settings and deletion. Real HTTP against the real service on its own PostgreSQL database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../helpers/apiClient.js';
import { expectProblem } from '../helpers/assertions.js';
import {
  byteOrder,
  createRecord,
  createZone,
  type DnsLab,
  listAll,
  newCustomer,
  nextLink,
  startDnsLab,
  validationErrors,
  walk,
  withoutWarnings,
} from '../helpers/dnsLab.js';

let lab: DnsLab;
beforeAll(async () => {
  lab = await startDnsLab();
});
afterAll(() => lab?.close());

const DAY = 24 * 60 * 60 * 1000;
const NAMESERVERS = ['ns1.lab-dns.test', 'ns2.lab-dns.test'];

describe('POST /zones: the creation checks, in the spec’s order, each with its own error', () => {
  it.each([
    ['a..test', 'empty_label'],
    ['.dot-first.test', 'empty_label'],
    ['localhost', null],
    ['co.uk', 'public_suffix'],
    ['test', 'public_suffix'],
    ['example.notarealtld', 'unknown_tld'],
    ['bad_label.test', 'invalid_character'],
    ['-hyphen.test', 'invalid_hyphen'],
    ['*.wild.test', null],
    [`${'a'.repeat(64)}.test`, 'label_too_long'],
    ['', null],
  ])('(1) %j is not a registrable domain or subdomain: 422 validation_failed at /name', async (name, code) => {
    const before = (await lab.customerA.get('/zones')).body.pagination.total;
    const res = await lab.customerA.post('/zones', { name });
    const errors = validationErrors(res);
    expect(errors[0].pointer).toBe('/name');
    if (code) expect(errors[0].code).toBe(code);
    expect((await lab.customerA.get('/zones')).body.pagination.total).toBe(before);
  });

  it('accepts a U-label name, stores the A-label, and answers under both forms', async () => {
    const zone = await createZone(lab.customerA, 'Bücher.test');
    expect(zone.name).toBe('xn--bcher-kva.test');
    expect(zone.unicode_name).toBe('bücher.test');
    const byALabel = await lab.customerA.get('/zones/xn--bcher-kva.test');
    const byULabel = await lab.customerA.get(`/zones/${encodeURIComponent('bücher.test')}`);
    expect(byALabel.status).toBe(200);
    expect(byULabel.status).toBe(200);
    expect(byULabel.body.id).toBe(zone.id);
    expect(byULabel.headers.get('etag')).toBe(byALabel.headers.get('etag'));
    // The other spelling is the same zone: taken.
    expectProblem(await lab.customerA.post('/zones', { name: 'xn--bcher-kva.test' }), 409, 'zone_exists');
  });

  it('accepts a trailing dot and upper case, and stores neither', async () => {
    const zone = await createZone(lab.customerA, 'Trailing-Dot.TEST.');
    expect(zone.name).toBe('trailing-dot.test');
    expect((await lab.customerA.get('/zones/trailing-dot.test.')).body.id).toBe(zone.id);
  });

  it.each(['1.168.192.in-addr.arpa', 'in-addr.arpa', '0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa', '10.IN-ADDR.ARPA.'])(
    'refuses the reverse zone %s: 403 reverse_zone_managed',
    async (name) => {
      expectProblem(await lab.customerA.post('/zones', { name }), 403, 'reverse_zone_managed');
    },
  );

  it.each(['lab-dns.test', 'LAB-HOSTING.TEST.', 'www.lab-dns.test', 'deep.below.lab-hosting.test'])(
    '(2) refuses the protected name or name below one %s: 403 zone_protected',
    async (name) => {
      expectProblem(await lab.reseller.post('/zones', { name }), 403, 'zone_protected');
      expectProblem(await lab.platform.post('/zones', { name }), 403, 'zone_protected');
    },
  );

  it('(2) lets a look-alike of a protected name through (only the name and names below it are protected)', async () => {
    await createZone(lab.customerA, 'not-lab-dns.test');
  });

  it('(3) answers 409 zone_exists when any tenant owns the zone already', async () => {
    await createZone(lab.customerA, 'taken.test');
    expectProblem(await lab.customerA.post('/zones', { name: 'taken.test' }), 409, 'zone_exists');
    expectProblem(await lab.customerB.post('/zones', { name: 'Taken.Test.' }), 409, 'zone_exists');
    expectProblem(await lab.reseller.post('/zones', { name: 'taken.test' }), 409, 'zone_exists');
  });

  it('(3) answers 409 zone_overlap for a zone inside or above an existing zone, the tenant’s own included', async () => {
    await createZone(lab.customerA, 'overlap.test');
    await createZone(lab.customerA, 'deep.sub.above.test');
    // Inside another tenant's zone.
    expectProblem(await lab.customerB.post('/zones', { name: 'shop.overlap.test' }), 409, 'zone_overlap');
    expectProblem(await lab.customerB.post('/zones', { name: 'a.b.overlap.test' }), 409, 'zone_overlap');
    // Above another tenant's zone.
    expectProblem(await lab.customerB.post('/zones', { name: 'above.test' }), 409, 'zone_overlap');
    expectProblem(await lab.customerB.post('/zones', { name: 'sub.above.test' }), 409, 'zone_overlap');
    // The same tenant neither: records of the parent below the child's apex would never be served.
    expectProblem(await lab.customerA.post('/zones', { name: 'eu.overlap.test' }), 409, 'zone_overlap');
    expectProblem(await lab.customerA.post('/zones', { name: 'above.test' }), 409, 'zone_overlap');
    expectProblem(await lab.reseller.post('/zones', { name: 'x.overlap.test' }), 409, 'zone_overlap');
    // An unrelated sibling name is no overlap.
    await createZone(lab.customerB, 'overlap-free.test');
  });

  it('(4) answers 409 quota_exceeded when the tenant’s max_zones is reached (lowered by its parent)', async () => {
    const kunde = await newCustomer(lab, 'Quota Kunde');
    expect((await lab.reseller.patch(`/tenants/${kunde.id}`, { limits: { max_zones: 2 } })).status).toBe(200);
    await createZone(kunde.api, 'quota-1.test');
    await createZone(kunde.api, 'quota-2.test');
    expectProblem(await kunde.api.post('/zones', { name: 'quota-3.test' }), 409, 'quota_exceeded');
    expect((await kunde.api.get('/zones')).body.pagination.total).toBe(2);
    // The quota was the only obstacle.
    expect((await lab.reseller.patch(`/tenants/${kunde.id}`, { limits: { max_zones: 3 } })).status).toBe(200);
    await createZone(kunde.api, 'quota-3.test');
  });

  it('(4) counts a reseller’s customers against the reseller’s own max_zones', async () => {
    const created = await lab.platform.post('/tenants', { type: 'reseller', name: 'Quota Reseller', limits: { api_rate_limit_per_minute: 100_000 } });
    expect(created.status).toBe(201);
    const resellerId = created.body.id;
    const customers: ApiClient[] = [];
    for (const name of ['Quota Reseller Kunde 1', 'Quota Reseller Kunde 2']) {
      const c = await lab.platform.post('/tenants', { type: 'customer', name, parent_id: resellerId });
      expect(c.status).toBe(201);
      expect(c.body.limits.max_zones).toBeGreaterThan(3);
      customers.push(lab.platform.with({ 'X-Act-As-Customer': c.body.id }));
    }
    expect((await lab.platform.patch(`/tenants/${resellerId}`, { limits: { max_zones: 3 } })).status).toBe(200);
    await createZone(customers[0]!, 'rq-1.test');
    await createZone(customers[0]!, 'rq-2.test');
    await createZone(customers[1]!, 'rq-3.test');
    // The second customer has room of its own, but the reseller's subtree holds 3 zones.
    expectProblem(await customers[1]!.post('/zones', { name: 'rq-4.test' }), 409, 'quota_exceeded');
    expectProblem(await customers[0]!.post('/zones', { name: 'rq-4.test' }), 409, 'quota_exceeded');
  });

  it('when several checks fail, the earlier one wins', async () => {
    const full = await newCustomer(lab, 'Full Kunde', { max_zones: 0 });
    // invalid (1) and protected (2)
    expect(validationErrors(await full.api.post('/zones', { name: 'bad_label.lab-dns.test' }))[0].pointer).toBe('/name');
    // invalid (1) and over quota (4)
    validationErrors(await full.api.post('/zones', { name: 'a..test' }));
    // protected (2) and over quota (4)
    expectProblem(await full.api.post('/zones', { name: 'www.lab-dns.test' }), 403, 'zone_protected');
    // taken (3) and over quota (4)
    expectProblem(await full.api.post('/zones', { name: 'taken.test' }), 409, 'zone_exists');
    // overlapping (3) and over quota (4)
    expectProblem(await full.api.post('/zones', { name: 'x.overlap.test' }), 409, 'zone_overlap');
    // only over quota
    expectProblem(await full.api.post('/zones', { name: 'free-name.test' }), 409, 'quota_exceeded');
  });
});

describe('POST /zones: backend capacity (5), with BACKEND_ZONE_CAPACITY and PROTECTED_ZONES set', () => {
  let small: DnsLab;
  beforeAll(async () => {
    small = await startDnsLab({ env: { BACKEND_ZONE_CAPACITY: '2', PROTECTED_ZONES: 'brand.example' } });
  });
  afterAll(() => small?.close());

  it('protects the configured names only, and answers 503 backend_capacity_exhausted once the backend is full', async () => {
    expectProblem(await small.customerA.post('/zones', { name: 'shop.brand.example' }), 403, 'zone_protected');
    // The sandbox defaults are replaced by the configured list.
    await createZone(small.customerA, 'lab-dns.test');
    await createZone(small.customerB, 'second.test');
    const res = await small.customerB.post('/zones', { name: 'third.test' });
    expectProblem(res, 503, 'backend_capacity_exhausted');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    // Earlier checks still win over capacity: protected (2), taken (3), quota (4).
    expectProblem(await small.customerB.post('/zones', { name: 'brand.example' }), 403, 'zone_protected');
    expectProblem(await small.customerB.post('/zones', { name: 'second.test' }), 409, 'zone_exists');
    expect((await small.reseller.patch(`/tenants/${small.tokens.tenants.customers[1]}`, { limits: { max_zones: 1 } })).status).toBe(200);
    expectProblem(await small.customerB.post('/zones', { name: 'third.test' }), 409, 'quota_exceeded');
    expect((await small.platform.get('/zones')).body.pagination.total).toBe(2);
  });
});

describe('the created zone', () => {
  it('answers 201 with Location and ETag, status activating, SOA and apex NS as system records', async () => {
    const res = await lab.customerA.post('/zones', { name: 'created.test', default_ttl: 1800 });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe('/api/v1/zones/created.test');
    expect(res.body).toMatchObject({
      name: 'created.test',
      kind: 'forward',
      status: 'activating',
      default_ttl: 1800,
      tenant_id: lab.tokens.tenants.customers[0],
      soa_email: 'hostmaster@lab-dns.test',
      dnssec: { state: 'off' },
      publication: { state: 'pending' },
      delegation: { nameservers: NAMESERVERS },
    });
    expect(res.body.id).toMatch(/^zon_/);
    expect(res.body.publication.changeset_id).toMatch(/^chg_/);
    const get = await lab.customerA.get(res.headers.get('location')!);
    expect(get.body).toEqual(withoutWarnings(res.body));
    expect(res.body.warnings).toEqual([]);
    expect(res.headers.get('etag')).toMatch(/^"[^"]+"$/);
    expect(get.headers.get('etag')).toBe(res.headers.get('etag'));

    const records = await listAll(lab.customerA, '/zones/created.test/records');
    expect(records.map((r) => [r.name, r.type, r.system])).toEqual([
      ['@', 'NS', true],
      ['@', 'NS', true],
      ['@', 'SOA', true],
    ]);
    expect(records.filter((r) => r.type === 'NS').map((r) => r.data.nameserver)).toEqual(NAMESERVERS);
    const soa = records.find((r) => r.type === 'SOA');
    expect(soa.content).toMatch(/^ns1\.lab-dns\.test\. hostmaster\.lab-dns\.test\. \d{10} /);
    for (const r of records) expect(r.publication).toEqual({ state: 'pending', changeset_id: res.body.publication.changeset_id });
  });

  it('stores initial records in the creation’s change set: one change set listed', async () => {
    const zone = await createZone(lab.customerA, 'with-records.test', {
      records: [
        { type: 'A', name: 'www', data: { address: '192.0.2.10' }, ttl: 300 },
        { type: 'MX', name: '@', data: { preference: 10, exchange: 'Mail.With-Records.Test.' } },
        { type: 'TXT', name: '@', data: { text: 'v=spf1 mx -all' } },
      ],
    });
    const records = await listAll(lab.customerA, '/zones/with-records.test/records?include_system=false');
    expect(records.map((r) => [r.name, r.type, r.content, r.ttl])).toEqual([
      ['@', 'MX', '10 mail.with-records.test.', null],
      ['@', 'TXT', '"v=spf1 mx -all"', null],
      ['www', 'A', '192.0.2.10', 300],
    ]);
    const changeSets = await listAll(lab.customerA, '/zones/with-records.test/changesets');
    expect(changeSets).toHaveLength(1);
    expect(changeSets[0]).toMatchObject({ id: zone.publication.changeset_id, kind: 'zone_create', state: 'pending', items: 3 });
    for (const r of records) expect(r.publication.changeset_id).toBe(changeSets[0].id);
  });

  it('refuses an invalid initial record with 422 pointing at /records/<i>/…, and creates no zone', async () => {
    const res = await lab.customerA.post('/zones', {
      name: 'bad-records.test',
      records: [
        { type: 'A', name: 'www', data: { address: '192.0.2.10' } },
        { type: 'A', name: 'mail', data: { address: '192.0.2.300' } },
        { type: 'CNAME', name: '@', data: { target: 'elsewhere.test' } },
      ],
    });
    const errors = validationErrors(res);
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ index: 1, pointer: '/records/1/data/address', code: 'invalid_ipv4' }),
        expect.objectContaining({ index: 2, pointer: '/records/2/name', code: 'owner_not_allowed' }),
      ]),
    );
    expect(errors).toHaveLength(2);
    expectProblem(await lab.customerA.get('/zones/bad-records.test'), 404, 'not_found');
    // The name is still free.
    await createZone(lab.customerA, 'bad-records.test');
  });

  it('refuses initial records that conflict with each other (checked on the final state)', async () => {
    const errors = validationErrors(
      await lab.customerA.post('/zones', {
        name: 'conflicting-records.test',
        records: [
          { type: 'CNAME', name: 'www', data: { target: 'web.example' } },
          { type: 'A', name: 'www', data: { address: '192.0.2.1' } },
        ],
      }),
    );
    expect(errors.map((e) => [e.index, e.pointer, e.code])).toEqual([
      [0, '/records/0/name', 'cname_conflict'],
      [1, '/records/1/name', 'cname_conflict'],
    ]);
    expectProblem(await lab.customerA.get('/zones/conflicting-records.test'), 404, 'not_found');
  });

  it('refuses a record body the schema rejects with a pointer into /records/<i>', async () => {
    const errors = validationErrors(
      await lab.customerA.post('/zones', { name: 'bad-ttl.test', records: [{ type: 'A', name: 'www', data: { address: '192.0.2.1' }, ttl: 5 }] }),
    );
    expect(errors[0]).toMatchObject({ pointer: '/records/0/ttl', index: 0 });
    expectProblem(await lab.customerA.get('/zones/bad-ttl.test'), 404, 'not_found');
  });
});

describe('GET /zones', () => {
  /** A customer of its own, so the test knows every zone in its list. */
  let lister: { id: string; api: ApiClient };
  /** Names in creation order. */
  const created: string[] = [];
  beforeAll(async () => {
    lister = await newCustomer(lab, 'List Kunde');
    // Created out of name order, one minute apart, so name and created_at orders differ.
    for (const name of ['delta.test', 'bücher.example', 'alpha.test', 'charlie.test', 'subalpha.test', 'bravo.example']) {
      lab.clock.advance(60_000);
      created.push((await createZone(lister.api, name)).name);
    }
    const q = (text: string, values: unknown[]) => lab.sql.query(text, values);
    // States other issues produce (DNSSEC, publication, reverse zones from prefixes), set directly.
    await q(`UPDATE zones SET dnssec_state = 'active' WHERE name = 'charlie.test'`, []);
    await q(`UPDATE zones SET dnssec_state = 'signing' WHERE name = 'delta.test'`, []);
    await q(`UPDATE change_sets SET state = 'live' WHERE id = (SELECT last_changeset_id FROM zones WHERE name = 'bravo.example')`, []);
    lab.clock.advance(60_000);
    const now = lab.clock.now();
    for (const [id, name, kind] of [
      ['zon_reverselisttest', '2.0.192.in-addr.arpa', 'reverse'],
      // Protected names exist (the provider's own domains) but are never listed.
      ['zon_protectedlisttesta', 'lab-dns.test', 'forward'],
      ['zon_protectedlisttestb', 'mail.lab-hosting.test', 'forward'],
    ]) {
      await q(
        `INSERT INTO zones (id, tenant_id, name, kind, status, default_ttl, soa_email, created_at, updated_at)
         VALUES ($1, $2, $3, $4, 'active', 3600, 'hostmaster@lab-dns.test', $5, $5)`,
        [id, lister.id, name, kind, now],
      );
    }
    created.push('2.0.192.in-addr.arpa');
  });

  const names = (res: { body: { data: { name: string }[] } }) => res.body.data.map((z) => z.name);
  const ALL = ['2.0.192.in-addr.arpa', 'alpha.test', 'bravo.example', 'charlie.test', 'delta.test', 'subalpha.test', 'xn--bcher-kva.example'];

  it('lists by name with pagination.total; protected names are never listed nor reachable', async () => {
    const res = await lister.api.get('/zones');
    expect(res.status).toBe(200);
    expect(names(res)).toEqual(ALL);
    expect([...ALL].sort(byteOrder)).toEqual(ALL);
    expect(res.body.pagination).toEqual({ next_cursor: null, has_more: false, total: 7 });
    expect(res.headers.get('link')).toBeNull();
    expect(names(await lister.api.get('/zones?q=lab-'))).toEqual([]);
    expectProblem(await lister.api.get('/zones/lab-dns.test'), 404, 'not_found');
    expectProblem(await lister.api.get('/zones/mail.lab-hosting.test'), 404, 'not_found');
    const platformView = await listAll(lab.platform, '/zones?limit=500');
    expect(platformView.map((z) => z.name)).not.toContain('lab-dns.test');
    expect(platformView.map((z) => z.name)).not.toContain('mail.lab-hosting.test');
  });

  it('q: a U-label substring finds an IDN zone whose A-label does not contain it', async () => {
    const idn = await newCustomer(lab, 'IDN Kunde');
    for (const name of ['audit-bücher.example', 'bücherei.test', 'buecher.test']) await createZone(idn.api, name);
    for (const q of ['bücher', 'BÜCHER', 'b\u0075\u0308cher']) {
      const res = await idn.api.get(`/zones?q=${encodeURIComponent(q)}`);
      expect(
        res.body.data.map((z: { unicode_name: string }) => z.unicode_name),
        q,
      ).toEqual(['audit-bücher.example', 'bücherei.test']);
      expect(res.body.pagination.total).toBe(2);
    }
    expect(names(await idn.api.get(`/zones?q=${encodeURIComponent('-bücher.ex')}`))).toHaveLength(1);
  });

  it('q: case-insensitive substring of the A-label or the U-label', async () => {
    expect(names(await lister.api.get('/zones?q=alph'))).toEqual(['alpha.test', 'subalpha.test']);
    expect(names(await lister.api.get('/zones?q=ALPHA.T'))).toEqual(['alpha.test', 'subalpha.test']);
    expect(names(await lister.api.get('/zones?q=.example'))).toEqual(['bravo.example', 'xn--bcher-kva.example']);
    expect(names(await lister.api.get('/zones?q=xn--bcher'))).toEqual(['xn--bcher-kva.example']);
    for (const q of ['bücher', 'BÜCHER.example', 'bücher.example']) {
      const res = await lister.api.get(`/zones?q=${encodeURIComponent(q)}`);
      expect(names(res), q).toEqual(['xn--bcher-kva.example']);
      expect(res.body.pagination.total).toBe(1);
    }
    // LIKE wildcards are plain characters.
    expect(names(await lister.api.get('/zones?q=%25'))).toEqual([]);
    expect(names(await lister.api.get('/zones?q=_'))).toEqual([]);
    const long = await lister.api.get(`/zones?q=${'a'.repeat(254)}`);
    expect(validationErrors(long)[0]).toMatchObject({ in: 'query', pointer: '/q' });
    expect((await lister.api.get(`/zones?q=${'a'.repeat(253)}`)).status).toBe(200);
  });

  it('kind, dnssec_state (repeatable), publication_state', async () => {
    expect(names(await lister.api.get('/zones?kind=reverse'))).toEqual(['2.0.192.in-addr.arpa']);
    expect((await lister.api.get('/zones?kind=forward')).body.pagination.total).toBe(6);
    expect(names(await lister.api.get('/zones?dnssec_state=active'))).toEqual(['charlie.test']);
    expect(names(await lister.api.get('/zones?dnssec_state=active&dnssec_state=signing'))).toEqual(['charlie.test', 'delta.test']);
    expect(names(await lister.api.get('/zones?dnssec_state=signing,active'))).toEqual(['charlie.test', 'delta.test']);
    expect((await lister.api.get('/zones?dnssec_state=off')).body.pagination.total).toBe(5);
    expect(validationErrors(await lister.api.get('/zones?dnssec_state=sleeping'))[0]).toMatchObject({ in: 'query' });
    expect(names(await lister.api.get('/zones?publication_state=live'))).toEqual(['bravo.example']);
    expect(names(await lister.api.get('/zones?publication_state=pending'))).toEqual([
      'alpha.test',
      'charlie.test',
      'delta.test',
      'subalpha.test',
      'xn--bcher-kva.example',
    ]);
    const combined = await lister.api.get('/zones?publication_state=pending&q=alpha&dnssec_state=off&kind=forward');
    expect(names(combined)).toEqual(['alpha.test', 'subalpha.test']);
    expect(combined.body.pagination.total).toBe(2);
  });

  it('tenant_id: reseller and platform tokens restrict to one tenant of their subtree; others get 422', async () => {
    for (const api of [lab.reseller, lab.platform]) {
      const res = await api.get(`/zones?tenant_id=${lister.id}&limit=500`);
      expect(names(res)).toEqual(ALL);
      expect(res.body.pagination.total).toBe(7);
      const a = await listAll(api, `/zones?tenant_id=${lab.tokens.tenants.customers[0]}&limit=500`);
      expect(a.length).toBeGreaterThan(0);
      expect(new Set(a.map((z) => z.tenant_id))).toEqual(new Set([lab.tokens.tenants.customers[0]]));
    }
    // Without tenant_id the reseller sees its whole subtree.
    const everything = await listAll(lab.reseller, '/zones?limit=500');
    expect(everything.map((z) => z.name)).toEqual(expect.arrayContaining([...ALL, 'taken.test']));
    // A tenant outside the subtree shows nothing.
    expect((await lab.reseller.get(`/zones?tenant_id=${lab.tokens.tenants.platform}`)).body.data).toEqual([]);
    expect((await lab.customerB.get(`/zones?tenant_id=${lab.tokens.tenants.customers[0]}`)).status).toBe(422);
    expect(validationErrors(await lister.api.get(`/zones?tenant_id=${lister.id}`))[0]).toMatchObject({ in: 'query', pointer: '/tenant_id' });
  });

  it('sort: name, -name, created_at, -created_at', async () => {
    expect(names(await lister.api.get('/zones?sort=name'))).toEqual(ALL);
    expect(names(await lister.api.get('/zones?sort=-name'))).toEqual([...ALL].reverse());
    expect(created[1]).toBe('xn--bcher-kva.example');
    expect(names(await lister.api.get('/zones?sort=created_at'))).toEqual(created);
    expect(names(await lister.api.get('/zones?sort=-created_at'))).toEqual([...created].reverse());
    expect(validationErrors(await lister.api.get('/zones?sort=size'))[0]).toMatchObject({ in: 'query', pointer: '/sort' });
  });

  it.each(['name', '-name', 'created_at', '-created_at'])('walks sort=%s with limit=2 through cursors and Link headers', async (sort) => {
    const full = names(await lister.api.get(`/zones?sort=${sort}`));
    const pages = await walk(lister.api, `/zones?sort=${sort}&limit=2`);
    expect(pages.map((p) => p.body.data.length)).toEqual([2, 2, 2, 1]);
    expect(pages.flatMap((p) => names(p))).toEqual(full);
    for (const p of pages) expect(p.body.pagination.total).toBe(7);
    expect(pages.map((p) => p.body.pagination.has_more)).toEqual([true, true, true, false]);
    // The Link header leads to the same next page.
    const viaLink = await lister.api.get(nextLink(pages[0]!)!);
    expect(names(viaLink)).toEqual(names(pages[1]!));
    expect(nextLink(pages[3]!)).toBeNull();
  });

  it('limit: default 50, 1 to 500', async () => {
    expect(names(await lister.api.get('/zones?limit=1'))).toEqual(['2.0.192.in-addr.arpa']);
    expect(validationErrors(await lister.api.get('/zones?limit=501'))[0]).toMatchObject({ in: 'query', pointer: '/limit' });
    expect(validationErrors(await lister.api.get('/zones?limit=0'))[0]).toMatchObject({ in: 'query', pointer: '/limit' });
    // A cursor of one sort order is no cursor of another.
    const page = await lister.api.get('/zones?sort=name&limit=2');
    expect((await lister.api.get(`/zones?sort=-name&limit=2&cursor=${page.body.pagination.next_cursor}`)).status).toBe(422);
  });
});

describe('GET /zones/{zone}', () => {
  it('answers with an ETag, 304 to If-None-Match while unchanged, 200 with a new ETag after a change', async () => {
    await createZone(lab.customerB, 'etag.test');
    const first = await lab.customerB.get('/zones/etag.test');
    const etag = first.headers.get('etag')!;
    const unchanged = await lab.customerB.get('/zones/etag.test', { headers: { 'If-None-Match': etag } });
    expect(unchanged.status).toBe(304);
    expect(unchanged.text).toBe('');
    await createRecord(lab.customerB, 'etag.test', { type: 'A', name: 'www', data: { address: '192.0.2.1' } });
    const changed = await lab.customerB.get('/zones/etag.test', { headers: { 'If-None-Match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(changed.body.publication.changeset_id).not.toBe(first.body.publication.changeset_id);
  });

  it('answers 404 for a zone of another customer and for a zone that does not exist', async () => {
    await createZone(lab.customerB, 'private-b.test');
    expectProblem(await lab.customerA.get('/zones/private-b.test'), 404, 'not_found');
    expectProblem(await lab.customerA.get('/zones/never-created.test'), 404, 'not_found');
    expect((await lab.reseller.get('/zones/private-b.test')).status).toBe(200);
  });
});

describe('PATCH /zones/{zone}', () => {
  it('changes default_ttl in a new change set of kind zone_settings', async () => {
    const zone = await createZone(lab.customerB, 'settings.test');
    const res = await lab.customerB.patch('/zones/settings.test', { default_ttl: 7200 });
    expect(res.status).toBe(200);
    expect(res.body.default_ttl).toBe(7200);
    expect(res.body.soa_email).toBe(zone.soa_email);
    const get = await lab.customerB.get('/zones/settings.test');
    expect(get.body.default_ttl).toBe(7200);
    expect(res.headers.get('etag')).toBe(get.headers.get('etag'));
    const changeSets = await listAll(lab.customerB, '/zones/settings.test/changesets');
    expect(changeSets.map((c) => c.kind)).toEqual(['zone_settings', 'zone_create']);
    expect(changeSets[0]).toMatchObject({ state: 'pending', id: res.body.publication.changeset_id });
  });

  it('changes soa_email in a new change set, and the SOA record’s content with it', async () => {
    await createZone(lab.customerB, 'soa-mail.test');
    const res = await lab.customerB.patch('/zones/soa-mail.test', { soa_email: 'first.last@soa-mail.test' });
    expect(res.status).toBe(200);
    expect(res.body.soa_email).toBe('first.last@soa-mail.test');
    const [soa] = await listAll(lab.customerB, '/zones/soa-mail.test/records?type=SOA');
    expect(soa.content).toMatch(/^ns1\.lab-dns\.test\. first\\\.last\.soa-mail\.test\. \d+ /);
    expect(soa.publication.changeset_id).toBe(res.body.publication.changeset_id);
    const changeSets = await listAll(lab.customerB, '/zones/soa-mail.test/changesets');
    expect(changeSets[0]).toMatchObject({ id: res.body.publication.changeset_id, kind: 'zone_settings' });
  });

  it('answers 412 to a stale If-Match and changes nothing; the current ETag works', async () => {
    const zone = await lab.customerB.post('/zones', { name: 'if-match.test' });
    const stale = zone.headers.get('etag')!;
    await createRecord(lab.customerB, 'if-match.test', { type: 'A', name: 'www', data: { address: '192.0.2.1' } });
    const before = await lab.customerB.get('/zones/if-match.test');
    const res = await lab.customerB.patch('/zones/if-match.test', { default_ttl: 600 }, { headers: { 'If-Match': stale } });
    expectProblem(res, 412, 'precondition_failed');
    expect(res.body.errors[0]).toMatchObject({ in: 'header', pointer: '/If-Match' });
    const after = await lab.customerB.get('/zones/if-match.test');
    expect(after.body).toEqual(before.body);
    expect(await listAll(lab.customerB, '/zones/if-match.test/changesets')).toHaveLength(2);
    const ok = await lab.customerB.patch('/zones/if-match.test', { default_ttl: 600 }, { headers: { 'If-Match': before.headers.get('etag')! } });
    expect(ok.status).toBe(200);
    expect(ok.body.default_ttl).toBe(600);
  });

  it('refuses a default_ttl out of bounds and an invalid soa_email with 422', async () => {
    await createZone(lab.customerB, 'bad-settings.test');
    expect(validationErrors(await lab.customerB.patch('/zones/bad-settings.test', { default_ttl: 10 }))[0].pointer).toBe('/default_ttl');
    expect(validationErrors(await lab.customerB.patch('/zones/bad-settings.test', { soa_email: 'not-an-email' }))[0].pointer).toBe('/soa_email');
    expect(await listAll(lab.customerB, '/zones/bad-settings.test/changesets')).toHaveLength(1);
  });
});

describe('DELETE /zones/{zone}', () => {
  it('needs confirm equal to the zone name: missing or wrong is 422 and nothing changes', async () => {
    await createZone(lab.customerB, 'confirm.test');
    expect(validationErrors(await lab.customerB.delete('/zones/confirm.test'))[0]).toMatchObject({ in: 'query', pointer: '/confirm' });
    expect(validationErrors(await lab.customerB.delete('/zones/confirm.test?confirm=other.test'))[0]).toMatchObject({
      in: 'query',
      pointer: '/confirm',
    });
    const zone = await lab.customerB.get('/zones/confirm.test');
    expect(zone.body.status).toBe('activating');
    expect(await listAll(lab.customerB, '/zones/confirm.test/changesets')).toHaveLength(1);
  });

  it('starts the deletion (202 deleting), refuses a second one and every write with 409, and keeps the zone file 30 days', async () => {
    await createZone(lab.customerB, 'doomed.test', {
      default_ttl: 1800,
      records: [
        { type: 'A', name: 'www', data: { address: '192.0.2.10' }, ttl: 300 },
        { type: 'TXT', name: '@', data: { text: 'keep me' } },
      ],
    });
    const [record] = await listAll(lab.customerB, '/zones/doomed.test/records?type=A');
    const res = await lab.customerB.delete('/zones/doomed.test?confirm=doomed.test');
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ name: 'doomed.test', status: 'deleting' });
    expect((await lab.customerB.get('/zones/doomed.test')).body.status).toBe('deleting');

    expectProblem(await lab.customerB.delete('/zones/doomed.test?confirm=doomed.test'), 409, 'conflict');
    expectProblem(await lab.customerB.post('/zones/doomed.test/records', { type: 'A', name: 'new', data: { address: '192.0.2.2' } }), 409, 'conflict');
    expectProblem(await lab.customerB.patch(`/zones/doomed.test/records/${record.id}`, { ttl: 600 }), 409, 'conflict');
    expectProblem(await lab.customerB.delete(`/zones/doomed.test/records/${record.id}`), 409, 'conflict');
    expectProblem(await lab.customerB.patch('/zones/doomed.test', { default_ttl: 600 }), 409, 'conflict');
    expectProblem(await lab.customerB.post('/zones/doomed.test/changesets', { changes: [{ op: 'delete', id: record.id }] }), 409, 'conflict');
    // Nothing of the refused writes was stored.
    expect((await listAll(lab.customerB, '/zones/doomed.test/records?include_system=false')).map((r) => r.content)).toEqual(['"keep me"', '192.0.2.10']);

    const { rows } = await lab.sql.query('SELECT * FROM deleted_zone_exports WHERE zone_name = $1', ['doomed.test']);
    expect(rows).toHaveLength(1);
    const kept = rows[0];
    expect(kept.tenant_id).toBe(lab.tokens.tenants.customers[1]);
    expect(kept.deleted_at.getTime()).toBe(lab.clock.now().getTime());
    expect(kept.expires_at.getTime() - kept.deleted_at.getTime()).toBe(30 * DAY);
    const lines = kept.zonefile.split('\n');
    // Records following the zone default take $TTL (RFC 2308 §4); explicit TTLs are written.
    expect(lines).toContain('$TTL 1800');
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^doomed\.test\.\s+IN\s+SOA\s+ns1\.lab-dns\.test\. hostmaster\.lab-dns\.test\. \d+/),
        expect.stringMatching(/^doomed\.test\.\s+IN\s+NS\s+ns1\.lab-dns\.test\.$/),
        expect.stringMatching(/^doomed\.test\.\s+IN\s+NS\s+ns2\.lab-dns\.test\.$/),
        expect.stringMatching(/^doomed\.test\.\s+IN\s+TXT\s+"keep me"$/),
        expect.stringMatching(/^www\.doomed\.test\.\s+300\s+IN\s+A\s+192\.0\.2\.10$/),
      ]),
    );
    // The SOA comes first (RFC 1035 §5.2).
    expect(lines.find((l: string) => /\sIN\s/.test(l))).toMatch(/\sSOA\s/);
  });

  it('accepts the U-label form in confirm, and refuses a stale If-Match with 412', async () => {
    const zone = await lab.customerB.post('/zones', { name: 'lösch.test' });
    expect(zone.status).toBe(201);
    const stale = zone.headers.get('etag')!;
    await createRecord(lab.customerB, 'xn--lsch-5qa.test', { type: 'A', name: 'www', data: { address: '192.0.2.1' } });
    expectProblem(
      await lab.customerB.delete(`/zones/xn--lsch-5qa.test?confirm=xn--lsch-5qa.test`, { headers: { 'If-Match': stale } }),
      412,
      'precondition_failed',
    );
    expect((await lab.customerB.get('/zones/xn--lsch-5qa.test')).body.status).toBe('activating');
    const res = await lab.customerB.delete(`/zones/xn--lsch-5qa.test?confirm=${encodeURIComponent('lösch.test')}`);
    expect(res.status).toBe(202);
    expect(res.body.status).toBe('deleting');
  });
});
