// Secondary sets and their catalog zones (docs/catalog-zones.md), through the real HTTP server,
// PostgreSQL, the publication worker and the service's own nameserver: a set is created with its
// catalog zone, which our nameserver serves (RFC 9432 version 2); zones created, deleted, created
// again and signed show in the catalog within seconds with labels from their ids; a customer's set
// lists only its subtree; the resource's errors are the catalogue's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memberLabel } from '../../src/catalog/catalogRecords.js';
import { COO_GRACE_S, COO_HOLD_S } from '../../src/domain/secondarySets.js';
import type { ApiClient } from '../helpers/apiClient.js';
import { createZone, type DnsLab, startDnsLab, validationErrors } from '../helpers/dnsLab.js';
import { eventually, queryDns } from '../helpers/dnsQuery.js';

let lab: DnsLab;
const dnsPort = () => lab.service.nameserver!.server.port;
// The other side restricts catalog queries to a set's secondaries: the test asks from 127.0.0.1, listed in every set here.
const LOCAL = [{ address: '127.0.0.1' }];

beforeAll(async () => {
  lab = await startDnsLab({ env: { ROLES: 'api,nameserver,worker' } });
});
afterAll(async () => lab?.close());

const createSet = async (api: ApiClient, body: Record<string, unknown>) => {
  const res = await api.post('/secondary-sets', { secondaries: LOCAL, ...body });
  expect(res.status, res.text).toBe(201);
  return res.body;
};

const zoneId = async (name: string) => (await lab.sql.query<{ id: string }>('SELECT id FROM zones WHERE name = $1', [name])).rows[0]!.id;

/** The catalog's member PTRs as served: owner → target. */
async function servedMembers(catalog: string): Promise<Map<string, string>> {
  const res = await queryDns(dnsPort(), catalog, 'AXFR', { tcp: true }).catch(() => null);
  if (res) return new Map(res.answers.filter((a) => a.type === 12).map((a) => [a.name.toLowerCase(), String(a.domain).toLowerCase()]));
  return new Map();
}

/** Waits until the PTR of `zone` (its current id) is served in the catalog, or is gone (`present: false`). */
async function untilMember(catalog: string, zoneName: string, id: string, present = true) {
  const owner = `${memberLabel(id)}.zones.${catalog}`;
  return eventually(
    async () => {
      const r = await queryDns(dnsPort(), owner, 'PTR');
      const targets = r.answers.filter((a) => a.type === 12).map((a) => String(a.domain).toLowerCase());
      if (present) return targets.includes(zoneName) ? targets : undefined;
      return r.rcode === 3 ? true : undefined;
    },
    10_000,
    `${zoneName} ${present ? 'in' : 'out of'} ${catalog}`,
  );
}

/** Waits until the member's coo in the catalog names `target` (null: it has none; 'any': some catalog); answers what it names. */
async function untilCoo(catalog: string, id: string, target: string | null) {
  let seen: string | null = null;
  return eventually(
    async () => {
      const r = await queryDns(dnsPort(), `coo.${memberLabel(id)}.zones.${catalog}`, 'PTR');
      const got = r.answers.find((a) => a.type === 12)?.domain;
      seen = got === undefined ? null : String(got).toLowerCase();
      return seen === target || (target === 'any' && seen !== null) ? { coo: seen } : undefined;
    },
    10_000,
    `the coo of ${id} in ${catalog} to be ${target}`,
  ).catch((err: Error) => {
    throw new Error(`${err.message} (last seen: ${seen})`);
  });
}

/** The catalog's listing row of a zone (table catalog_listings), null when none. */
const listingOf = async (catalog: string, id: string) =>
  (
    await lab.sql.query<{ listed: boolean }>(
      `SELECT l.listed FROM catalog_listings l JOIN zones c ON c.id = l.catalog_zone_id WHERE c.name = $1 AND l.zone_id = $2`,
      [catalog, id],
    )
  ).rows[0] ?? null;

