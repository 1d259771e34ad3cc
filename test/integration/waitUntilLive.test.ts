// `Prefer: wait=N` (RFC 7240) on writes, as a client sees it (docs/api-conventions.md "Waiting until
// live"): with every role running (the lab's simulated backend) the answer comes once the change
// set is live, and dig and kdig — clients nobody here wrote — see the record the moment the answer
// arrives; where nothing publishes (ROLES=api) it comes after N seconds with the state as it is;
// waiting holds no database connection, ends with the client, and is woken by a worker in another
// service on the same database. Then the waiter itself (src/services/liveWait.ts), as RFC 2136
// UPDATE answers will use it: woken by NOTIFY alone, by its re-read alone, and every way it ends.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/knex.js';
import { LiveWaiters, waitUntilLive } from '../../src/services/liveWait.js';
import type { ApiResponse } from '../helpers/apiClient.js';
import { createRecord, createZone, type DnsLab, startDnsLab } from '../helpers/dnsLab.js';
import { eventually } from '../helpers/dnsQuery.js';
import { requireTool, runToolAsync } from '../helpers/dnsTools.js';
import { startTestService } from '../helpers/testService.js';

const wait = (n: number | string) => ({ headers: { Prefer: `wait=${n}` } });
const applied = (res: ApiResponse) => res.headers.get('preference-applied');
const waiters = (lab: DnsLab) => lab.service.services.liveWaiters.waiting;

/** The value of a gauge without labels on /metrics. */
async function gauge(lab: DnsLab, name: string): Promise<number> {
  const text = await (await fetch(`${lab.url}/metrics`)).text();
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
}

/** What `tool` (dig or kdig) gets for name/type from the service's nameserver: the +short lines. */
async function ask(tool: string, port: number, name: string, type: string): Promise<string[]> {
  const run = await runToolAsync(tool, ['@127.0.0.1', '-p', String(port), name, type, '+short', '+norecurse', '+time=2', '+retry=0']);
  expect(run.code, run.stderr).toBe(0);
  return run.stdout.split('\n').filter(Boolean);
}

