// Zone isolation as a story (spec "Authentication" 3, "Acting for a customer", "Zones"): customer
// A's zones, records and change sets do not exist for customer B, the reseller above both sees
// and filters them, acting for A reaches them, and zone names stay unique across tenants. The
// route-by-route sweep is tenantIsolation.test.ts; this file tells the same rule as a customer
// would meet it.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/dnsQuery.js';
import { ManualClock } from '../../src/domain/clock.js';
import type { ApiClient, ApiResponse } from '../helpers/apiClient.js';
import { actAs, created, expectProblem } from '../helpers/assertions.js';
import { startTestService, type TestService } from '../helpers/testService.js';

let lab: TestService;
let db: pg.Client;
let platform: ApiClient;
let reseller: ApiClient;
let customerA: ApiClient;
let customerB: ApiClient;
const tenant = { platform: '', reseller: '', A: '', B: '' };

let serial = 0;
const unique = () => `${Date.now().toString(36)}-${++serial}`;

/** A's zones: a registrable domain and a zone below another registrable domain. */
let zoneA: string;
let shopBase: string;
let shopZoneA: string;
let zoneB: string;
let zoneP: string;
let recordA: { id: string; publication: { changeset_id: string } };
let failedChangeSetA: string;
let recordB: { id: string };

const zoneNames = (res: ApiResponse): string[] => {
  expect(res.status, res.text).toBe(200);
  return res.body.data.map((z: { name: string }) => z.name);
};

/** Everything A can see of its zone: unchanged by anything B tries. */
async function viewOfA() {
  const zone = await customerA.get(`/zones/${zoneA}`);
  const records = await customerA.get(`/zones/${zoneA}/records?limit=500`);
  const changeSets = await customerA.get(`/zones/${zoneA}/changesets?limit=500`);
  for (const res of [zone, records, changeSets]) expect(res.status, res.text).toBe(200);
  const rows = await db.query(
    `SELECT (SELECT count(*) FROM zones WHERE tenant_id = $1) AS zones, (SELECT count(*) FROM records WHERE tenant_id = $1) AS records,
            (SELECT count(*) FROM change_sets WHERE tenant_id = $1) AS change_sets, (SELECT count(*) FROM deleted_zone_exports) AS exports`,
    [tenant.A],
  );
  return { zone: zone.body, records: records.body.data, changeSets: changeSets.body.data, counts: rows.rows[0] };
}

beforeAll(async () => {
  lab = await startTestService({ clock: new ManualClock('2026-11-22T12:00:00Z') });
  db = new pg.Client({ connectionString: lab.databaseUrl });
  await db.connect();
  platform = lab.as(lab.tokens.platform);
  reseller = lab.as(lab.tokens.reseller);
  customerA = lab.as(lab.tokens.customers[0]);
  customerB = lab.as(lab.tokens.customers[1]);
  tenant.platform = lab.tokens.tenants.platform;
  tenant.reseller = lab.tokens.tenants.reseller;
  tenant.A = lab.tokens.tenants.customers[0];
  tenant.B = lab.tokens.tenants.customers[1];

  zoneA = `alpha-${unique()}.test`;
  shopBase = `shop-${unique()}.test`;
  shopZoneA = `eu.${shopBase}`;
  zoneB = `bravo-${unique()}.test`;
  zoneP = `platform-${unique()}.test`;
  expect((await created(await customerA.post('/zones', { name: zoneA }))).tenant_id).toBe(tenant.A);
  expect((await created(await customerA.post('/zones', { name: shopZoneA }))).tenant_id).toBe(tenant.A);
  expect((await created(await customerB.post('/zones', { name: zoneB }))).tenant_id).toBe(tenant.B);
  expect((await created(await platform.post('/zones', { name: zoneP }))).tenant_id).toBe(tenant.platform);
  recordA = await created(await customerA.post(`/zones/${zoneA}/records`, { type: 'A', name: 'www', data: { address: '192.0.2.10' } }));
  await created(await customerA.post(`/zones/${zoneA}/records`, { type: 'TXT', name: '@', data: { text: 'alpha' } }));
  recordB = await created(await customerB.post(`/zones/${zoneB}/records`, { type: 'A', name: 'www', data: { address: '192.0.2.20' } }));
  // The publication pipeline marks change sets failed; here the test does, so that a retry by B
  // would have something to change — once the set was published, or the build would push it again.
  failedChangeSetA = recordA.publication.changeset_id;
  await eventually(
    async () => {
      const { rows } = await db.query(`SELECT state FROM change_sets WHERE id = $1`, [failedChangeSetA]);
      return rows[0].state === 'live' ? true : undefined;
    },
    20_000,
    `${failedChangeSetA} live`,
  );
  const failed = await db.query(`UPDATE change_sets SET state = 'failed', error = '{"code":"backend_rejected"}' WHERE id = $1`, [failedChangeSetA]);
  expect(failed.rowCount).toBe(1);
});

afterAll(async () => {
  await db?.end();
  await lab?.stop();
});