/** Time passes for moves between catalogs: every departure dated back by `seconds`. */
const passTime = (seconds: number) =>
  lab.sql.query(`UPDATE catalog_listings SET departed_at = departed_at - make_interval(secs => $1) WHERE departed_at IS NOT NULL`, [seconds]);

async function groupOf(catalog: string, id: string): Promise<string | null> {
  const r = await queryDns(dnsPort(), `group.${memberLabel(id)}.zones.${catalog}`, 'TXT');
  const txt = r.answers.find((a) => a.type === 16);
  return txt ? ([] as string[]).concat(txt.data as string | string[]).join('') : null;
}

describe('a secondary set and its catalog zone', () => {
  it('creates the set (201), and our nameserver serves its catalog: SOA, version 2, a PTR per zone of the subtree', async () => {
    const zone = await createZone(lab.customerA, 'cat-first.example');
    const set = await createSet(lab.customerA, { name: 'edge', secondaries: [{ address: '127.0.0.1' }, { address: '2001:DB8::53', port: 5353 }] });
    expect(set).toMatchObject({
      name: 'edge',
      catalog_zone: 'edge.catalog.invalid',
      secondaries: [
        { address: '127.0.0.1', port: 53 },
        { address: '2001:db8::53', port: 5353 },
      ],
      zones: 'all',
      group_by: 'none',
      tsig_key: null,
      tenant_id: lab.tokens.tenants.customers[0],
    });
    expect(set.id).toMatch(/^sst_[a-z2-7]+$/);
    const read = await lab.customerA.get(`/secondary-sets/${set.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(set);
    expect(read.headers.get('etag')).toBeTruthy();

    const soa = await eventually(async () => {
      const r = await queryDns(dnsPort(), 'edge.catalog.invalid', 'SOA');
      return r.rcode === 0 && r.answers.length ? r : undefined;
    });
    expect(soa.aa).toBe(true);
    const version = await queryDns(dnsPort(), 'version.edge.catalog.invalid', 'TXT');
    expect(version.answers.map((a) => ([] as string[]).concat(a.data as string).join(''))).toEqual(['2']);
    await untilMember('edge.catalog.invalid', 'cat-first.example', zone.id);

    // The catalog is no zone of the API: not listed, not readable, not counted.
    const zones = await lab.customerA.get('/zones?limit=500');
    expect(zones.body.data.map((z: { name: string }) => z.name)).not.toContain('edge.catalog.invalid');
    expect((await lab.customerA.get('/zones/edge.catalog.invalid')).status).toBe(404);
    expect((await lab.customerA.post('/zones/edge.catalog.invalid/records', { name: 'x', type: 'TXT', data: { text: 'no' } })).status).toBe(404);
  });

  it('adds a created zone within seconds, drops it on deletion, and gives it a new label when created again', async () => {
    const first = await createZone(lab.customerA, 'cat-life.example');
    await untilMember('edge.catalog.invalid', 'cat-life.example', first.id);
    // The catalog's version that added it is an IXFR of one PTR and the SOA (type 12: PTR, 6: SOA).
    const { rows } = await lab.sql.query<{ removed: { name: string; type: number }[]; added: { name: string; type: number }[] }>(
      `SELECT v.removed, v.added FROM zone_versions v JOIN zones z ON z.id = v.zone_id
       WHERE z.name = 'edge.catalog.invalid' AND v.added @> jsonb_build_array(jsonb_build_object('name', $1::text, 'type', 12))`,
      [`${memberLabel(first.id)}.zones`],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.added.map((r) => r.type).sort((a, b) => a - b)).toEqual([6, 12]);
    expect(rows[0]!.removed.map((r) => r.type)).toEqual([6]);

    const del = await lab.customerA.delete('/zones/cat-life.example?confirm=cat-life.example');
    expect(del.status, del.text).toBe(202);
    await untilMember('edge.catalog.invalid', 'cat-life.example', first.id, false);

    // The zone row goes once the nameservers dropped it; then the name is free again.
    await eventually(async () => ((await lab.sql.query(`SELECT 1 FROM zones WHERE name = 'cat-life.example'`)).rowCount === 0 ? true : undefined), 15_000);
    const again = await createZone(lab.customerA, 'cat-life.example');
    expect(again.id).not.toBe(first.id);
    expect(memberLabel(again.id)).not.toBe(memberLabel(first.id));
    await untilMember('edge.catalog.invalid', 'cat-life.example', again.id);
  });

  it('groups members by DNSSEC when asked: "signed" once signing is on', async () => {
    const set = await createSet(lab.customerA, { name: 'grouped', group_by: 'dnssec' });
    expect(set.group_by).toBe('dnssec');
    const zone = await createZone(lab.customerA, 'cat-signed.example');
    const id = zone.id as string;
    await untilMember('grouped.catalog.invalid', 'cat-signed.example', id);
    expect(await groupOf('grouped.catalog.invalid', id)).toBe('unsigned');
    // The set without grouping lists the member without a group.
    await untilMember('edge.catalog.invalid', 'cat-signed.example', id);
    expect(await groupOf('edge.catalog.invalid', id)).toBeNull();

    const enable = await lab.customerA.post('/zones/cat-signed.example/dnssec/enable', {});
    expect([200, 202], enable.text).toContain(enable.status);
    await eventually(async () => ((await groupOf('grouped.catalog.invalid', id)) === 'signed' ? true : undefined), 10_000, 'group signed');
  });

  it('changes group_by with If-Match (412 on a stale tag) and rebuilds the catalog', async () => {
    const set = await createSet(lab.customerA, { name: 'regroup' });
    const zone = await createZone(lab.customerA, 'cat-regroup.example');
    await untilMember('regroup.catalog.invalid', 'cat-regroup.example', zone.id);
    const etag = (await lab.customerA.get(`/secondary-sets/${set.id}`)).headers.get('etag')!;
    const stale = await lab.customerA.with({ 'If-Match': '"sst_stale.1"' }).patch(`/secondary-sets/${set.id}`, { group_by: 'dnssec' });
    expect(stale.status).toBe(412);
    const changed = await lab.customerA
      .with({ 'If-Match': etag })
      .patch(`/secondary-sets/${set.id}`, { group_by: 'dnssec', secondaries: [{ address: '127.0.0.1', port: 5300 }] });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ group_by: 'dnssec', secondaries: [{ address: '127.0.0.1', port: 5300 }] });
    expect(changed.headers.get('etag')).not.toBe(etag);
    await eventually(async () => ((await groupOf('regroup.catalog.invalid', zone.id)) === 'unsigned' ? true : undefined), 10_000, 'group after PATCH');
  });

  it('lists only the owner’s subtree: a customer’s set carries its zones, the reseller’s its customers’ too', async () => {
    const b = await createZone(lab.customerB, 'cat-b.example');
    const resellerSet = await createSet(lab.reseller, { name: 'fleet' });
    await untilMember('fleet.catalog.invalid', 'cat-b.example', b.id);
    await untilMember('fleet.catalog.invalid', 'cat-first.example', await zoneId('cat-first.example'));
    const served = await eventually(async () => {
      const members = await servedMembers('edge.catalog.invalid');
      return members.size ? members : undefined;
    });
    expect([...served.values()]).not.toContain('cat-b.example');
    const idA = await zoneId('cat-first.example');
    const inA = await queryDns(dnsPort(), `${memberLabel(b.id)}.zones.edge.catalog.invalid`, 'PTR');
    expect(inA.rcode).toBe(3);
    expect(idA).toBeTruthy();
    // The customer does not see the reseller's set; the reseller sees the customer's.
    expect((await lab.customerA.get(`/secondary-sets/${resellerSet.id}`)).status).toBe(404);
    const listed = await lab.reseller.get('/secondary-sets?limit=100');
    expect(listed.body.data.map((s: { name: string }) => s.name)).toEqual(expect.arrayContaining(['fleet', 'edge']));
    const own = await lab.customerB.get('/secondary-sets?limit=100');
    expect(own.body.data).toEqual([]);
  });

  it('carries only the zones it selects: a tenant’s subtree, a DNSSEC group, and follows a changed selection', async () => {
    const [customerA, customerB] = lab.tokens.tenants.customers as [string, string];
    const ofA = await createSet(lab.reseller, { name: 'only-a', zones: { tenant: customerA } });
    expect(ofA.zones).toEqual({ tenant: customerA });
    const signedOnly = await createSet(lab.customerA, { name: 'signed-only', zones: { group: 'signed' } });
    const unsignedOnly = await createSet(lab.customerA, { name: 'unsigned-only', zones: { group: 'unsigned' } });
    const a = await createZone(lab.customerA, 'cat-select-a.example');
    const b = await createZone(lab.customerB, 'cat-select-b.example');
    await untilMember('only-a.catalog.invalid', 'cat-select-a.example', a.id);
    await untilMember('unsigned-only.catalog.invalid', 'cat-select-a.example', a.id);
    expect((await queryDns(dnsPort(), `${memberLabel(b.id)}.zones.only-a.catalog.invalid`, 'PTR')).rcode).toBe(3);
    expect((await queryDns(dnsPort(), `${memberLabel(a.id)}.zones.signed-only.catalog.invalid`, 'PTR')).rcode).toBe(3);

    // Signing on: the zone moves from the unsigned set's catalog to the signed one's (same label),
    // every set here sharing the secondary 127.0.0.1:53: the old catalog keeps the member with a
    // coo to the catalog the zone moves into (not one already listing it), the new one lists it
    // once that coo has been out for the hold time, the old one drops it after the grace period
    // (both passed here by dating the departure back; test/dns/catalogMove.test.ts waits the hold).
    const enable = await lab.customerA.post('/zones/cat-select-a.example/dnssec/enable', {});
    expect([200, 202], enable.text).toContain(enable.status);
    await untilCoo('unsigned-only.catalog.invalid', a.id, 'signed-only.catalog.invalid');
    expect(await listingOf('signed-only.catalog.invalid', a.id)).toEqual({ listed: false });
    await passTime(COO_HOLD_S);
    await untilMember('signed-only.catalog.invalid', 'cat-select-a.example', a.id);
    await passTime(COO_GRACE_S);
    await untilMember('unsigned-only.catalog.invalid', 'cat-select-a.example', a.id, false);

    // A changed selection: the reseller's set now carries customer B's subtree instead. Zone A
    // stays listed by other sets sharing the secondary: the coo names one of their catalogs.
    const etag = (await lab.reseller.get(`/secondary-sets/${ofA.id}`)).headers.get('etag')!;
    const changed = await lab.reseller.with({ 'If-Match': etag }).patch(`/secondary-sets/${ofA.id}`, { zones: { tenant: customerB } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.zones).toEqual({ tenant: customerB });
    await untilMember('only-a.catalog.invalid', 'cat-select-b.example', b.id);
    const { coo } = await untilCoo('only-a.catalog.invalid', a.id, 'any');
    expect(coo).not.toBe('only-a.catalog.invalid');
    await untilMember(coo!, 'cat-select-a.example', a.id);
    // Selected again within the grace period: the coo is withdrawn, the member stays.
    const all = await lab.reseller.patch(`/secondary-sets/${ofA.id}`, { zones: 'all' });
    expect(all.body.zones).toBe('all');
    await untilCoo('only-a.catalog.invalid', a.id, null);
    await untilMember('only-a.catalog.invalid', 'cat-select-a.example', a.id);
    expect(signedOnly.zones).toEqual({ group: 'signed' });
    expect(unsignedOnly.zones).toEqual({ group: 'unsigned' });
  });

  it('sums the verifier’s lag rows up per secondary for /metrics: the largest distance (RFC 1982, across wrap-around), -1 when one zone got no serial', async () => {
    const set = await createSet(lab.customerA, { name: 'lagging', secondaries: [{ address: '192.0.2.77', port: 5353 }, ...LOCAL] });
    const zones = (
      await lab.sql.query<{ id: string; published_serial: string }>(
        `SELECT id, published_serial FROM zones WHERE name IN ('cat-first.example', 'cat-regroup.example') ORDER BY name`,
      )
    ).rows;
    const [a, b] = zones as [{ id: string; published_serial: string }, { id: string; published_serial: string }];
    const insert = (zone: string, host: string, port: number, serial: number | null) =>
      lab.sql.query(`INSERT INTO secondary_lag (zone_id, set_id, host, port, serial, since) VALUES ($1, $2, $3, $4, $5, now())`, [
        zone,
        set.id,
        host,
        port,
        serial,
      ]);
    // Seen 2 behind by wrapping (a serial 2^32 - 2 "above" the published one is 2 below it), and 1 behind.
    await insert(a.id, '192.0.2.77', 5353, Number(a.published_serial) + 2 ** 32 - 2);
    await insert(b.id, '192.0.2.77', 5353, Number(b.published_serial) - 1);
    await insert(a.id, '127.0.0.1', 53, null);
    const lines = (await lab.customerA.get('/metrics')).text.split('\n').filter((l) => l.startsWith('secondary_lag_serials') && l.includes(set.id));
    expect(lines.sort()).toEqual([
      `secondary_lag_serials{set="${set.id}",address="127.0.0.1:53"} -1`,
      `secondary_lag_serials{set="${set.id}",address="192.0.2.77:5353"} 2`,
    ]);
    await lab.sql.query('DELETE FROM secondary_lag WHERE set_id = $1', [set.id]);
  });

  it('deletes a set (204): its catalog is withdrawn, its zones stay', async () => {
    const set = await createSet(lab.customerA, { name: 'gone' });
    await eventually(async () => ((await queryDns(dnsPort(), 'gone.catalog.invalid', 'SOA')).answers.length ? true : undefined));
    expect((await lab.customerB.delete(`/secondary-sets/${set.id}`)).status).toBe(404);
    const res = await lab.customerA.delete(`/secondary-sets/${set.id}`);
    expect(res.status, res.text).toBe(204);
    expect((await lab.customerA.get(`/secondary-sets/${set.id}`)).status).toBe(404);
    // Not served any more: no SOA of its own (the lab's root, if any, answers for the name instead).
    await eventually(
      async () => ((await queryDns(dnsPort(), 'gone.catalog.invalid', 'SOA')).answers.length === 0 ? true : undefined),
      10_000,
      'catalog withdrawn',
    );
    expect((await lab.customerA.get('/zones/cat-first.example')).status).toBe(200);
    // Its name is free again once the catalog's row is gone.
    await eventually(async () => ((await lab.sql.query(`SELECT 1 FROM zones WHERE name = 'gone.catalog.invalid'`)).rowCount === 0 ? true : undefined), 15_000);
    await createSet(lab.customerA, { name: 'gone' });
  });
});

describe('errors', () => {
  it('answers 422 with located fields', async () => {
    const errors = validationErrors(
      await lab.customerA.post('/secondary-sets', {
        name: 'bad',
        secondaries: [{ address: 'ns1.example.com' }, { address: '192.0.2.1', port: 0 }],
      }),
    );
    expect(errors.map((e) => e.pointer)).toEqual(expect.arrayContaining(['/secondaries/1/port']));
    const address = validationErrors(await lab.customerA.post('/secondary-sets', { name: 'bad', secondaries: [{ address: 'ns1.example.com' }] }));
    expect(address.map((e) => e.pointer)).toEqual(['/secondaries/0/address']);
    expect(validationErrors(await lab.customerA.post('/secondary-sets', { name: 'bad', secondaries: [] })).map((e) => e.pointer)).toEqual(['/secondaries']);
    expect(validationErrors(await lab.customerA.post('/secondary-sets', { name: 'Not A Label', secondaries: LOCAL })).map((e) => e.pointer)).toEqual(['/name']);
    expect(validationErrors(await lab.customerA.post('/secondary-sets', { name: 'bad', secondaries: LOCAL, zones: 'some' })).map((e) => e.pointer)).toEqual([
      '/zones',
    ]);
    expect(
      validationErrors(await lab.customerA.post('/secondary-sets', { name: 'bad', secondaries: LOCAL, catalog_zone: 'a..b' })).map((e) => e.pointer),
    ).toEqual(['/catalog_zone']);
    // A selection names a tenant or a group; the tenant must lie in the owner's subtree.
    expect(validationErrors(await lab.customerA.post('/secondary-sets', { name: 'bad', secondaries: LOCAL, zones: {} })).map((e) => e.pointer)).toEqual([
      '/zones',
    ]);
    expect(
      validationErrors(await lab.customerA.post('/secondary-sets', { name: 'bad', secondaries: LOCAL, zones: { group: 'maybe' } })).map((e) => e.pointer),
    ).toEqual(['/zones']);
    const outside = await lab.customerA.post('/secondary-sets', { name: 'bad', secondaries: LOCAL, zones: { tenant: lab.tokens.tenants.customers[1] } });
    expect(validationErrors(outside).map((e) => e.pointer)).toEqual(['/zones/tenant']);
    const above = await lab.customerA.post('/secondary-sets', { name: 'bad', secondaries: LOCAL, zones: { tenant: lab.tokens.tenants.reseller } });
    expect(validationErrors(above).map((e) => e.pointer)).toEqual(['/zones/tenant']);
    expect(
      validationErrors(await lab.customerA.post('/secondary-sets', { name: 'bad', secondaries: LOCAL, tsig_key: `tsk_${'a'.repeat(26)}` })).map(
        (e) => e.pointer,
      ),
    ).toEqual(['/tsig_key']);
    expect((await lab.sql.query(`SELECT 1 FROM secondary_sets WHERE name = 'bad'`)).rowCount).toBe(0);
  });

  it('takes a TSIG key of the subtree, and refuses another tenant’s like a missing one', async () => {
    const key = await lab.customerA.post('/tsig-keys', { name: `cat-${Date.now().toString(36)}.keys.example` });
    expect(key.status).toBe(201);
    const foreign = await lab.customerB.post('/secondary-sets', { name: 'keyed', secondaries: LOCAL, tsig_key: key.body.id });
    expect(validationErrors(foreign).map((e) => e.pointer)).toEqual(['/tsig_key']);
    const own = await createSet(lab.customerA, { name: 'keyed', tsig_key: key.body.id });
    expect(own.tsig_key).toBe(key.body.id);
  });

  it('answers 409 for a taken name or catalog zone, and writes nothing', async () => {
    const dup = await lab.customerA.post('/secondary-sets', { name: 'edge', secondaries: LOCAL, catalog_zone: 'other-edge.catalog.invalid' });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe('conflict');
    const taken = await lab.customerB.post('/secondary-sets', { name: 'another', secondaries: LOCAL, catalog_zone: 'edge.catalog.invalid' });
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe('zone_exists');
    const zone = await lab.customerB.post('/secondary-sets', { name: 'another', secondaries: LOCAL, catalog_zone: 'cat-first.example' });
    expect(zone.status).toBe(409);
    expect(zone.body.code).toBe('zone_exists');
    expect((await lab.sql.query(`SELECT 1 FROM zones WHERE name = 'other-edge.catalog.invalid'`)).rowCount).toBe(0);
    expect((await lab.sql.query(`SELECT 1 FROM secondary_sets WHERE name = 'another'`)).rowCount).toBe(0);
  });

  it('answers 404 across tenants for read, change and delete', async () => {
    const set = (await lab.customerA.get('/secondary-sets?limit=100')).body.data[0];
    expect((await lab.customerB.get(`/secondary-sets/${set.id}`)).status).toBe(404);
    expect((await lab.customerB.patch(`/secondary-sets/${set.id}`, { group_by: 'dnssec' })).status).toBe(404);
    expect((await lab.customerB.delete(`/secondary-sets/${set.id}`)).status).toBe(404);
  });
});