describe('Prefer: wait with every role running', () => {
  let lab: DnsLab;
  let port: number;
  beforeAll(async () => {
    lab = await startDnsLab({ env: { ROLES: 'api,nameserver,worker' } });
    port = lab.service.nameserver!.server.port;
  });
  afterAll(async () => lab?.close());

  it('answers a record POST once it is live, and dig and kdig see the record at once', async (ctx) => {
    const dig = requireTool('dig', ctx);
    const kdig = requireTool('kdig', ctx);
    await createZone(lab.customerA, 'wait-acme.example');
    const res = await lab.customerA.post(
      '/zones/wait-acme.example/records',
      { name: '_acme-challenge', type: 'TXT', ttl: 60, data: { text: 'token-1' } },
      wait(10),
    );
    expect(res.status, res.text).toBe(201);
    expect(applied(res)).toBe('wait=10');
    expect(res.body.publication.state).toBe('live');
    expect(await ask(dig, port, '_acme-challenge.wait-acme.example', 'TXT')).toEqual(['"token-1"']);
    expect(await ask(kdig, port, '_acme-challenge.wait-acme.example', 'TXT')).toEqual(['"token-1"']);
    // The body is the record as a read shows it now (plus the write's warnings), with its ETag.
    const read = await lab.customerA.get(`/zones/wait-acme.example/records/${res.body.id}`);
    expect({ ...res.body, warnings: undefined }).toEqual({ ...read.body, warnings: undefined });
    expect(res.body.warnings).toEqual([]);
    expect(res.headers.get('etag')).toBe(read.headers.get('etag'));
    expect(res.headers.get('location')).toBe(`/api/v1/zones/wait-acme.example/records/${res.body.id}`);
    expect(res.headers.get('idempotent-replayed')).toBe('false');
  });

  it('answers at once as before without Prefer, with wait=0, and with a malformed or another preference', async () => {
    await createZone(lab.customerA, 'wait-none.example');
    const variants: Record<string, string>[] = [
      {},
      { Prefer: 'wait=0' },
      { Prefer: 'wait=abc' },
      { Prefer: 'wait=-1' },
      { Prefer: 'wait=1.5' },
      { Prefer: 'wait' },
      { Prefer: 'return=minimal' },
    ];
    for (const [i, headers] of variants.entries()) {
      const res = await lab.customerA.post(
        '/zones/wait-none.example/records',
        { name: `h${i}`, type: 'A', data: { address: `192.0.2.${i + 1}` } },
        { headers },
      );
      expect(res.status, res.text).toBe(201);
      expect(res.body.publication.state, JSON.stringify(headers)).toBe('pending');
      expect(applied(res)).toBeNull();
    }
  });

  it('reads the preference as RFC 7240 writes it: case, quotes, parameters, among others, the first of two', async () => {
    await createZone(lab.customerA, 'wait-forms.example');
    for (const [i, prefer] of ['respond-async, WAIT=5', 'wait="5"; foo=bar', 'handling=lenient, wait=5, wait=0'].entries()) {
      const res = await lab.customerA.post(
        '/zones/wait-forms.example/records',
        { name: `f${i}`, type: 'A', data: { address: '192.0.2.9' } },
        { headers: { Prefer: prefer } },
      );
      expect(res.status, res.text).toBe(201);
      expect(applied(res), prefer).toBe('wait=5');
      expect(res.body.publication.state, prefer).toBe('live');
    }
  });

  it('waits on every write that stores a change set, keeping its status code', async (ctx) => {
    const dig = requireTool('dig', ctx);
    const zone = await lab.customerA.post('/zones', { name: 'wait-all.example' }, wait(10));
    expect(zone.status, zone.text).toBe(201);
    expect(applied(zone)).toBe('wait=10');
    expect(zone.body).toMatchObject({ status: 'active', publication: { state: 'live' }, warnings: [] });
    expect(zone.headers.get('etag')).toBe((await lab.customerA.get('/zones/wait-all.example')).headers.get('etag'));

    const patched = await lab.customerA.patch('/zones/wait-all.example', { default_ttl: 1200 }, wait(10));
    expect(patched.status, patched.text).toBe(200);
    expect(applied(patched)).toBe('wait=10');
    expect(patched.body).toMatchObject({ default_ttl: 1200, publication: { state: 'live' } });

    const changeSet = await lab.customerA.post(
      '/zones/wait-all.example/changesets',
      { changes: [{ op: 'create', record: { name: 'cs', type: 'A', data: { address: '192.0.2.20' } } }] },
      wait(10),
    );
    expect(changeSet.status, changeSet.text).toBe(201);
    expect(applied(changeSet)).toBe('wait=10');
    expect(changeSet.body).toMatchObject({ state: 'live', warnings: [] });
    expect(changeSet.body.live_at).not.toBeNull();
    const record = changeSet.body.results[0].record_ids[0] as string;

    const updated = await lab.customerA.patch(`/zones/wait-all.example/records/${record}`, { data: { address: '192.0.2.21' } }, wait(10));
    expect(updated.status, updated.text).toBe(200);
    expect(applied(updated)).toBe('wait=10');
    expect(updated.body).toMatchObject({ content: '192.0.2.21', publication: { state: 'live' } });
    expect(await ask(dig, port, 'cs.wait-all.example', 'A')).toEqual(['192.0.2.21']);

    const deleted = await lab.customerA.delete(`/zones/wait-all.example/records/${record}`, wait(10));
    expect(deleted.status, deleted.text).toBe(202);
    expect(applied(deleted)).toBe('wait=10');
    expect(deleted.body).toMatchObject({ state: 'live', summary: { deleted: 1 } });
    expect(await ask(dig, port, 'cs.wait-all.example', 'A')).toEqual([]);

    const imported = await lab.customerA.post('/zones/wait-all.example/import', { zonefile: 'imp 300 IN A 192.0.2.30\n' }, wait(10));
    expect(imported.status, imported.text).toBe(201);
    expect(applied(imported)).toBe('wait=10');
    expect(imported.body).toMatchObject({ changeset: { state: 'live' }, skipped: [], unchanged: 0 });

    const template = await lab.customerA.post(
      '/zones/wait-all.example/apply-template',
      { template_id: 'web-hosting', variables: { ipv4: '192.0.2.40' } },
      wait(10),
    );
    expect(template.status, template.text).toBe(201);
    expect(applied(template)).toBe('wait=10');
    expect(template.body).toMatchObject({ state: 'live', kind: 'template' });
  });

  it('a dry run stores nothing, so it does not wait', async () => {
    await createZone(lab.customerA, 'wait-dry.example');
    const res = await lab.customerA.post(
      '/zones/wait-dry.example/changesets',
      { dry_run: true, changes: [{ op: 'create', record: { name: 'd', type: 'A', data: { address: '192.0.2.1' } } }] },
      wait(10),
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.dry_run).toBe(true);
    expect(applied(res)).toBeNull();
    const imported = await lab.customerA.post('/zones/wait-dry.example/import', { zonefile: 'd 300 IN A 192.0.2.1\n', dry_run: true }, wait(10));
    expect(imported.status, imported.text).toBe(200);
    expect(applied(imported)).toBeNull();
  });

  it('applies at most 60 seconds', async () => {
    await createZone(lab.customerA, 'wait-cap.example');
    const res = await lab.customerA.post(
      '/zones/wait-cap.example/records',
      { name: 'c', type: 'A', data: { address: '192.0.2.1' } },
      wait('99999999999999999999'),
    );
    expect(res.status, res.text).toBe(201);
    expect(applied(res)).toBe('wait=60');
    expect(res.body.publication.state).toBe('live');
  });

  it('an idempotent replay with Prefer waits too and shows the state as it is now', async () => {
    await createZone(lab.customerA, 'wait-replay.example');
    const body = { name: 'r', type: 'A', data: { address: '192.0.2.7' } };
    const key = { 'Idempotency-Key': 'wait-replay-1' };
    const first = await lab.customerA.post('/zones/wait-replay.example/records', body, { headers: key });
    expect(first.status).toBe(201);
    expect(first.body.publication.state).toBe('pending');
    const replay = await lab.customerA.post('/zones/wait-replay.example/records', body, { headers: { ...key, Prefer: 'wait=10' } });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(applied(replay)).toBe('wait=10');
    expect(replay.body).toMatchObject({ id: first.body.id, publication: { state: 'live', changeset_id: first.body.publication.changeset_id } });
    // Without the preference a replay is the stored answer, as stored.
    const plain = await lab.customerA.post('/zones/wait-replay.example/records', body, { headers: key });
    expect(plain.headers.get('idempotent-replayed')).toBe('true');
    expect(plain.body.publication.state).toBe('pending');
    expect(applied(plain)).toBeNull();
  });

  it('ends the wait when the change set fails, answering `failed`', async () => {
    await createZone(lab.customerA, 'wait-fail.example');
    const good = await lab.customerA.post('/zones/wait-fail.example/records', { name: 'www', type: 'A', data: { address: '192.0.2.1' } }, wait(10));
    expect(good.body.publication.state).toBe('live');
    // Data that bypassed the API's validation; a write at the same owner makes the build re-read it.
    await lab.sql.query(`UPDATE records SET data = '{"address":"192.0.2.300"}' WHERE id = $1`, [good.body.id]);
    const next = await lab.customerA.post('/zones/wait-fail.example/records', { name: 'www', type: 'TXT', data: { text: 'hello' } }, wait(30));
    expect(next.status, next.text).toBe(201);
    expect(applied(next)).toBe('wait=30');
    expect(next.body.publication.state).toBe('failed');
    const changeSet = await lab.customerA.get(`/zones/wait-fail.example/changesets/${next.body.publication.changeset_id}`);
    expect(changeSet.body.error.code).toBe('build_failed');
    // Put right, so the zone's retries stop failing.
    await lab.sql.query(`UPDATE records SET data = '{"address":"192.0.2.1"}' WHERE id = $1`, [good.body.id]);
  });

  it('is described in the OpenAPI document: Prefer on the writes that wait, Preference-Applied on their stored answers', async () => {
    const doc = await (await fetch(`${lab.url}/api/v1/openapi.json`)).json();
    const operations = Object.values(doc.paths as Record<string, Record<string, any>>).flatMap((path) => Object.values(path));
    const waiting = operations.filter((op) => op.parameters?.some((p: any) => p.name === 'Prefer' && p.in === 'header'));
    // The answer of each that stored a change set (a dry run's 200 stores none).
    const stored: Record<string, string> = {
      createRecord: '201',
      updateRecord: '200',
      deleteRecord: '202',
      createChangeSet: '201',
      createZone: '201',
      updateZone: '200',
      importZone: '201',
      applyTemplate: '201',
    };
    expect(waiting.map((op) => op.operationId).sort()).toEqual(Object.keys(stored).sort());
    for (const op of waiting) expect(op.responses[stored[op.operationId]!].headers, op.operationId).toHaveProperty('Preference-Applied');
  });

  it('leaves no waiter behind (api_live_waiters)', async () => {
    expect(waiters(lab)).toBe(0);
    expect(await gauge(lab, 'api_live_waiters')).toBe(0);
  });
});