describe("customer A's zones for customer B", () => {
  it('are not listed, not even when searched for by name', async () => {
    expect(zoneNames(await customerB.get('/zones?limit=500'))).toEqual([zoneB]);
    const search = await customerB.get(`/zones?q=${zoneA}`);
    expect(zoneNames(search)).toEqual([]);
    expect(search.body.pagination.total).toBe(0);
    // A sees its own, and only its own.
    expect(zoneNames(await customerA.get('/zones?limit=500')).sort()).toEqual([zoneA, shopZoneA].sort());
  });

  it('answer 404 to every read, exactly like a zone that does not exist', async () => {
    const nx = `nx-${unique()}.test`;
    const reads: [string, string][] = [
      [`/zones/${zoneA}`, `/zones/${nx}`],
      [`/zones/${zoneA}/records`, `/zones/${nx}/records`],
      [`/zones/${zoneA}/records/${recordA.id}`, `/zones/${nx}/records/${recordA.id}`],
      [`/zones/${zoneA}/changesets`, `/zones/${nx}/changesets`],
      [`/zones/${zoneA}/changesets/${failedChangeSetA}`, `/zones/${nx}/changesets/${failedChangeSetA}`],
      // A's record or change set named below B's own zone.
      [`/zones/${zoneB}/records/${recordA.id}`, `/zones/${zoneB}/records/rec_${'a'.repeat(26)}`],
      [`/zones/${zoneB}/changesets/${failedChangeSetA}`, `/zones/${zoneB}/changesets/chg_${'a'.repeat(26)}`],
    ];
    for (const [foreign, missing] of reads) {
      const res = await customerB.get(foreign);
      expectProblem(res, 404, 'not_found');
      const nothing = await customerB.get(missing);
      expectProblem(nothing, 404, 'not_found');
      expect({ title: res.body.title, detail: res.body.detail }, foreign).toEqual({ title: nothing.body.title, detail: nothing.body.detail });
      // The zone's name is the path; nothing else about A's zone shows.
      expect(res.text, foreign).not.toContain(tenant.A);
    }
  });

  it('answer 404 to every write, and nothing of A changes', async () => {
    // The publication pipeline runs in this service: let A's change sets settle first, so that
    // what is compared below changes only through the writes tried.
    await eventually(
      async () => {
        const { rows } = await db.query(`SELECT count(*)::int AS n FROM change_sets WHERE tenant_id = $1 AND state IN ('pending', 'pushed')`, [tenant.A]);
        return rows[0].n === 0 ? true : undefined;
      },
      20_000,
      "A's change sets published",
    );
    const before = await viewOfA();
    const writes: [method: string, path: string, body?: unknown][] = [
      ['PATCH', `/zones/${zoneA}`, { default_ttl: 7200 }],
      ['DELETE', `/zones/${zoneA}?confirm=${zoneA}`],
      ['POST', `/zones/${zoneA}/records`, { type: 'A', name: 'evil', data: { address: '198.51.100.66' } }],
      ['PATCH', `/zones/${zoneA}/records/${recordA.id}`, { data: { address: '198.51.100.66' } }],
      ['DELETE', `/zones/${zoneA}/records/${recordA.id}`],
      ['POST', `/zones/${zoneA}/changesets`, { changes: [{ op: 'delete', id: recordA.id }] }],
      ['POST', `/zones/${zoneA}/changesets/${failedChangeSetA}/retry`],
      // Through B's own zone: A's record and change set by id.
      ['PATCH', `/zones/${zoneB}/records/${recordA.id}`, { data: { address: '198.51.100.66' } }],
      ['DELETE', `/zones/${zoneB}/records/${recordA.id}`],
      ['POST', `/zones/${zoneB}/changesets/${failedChangeSetA}/retry`],
    ];
    for (const [method, path, body] of writes) expectProblem(await customerB.request(method, path, { body }), 404, 'not_found');
    // A change set on B's own zone naming A's record: like a record that does not exist.
    for (const op of [
      { op: 'delete', id: recordA.id },
      { op: 'update', id: recordA.id, record: { ttl: 600 } },
    ]) {
      const res = await customerB.post(`/zones/${zoneB}/changesets`, { changes: [op] });
      expectProblem(res, 422, 'validation_failed');
      expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/changes/0/id', code: 'not_found' })]);
    }
    expect(await viewOfA()).toEqual(before);
    expect(before.changeSets.find((c: { id: string }) => c.id === failedChangeSetA)?.state).toBe('failed');
  });
});

