// PostgreSQL that stops answering (a frozen server, a network partition) rather than refusing:
// a proxy between the service and the database stops forwarding bytes without closing anything.
// Requests must answer 503 within the configured bounds, /healthz at once, the nameserver from
// its snapshots; everything recovers when the path comes back.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createZone, type DnsLab, startDnsLab } from '../helpers/dnsLab.js';
import { eventually, queryDns } from '../helpers/dnsQuery.js';
import { type FreezableProxy, startFreezableProxy } from '../helpers/freezableProxy.js';
import { createDatabase, startTestService, type TestService } from '../helpers/testService.js';

// The defaults (src/config/index.ts): connect 3 s, pool acquire 5 s, statement 5 s + 1 s on the
// client. Every request must have its answer by then, with a little room for a loaded machine.
const REQUEST_BOUND_MS = 6000 + 1500;
const HEALTHZ_BOUND_MS = 1000 + 1000;

describe('PostgreSQL unresponsive', () => {
  let database: Awaited<ReturnType<typeof createDatabase>>;
  let proxy: FreezableProxy;
  let lab: DnsLab;
  beforeAll(async () => {
    database = await createDatabase();
    proxy = await startFreezableProxy(database.url);
    lab = await startDnsLab({ databaseUrl: proxy.url, env: { ROLES: 'api,nameserver,worker' } });
  });
  afterAll(async () => {
    proxy?.thaw();
    await lab?.close();
    await proxy?.close();
    await database?.drop();
  });

  it('answers 503 problem+json within the bounds, /healthz at once, DNS throughout, and recovers', async () => {
    await createZone(lab.customerA, 'frozen-db.example');
    await eventually(
      async () => ((await lab.customerA.get('/zones/frozen-db.example')).body.status === 'active' ? true : undefined),
      10_000,
      'the zone to be active',
    );
    const port = lab.service.nameserver!.server.port;

    proxy.freeze();
    const timed = async (path: string, headers: Record<string, string> = {}, body?: unknown) => {
      const started = performance.now();
      const res = await fetch(`${lab.url}${path}`, {
        method: body ? 'POST' : 'GET',
        headers: body ? { ...headers, 'content-type': 'application/json' } : headers,
        body: body ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(60_000),
      });
      return { status: res.status, type: res.headers.get('content-type'), body: await res.json(), ms: performance.now() - started };
    };
    const auth = { authorization: `Bearer ${lab.tokens.customers[0]}` };
    // Reads on the pool and writes in a transaction (whose rollback meets the same silence).
    const requests = Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        i % 3 === 0
          ? timed('/api/v1/zones/frozen-db.example/records', auth, { name: `w${i}`, type: 'A', data: { address: '192.0.2.1' } })
          : timed(i % 3 === 1 ? '/api/v1/zones/frozen-db.example' : '/api/v1/zones', auth),
      ),
    );

    // While those wait: readiness says so at once, and the nameserver answers from memory.
    const health = await timed('/healthz');
    expect(health.status).toBe(503);
    expect(health.body.checks.database).toBe('down');
    expect(health.ms).toBeLessThan(HEALTHZ_BOUND_MS);
    const soa = await queryDns(port, 'frozen-db.example', 'SOA');
    expect(soa.rcode).toBe(0);
    expect(soa.answers).toHaveLength(1);

    const answers = await requests;
    for (const a of answers) {
      expect(a.status).toBe(503);
      expect(a.type).toContain('application/problem+json');
      expect(a.body.code).toBe('service_unavailable');
      expect(a.ms).toBeLessThan(REQUEST_BOUND_MS);
    }
    // Still frozen: a second wave is bounded the same way (the cut connections were dropped, not
    // handed to the next request).
    const again = await Promise.all(Array.from({ length: 10 }, () => timed('/api/v1/zones', auth)));
    expect(again.map((a) => a.status)).toEqual(Array(10).fill(503));
    expect(Math.max(...again.map((a) => a.ms))).toBeLessThan(REQUEST_BOUND_MS);

    proxy.thaw();
    await eventually(async () => ((await lab.customerA.get('/zones/frozen-db.example')).status === 200 ? true : undefined), 15_000, 'the API to answer again');
    expect((await timed('/healthz')).status).toBe(200);
    const burst = await Promise.all(Array.from({ length: 30 }, () => lab.customerA.get('/zones')));
    expect(burst.map((r) => r.status)).toEqual(Array(30).fill(200));
  }, 90_000);
});

describe('a statement PostgreSQL itself gives up on (statement_timeout)', () => {
  let lab: TestService;
  beforeAll(async () => {
    lab = await startTestService({ env: { ROLES: 'api', DB_STATEMENT_TIMEOUT_MS: '1000' } });
  });
  afterAll(() => lab?.stop());

  it('answers 503 service_unavailable, not 500, and the connection serves the next request', async () => {
    const reseller = lab.tokens.tenants.reseller;
    const blocker = new pg.Client({ connectionString: lab.databaseUrl });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('SELECT id FROM tenants WHERE id = $1 FOR UPDATE', [reseller]);
      const started = performance.now();
      const res = await lab.as(lab.tokens.platform).patch(`/tenants/${reseller}`, { name: 'Waits for a lock' });
      expect(res.status, res.text).toBe(503);
      expect(res.body.code).toBe('service_unavailable');
      expect(performance.now() - started).toBeLessThan(1000 + 1500);
    } finally {
      await blocker.query('ROLLBACK');
      await blocker.end();
    }
    expect((await lab.as(lab.tokens.platform).patch(`/tenants/${reseller}`, { name: 'No lock now' })).status).toBe(200);
  });
});
