// Change sets (spec "Change set", "Change sets and templates", "States and transitions"): the six
// rules — all or nothing with up to 1000 items, validation on the final state, every bad item
// reported with index and pointer, per-item and zone ETags, dry runs, one stored unit — and
// replace_rrset, the change-set list and detail, retry, Idempotency-Key, and 20 writers at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiResponse } from '../helpers/apiClient.js';
import { expectProblem } from '../helpers/assertions.js';
import { createRecord, createZone, type DnsLab, listAll, startDnsLab, validationErrors, walk } from '../helpers/dnsLab.js';

let lab: DnsLab;
beforeAll(async () => {
  lab = await startDnsLab();
});
afterAll(() => lab?.close());

const api = () => lab.customerA;
const records = (zone: string, query = '') => listAll(api(), `/zones/${zone}/records${query}`);
const changeSets = (zone: string, query = '') => listAll(api(), `/zones/${zone}/changesets${query}`);
const post = (zone: string, body: Record<string, unknown>, headers: Record<string, string> = {}) => api().post(`/zones/${zone}/changesets`, body, { headers });
const rows = (list: any[]) => list.map((r) => `${r.name} ${r.type} ${r.ttl} ${r.content}`);

/** What a user can see of a zone: its record listing, its change-set list and its ETag. */
async function snapshot(zone: string) {
  const z = await api().get(`/zones/${zone}`);
  return { records: await records(zone), changeSets: await changeSets(zone), etag: z.headers.get('etag') };
}

describe('rule 1: all or nothing, up to 1000 items', () => {
  const ZONE = 'atomic.test';
  let keep: any;
  let gone: any;
  beforeAll(async () => {
    await createZone(api(), ZONE);
    keep = await createRecord(api(), ZONE, { type: 'A', name: 'www', data: { address: '192.0.2.1' } });
    gone = await createRecord(api(), ZONE, { type: 'TXT', name: '@', data: { text: 'to be deleted' } });
  });

  it('a set with one bad item stores nothing', async () => {
    const before = await snapshot(ZONE);
    const res = await post(ZONE, {
      comment: 'three good items and one bad',
      changes: [
        { op: 'create', record: { type: 'A', name: 'new', data: { address: '192.0.2.2' } } },
        { op: 'update', id: keep.id, record: { data: { address: '192.0.2.3' } } },
        { op: 'delete', id: gone.id },
        { op: 'create', record: { type: 'A', name: 'bad', data: { address: '192.0.2.256' } } },
      ],
    });
    expect(validationErrors(res)).toEqual([expect.objectContaining({ index: 3, pointer: '/changes/3/record/data/address', code: 'invalid_ipv4' })]);
    expect(await snapshot(ZONE)).toEqual(before);
    const { rows: stored } = await lab.sql.query(`SELECT count(*)::int AS n FROM change_sets c JOIN zones z ON z.id = c.zone_id WHERE z.name = $1`, [ZONE]);
    expect(stored[0].n).toBe(before.changeSets.length);
  });

  it('takes 1000 items in one change set, and refuses 1001 without storing any', async () => {
    const items = (n: number, prefix: string) =>
      Array.from({ length: n }, (_, i) => ({
        op: 'create',
        record: { type: 'A', name: `${prefix}${i}`, data: { address: `10.${Math.floor(i / 256)}.${i % 256}.1` } },
      }));
    const tooMany = await post(ZONE, { changes: items(1001, 'many') });
    expect(validationErrors(tooMany)[0]).toMatchObject({ pointer: '/changes' });
    expect(await records(ZONE, '?q=many&limit=500')).toEqual([]);

    const before = (await changeSets(ZONE)).length;
    const res = await post(ZONE, { changes: items(1000, 'bulk') });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ state: 'pending', items: 1000, summary: { created: 1000, updated: 0, deleted: 0 } });
    const bulk = await records(ZONE, '?q=bulk&limit=500');
    expect(bulk).toHaveLength(1000);
    expect(new Set(bulk.map((r) => r.publication.changeset_id))).toEqual(new Set([res.body.id]));
    expect((await changeSets(ZONE)).length).toBe(before + 1);
  });
});

