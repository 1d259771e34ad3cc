// The publication pipeline as a client sees it: a write is stored `pending`, the zone's next
// version goes to the nameservers (`pushed`), and a real DNS query seeing the new serial makes it
// `live`. The nameserver is queried over UDP with a client nobody here wrote (dns2).
import dgram from 'node:dgram';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { createRecord, createZone, type DnsLab, startDnsLab } from '../helpers/dnsLab.js';
import { eventually, queryDns } from '../helpers/dnsQuery.js';

const ALL_ROLES = { ROLES: 'api,nameserver,worker' };

const dnsPort = (lab: DnsLab) => lab.service.nameserver!.server.port;

/** The zone once it is `active` (its first version is live). */
const untilActive = (lab: DnsLab, zone: string) =>
  eventually(
    async () => {
      const res = await lab.customerA.get(`/zones/${zone}`);
      return res.body.status === 'active' ? res.body : undefined;
    },
    10_000,
    `${zone} to become active`,
  );

async function untilState(lab: DnsLab, zone: string, changeSetId: string, state: string, timeoutMs = 10_000) {
  return eventually(
    async () => {
      const res = await lab.customerA.get(`/zones/${zone}/changesets/${changeSetId}`);
      return res.body.state === state ? res.body : undefined;
    },
    timeoutMs,
    `change set ${changeSetId} to be ${state}`,
  );
}