describe('Prefer: wait where nothing publishes (ROLES=api)', () => {
  let lab: DnsLab;
  beforeAll(async () => {
    // A pool wait ends after two seconds: waiters that held connections would starve the others.
    // A request must arrive within one second and is slow after 300 ms: neither bounds a wait.
    lab = await startDnsLab({ env: { DB_ACQUIRE_TIMEOUT_MS: '2000', HTTP_REQUEST_TIMEOUT_MS: '1000', SLOW_REQUEST_LOG_MS: '300' } });
    await createZone(lab.customerA, 'wait-api.example');
  });
  afterAll(async () => lab?.close());

  it('answers after N seconds with the state as it is, and Preference-Applied; the wait is neither cut off nor slow', async () => {
    const started = performance.now();
    const res = await lab.customerA.post('/zones/wait-api.example/records', { name: 'p', type: 'A', data: { address: '192.0.2.1' } }, wait(2));
    expect(performance.now() - started).toBeGreaterThanOrEqual(1950);
    expect(res.status, res.text).toBe(201);
    expect(applied(res)).toBe('wait=2');
    expect(res.body.publication.state).toBe('pending');
    expect(waiters(lab)).toBe(0);
    const metrics = await (await fetch(`${lab.url}/metrics`)).text();
    expect(metrics).not.toMatch(/^http_slow_requests_total\{[^}]*\} [1-9]/m);
  });

  it('holds no database connection or transaction while waiting: more waiters than the pool, and reads answered meanwhile', async () => {
    const writes = Array.from({ length: 15 }, (_, i) =>
      lab.customerA.post('/zones/wait-api.example/records', { name: `pool${i}`, type: 'A', data: { address: `192.0.2.${i + 1}` } }, wait(4)),
    );
    await eventually(async () => (waiters(lab) === 15 ? true : undefined), 5000, 'fifteen waiters');
    expect(await gauge(lab, 'api_live_waiters')).toBe(15);
    const open = await lab.sql.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'`,
    );
    expect(open.rows[0].n).toBe(0);
    expect((await lab.customerA.get('/zones/wait-api.example/records?limit=5')).status).toBe(200);
    for (const res of await Promise.all(writes)) {
      expect(res.status, res.text).toBe(201);
      expect(applied(res)).toBe('wait=4');
      expect(res.body.publication.state).toBe('pending');
    }
    expect(waiters(lab)).toBe(0);
  });

  it('frees the waiter when the client goes away', async () => {
    const gone = new AbortController();
    const request = fetch(`${lab.url}/api/v1/zones/wait-api.example/records`, {
      method: 'POST',
      headers: { authorization: `Bearer ${lab.tokens.customers[0]}`, 'content-type': 'application/json', Prefer: 'wait=60' },
      body: JSON.stringify({ name: 'leave', type: 'A', data: { address: '192.0.2.99' } }),
      signal: gone.signal,
    }).catch((err: Error) => err);
    await eventually(async () => (waiters(lab) === 1 ? true : undefined), 5000, 'the waiter');
    gone.abort();
    expect(await request).toBeInstanceOf(Error);
    await eventually(async () => (waiters(lab) === 0 ? true : undefined), 5000, 'the waiter to go');
    expect(await gauge(lab, 'api_live_waiters')).toBe(0);
    // The write itself committed before the wait.
    expect((await lab.customerA.get('/zones/wait-api.example/records?name=leave')).body.data).toHaveLength(1);
  });

  it('is answered when a worker on the same database — another service here, another process in a deployment — publishes or fails, woken by its NOTIFY', async () => {
    // A zone whose first build fails: data that bypassed the API's validation.
    await createZone(lab.customerA, 'wait-broken.example');
    const broken = await createRecord(lab.customerA, 'wait-broken.example', { name: 'www', type: 'A', data: { address: '192.0.2.1' } });
    await lab.sql.query(`UPDATE records SET data = '{"address":"192.0.2.300"}' WHERE id = $1`, [broken.id]);
    const pending = await createRecord(lab.customerA, 'wait-api.example', { name: 'quiet', type: 'A', data: { address: '192.0.2.78' } });
    // Beside the API's waiter, waiters that never read again on their own: only markLive's and
    // markFailed's NOTIFY can end their wait before its time.
    const db = createDb(lab.databaseUrl, 2);
    const notifiedOnly = new LiveWaiters({ db, databaseUrl: lab.databaseUrl, recheckMs: 3_600_000 });
    try {
      const waiting = lab.customerA.post('/zones/wait-api.example/records', { name: 'remote', type: 'A', data: { address: '192.0.2.77' } }, wait(20));
      const live = waitUntilLive({ liveWaiters: notifiedOnly }, [pending.publication.changeset_id], 20_000);
      const failed = waitUntilLive({ liveWaiters: notifiedOnly }, [broken.publication.changeset_id], 20_000);
      await eventually(async () => (waiters(lab) === 1 && (await listeners(lab)) === 2 ? true : undefined), 5000, 'the waiters and their LISTEN connections');
      // Their first reads (pending) are done well within this.
      await new Promise((r) => setTimeout(r, 300));
      const worker = await startTestService({ databaseUrl: lab.databaseUrl, env: { ROLES: 'worker,nameserver' } });
      try {
        const res = await waiting;
        expect(res.status, res.text).toBe(201);
        expect(applied(res)).toBe('wait=20');
        expect(res.body.publication.state).toBe('live');
        expect(await live).toBe('live');
        expect(await failed).toBe('failed');
      } finally {
        await worker.stop();
      }
    } finally {
      await notifiedOnly.stop();
      await db.destroy();
    }
  });
});