describe('rule 2: items are validated against the zone state after all items', () => {
  const ZONE = 'final-state.test';
  beforeAll(async () => {
    await createZone(api(), ZONE);
  });

  it('delete an A and create a CNAME at the same name in one set: works', async () => {
    const a = await createRecord(api(), ZONE, { type: 'A', name: 'web', data: { address: '192.0.2.1' } });
    const res = await post(ZONE, {
      changes: [
        { op: 'create', record: { type: 'CNAME', name: 'web', data: { target: 'cdn.example.net' } } },
        { op: 'delete', id: a.id },
      ],
    });
    expect(res.status, res.text).toBe(201);
    expect(rows(await records(ZONE, '?name=web'))).toEqual(['web CNAME null cdn.example.net.']);
  });

  it('a CNAME and an A created at one name in one set: 422 naming both items', async () => {
    const errors = validationErrors(
      await post(ZONE, {
        changes: [
          { op: 'create', record: { type: 'TXT', name: 'fine', data: { text: 'unrelated' } } },
          { op: 'create', record: { type: 'CNAME', name: 'both', data: { target: 'cdn.example.net' } } },
          { op: 'create', record: { type: 'A', name: 'both', data: { address: '192.0.2.1' } } },
        ],
      }),
    );
    expect(errors.map((e) => [e.index, e.pointer, e.code])).toEqual([
      [1, '/changes/1/record/name', 'cname_conflict'],
      [2, '/changes/2/record/name', 'cname_conflict'],
    ]);
    expect(await records(ZONE, '?name=both')).toEqual([]);
    expect(await records(ZONE, '?name=fine')).toEqual([]);
  });

  it('moving a CNAME away and creating an A in its place works; the intermediate state does not count', async () => {
    const cname = await createRecord(api(), ZONE, { type: 'CNAME', name: 'old', data: { target: 'cdn.example.net' } });
    const res = await post(ZONE, {
      changes: [
        { op: 'create', record: { type: 'A', name: 'old', data: { address: '192.0.2.7' } } },
        { op: 'update', id: cname.id, record: { name: 'new' } },
      ],
    });
    expect(res.status, res.text).toBe(201);
    expect(rows(await records(ZONE, '?name=old'))).toEqual(['old A null 192.0.2.7']);
    expect((await records(ZONE, '?name=new'))[0].id).toBe(cname.id);
  });

  it('the same record twice, or two TTLs for one RRset, in one set: 422', async () => {
    const dup = validationErrors(
      await post(ZONE, {
        changes: [
          { op: 'create', record: { type: 'A', name: 'twice', data: { address: '192.0.2.1' } } },
          { op: 'create', record: { type: 'A', name: 'twice', data: { address: '192.0.2.1' } } },
        ],
      }),
    );
    expect(dup).toEqual([expect.objectContaining({ code: 'duplicate', index: 1 })]);
    const ttl = validationErrors(
      await post(ZONE, {
        changes: [
          { op: 'create', record: { type: 'A', name: 'ttls', data: { address: '192.0.2.1' }, ttl: 300 } },
          { op: 'create', record: { type: 'A', name: 'ttls', data: { address: '192.0.2.2' }, ttl: 600 } },
        ],
      }),
    );
    expect(ttl).toEqual([expect.objectContaining({ index: 1, pointer: '/changes/1/record/ttl', code: 'rrset_ttl_conflict' })]);
    expect(await records(ZONE, '?name=twice')).toEqual([]);
    expect(await records(ZONE, '?name=ttls')).toEqual([]);
  });
});