describe('publication: pending → pushed → live', () => {
  let lab: DnsLab;
  beforeAll(async () => {
    lab = await startDnsLab({ env: ALL_ROLES });
  });
  afterAll(async () => lab?.close());

  it('activates a new zone once the nameserver answers for it, with the serial the API shows', async () => {
    const zone = await createZone(lab.customerA, 'pub-new.example');
    expect(zone.status).toBe('activating');
    expect(zone.publication.state).toBe('pending');

    const active = await untilActive(lab, 'pub-new.example');
    expect(active.publication.state).toBe('live');

    const soa = await queryDns(dnsPort(lab), 'pub-new.example', 'SOA');
    expect(soa.rcode).toBe(0);
    expect(soa.aa).toBe(true);
    expect(soa.answers[0]!.serial).toBe(active.serial);
    const ns = await queryDns(dnsPort(lab), 'pub-new.example', 'NS');
    expect(ns.answers.map((a) => a.ns).sort()).toEqual(['ns1.lab-dns.test', 'ns2.lab-dns.test']);
  });

  it('makes a record live: a DNS query returns it, and the serial moved on', async () => {
    await createZone(lab.customerA, 'pub-rec.example');
    const before = await untilActive(lab, 'pub-rec.example');
    const record = await createRecord(lab.customerA, 'pub-rec.example', { name: 'www', type: 'A', ttl: 300, data: { address: '192.0.2.10' } });
    expect(record.publication.state).toBe('pending');

    const set = await untilState(lab, 'pub-rec.example', record.publication.changeset_id, 'live');
    expect(set.error).toBeNull();
    const answer = await queryDns(dnsPort(lab), 'www.pub-rec.example', 'A');
    expect(answer.answers.map((a) => [a.address, a.ttl])).toEqual([['192.0.2.10', 300]]);
    const after = (await lab.customerA.get('/zones/pub-rec.example')).body;
    expect(after.serial).toBeGreaterThan(before.serial);
    expect((await queryDns(dnsPort(lab), 'pub-rec.example', 'SOA')).answers[0]!.serial).toBe(after.serial);
    expect((await lab.customerA.get(`/zones/pub-rec.example/records/${record.id}`)).body.publication.state).toBe('live');

    const events = await lab.sql.query(
      `SELECT kind, payload FROM events WHERE zone_id = (SELECT id FROM zones WHERE name = 'pub-rec.example') ORDER BY occurred_at`,
    );
    expect(events.rows.filter((e) => e.kind === 'record.published').map((e) => e.payload.changeset_id)).toContain(record.publication.changeset_id);
  });

  it('publishes a burst of writes: every change set ends live, and the last state is served', async () => {
    await createZone(lab.customerA, 'pub-burst.example');
    const records = await Promise.all(
      Array.from({ length: 20 }, (_, i) => createRecord(lab.customerA, 'pub-burst.example', { name: `h${i}`, type: 'TXT', data: { text: `v${i}` } })),
    );
    for (const r of records) await untilState(lab, 'pub-burst.example', r.publication.changeset_id, 'live');
    for (const i of [0, 7, 19]) {
      const reply = await queryDns(dnsPort(lab), `h${i}.pub-burst.example`, 'TXT');
      expect(reply.answers.map((a) => [a.data].flat().join(''))).toEqual([`v${i}`]);
    }
  });

  it('spaces the builds of a busy zone: writes 10 ms apart share versions, and every one goes live', async () => {
    await createZone(lab.customerA, 'pub-spaced.example');
    const active = await untilActive(lab, 'pub-spaced.example');
    // Twelve writes one after the other, 10 ms between an answer and the next write.
    const startedAt = Date.now();
    const records = [];
    for (let i = 0; i < 12; i++) {
      records.push(await createRecord(lab.customerA, 'pub-spaced.example', { name: `s${i}`, type: 'A', data: { address: `192.0.2.${i + 1}` } }));
      await new Promise((r) => setTimeout(r, 10));
    }
    const span = Date.now() - startedAt;
    const sets = [];
    for (const r of records) sets.push(await untilState(lab, 'pub-spaced.example', r.publication.changeset_id, 'live'));
    // Builds start at least 100 ms apart: one at the first write, then at most one per 100 ms of
    // the time the writes took and one after the last — not one per write. (On a machine so slow
    // that the writes take over a second, the bound reaches 12 and this proves nothing, never
    // fails wrongly.)
    const serials = new Set(sets.map((s) => s.serial));
    expect(serials.size).toBeLessThanOrEqual(Math.floor(span / 100) + 2);
    const { rows } = await lab.sql.query(
      'SELECT count(*)::int AS n FROM zone_versions v JOIN zones z ON z.id = v.zone_id WHERE z.name = $1 AND v.serial > $2',
      ['pub-spaced.example', active.serial],
    );
    expect(rows[0].n).toBe(serials.size);
    const reply = await queryDns(dnsPort(lab), 's11.pub-spaced.example', 'A');
    expect(reply.answers.map((a) => a.address)).toEqual(['192.0.2.12']);
  });

  it('fails a version the nameserver cannot serve, keeps serving the last good one, and publishes after a fix and a retry', async () => {
    await createZone(lab.customerA, 'pub-fail.example');
    const good = await createRecord(lab.customerA, 'pub-fail.example', { name: 'www', type: 'A', data: { address: '192.0.2.1' } });
    await untilState(lab, 'pub-fail.example', good.publication.changeset_id, 'live');

    // Data that bypassed the API's validation (a restore, a manual fix gone wrong).
    await lab.sql.query(`UPDATE records SET data = '{"address":"192.0.2.300"}' WHERE id = $1`, [good.id]);
    // A write at the same owner makes the publisher re-read it.
    const next = await createRecord(lab.customerA, 'pub-fail.example', { name: 'www', type: 'TXT', data: { text: 'hello' } });
    const failed = await untilState(lab, 'pub-fail.example', next.publication.changeset_id, 'failed');
    expect(failed.error.code).toBe('build_failed');
    expect(failed.error.detail).toContain('www A');
    const events = await lab.sql.query(`SELECT payload FROM events WHERE kind = 'record.failed'`);
    expect(events.rows.map((e) => e.payload.changeset_id)).toContain(next.publication.changeset_id);
    // The nameserver still serves the last good version.
    expect((await queryDns(dnsPort(lab), 'www.pub-fail.example', 'A')).answers.map((a) => a.address)).toEqual(['192.0.2.1']);
    expect((await queryDns(dnsPort(lab), 'www.pub-fail.example', 'TXT')).answers).toEqual([]);

    // Retry is for failed change sets only.
    expect((await lab.customerA.post(`/zones/pub-fail.example/changesets/${good.publication.changeset_id}/retry`)).status).toBe(409);
    await lab.sql.query(`UPDATE records SET data = '{"address":"192.0.2.3"}' WHERE id = $1`, [good.id]);
    const retried = await lab.customerA.post(`/zones/pub-fail.example/changesets/${next.publication.changeset_id}/retry`);
    expect(retried.status).toBe(202);
    await untilState(lab, 'pub-fail.example', next.publication.changeset_id, 'live');
    expect((await queryDns(dnsPort(lab), 'www.pub-fail.example', 'A')).answers.map((a) => a.address)).toEqual(['192.0.2.3']);
    expect((await queryDns(dnsPort(lab), 'www.pub-fail.example', 'TXT')).answers.map((a) => [a.data].flat().join(''))).toEqual(['hello']);
  });

  it('retries a failed build on its own once the back-off has passed', async () => {
    await createZone(lab.customerA, 'pub-heal.example');
    const a = await createRecord(lab.customerA, 'pub-heal.example', { name: 'www', type: 'A', data: { address: '192.0.2.1' } });
    await untilState(lab, 'pub-heal.example', a.publication.changeset_id, 'live');
    await lab.sql.query(`UPDATE records SET data = '{"address":"not an address"}' WHERE id = $1`, [a.id]);
    const b = await createRecord(lab.customerA, 'pub-heal.example', { name: 'www', type: 'TXT', data: { text: 'later' } });
    await untilState(lab, 'pub-heal.example', b.publication.changeset_id, 'failed');
    // A build asked for while the failing one ran (a NOTIFY of the same write arriving late) runs
    // right after it and fails the same way; let it, so that the fixed data below meets only the poll.
    await new Promise((r) => setTimeout(r, 500));
    await lab.sql.query(`UPDATE records SET data = '{"address":"192.0.2.9"}' WHERE id = $1`, [a.id]);
    // Within the back-off the poll leaves the zone alone …
    await lab.service.publication!.poll();
    await new Promise((r) => setTimeout(r, 300));
    expect((await lab.customerA.get(`/zones/pub-heal.example/changesets/${b.publication.changeset_id}`)).body.state).toBe('failed');
    // … after it, the reconcile loop publishes without anyone asking.
    lab.clock.advance(61_000);
    await lab.service.publication!.poll();
    const live = await untilState(lab, 'pub-heal.example', b.publication.changeset_id, 'live');
    expect(live.error).toBeNull();
    expect((await queryDns(dnsPort(lab), 'www.pub-heal.example', 'A')).answers.map((x) => x.address)).toEqual(['192.0.2.9']);
  });

  it('filters zones and records by publication state', async () => {
    await createZone(lab.customerA, 'pub-filter.example');
    const r = await createRecord(lab.customerA, 'pub-filter.example', { name: 'x', type: 'A', data: { address: '192.0.2.4' } });
    await untilState(lab, 'pub-filter.example', r.publication.changeset_id, 'live');
    const live = await lab.customerA.get('/zones?publication_state=live&limit=500');
    expect(live.body.data.map((z: { name: string }) => z.name)).toContain('pub-filter.example');
    const pending = await lab.customerA.get('/zones?publication_state=pending&limit=500');
    expect(pending.body.data.map((z: { name: string }) => z.name)).not.toContain('pub-filter.example');
    const records = await lab.customerA.get('/zones/pub-filter.example/records?publication_state=live&include_system=false');
    expect(records.body.data.map((x: { id: string }) => x.id)).toEqual([r.id]);
  });

  it('reports the nameserver in /healthz and its counters in /metrics', async () => {
    const health = await lab.customerA.get('/healthz');
    expect(health.status).toBe(200);
    expect(health.body.checks).toMatchObject({ database: 'ok', nameserver: 'ok' });
    // The lab serves a root (docs/lab.md): a name of no lab TLD is the root's NXDOMAIN.
    expect((await queryDns(dnsPort(lab), 'nowhere.invalid', 'A')).rcode).toBe(3);
    const text = (await lab.customerA.get('/metrics')).text;
    expect(Number(/^dns_queries_received\{transport="udp"\} (\d+)/m.exec(text)?.[1])).toBeGreaterThan(0);
    expect(Number(/^dns_responses_sent\{rcode="NXDOMAIN"\} (\d+)/m.exec(text)?.[1])).toBeGreaterThan(0);
    expect(Number(/^dns_zones_loaded (\d+)/m.exec(text)?.[1])).toBeGreaterThan(0);
  });

  it('deletes a zone once the nameserver no longer serves it, with a zone.changed event', async () => {
    await createZone(lab.customerA, 'pub-gone.example');
    await untilActive(lab, 'pub-gone.example');
    const id = (await lab.customerA.get('/zones/pub-gone.example')).body.id;
    const res = await lab.customerA.delete('/zones/pub-gone.example?confirm=pub-gone.example');
    expect(res.status).toBe(202);
    await eventually(async () => ((await lab.customerA.get('/zones/pub-gone.example')).status === 404 ? true : undefined), 10_000, 'zone to disappear');
    // No longer served: once its delegation went too, the lab's `example.` parent answers that
    // the name does not exist.
    const gone = await eventually(
      async () => {
        const r = await queryDns(dnsPort(lab), 'pub-gone.example', 'SOA');
        return r.rcode === 3 ? r : undefined;
      },
      10_000,
      'the delegation to go',
    );
    expect(gone.authorities.map((a) => a.name)).toEqual(['example']);
    const events = await lab.sql.query(`SELECT payload FROM events WHERE kind = 'zone.changed' AND zone_id = $1 ORDER BY seq`, [id]);
    expect(events.rows.map((e) => e.payload.change)).toEqual(['created', 'deletion_requested', 'deleted']);
    expect(events.rows.at(-1).payload).toEqual({ zone: 'pub-gone.example', change: 'deleted' });
  });
});