describe('waitUntilLive, the waiter under the API (and later RFC 2136 answers)', () => {
  let lab: DnsLab;
  let db: ReturnType<typeof createDb>;
  const pendingRecord = async (name: string) =>
    (await createRecord(lab.customerA, 'waiter.example', { name, type: 'A', data: { address: '192.0.2.5' } })).publication.changeset_id as string;
  const setState = (id: string, state: string) => lab.sql.query(`UPDATE change_sets SET state = $2 WHERE id = $1`, [id, state]);
  const notify = (zoneId: string) => lab.sql.query(`SELECT pg_notify('changesets_settled', $1)`, [zoneId]);
  let zoneId: string;

  beforeAll(async () => {
    lab = await startDnsLab();
    zoneId = (await createZone(lab.customerA, 'waiter.example')).id;
    db = createDb(lab.databaseUrl, 2);
  });
  afterAll(async () => {
    await db?.destroy();
    await lab?.close();
  });

  it('is woken by the NOTIFY alone (no re-read for an hour), on one LISTEN connection for all its waiters', async () => {
    const liveWaiters = new LiveWaiters({ db, databaseUrl: lab.databaseUrl, recheckMs: 3_600_000 });
    try {
      const [a, b] = [await pendingRecord('n1'), await pendingRecord('n2')];
      const both = waitUntilLive({ liveWaiters }, [a, b], 30_000);
      const one = waitUntilLive({ liveWaiters }, [a], 30_000);
      // Both waiters read their states once (pending) and listen.
      await eventually(async () => ((await listeners(lab)) === 1 ? true : undefined), 5000, 'the LISTEN connection');
      await new Promise((r) => setTimeout(r, 200));
      await setState(a, 'live');
      await notify(zoneId);
      expect(await one).toBe('live');
      expect(liveWaiters.waiting).toBe(1);
      await setState(b, 'pushed');
      await notify(zoneId);
      await new Promise((r) => setTimeout(r, 200));
      expect(liveWaiters.waiting).toBe(1);
      await setState(b, 'live');
      await notify(zoneId);
      expect(await both).toBe('live');
      expect(liveWaiters.waiting).toBe(0);
    } finally {
      await liveWaiters.stop();
    }
  });

  it('reads again without a notification (one lost, or sent while the listener reconnected)', async () => {
    const liveWaiters = new LiveWaiters({ db, databaseUrl: lab.databaseUrl, recheckMs: 50 });
    try {
      const id = await pendingRecord('lost');
      const waiting = waitUntilLive({ liveWaiters }, [id], 30_000);
      await new Promise((r) => setTimeout(r, 100));
      await setState(id, 'live');
      expect(await waiting).toBe('live');
    } finally {
      await liveWaiters.stop();
    }
  });

  it('ends at failed or gone, at its time with the state last read, and at once when aborted or stopped', async () => {
    const liveWaiters = new LiveWaiters({ db, databaseUrl: lab.databaseUrl, recheckMs: 50 });
    const [failing, pending, pushed] = [await pendingRecord('f'), await pendingRecord('p'), await pendingRecord('q')];
    await setState(pushed, 'pushed');
    // Already settled: answered after one read.
    await setState(failing, 'failed');
    expect(await waitUntilLive({ liveWaiters }, [pending, failing], 30_000)).toBe('failed');
    expect(await waitUntilLive({ liveWaiters }, [pending, 'chg_gone'], 30_000)).toBe('gone');
    // A wait of 0 still reads once; at its time a wait answers what it last read.
    expect(await waitUntilLive({ liveWaiters }, [pushed], 0)).toBe('pushed');
    expect(await waitUntilLive({ liveWaiters }, [pending, pushed], 300)).toBe('pending');
    const gone = new AbortController();
    const aborted = waitUntilLive({ liveWaiters }, [pushed], 30_000, gone.signal);
    await new Promise((r) => setTimeout(r, 100));
    gone.abort();
    expect(await aborted).toBe('pushed');
    const stopping = waitUntilLive({ liveWaiters }, [pending], 30_000);
    await new Promise((r) => setTimeout(r, 100));
    await liveWaiters.stop();
    expect(await stopping).toBe('pending');
    expect(liveWaiters.waiting).toBe(0);
    // Its zone deleted while it waits: the change set goes with it.
    const other = new LiveWaiters({ db, databaseUrl: lab.databaseUrl, recheckMs: 50 });
    try {
      const zone = await createZone(lab.customerA, 'waiter-deleted.example');
      const deleting = waitUntilLive({ liveWaiters: other }, [zone.publication.changeset_id], 30_000);
      await new Promise((r) => setTimeout(r, 100));
      await lab.sql.query(`DELETE FROM zones WHERE id = $1`, [zone.id]);
      expect(await deleting).toBe('gone');
    } finally {
      await other.stop();
    }
  });
});