describe('rule 3: every invalid item is reported with its index and a pointer into the request', () => {
  const ZONE = 'many-errors.test';
  beforeAll(async () => {
    await createZone(api(), ZONE);
  });

  it('reports several bad items at once', async () => {
    const [soa] = await records(ZONE, '?type=SOA');
    const res = await post(ZONE, {
      changes: [
        { op: 'create', record: { type: 'A', name: 'ok', data: { address: '192.0.2.1' } } },
        { op: 'create', record: { type: 'A', name: 'www', data: { address: 'not-an-ip' } } },
        { op: 'create', record: { type: 'TXT', name: 'ok2', data: { text: 'fine' } } },
        { op: 'create', record: { type: 'AFSDB', name: 'pc', data: { subtype: 1 } } },
        { op: 'update', id: 'rec_aaaaaaaaaaaaaaaaaaaaaaaaaa', record: { ttl: 600 } },
        { op: 'delete', id: 'rec_bbbbbbbbbbbbbbbbbbbbbbbbbb' },
        { op: 'create', record: { type: 'CNAME', name: '@', data: { target: 'elsewhere.example' } } },
        { op: 'create', record: { type: 'MX', name: '@', data: { preference: 10 } } },
        { op: 'replace_rrset', name: 'pool', type: 'A', ttl: 300, records: [{ address: '192.0.2.1' }, { address: '::1' }] },
      ],
    });
    const errors = validationErrors(res);
    expect(errors.map((e) => [e.index, e.pointer, e.code])).toEqual([
      [1, '/changes/1/record/data/address', 'invalid_ipv4'],
      [3, '/changes/3/record/type', 'unsupported_type'],
      [4, '/changes/4/id', 'not_found'],
      [5, '/changes/5/id', 'not_found'],
      [6, '/changes/6/record/name', 'owner_not_allowed'],
      [7, '/changes/7/record/data/exchange', 'required'],
      [8, '/changes/8/records/1/address', 'invalid_ipv4'],
    ]);
    expect(await records(ZONE, '?include_system=false')).toEqual([]);
    // A system record named by id is 403 record_readonly, with the item's index.
    const readonly = await post(ZONE, {
      changes: [
        { op: 'create', record: { type: 'A', name: 'x', data: { address: '192.0.2.1' } } },
        { op: 'delete', id: soa.id },
      ],
    });
    expectProblem(readonly, 403, 'record_readonly');
    expect(readonly.body.errors).toEqual([expect.objectContaining({ index: 1, pointer: '/changes/1/id' })]);
    expect(await records(ZONE, '?include_system=false')).toEqual([]);
  });

  it('reports several malformed items at once (request schema)', async () => {
    const errors = validationErrors(
      await post(ZONE, {
        changes: [
          { op: 'create', record: { type: 'A', name: 'ok', data: { address: '192.0.2.1' } } },
          { op: 'create', record: { type: 'A', name: 'low', data: { address: '192.0.2.1' }, ttl: 5 } },
          { op: 'update', id: 'rec_aaaaaaaa' },
          { op: 'upsert', record: {} },
        ],
      }),
    );
    expect(errors.map((e) => e.index)).toEqual([1, 2, 3]);
    expect(errors[0].pointer).toBe('/changes/1/record/ttl');
    expect(errors[1].pointer).toBe('/changes/2/record');
    expect(errors[2].pointer).toMatch(/^\/changes\/3/);
  });
});

describe('rule 4: per-item if_match and zone_if_match', () => {
  const ZONE = 'etags.test';
  beforeAll(async () => {
    await createZone(api(), ZONE);
  });

  it('a stale item ETag is 412 listing the offending items; nothing is stored', async () => {
    const one = await api().post(`/zones/${ZONE}/records`, { type: 'A', name: 'one', data: { address: '192.0.2.1' } });
    const two = await api().post(`/zones/${ZONE}/records`, { type: 'A', name: 'two', data: { address: '192.0.2.2' } });
    const three = await api().post(`/zones/${ZONE}/records`, { type: 'A', name: 'three', data: { address: '192.0.2.3' } });
    const staleOne = one.headers.get('etag')!;
    const staleThree = three.headers.get('etag')!;
    // Someone else changes one and three.
    expect((await api().patch(`/zones/${ZONE}/records/${one.body.id}`, { comment: 'changed' })).status).toBe(200);
    expect((await api().patch(`/zones/${ZONE}/records/${three.body.id}`, { comment: 'changed' })).status).toBe(200);
    const before = await snapshot(ZONE);
    const res = await post(ZONE, {
      changes: [
        { op: 'update', id: one.body.id, if_match: staleOne, record: { data: { address: '192.0.2.11' } } },
        { op: 'delete', id: two.body.id, if_match: two.headers.get('etag') },
        { op: 'delete', id: three.body.id, if_match: staleThree },
      ],
    });
    expectProblem(res, 412, 'precondition_failed');
    expect(res.body.errors.map((e: any) => [e.index, e.pointer, e.code])).toEqual([
      [0, '/changes/0/if_match', 'etag_mismatch'],
      [2, '/changes/2/if_match', 'etag_mismatch'],
    ]);
    expect(await snapshot(ZONE)).toEqual(before);

    const current = (id: string) =>
      api()
        .get(`/zones/${ZONE}/records/${id}`)
        .then((r) => r.headers.get('etag'));
    const ok = await post(ZONE, {
      changes: [
        { op: 'update', id: one.body.id, if_match: await current(one.body.id), record: { data: { address: '192.0.2.11' } } },
        { op: 'delete', id: three.body.id, if_match: await current(three.body.id) },
      ],
    });
    expect(ok.status, ok.text).toBe(201);
    expect(rows(await records(ZONE, '?include_system=false'))).toEqual(['one A null 192.0.2.11', 'two A null 192.0.2.2']);
  });

  it('a stale zone_if_match is 412 at /zone_if_match; the current zone ETag passes', async () => {
    const stale = (await api().get(`/zones/${ZONE}`)).headers.get('etag')!;
    await createRecord(api(), ZONE, { type: 'TXT', name: 'moved-on', data: { text: 'the zone changed' } });
    const before = await snapshot(ZONE);
    const change = { changes: [{ op: 'create', record: { type: 'A', name: 'guarded', data: { address: '192.0.2.9' } } }] };
    const res = await post(ZONE, { ...change, zone_if_match: stale });
    expectProblem(res, 412, 'precondition_failed');
    expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/zone_if_match', code: 'etag_mismatch' })]);
    expect(await snapshot(ZONE)).toEqual(before);
    const ok = await post(ZONE, { ...change, zone_if_match: before.etag });
    expect(ok.status, ok.text).toBe(201);
  });
});