describe('publication: verification', () => {
  let lab: DnsLab;
  let silent: dgram.Socket;
  beforeAll(async () => {
    // A "secondary" that never answers: nothing can become live.
    silent = dgram.createSocket('udp4');
    await new Promise<void>((r) => silent.bind(0, '127.0.0.1', () => r()));
    lab = await startDnsLab({ env: { ...ALL_ROLES, DNS_SECONDARIES: `127.0.0.1:${silent.address().port}` } });
  });
  afterAll(async () => {
    await lab?.close();
    silent?.close();
  });

  it('stays pushed while a configured secondary does not serve the version, and marks verification_timeout after 60 minutes', async () => {
    const zone = await createZone(lab.customerA, 'pub-slow.example');
    const setId = zone.publication.changeset_id;
    await untilState(lab, 'pub-slow.example', setId, 'pushed');
    // The embedded nameserver serves it (once its feed has loaded the version); the secondary does not.
    await eventually(async () => ((await queryDns(dnsPort(lab), 'pub-slow.example', 'SOA')).rcode === 0 ? true : undefined));

    lab.clock.advance(59 * 60_000);
    await lab.service.publication!.reconcile();
    expect((await lab.customerA.get(`/zones/pub-slow.example/changesets/${setId}`)).body.error).toBeNull();
    lab.clock.advance(2 * 60_000);
    await lab.service.publication!.reconcile();
    const set = (await lab.customerA.get(`/zones/pub-slow.example/changesets/${setId}`)).body;
    expect(set.state).toBe('pushed');
    expect(set.error.code).toBe('verification_timeout');
    expect((await lab.customerA.get('/zones/pub-slow.example')).body.status).toBe('activating');
  });
});

