// The default deployment of one process (THREADED_ROLES=on, as `npm start` runs it): the API on
// the main thread, the nameserver and worker roles in a thread of their own. Started in-process
// with the system clock (an injected clock cannot reach the other thread), the test checks what a
// user of one process sees: readiness of both, a write published and answered over DNS on the
// thread's port (also one whose answer waited until live, `Prefer: wait`), /metrics counting the
// thread's nameserver and builds, and a clean stop.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { createLogger } from '../../src/observability/logger.js';
import { startRolesThread } from '../../src/rolesThread.js';
import { type RunningService, startService } from '../../src/service.js';
import { ApiClient } from '../helpers/apiClient.js';
import { createRecord, createZone } from '../helpers/dnsLab.js';
import { eventually, queryDns } from '../helpers/dnsQuery.js';
import { createDatabase } from '../helpers/testService.js';

describe('the nameserver and worker roles in their own thread (THREADED_ROLES=on)', () => {
  let service: RunningService;
  let database: { url: string; drop: () => Promise<void> };
  let dataDir: string;
  let customer: ApiClient;

  beforeAll(async () => {
    database = await createDatabase();
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'mdns-threads-'));
    const config = loadConfig({ DATABASE_URL: database.url, HTTP_PORT: '0', DNS_PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent', LAB_RDNS_SEED: 'off' });
    expect(config.threadedRoles).toBe(true);
    service = await startService(config, { logger: createLogger('silent'), shutdownGraceMs: 5000 });
    customer = new ApiClient(service.httpUrl!, service.lab!.tokens.customers[0]!);
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
    await database?.drop();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('runs the API here and the other roles in the thread, and is ready only with both', async () => {
    expect(service.nameserver).toBeNull();
    expect(service.publication).toBeNull();
    expect(service.rolesThread?.dnsPort).toEqual(expect.any(Number));
    const health = await fetch(`${service.httpUrl}/healthz`);
    expect(health.status).toBe(200);
    expect((await health.json()).checks).toEqual({ database: 'ok', nameserver: 'ok', secondaries: 'ok' });
  });

  it('publishes a write: live, and answered by the thread’s nameserver', async () => {
    await createZone(customer, 'threads.example');
    const record = await createRecord(customer, 'threads.example', { name: 'www', type: 'A', ttl: 300, data: { address: '192.0.2.44' } });
    await eventually(
      async () => {
        const res = await customer.get(`/zones/threads.example/changesets/${record.publication.changeset_id}`);
        return res.body.state === 'live' ? true : undefined;
      },
      20_000,
      'the change set to be live',
    );
    const answer = await queryDns(service.rolesThread!.dnsPort!, 'www.threads.example', 'A');
    expect(answer.aa).toBe(true);
    expect(answer.answers.map((a) => a.address)).toEqual(['192.0.2.44']);
  });

  it('answers a write with Prefer: wait once the thread’s worker made it live (its NOTIFY crosses threads)', async () => {
    const res = await customer.post(
      '/zones/threads.example/records',
      { name: 'waited', type: 'A', ttl: 300, data: { address: '192.0.2.45' } },
      { headers: { Prefer: 'wait=10' } },
    );
    expect(res.status, res.text).toBe(201);
    expect(res.headers.get('preference-applied')).toBe('wait=10');
    expect(res.body.publication.state).toBe('live');
    const answer = await queryDns(service.rolesThread!.dnsPort!, 'waited.threads.example', 'A');
    expect(answer.answers.map((a) => a.address)).toEqual(['192.0.2.45']);
  });

  it('shows the thread’s nameserver and builds on /metrics', async () => {
    await queryDns(service.rolesThread!.dnsPort!, 'threads.example', 'SOA');
    const text = await (await fetch(`${service.httpUrl}/metrics`)).text();
    const value = (line: string) => Number(new RegExp(`^${line.replace(/[{}"]/g, '\\$&')} (\\d+)$`, 'm').exec(text)?.[1] ?? NaN);
    expect(value('dns_zones_loaded')).toBeGreaterThanOrEqual(1);
    expect(value('dns_queries_received{transport="udp"}')).toBeGreaterThanOrEqual(2);
    // The zone and its record may go out in one version: at least one build.
    expect(value('zone_builds_total{signing="unsigned"}')).toBeGreaterThanOrEqual(1);
    expect(value('webhook_attempts_in_flight')).toBe(0);
  });

  it('fails the start with the thread’s own reason when its roles cannot start', async () => {
    const exited: Error[] = [];
    const start = startRolesThread(
      { source: {}, roles: ['worker'], databaseUrl: 'http://not-postgres', serviceModule: new URL('../../src/service.ts', import.meta.url).href },
      createLogger('silent'),
      (err) => exited.push(err),
    );
    await expect(start).rejects.toThrow(/DATABASE_URL .*must be a postgres/);
    // A failed start is the caller's to report, not a thread that stopped later.
    expect(exited).toEqual([]);
  });

  it('stops both threads: the nameserver no longer answers', async () => {
    const port = service.rolesThread!.dnsPort!;
    await service.stop();
    await expect(queryDns(port, 'threads.example', 'SOA', { timeoutMs: 500 })).rejects.toThrow();
    service = null as unknown as RunningService;
  });
});