describe('rule 5: dry_run', () => {
  const ZONE = 'dry-run.test';
  let www: any;
  let old: any;
  beforeAll(async () => {
    await createZone(api(), ZONE);
    www = await createRecord(api(), ZONE, { type: 'A', name: 'www', data: { address: '192.0.2.1' }, ttl: 600 });
    old = await createRecord(api(), ZONE, { type: 'TXT', name: 'old', data: { text: 'obsolete' } });
  });

  it('answers 200 with the diff and warnings and stores nothing', async () => {
    const before = await snapshot(ZONE);
    const res = await post(ZONE, {
      dry_run: true,
      changes: [
        { op: 'create', record: { type: 'A', name: 'www', data: { address: '192.0.2.2' }, ttl: 300 } },
        { op: 'delete', id: old.id },
        // Relative, so this means mail.dry-run.test.dry-run.test: worth a warning.
        { op: 'create', record: { type: 'MX', name: `mail.${ZONE}`, data: { preference: 10, exchange: 'mx.example.com' } } },
      ],
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.dry_run).toBe(true);
    expect(res.body.summary).toEqual({ created: 2, updated: 1, deleted: 1 });
    expect(res.body.diff.created.map((r: any) => `${r.name} ${r.type} ${r.ttl} ${r.content}`)).toEqual([
      'www A 300 192.0.2.2',
      `mail.${ZONE} MX null 10 mx.example.com.`,
    ]);
    // The existing A takes the new TTL: one TTL per RRset.
    expect(res.body.diff.updated).toEqual([
      { before: expect.objectContaining({ id: www.id, ttl: 600 }), after: expect.objectContaining({ id: www.id, ttl: 300, content: '192.0.2.1' }) },
    ]);
    expect(res.body.diff.deleted).toEqual([expect.objectContaining({ id: old.id, content: '"obsolete"' })]);
    expect(res.body.warnings.map((w: any) => [w.index, w.code])).toEqual(
      expect.arrayContaining([
        [0, 'rrset_ttl_aligned'],
        [2, 'name_repeats_zone'],
      ]),
    );
    expect(await snapshot(ZONE)).toEqual(before);
    expectProblem(await api().get(`/zones/${ZONE}/records/${res.body.diff.created[0].id}`), 404, 'not_found');
  });

  it('reports validation errors like a real run (422)', async () => {
    const res = await post(ZONE, { dry_run: true, changes: [{ op: 'create', record: { type: 'CNAME', name: 'www', data: { target: 'x.example.com' } } }] });
    expect(validationErrors(res)[0]).toMatchObject({ index: 0, code: 'cname_conflict' });
  });
});

describe('replace_rrset', () => {
  const ZONE = 'rrset.test';
  let a1: any;
  let a2: any;
  let a3: any;
  beforeAll(async () => {
    await createZone(api(), ZONE);
    a1 = await createRecord(api(), ZONE, { type: 'A', name: 'pool', data: { address: '192.0.2.1' }, ttl: 300 });
    a2 = await createRecord(api(), ZONE, { type: 'A', name: 'pool', data: { address: '192.0.2.2' } });
    a3 = await createRecord(api(), ZONE, { type: 'A', name: 'pool', data: { address: '192.0.2.3' }, comment: 'kept with its comment' });
    await createRecord(api(), ZONE, { type: 'TXT', name: 'pool', data: { text: 'another rrset' } });
  });

  it('replaces the RRset, keeping the ids of records whose content stays', async () => {
    const res = await post(ZONE, {
      changes: [
        { op: 'replace_rrset', name: 'pool', type: 'A', ttl: 600, records: [{ address: '192.0.2.3' }, { address: '192.0.2.2' }, { address: '192.0.2.4' }] },
      ],
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.summary).toEqual({ created: 1, updated: 2, deleted: 1 });
    const pool = await records(ZONE, '?name=pool&type=A');
    expect(rows(pool)).toEqual(['pool A 600 192.0.2.2', 'pool A 600 192.0.2.3', 'pool A 600 192.0.2.4']);
    expect(pool[0].id).toBe(a2.id);
    expect(pool[1].id).toBe(a3.id);
    expect(pool[1].comment).toBe('kept with its comment');
    expect([a1.id, a2.id, a3.id]).not.toContain(pool[2].id);
    expectProblem(await api().get(`/zones/${ZONE}/records/${a1.id}`), 404, 'not_found');
    const detail = await api().get(`/zones/${ZONE}/changesets/${res.body.id}`);
    expect(new Set(detail.body.results[0].record_ids)).toEqual(new Set([a1.id, a2.id, a3.id, pool[2].id]));
    expect(rows(await records(ZONE, '?name=pool&type=TXT'))).toEqual(['pool TXT null "another rrset"']);
  });

  it('an empty list deletes the RRset; replacing A with CNAME in one set satisfies CNAME exclusivity', async () => {
    const res = await post(ZONE, {
      changes: [
        { op: 'replace_rrset', name: 'pool', type: 'A', ttl: null, records: [] },
        { op: 'replace_rrset', name: 'pool', type: 'TXT', ttl: null, records: [] },
        { op: 'replace_rrset', name: 'pool', type: 'CNAME', ttl: 120, records: [{ target: 'lb.example.net' }] },
      ],
    });
    expect(res.status, res.text).toBe(201);
    expect(rows(await records(ZONE, '?name=pool'))).toEqual(['pool CNAME 120 lb.example.net.']);
    // A new A RRset beside the CNAME is refused.
    expect(
      validationErrors(await post(ZONE, { changes: [{ op: 'replace_rrset', name: 'pool', type: 'A', ttl: 300, records: [{ address: '192.0.2.1' }] }] }))[0],
    ).toMatchObject({ index: 0, pointer: '/changes/0/name', code: 'cname_conflict' });
  });

  it('replaces every record of the RRset, also two an earlier item made equal (found by the property test)', async () => {
    const first = await createRecord(api(), ZONE, { type: 'A', name: 'twins', data: { address: '192.0.2.1' } });
    const second = await createRecord(api(), ZONE, { type: 'A', name: 'twins', data: { address: '192.0.2.5' } });
    const res = await post(ZONE, {
      changes: [
        { op: 'update', id: second.id, record: { data: { address: '192.0.2.1' } } },
        { op: 'replace_rrset', name: 'twins', type: 'A', records: [] },
      ],
    });
    expect(res.status, res.text).toBe(201);
    expect(await records(ZONE, '?name=twins')).toEqual([]);
    expectProblem(await api().get(`/zones/${ZONE}/records/${first.id}`), 404, 'not_found');
    expectProblem(await api().get(`/zones/${ZONE}/records/${second.id}`), 404, 'not_found');
  });

  it('the apex NS set cannot be replaced (422: NS only below the apex); duplicates in the list are 422', async () => {
    expect(
      validationErrors(
        await post(ZONE, { changes: [{ op: 'replace_rrset', name: '@', type: 'NS', ttl: 300, records: [{ nameserver: 'ns.example.com' }] }] }),
      )[0],
    ).toMatchObject({ index: 0, pointer: '/changes/0/name', code: 'owner_not_allowed' });
    expect(validationErrors(await post(ZONE, { changes: [{ op: 'replace_rrset', name: '@', type: 'NS', ttl: 300, records: [] }] }))[0]).toMatchObject({
      code: 'owner_not_allowed',
    });
    expect(
      validationErrors(
        await post(ZONE, { changes: [{ op: 'replace_rrset', name: 'd', type: 'A', ttl: 300, records: [{ address: '192.0.2.1' }, { address: '192.0.2.1' }] }] }),
      )[0],
    ).toMatchObject({ index: 0, pointer: '/changes/0/records', code: 'duplicate' });
    expect(rows(await records(ZONE, '?name=@&type=NS'))).toEqual(['@ NS null ns1.lab-dns.test.', '@ NS null ns2.lab-dns.test.']);
  });
});

describe('the change-set list, detail and retry', () => {
  const ZONE = 'history.test';
  const ids = {} as { create: string; record: string; settings: string; set: string };
  const times: Record<string, string> = {};
  beforeAll(async () => {
    const zone = await createZone(api(), ZONE);
    ids.create = zone.publication.changeset_id;
    lab.clock.advance(60_000);
    ids.record = (await createRecord(api(), ZONE, { type: 'A', name: 'www', data: { address: '192.0.2.1' } })).publication.changeset_id;
    lab.clock.advance(60_000);
    ids.settings = (await api().patch(`/zones/${ZONE}`, { default_ttl: 900 })).body.publication.changeset_id;
    lab.clock.advance(60_000);
    const set = await post(ZONE, {
      comment: 'mail set-up',
      changes: [
        { op: 'create', record: { type: 'MX', name: '@', data: { preference: 10, exchange: 'mx.history.test' } } },
        { op: 'create', record: { type: 'A', name: 'mx', data: { address: '192.0.2.25' } } },
      ],
    });
    expect(set.status).toBe(201);
    ids.set = set.body.id;
    for (const c of await changeSets(ZONE)) times[c.id] = c.created_at;
  });

  it('lists newest first without results; GET has the per-item results', async () => {
    const list = await changeSets(ZONE);
    expect(list.map((c) => c.id)).toEqual([ids.set, ids.settings, ids.record, ids.create]);
    expect(list.map((c) => c.kind)).toEqual(['records', 'zone_settings', 'records', 'zone_create']);
    for (const c of list) {
      expect(c).not.toHaveProperty('results');
      expect(c.state).toBe('pending');
      expect(c.zone).toBe(ZONE);
    }
    const detail = await api().get(`/zones/${ZONE}/changesets/${ids.set}`);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ id: ids.set, comment: 'mail set-up', items: 2, summary: { created: 2, updated: 0, deleted: 0 } });
    expect(detail.body.results).toEqual([
      expect.objectContaining({ index: 0, op: 'create', record_ids: [expect.stringMatching(/^rec_/)] }),
      expect.objectContaining({ index: 1, op: 'create', record_ids: [expect.stringMatching(/^rec_/)] }),
    ]);
    const mx = await records(ZONE, '?name=mx');
    expect(detail.body.results[1].record_ids).toEqual([mx[0].id]);
    expectProblem(await api().get(`/zones/${ZONE}/changesets/chg_aaaaaaaaaaaaaaaaaaaaaaaaaa`), 404, 'not_found');
  });

  it('since: created at or after; cursor walks newest first', async () => {
    const since = times[ids.settings]!;
    expect((await changeSets(ZONE, `?since=${since}`)).map((c) => c.id)).toEqual([ids.set, ids.settings]);
    const offset = new Date(since).toISOString().replace('Z', '+00:00');
    expect((await changeSets(ZONE, `?since=${encodeURIComponent(offset)}`)).map((c) => c.id)).toEqual([ids.set, ids.settings]);
    const later = new Date(new Date(since).getTime() + 1).toISOString();
    expect((await changeSets(ZONE, `?since=${later}`)).map((c) => c.id)).toEqual([ids.set]);
    expect(validationErrors(await api().get(`/zones/${ZONE}/changesets?since=yesterday`))[0]).toMatchObject({ in: 'query', pointer: '/since' });
    const pages = await walk(api(), `/zones/${ZONE}/changesets?limit=1`);
    expect(pages.flatMap((p) => p.body.data.map((c: any) => c.id))).toEqual([ids.set, ids.settings, ids.record, ids.create]);
  });

  it('state filter (repeatable); retry is 409 unless failed, and a failed change set goes back to pending', async () => {
    // States only the publication pipeline (a later issue) produces, set in the database.
    await lab.sql.query(`UPDATE change_sets SET state = 'failed', error = '{"code":"backend_rejected"}' WHERE id = $1`, [ids.record]);
    await lab.sql.query(`UPDATE change_sets SET state = 'live' WHERE id = $1`, [ids.create]);
    expect((await changeSets(ZONE, '?state=failed')).map((c) => c.id)).toEqual([ids.record]);
    expect((await changeSets(ZONE, '?state=failed&state=live')).map((c) => c.id)).toEqual([ids.record, ids.create]);
    expect((await changeSets(ZONE, '?state=pending')).map((c) => c.id)).toEqual([ids.set, ids.settings]);
    expect(await changeSets(ZONE, '?state=pushed')).toEqual([]);
    const failed = await api().get(`/zones/${ZONE}/changesets/${ids.record}`);
    expect(failed.body).toMatchObject({ state: 'failed', error: { code: 'backend_rejected' } });

    const recordsBefore = await records(ZONE);
    for (const id of [ids.set, ids.create]) {
      const res = await api().post(`/zones/${ZONE}/changesets/${id}/retry`);
      expectProblem(res, 409, 'conflict');
    }
    const retried = await api().post(`/zones/${ZONE}/changesets/${ids.record}/retry`);
    expect(retried.status, retried.text).toBe(202);
    expect(retried.body).toMatchObject({ id: ids.record, state: 'pending', error: null });
    expect((await api().get(`/zones/${ZONE}/changesets/${ids.record}`)).body.state).toBe('pending');
    expectProblem(await api().post(`/zones/${ZONE}/changesets/${ids.record}/retry`), 409, 'conflict');
    // Only the push is retried: the stored data did not change (except the publication state).
    const recordsAfter = await records(ZONE);
    expect(recordsAfter.map(({ publication: _p, ...r }) => r)).toEqual(recordsBefore.map(({ publication: _p, ...r }) => r));
    expect(recordsAfter.find((r) => r.name === 'www').publication).toEqual({ state: 'pending', changeset_id: ids.record });
    expect(await changeSets(ZONE)).toHaveLength(4);
  });
});