describe('publication: the nameserver without its database', () => {
  let lab: DnsLab;
  let admin: pg.Client;
  let database: string;
  beforeAll(async () => {
    lab = await startDnsLab({ env: ALL_ROLES });
    database = new URL(lab.databaseUrl).pathname.slice(1);
    admin = new pg.Client({ connectionString: inject('adminDatabaseUrl') });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`).catch(() => {});
    await admin?.end();
    await lab?.close();
  });

  it('keeps answering from its snapshots while PostgreSQL is unreachable, and catches up when it returns', async () => {
    await createZone(lab.customerA, 'pub-outage.example');
    const r = await createRecord(lab.customerA, 'pub-outage.example', { name: 'www', type: 'A', data: { address: '192.0.2.7' } });
    await untilState(lab, 'pub-outage.example', r.publication.changeset_id, 'live');

    await admin.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS false`);
    await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`, [database]);
    for (let i = 0; i < 20; i++) {
      const reply = await queryDns(dnsPort(lab), 'www.pub-outage.example', 'A');
      expect(reply.answers.map((a) => a.address)).toEqual(['192.0.2.7']);
      await new Promise((res) => setTimeout(res, 50));
    }
    expect((await lab.customerA.get('/zones/pub-outage.example')).status).toBe(503);

    await admin.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`);
    const next = await eventually(
      async () => {
        const res = await lab.customerA.post('/zones/pub-outage.example/records', { name: 'new', type: 'A', data: { address: '192.0.2.8' } });
        return res.status === 201 ? res.body : undefined;
      },
      15_000,
      'the API to write again',
    );
    await untilState(lab, 'pub-outage.example', next.publication.changeset_id, 'live', 20_000);
    expect((await queryDns(dnsPort(lab), 'new.pub-outage.example', 'A')).answers.map((a) => a.address)).toEqual(['192.0.2.8']);
  });
});

