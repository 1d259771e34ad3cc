// Provider staff read and restore the kept export of a deleted zone (spec: "A zone-file export of
// the last state is kept for 30 days (restorable by support)").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actAs, expectProblem } from '../helpers/assertions.js';
import { createRecord, createZone, type DnsLab, startDnsLab } from '../helpers/dnsLab.js';

let lab: DnsLab;
let customerA: string;
let customerB: string;
const DAY = 24 * 60 * 60 * 1000;

beforeAll(async () => {
  lab = await startDnsLab();
  [customerA, customerB] = lab.tokens.tenants.customers;
  await createZone(lab.customerA, 'gone.test');
  await createRecord(lab.customerA, 'gone.test', { type: 'A', name: 'www', ttl: 300, data: { address: '192.0.2.44' } });
  await createRecord(lab.customerA, 'gone.test', { type: 'TXT', name: '@', data: { text: 'restore me' } });
  expect((await lab.customerA.delete('/zones/gone.test?confirm=gone.test')).status).toBe(202);
});
afterAll(() => lab?.close());

async function keptId(): Promise<string> {
  const res = await lab.platform.get('/deleted-zones?name=gone.test');
  expect(res.status).toBe(200);
  expect(res.body.data).toHaveLength(1);
  return res.body.data[0].id;
}

describe('deleted zones', () => {
  it('are listed for platform tokens only, with the owner and the expiry 30 days on', async () => {
    const res = await lab.platform.get('/deleted-zones?name=gone.test');
    const [kept] = res.body.data;
    expect(kept).toMatchObject({ zone: 'gone.test', tenant_id: customerA });
    expect(Date.parse(kept.expires_at) - Date.parse(kept.deleted_at)).toBe(30 * DAY);
    expectProblem(await lab.reseller.get('/deleted-zones'), 403, 'forbidden');
    expectProblem(await lab.customerA.get('/deleted-zones'), 403, 'forbidden');
  });

  it('serve the zone file as it was deleted', async () => {
    const res = await lab.platform.get(`/deleted-zones/${await keptId()}/export`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/dns');
    expect(res.text).toMatch(/^www\.gone\.test\.\s+300\s+IN\s+A\s+192\.0\.2\.44$/m);
    expect(res.text).toMatch(/^gone\.test\.\s+IN\s+TXT\s+"restore me"$/m);
  });

  it('cannot be restored while the zone is still being deleted, nor for another tenant', async () => {
    const id = await keptId();
    expectProblem(await lab.platform.post(`/deleted-zones/${id}/restore`, undefined, actAs(customerA)), 409, 'zone_exists');
    // The publication pipeline removes the row once the backend has withdrawn the zone.
    await lab.sql.query(`DELETE FROM zones WHERE name = 'gone.test'`);
    const wrong = await lab.platform.post(`/deleted-zones/${id}/restore`, undefined, actAs(customerB));
    // Acting for B, A's export is outside the subtree: like a missing one.
    expectProblem(wrong, 404, 'not_found');
  });

  it('restore the zone with its records for its owner, in one change set', async () => {
    const id = await keptId();
    const res = await lab.platform.post(`/deleted-zones/${id}/restore`, undefined, actAs(customerA));
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ name: 'gone.test', tenant_id: customerA, status: 'activating' });
    const records = await lab.customerA.get('/zones/gone.test/records?include_system=false');
    expect(records.body.data.map((r: { name: string; type: string; ttl: number | null; content: string }) => [r.name, r.type, r.ttl, r.content])).toEqual([
      ['@', 'TXT', null, '"restore me"'],
      ['www', 'A', 300, '192.0.2.44'],
    ]);
    const sets = await lab.customerA.get('/zones/gone.test/changesets');
    expect(sets.body.data.map((c: { kind: string }) => c.kind)).toEqual(['zone_create']);
  });

  it('are gone after 30 days', async () => {
    expect((await lab.customerA.delete('/zones/gone.test?confirm=gone.test')).status).toBe(202);
    const before = await lab.platform.get('/deleted-zones?name=gone.test');
    expect(before.body.data.length).toBeGreaterThan(0);
    lab.clock.advance(30 * DAY + 1000);
    expect((await lab.platform.get('/deleted-zones?name=gone.test')).body.data).toEqual([]);
    expectProblem(await lab.platform.get(`/deleted-zones/${before.body.data[0].id}/export`), 404, 'not_found');
  });
});