describe('a service stopping with answers waiting', () => {
  it('answers them at once with the state they have, before it waits for requests in flight', async () => {
    const lab = await startTestService({ env: { ROLES: 'api' } });
    try {
      const api = lab.as(lab.tokens.customers[0]);
      expect((await api.post('/zones', { name: 'wait-stop.example' })).status).toBe(201);
      const waiting = api.post('/zones/wait-stop.example/records', { name: 's', type: 'A', data: { address: '192.0.2.1' } }, wait(60));
      await eventually(async () => (lab.service.services.liveWaiters.waiting === 1 ? true : undefined), 5000, 'the waiter');
      // The grace period for requests in flight is 5 s here; past it their connections are cut
      // (the fetch would fail), so an answer means the stop released the wait.
      await lab.service.stop();
      const res = await waiting;
      expect(res.status, res.text).toBe(201);
      expect(applied(res)).toBe('wait=60');
      expect(res.body.publication.state).toBe('pending');
    } finally {
      await lab.stop().catch(() => {});
    }
  });
});

/** Sessions of the waiter's LISTEN connection in the test database. */
async function listeners(lab: DnsLab): Promise<number> {
  const { rows } = await lab.sql.query(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'managed-dns-listener' AND query ILIKE 'LISTEN%changesets_settled%'`,
  );
  return rows[0].n;
}