describe('publication: several processes answering UDP (DNS_UDP_PROCESSES=3)', () => {
  let lab: DnsLab;
  beforeAll(async () => {
    lab = await startDnsLab({ env: { ...ALL_ROLES, DNS_UDP_PROCESSES: '3' } });
  });
  afterAll(async () => lab?.close());

  it('is live only when every process serves the version: every answer after that is the new one', async () => {
    await createZone(lab.customerA, 'pub-multi.example');
    for (let round = 0; round < 3; round++) {
      const r = await createRecord(lab.customerA, 'pub-multi.example', { name: `r${round}`, type: 'A', data: { address: `192.0.2.${round + 1}` } });
      await untilState(lab, 'pub-multi.example', r.publication.changeset_id, 'live');
      // Queries from many source ports land on all three processes; none may answer the old version.
      const replies = await Promise.all(Array.from({ length: 60 }, () => queryDns(dnsPort(lab), `r${round}.pub-multi.example`, 'A')));
      expect(new Set(replies.map((x) => x.answers.map((a) => a.address).join()))).toEqual(new Set([`192.0.2.${round + 1}`]));
    }
    const res = await lab.customerA.delete('/zones/pub-multi.example?confirm=pub-multi.example');
    expect(res.status).toBe(202);
    await eventually(async () => ((await lab.customerA.get('/zones/pub-multi.example')).status === 404 ? true : undefined), 10_000, 'zone to disappear');
    await eventually(async () => ((await queryDns(dnsPort(lab), 'pub-multi.example', 'SOA')).rcode === 3 ? true : undefined), 10_000, 'the delegation to go');
    const gone = await Promise.all(Array.from({ length: 60 }, () => queryDns(dnsPort(lab), 'pub-multi.example', 'SOA')));
    // Every process answers from the lab's `example.` parent now: the name does not exist.
    expect(new Set(gone.map((x) => x.rcode))).toEqual(new Set([3]));
  });
});