describe('the reseller above A and B', () => {
  it("lists both customers' zones and narrows with tenant_id", async () => {
    const all = await reseller.get('/zones?limit=500');
    expect(zoneNames(all)).toEqual(expect.arrayContaining([zoneA, shopZoneA, zoneB]));
    expect(zoneNames(all)).not.toContain(zoneP);
    for (const z of all.body.data as { tenant_id: string }[]) expect([tenant.reseller, tenant.A, tenant.B]).toContain(z.tenant_id);

    const onlyA = await reseller.get(`/zones?limit=500&tenant_id=${tenant.A}`);
    expect(zoneNames(onlyA).sort()).toEqual([zoneA, shopZoneA].sort());
    expect(onlyA.body.pagination.total).toBe(2);
    expect(zoneNames(await reseller.get(`/zones?limit=500&tenant_id=${tenant.B}`))).toEqual([zoneB]);
    // A tenant outside the reseller's subtree shows nothing of its own.
    const outside = await reseller.get(`/zones?limit=500&tenant_id=${tenant.platform}`);
    if (outside.status === 200) expect(zoneNames(outside)).toEqual([]);
    else expect(outside.status).toBeGreaterThanOrEqual(400);
    expect(outside.text).not.toContain(zoneP);
  });

  it("reads A's zone, records and change sets", async () => {
    expect((await reseller.get(`/zones/${zoneA}`)).body.tenant_id).toBe(tenant.A);
    const records = await reseller.get(`/zones/${zoneA}/records`);
    expect(records.status).toBe(200);
    expect(records.body.data.map((r: { id: string }) => r.id)).toContain(recordA.id);
    expect((await reseller.get(`/zones/${zoneA}/changesets/${failedChangeSetA}`)).status).toBe(200);
  });
});

describe('acting for customer A', () => {
  const asA = () => reseller.with(actAs(tenant.A).headers!);

  it("adds a record to A's zone that A then lists as its own, and B still cannot see", async () => {
    const record = await created(await asA().post(`/zones/${zoneA}/records`, { type: 'A', name: 'api', data: { address: '192.0.2.55' } }));
    const own = await customerA.get(`/zones/${zoneA}/records?limit=500`);
    expect(own.status).toBe(200);
    expect(own.body.data).toContainEqual(expect.objectContaining({ id: record.id, name: 'api', data: { address: '192.0.2.55' } }));
    expect((await customerA.get(`/zones/${zoneA}/records/${record.id}`)).status).toBe(200);
    const changeSets = await customerA.get(`/zones/${zoneA}/changesets?limit=500`);
    expect(changeSets.body.data.map((c: { id: string }) => c.id)).toContain(record.publication.changeset_id);
    // Stored as A's, not as the reseller's.
    const row = await db.query('SELECT tenant_id FROM records WHERE id = $1', [record.id]);
    expect(row.rows).toEqual([{ tenant_id: tenant.A }]);
    expectProblem(await customerB.get(`/zones/${zoneA}/records/${record.id}`), 404, 'not_found');
  });

  it("sees only A's zones, not B's, and cannot reach B's", async () => {
    expect(zoneNames(await asA().get('/zones?limit=500')).sort()).toEqual([zoneA, shopZoneA].sort());
    expectProblem(await asA().get(`/zones/${zoneB}`), 404, 'not_found');
    expectProblem(await asA().patch(`/zones/${zoneB}/records/${recordB.id}`, { data: { address: '198.51.100.66' } }), 404, 'not_found');
    expect((await customerB.get(`/zones/${zoneB}/records/${recordB.id}`)).body.data).toEqual({ address: '192.0.2.20' });
  });
});

describe('tenant_id on the zone list', () => {
  it('is refused to a customer token (422), whichever tenant it names', async () => {
    for (const id of [tenant.A, tenant.B]) {
      const res = await customerA.get(`/zones?tenant_id=${id}`);
      expectProblem(res, 422, 'validation_failed');
      expect(res.body.errors).toContainEqual(expect.objectContaining({ pointer: '/tenant_id' }));
    }
  });

  it('is refused when acting for a customer (422)', async () => {
    const res = await reseller.get(`/zones?tenant_id=${tenant.A}`, actAs(tenant.A));
    expectProblem(res, 422, 'validation_failed');
    expect(res.body.errors).toContainEqual(expect.objectContaining({ pointer: '/tenant_id' }));
  });
});

describe('zone names across tenants', () => {
  it('cannot be taken by B when A holds them, in any spelling (409 zone_exists)', async () => {
    for (const name of [zoneA, zoneA.toUpperCase(), `${zoneA}.`]) {
      const res = await customerB.post('/zones', { name });
      expectProblem(res, 409, 'zone_exists');
    }
  });

  it("cannot overlap A's zones from below or above (409 zone_overlap)", async () => {
    expectProblem(await customerB.post('/zones', { name: `sub.${zoneA}` }), 409, 'zone_overlap');
    expectProblem(await customerB.post('/zones', { name: `deep.sub.${zoneA}` }), 409, 'zone_overlap');
    expectProblem(await customerB.post('/zones', { name: shopBase }), 409, 'zone_overlap');
  });

  it('left B with only its own zone', async () => {
    expect(zoneNames(await customerB.get('/zones?limit=500'))).toEqual([zoneB]);
    const rows = await db.query('SELECT name FROM zones WHERE tenant_id = $1', [tenant.B]);
    expect(rows.rows).toEqual([{ name: zoneB }]);
  });
});
