// The zone write seam as a client sees it (docs/architecture.md "One write path for zones"):
// ETags follow the stored data, not publication progress; every write path reports an RRset's
// TTL alignment; every write path leaves its event in the outbox, in one id format.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.js';
import { expectProblem } from '../helpers/assertions.js';
import { createRecord, createZone, type DnsLab, startDnsLab } from '../helpers/dnsLab.js';
import { eventually } from '../helpers/dnsQuery.js';

let lab: DnsLab;
beforeAll(async () => {
  // All roles: the worker publishes and verifies, so writes reach `live`.
  lab = await startDnsLab({ env: { ROLES: 'api,nameserver,worker' } });
});
afterAll(() => lab?.close());

const api = () => lab.customerA;

async function untilLive(zone: string, changeSetId: string) {
  return eventually(
    async () => {
      const res = await api().get(`/zones/${zone}/changesets/${changeSetId}`);
      return res.body.state === 'live' ? res.body : undefined;
    },
    10_000,
    `change set ${changeSetId} to be live`,
  );
}

describe('ETags follow the stored row, not publication progress', () => {
  it('a record’s ETag from the 201 still holds once the record is live: PATCH and DELETE with it succeed', async () => {
    await createZone(api(), 'etag-live.example');
    const created = await api().post('/zones/etag-live.example/records', { type: 'A', name: 'www', data: { address: '192.0.2.1' } });
    expect(created.status, created.text).toBe(201);
    const etag = created.headers.get('etag')!;
    await untilLive('etag-live.example', created.body.publication.changeset_id);

    const read = await api().get(`/zones/etag-live.example/records/${created.body.id}`);
    expect(read.body.publication.state).toBe('live');
    expect(read.headers.get('etag')).toBe(etag);
    expect((await api().get(`/zones/etag-live.example/records/${created.body.id}`, { headers: { 'If-None-Match': etag } })).status).toBe(304);

    const patched = await api().patch(`/zones/etag-live.example/records/${created.body.id}`, { comment: 'after live' }, { headers: { 'If-Match': etag } });
    expect(patched.status, patched.text).toBe(200);
    const next = patched.headers.get('etag')!;
    expect(next).not.toBe(etag);
    await untilLive('etag-live.example', patched.body.publication.changeset_id);
    // The old tag no longer holds (the row was written); the new one does.
    expectProblem(await api().delete(`/zones/etag-live.example/records/${created.body.id}`, { headers: { 'If-Match': etag } }), 412, 'precondition_failed');
    const removed = await api().delete(`/zones/etag-live.example/records/${created.body.id}`, { headers: { 'If-Match': next } });
    expect(removed.status, removed.text).toBe(202);
  });

  it('an item if_match and a zone_if_match taken before publication still hold after it', async () => {
    await createZone(api(), 'etag-items.example');
    const a = await api().post('/zones/etag-items.example/records', { type: 'A', name: 'a', data: { address: '192.0.2.1' } });
    const b = await api().post('/zones/etag-items.example/records', { type: 'A', name: 'b', data: { address: '192.0.2.2' } });
    const zone = await api().get('/zones/etag-items.example');
    expect(zone.body.publication.state).toBe('pending');
    await untilLive('etag-items.example', b.body.publication.changeset_id);
    expect((await api().get('/zones/etag-items.example')).body.publication.state).toBe('live');
    expect((await api().get('/zones/etag-items.example')).headers.get('etag')).toBe(zone.headers.get('etag'));

    const set = await api().post('/zones/etag-items.example/changesets', {
      zone_if_match: zone.headers.get('etag'),
      changes: [
        { op: 'update', id: a.body.id, if_match: a.headers.get('etag'), record: { data: { address: '192.0.2.11' } } },
        { op: 'delete', id: b.body.id, if_match: b.headers.get('etag') },
      ],
    });
    expect(set.status, set.text).toBe(201);

    // Now the zone and record a were written: their old tags are stale.
    const stale = await api().post('/zones/etag-items.example/changesets', {
      zone_if_match: zone.headers.get('etag'),
      changes: [{ op: 'update', id: a.body.id, if_match: a.headers.get('etag'), record: { comment: 'late' } }],
    });
    expectProblem(stale, 412, 'precondition_failed');
    expect(stale.body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(['/changes/0/if_match', '/zone_if_match']);
  });

  it('a zone’s ETag from the 201 still holds once the zone is active: PATCH with If-Match succeeds', async () => {
    const created = await api().post('/zones', { name: 'etag-zone.example' });
    expect(created.status, created.text).toBe(201);
    await eventually(async () => ((await api().get('/zones/etag-zone.example')).body.status === 'active' ? true : undefined), 10_000, 'zone active');
    const read = await api().get('/zones/etag-zone.example');
    expect(read.body.publication.state).toBe('live');
    expect(read.headers.get('etag')).toBe(created.headers.get('etag'));
    expect((await api().get('/zones/etag-zone.example', { headers: { 'If-None-Match': created.headers.get('etag')! } })).status).toBe(304);
    const patched = await api().patch('/zones/etag-zone.example', { default_ttl: 600 }, { headers: { 'If-Match': created.headers.get('etag')! } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.headers.get('etag')).not.toBe(created.headers.get('etag'));
  });
});

describe('rrset_ttl_aligned on every write path (RFC 2181 §5.2, docs/records.md)', () => {
  const ZONE = 'aligned.example';
  beforeAll(async () => {
    await createZone(api(), ZONE);
  });
  const aligned = (warnings: { code: string }[]) => warnings.filter((w) => w.code === 'rrset_ttl_aligned');
  const ttlOf = async (id: string) => (await api().get(`/zones/${ZONE}/records/${id}`)).body.ttl;

  it('single-record POST: the new record’s TTL aligns the RRset and the 201 says so', async () => {
    const first = await createRecord(api(), ZONE, { type: 'A', name: 'post', ttl: 300, data: { address: '192.0.2.1' } });
    const before = (await api().get(`/zones/${ZONE}/records/${first.id}`)).headers.get('etag');
    const second = await api().post(`/zones/${ZONE}/records`, { type: 'A', name: 'post', ttl: 600, data: { address: '192.0.2.2' } });
    expect(second.status, second.text).toBe(201);
    expect(aligned(second.body.warnings)).toEqual([expect.objectContaining({ code: 'rrset_ttl_aligned', detail: expect.stringContaining('1 other record') })]);
    expect(await ttlOf(first.id)).toBe(600);
    // The aligned record was written: its ETag moved.
    expect((await api().get(`/zones/${ZONE}/records/${first.id}`)).headers.get('etag')).not.toBe(before);
    // Without a TTL a new record takes the RRset's: nothing to report.
    const third = await api().post(`/zones/${ZONE}/records`, { type: 'A', name: 'post', data: { address: '192.0.2.3' } });
    expect(third.body).toMatchObject({ ttl: 600, warnings: [] });
  });

  it('single-record PATCH: a new TTL aligns the RRset and the 200 says so', async () => {
    const one = await createRecord(api(), ZONE, { type: 'AAAA', name: 'patch', ttl: 300, data: { address: '2001:db8::1' } });
    const two = await createRecord(api(), ZONE, { type: 'AAAA', name: 'patch', ttl: 300, data: { address: '2001:db8::2' } });
    const res = await api().patch(`/zones/${ZONE}/records/${one.id}`, { ttl: 900 });
    expect(res.status, res.text).toBe(200);
    expect(res.body.ttl).toBe(900);
    expect(aligned(res.body.warnings)).toHaveLength(1);
    expect(await ttlOf(two.id)).toBe(900);
    const comment = await api().patch(`/zones/${ZONE}/records/${one.id}`, { comment: 'no TTL given' });
    expect(comment.body.warnings).toEqual([]);
  });

  it('change sets: the 201 and a dry run carry the warning', async () => {
    const one = await createRecord(api(), ZONE, { type: 'TXT', name: 'set', ttl: 300, data: { text: 'one' } });
    await createRecord(api(), ZONE, { type: 'TXT', name: 'set', ttl: 300, data: { text: 'two' } });
    const body = { changes: [{ op: 'update', id: one.id, record: { ttl: 1200 } }] };
    const dry = await api().post(`/zones/${ZONE}/changesets`, { ...body, dry_run: true });
    expect(aligned(dry.body.warnings)).toEqual([expect.objectContaining({ index: 0 })]);
    const set = await api().post(`/zones/${ZONE}/changesets`, body);
    expect(set.status, set.text).toBe(201);
    expect(aligned(set.body.warnings)).toEqual([expect.objectContaining({ index: 0 })]);
  });

  it('zone-file import (merge): records joining an RRset take its TTL, and the 201 says so by line', async () => {
    await createRecord(api(), ZONE, { type: 'A', name: 'imp', ttl: 300, data: { address: '192.0.2.7' } });
    const zonefile = ['$ORIGIN aligned.example.', 'other 600 IN TXT "new RRset"', 'imp 3000 IN A 192.0.2.8', 'imp 3000 IN A 192.0.2.9', ''].join('\n');
    const dry = await api().post(`/zones/${ZONE}/import`, { zonefile, mode: 'merge', dry_run: true });
    expect(aligned(dry.body.warnings)).toEqual([expect.objectContaining({ detail: expect.stringMatching(/^Line 3: imp A .*2 record\(s\).*TTL 300/) })]);
    const res = await api().post(`/zones/${ZONE}/import`, { zonefile, mode: 'merge' });
    expect(res.status, res.text).toBe(201);
    expect(aligned(res.body.changeset.warnings)).toHaveLength(1);
    const imp = (await api().get(`/zones/${ZONE}/records?name=imp`)).body.data;
    expect(imp.map((r: { ttl: number }) => r.ttl)).toEqual([300, 300, 300]);
  });

  it('templates: the engine’s warnings reach the 201 (a template never re-aligns records it does not name)', async () => {
    // skip leaves an existing RRset alone and replace names all of it (docs/records.md), so the
    // warning a template can cause is the engine's own, here name_repeats_zone.
    const tpl = await lab.reseller.post('/templates', {
      name: 'Repeats the zone',
      description: 'a relative name that repeats the zone',
      variables: [{ name: 'ip', kind: 'ipv4', required: true }],
      records: [{ type: 'A', name: 'tpl.aligned.example', ttl: 7200, data: { address: '{{ip}}' } }],
    });
    expect(tpl.status, tpl.text).toBe(201);
    const res = await api().post(`/zones/${ZONE}/apply-template`, { template_id: tpl.body.id, variables: { ip: '192.0.2.50' } });
    expect(res.status, res.text).toBe(201);
    expect(res.body.warnings).toEqual([expect.objectContaining({ code: 'name_repeats_zone' })]);
  });
});

describe('events outbox: every write path writes its event in its transaction, one id format', () => {
  const EVENT_ID = /^evt_[a-z2-7]{25}[aeimquy4]$/; // 16 bytes in base32: the last character holds 3 bits
  const eventsOf = async (zoneId: string) =>
    (await lab.sql.query(`SELECT id, seq, kind, payload FROM events WHERE zone_id = $1 ORDER BY seq`, [zoneId])).rows as {
      id: string;
      seq: string;
      kind: string;
      payload: Record<string, any>;
    }[];

  it('writes one zone.changed per change set, in order, and record.published when it is live', async () => {
    const zone = await createZone(api(), 'events.example');
    const record = await createRecord(api(), 'events.example', { type: 'A', name: 'www', data: { address: '192.0.2.1' } });
    const patched = await api().patch(`/zones/events.example/records/${record.id}`, { comment: 'changed' });
    const set = await api().post('/zones/events.example/changesets', {
      changes: [{ op: 'create', record: { type: 'TXT', name: 'www', data: { text: 'x' } } }],
    });
    const imported = await api().post('/zones/events.example/import', { zonefile: 'mail.events.example. 3600 IN A 192.0.2.25\n', mode: 'merge' });
    const applied = await api().post('/zones/events.example/apply-template', { template_id: 'mail', variables: { mail_host: 'mail.events.example' } });
    const settings = await api().patch('/zones/events.example', { default_ttl: 1200 });
    const removed = await api().delete(`/zones/events.example/records/${record.id}`);
    for (const r of [patched, set, imported, applied, settings, removed]) expect(r.status, r.text).toBeLessThan(300);

    // Writes that store nothing write no event: a dry run, a stale precondition, a no-op PATCH.
    expect(
      (
        await api().post('/zones/events.example/changesets', {
          dry_run: true,
          changes: [{ op: 'create', record: { type: 'TXT', name: 'dry', data: { text: 'x' } } }],
        })
      ).status,
    ).toBe(200);
    expectProblem(await api().patch('/zones/events.example', { default_ttl: 600 }, { headers: { 'If-Match': '"stale"' } }), 412, 'precondition_failed');
    expect((await api().patch('/zones/events.example', { default_ttl: 1200 })).status).toBe(200);

    const sets = (await lab.sql.query(`SELECT id, kind FROM change_sets WHERE zone_id = $1 ORDER BY seq`, [zone.id])).rows;
    const changed = (await eventsOf(zone.id)).filter((e) => e.kind === 'zone.changed');
    expect(changed.map((e) => [e.payload.changeset_id, e.payload.kind, e.payload.change])).toEqual(
      sets.map((c) => [
        c.id,
        c.kind,
        { zone_create: 'created', zone_settings: 'settings', records: 'records', import: 'records', template: 'records' }[c.kind as string],
      ]),
    );
    expect(sets.map((c) => c.kind)).toEqual(['zone_create', 'records', 'records', 'records', 'import', 'template', 'zone_settings', 'records']);
    expect(changed.every((e) => e.payload.zone === 'events.example')).toBe(true);

    const last = removed.body.id;
    await untilLive('events.example', last);
    const published = await eventually(
      async () => {
        const rows = (await eventsOf(zone.id)).filter((e) => e.kind === 'record.published');
        return rows.some((e) => e.payload.changeset_id === last) ? rows : undefined;
      },
      10_000,
      'record.published of the last change set',
    );
    const all = await eventsOf(zone.id);
    for (const e of all) expect(e.id).toMatch(EVENT_ID);
    expect(published.length).toBeGreaterThan(0);
    // seq orders the outbox: every record.published comes after the zone.changed of its change set.
    for (const p of published) {
      const origin = changed.find((c) => c.payload.changeset_id === p.payload.changeset_id)!;
      expect(BigInt(p.seq)).toBeGreaterThan(BigInt(origin.seq));
    }
  });

  it('the deletion request is an event, and the ids SQL makes have the format of newId', async () => {
    const zone = await createZone(api(), 'events-gone.example');
    expect((await api().delete('/zones/events-gone.example?confirm=events-gone.example')).status).toBe(202);
    const changes = (await eventsOf(zone.id)).filter((e) => e.kind === 'zone.changed').map((e) => e.payload.change);
    expect(changes.slice(0, 2)).toEqual(['created', 'deletion_requested']);
    const fromSql = (await lab.sql.query(`SELECT new_id('evt') AS id FROM generate_series(1, 200)`)).rows.map((r) => r.id as string);
    const fromNode = Array.from({ length: 200 }, () => newId('evt'));
    for (const id of [...fromSql, ...fromNode]) expect(id).toMatch(EVENT_ID);
    expect(new Set(fromSql).size).toBe(200);
  });

  it('is append-only: an event row cannot be changed', async () => {
    const zone = await createZone(api(), 'events-fixed.example');
    const [event] = await eventsOf(zone.id);
    await expect(lab.sql.query(`UPDATE events SET payload = '{}'::jsonb WHERE id = $1`, [event!.id])).rejects.toThrow(/append-only/);
    expect((await eventsOf(zone.id))[0]!.payload).toEqual(event!.payload);
  });
});