describe('Idempotency-Key', () => {
  it('replays a change set instead of storing a second one', async () => {
    const ZONE = 'idempotent.test';
    await createZone(api(), ZONE);
    const body = { changes: [{ op: 'create', record: { type: 'A', name: 'once', data: { address: '192.0.2.1' } } }] };
    const first = await post(ZONE, body, { 'Idempotency-Key': 'cs-once-1' });
    const again = await post(ZONE, body, { 'Idempotency-Key': 'cs-once-1' });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBe('false');
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect((await changeSets(ZONE)).map((c) => c.id)).toEqual([first.body.id, expect.any(String)]);
    expect(await records(ZONE, '?name=once')).toHaveLength(1);
    expectProblem(await post(ZONE, { ...body, comment: 'different' }, { 'Idempotency-Key': 'cs-once-1' }), 422, 'idempotency_key_reused');
  });
});

describe('20 writers on one zone at once', () => {
  const ZONE = 'busy.test';
  let shared: any;
  beforeAll(async () => {
    await createZone(api(), ZONE);
    shared = await createRecord(api(), ZONE, { type: 'A', name: 'shared', data: { address: '192.0.2.1' } });
  });

  it.each([1, 2, 3])('round %i: every 2xx change set is stored once, seq gap-free, no lost update, no invariant broken', async (round) => {
    const n = (s: string) => `${s}-r${round}`;
    const writes: { what: string; send: () => Promise<ApiResponse> }[] = [];
    for (let i = 0; i < 6; i++) {
      writes.push({
        what: `distinct:${n(`host${i}`)}`,
        send: () => api().post(`/zones/${ZONE}/records`, { type: 'A', name: n(`host${i}`), data: { address: `198.51.100.${i}` } }),
      });
    }
    for (let i = 0; i < 2; i++) {
      writes.push({
        what: `distinct:${n(`set${i}`)}`,
        send: () => post(ZONE, { changes: [{ op: 'create', record: { type: 'TXT', name: n(`set${i}`), data: { text: `set ${i}` } } }] }),
      });
    }
    for (let i = 0; i < 3; i++) {
      writes.push({ what: 'same', send: () => api().post(`/zones/${ZONE}/records`, { type: 'A', name: n('same'), data: { address: '203.0.113.1' } }) });
    }
    for (let i = 0; i < 3; i++) {
      writes.push({
        what: `rrset:${300 + 60 * i}`,
        send: () => api().post(`/zones/${ZONE}/records`, { type: 'A', name: n('rr'), data: { address: `203.0.113.${10 + i}` }, ttl: 300 + 60 * i }),
      });
    }
    for (let i = 0; i < 4; i++) {
      // Addresses new in every round: each update really changes the record.
      const address = `192.0.2.${10 * round + i}`;
      writes.push({ what: `update:${address}`, send: () => api().patch(`/zones/${ZONE}/records/${shared.id}`, { data: { address } }) });
    }
    writes.push({ what: 'cname', send: () => api().post(`/zones/${ZONE}/records`, { type: 'CNAME', name: n('cn'), data: { target: 'cdn.example.net' } }) });
    writes.push({ what: 'cname-a', send: () => api().post(`/zones/${ZONE}/records`, { type: 'A', name: n('cn'), data: { address: '192.0.2.99' } }) });
    expect(writes).toHaveLength(20);

    const before = await changeSets(ZONE);
    const results = await Promise.all(writes.map(async (w) => ({ ...w, res: await w.send() })));

    // Every answer is a success or the expected refusal; never a server error.
    for (const { what, res } of results) {
      if (what === 'same' || what.startsWith('cname')) expect([201, 422], `${what}: ${res.text}`).toContain(res.status);
      else expect(res.status, `${what}: ${res.text}`).toBe(what.startsWith('update') ? 200 : 201);
      if (res.status === 422) expect(res.body.errors[0].code).toBe(what === 'same' ? 'duplicate' : 'cname_conflict');
    }
    const ok = results.filter((r) => r.res.status < 300);
    const csOf = (r: (typeof results)[number]) => (r.what.startsWith('distinct:set') ? r.res.body.id : r.res.body.publication.changeset_id);
    expect(results.filter((r) => r.what === 'same' && r.res.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.what.startsWith('cname') && r.res.status === 201)).toHaveLength(1);

    // Every successful write's change set is listed exactly once, and nothing else was added.
    const after = await changeSets(ZONE, '?limit=500');
    const added = after.slice(0, after.length - before.length);
    expect(after.slice(added.length)).toEqual(before);
    expect(added.map((c) => c.id).sort()).toEqual(ok.map(csOf).sort());
    expect(new Set(added.map((c) => c.id)).size).toBe(ok.length);

    // seq: unique and gap-free, and the zone points at the newest change set.
    const { rows: seqs } = await lab.sql.query(
      `SELECT c.id, c.seq, z.changeset_seq, z.last_changeset_id FROM change_sets c JOIN zones z ON z.id = c.zone_id WHERE z.name = $1 ORDER BY c.seq`,
      [ZONE],
    );
    expect(seqs.map((r) => r.seq)).toEqual(seqs.map((_, i) => i + 1));
    expect(seqs[0].changeset_seq).toBe(seqs.length);
    expect(seqs[0].last_changeset_id).toBe(seqs[seqs.length - 1].id);
    expect((await api().get(`/zones/${ZONE}`)).body.publication.changeset_id).toBe(after[0].id);
    const seqOf = new Map(seqs.map((r) => [r.id, r.seq as number]));
    // The list's newest-first order is the seq order.
    expect(after.map((c) => seqOf.get(c.id))).toEqual([...seqs].reverse().map((r) => r.seq));

    // No lost update: every successful create is there.
    const list = await records(ZONE, '?limit=500');
    for (const r of ok.filter((o) => o.what.startsWith('distinct:'))) {
      const name = r.what.slice('distinct:'.length);
      expect(
        list.filter((x) => x.name === name),
        name,
      ).toHaveLength(1);
    }
    expect(rows(list.filter((x) => x.name === n('same')))).toEqual([`${n('same')} A null 203.0.113.1`]);
    // The shared record holds the value of the last update in seq order.
    const updates = ok.filter((o) => o.what.startsWith('update:'));
    const lastUpdate = updates.reduce((a, b) => (seqOf.get(csOf(a))! > seqOf.get(csOf(b))! ? a : b));
    const sharedNow = list.find((x) => x.id === shared.id);
    expect(sharedNow.content).toBe(lastUpdate.what.slice('update:'.length));
    // One TTL for the RRset: the one of its last writer in seq order.
    const rrset = list.filter((x) => x.name === n('rr'));
    expect(rrset).toHaveLength(3);
    const rrWrites = ok.filter((o) => o.what.startsWith('rrset:'));
    const lastRr = rrWrites.reduce((a, b) => (seqOf.get(csOf(a))! > seqOf.get(csOf(b))! ? a : b));
    expect(new Set(rrset.map((x) => x.ttl))).toEqual(new Set([Number(lastRr.what.slice('rrset:'.length))]));
    // CNAME alone at its name.
    expect(list.filter((x) => x.name === n('cn'))).toHaveLength(1);

    // The database agrees: no duplicate, no CNAME beside anything, one TTL per RRset.
    const { rows: broken } = await lab.sql.query(
      `WITH r AS (SELECT r.* FROM records r JOIN zones z ON z.id = r.zone_id WHERE z.name = $1)
       SELECT 'duplicate' AS problem, name FROM r GROUP BY name, type, content HAVING count(*) > 1
       UNION ALL SELECT 'cname', name FROM r GROUP BY name HAVING bool_or(type = 'CNAME') AND count(*) > 1
       UNION ALL SELECT 'ttl', name FROM r GROUP BY name, type HAVING count(DISTINCT COALESCE(ttl, -1)) > 1`,
      [ZONE],
    );
    expect(broken).toEqual([]);
    // Stored: every listed record but the rendered SOA and apex NS; record_count (kept by the
    // records triggers) agrees after 20 concurrent writers.
    const { rows: counted } = await lab.sql.query(
      `SELECT count(*)::int AS n, (SELECT record_count FROM zones WHERE name = $1) AS record_count FROM records r JOIN zones z ON z.id = r.zone_id WHERE z.name = $1`,
      [ZONE],
    );
    expect(counted[0].n).toBe(list.filter((x) => !x.system).length);
    expect(counted[0].record_count).toBe(counted[0].n);
  });
});
