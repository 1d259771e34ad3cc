// Records kept by another object (docs/records.md "Managed records"): a dynamic DNS host's address
// or an address space's forward record. The tenant sees them as ordinary records with `managed_by`;
// every write path of the record API refuses to change them (409 record_managed) and stores
// nothing; imports leave them as they are and report the file's lines for them. The keeper here is
// set with SQL, as the keeping object's own write would leave it: what is under test is what
// every other writer makes of such records.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from '../helpers/assertions.js';
import { createRecord, createZone, type DnsLab, listAll, startDnsLab } from '../helpers/dnsLab.js';

let lab: DnsLab;
const ZONE = 'kept.test';
const KEEPER = 'dyn_keeperofhome';
let homeA: any;
let homeAAAA: any;
let www: any;

beforeAll(async () => {
  lab = await startDnsLab();
  await createZone(lab.customerA, ZONE);
  homeA = await createRecord(lab.customerA, ZONE, { type: 'A', name: 'home', ttl: 60, data: { address: '198.51.100.7' } });
  homeAAAA = await createRecord(lab.customerA, ZONE, { type: 'AAAA', name: 'home', ttl: 60, data: { address: '2001:db8::7' } });
  www = await createRecord(lab.customerA, ZONE, { type: 'A', name: 'www', data: { address: '192.0.2.80' } });
  await lab.sql.query(`UPDATE records SET managed_by = $1 WHERE id = any($2)`, [KEEPER, [homeA.id, homeAAAA.id]]);
});
afterAll(() => lab?.close());

const api = () => lab.customerA;
const rows = async () => (await listAll(api(), `/zones/${ZONE}/records?include_system=false`)).map((r) => `${r.name} ${r.type} ${r.content} ${r.managed_by}`);
const changeSetCount = async () => (await listAll(api(), `/zones/${ZONE}/changesets`)).length;

describe('records kept by another object', () => {
  it('are listed and read as ordinary records with the keeper in managed_by', async () => {
    const one = await api().get(`/zones/${ZONE}/records/${homeA.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ name: 'home', type: 'A', system: false, managed_by: KEEPER });
    expect(await rows()).toEqual(['home A 198.51.100.7 dyn_keeperofhome', 'home AAAA 2001:db8::7 dyn_keeperofhome', 'www A 192.0.2.80 null']);
  });

  it('PATCH, DELETE, change-set items and a record joining the RRset: 409 record_managed, nothing stored', async () => {
    const before = { rows: await rows(), sets: await changeSetCount() };
    const refused = [
      await api().patch(`/zones/${ZONE}/records/${homeA.id}`, { data: { address: '192.0.2.1' } }),
      await api().delete(`/zones/${ZONE}/records/${homeAAAA.id}`),
      await api().post(`/zones/${ZONE}/records`, { type: 'A', name: 'home', data: { address: '192.0.2.2' } }),
      await api().post(`/zones/${ZONE}/changesets`, { changes: [{ op: 'replace_rrset', name: 'home', type: 'A', records: [{ address: '192.0.2.3' }] }] }),
      // Moving an own record into the kept RRset.
      await api().patch(`/zones/${ZONE}/records/${www.id}`, { name: 'home' }),
    ];
    for (const res of refused) {
      expectProblem(res, 409, 'record_managed');
      expect(res.body.errors[0].detail).toContain(KEEPER);
    }
    const inSet = await api().post(`/zones/${ZONE}/changesets`, {
      changes: [
        { op: 'create', record: { type: 'TXT', name: 'ok', data: { text: 'fine alone' } } },
        { op: 'delete', id: homeA.id },
      ],
    });
    expectProblem(inSet, 409, 'record_managed');
    expect(inSet.body.errors).toEqual([expect.objectContaining({ index: 1, pointer: '/changes/1/id', code: 'record_managed' })]);
    expect({ rows: await rows(), sets: await changeSetCount() }).toEqual(before);
  });

  it('leave the rest of the name free: another type at the kept name is the tenant’s own', async () => {
    const txt = await api().post(`/zones/${ZONE}/records`, { type: 'TXT', name: 'home', data: { text: 'mine' } });
    expect(txt.status, txt.text).toBe(201);
    expect(txt.body.managed_by).toBeNull();
    expect((await api().delete(`/zones/${ZONE}/records/${txt.body.id}`)).status).toBe(202);
  });

  it('import replace leaves them, and reports the file’s lines for them as skipped (managed); merge too', async () => {
    const zonefile = ['$ORIGIN kept.test.', 'www IN A 192.0.2.80', 'home 60 IN A 203.0.113.9', 'new IN A 192.0.2.81', ''].join('\n');
    for (const mode of ['replace', 'merge']) {
      const dry = await api().post(`/zones/${ZONE}/import`, { zonefile, mode, dry_run: true });
      expect(dry.status, dry.text).toBe(200);
      expect(dry.body.skipped).toEqual([{ line: 3, owner: 'home.kept.test', type: 'A', reason: 'managed' }]);
      expect(dry.body.summary).toEqual({ created: 1, updated: 0, deleted: 0 });
    }
    const applied = await api().post(`/zones/${ZONE}/import`, { zonefile, mode: 'replace' });
    expect(applied.status, applied.text).toBe(201);
    expect(await rows()).toEqual([
      'home A 198.51.100.7 dyn_keeperofhome',
      'home AAAA 2001:db8::7 dyn_keeperofhome',
      'new A 192.0.2.81 null',
      'www A 192.0.2.80 null',
    ]);
  });

  it('are exported, and importing the export with replace changes nothing', async () => {
    const exported = await api().get(`/zones/${ZONE}/export?include_system=false`);
    expect(exported.text).toMatch(/^home\.kept\.test\.\s+60\s+IN\s+A\s+198\.51\.100\.7$/m);
    const dry = await api().post(`/zones/${ZONE}/import`, { zonefile: exported.text, mode: 'replace', dry_run: true });
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.summary).toEqual({ created: 0, updated: 0, deleted: 0 });
  });
});
