// Forward records of a large address space (docs/rdns.md "Forward records of default PTRs"): an
// IPv4 /18's 16,384 A records are written in change sets of at most 4,096 — the first by the
// request, the rest by a worker from the job row the request left. The worker here is a second
// process started after the request (as a restart, or a worker elsewhere, would pick the job up):
// the job lives in the database, not in the process that took the request. `dig` at the
// nameserver resolves the default names back, the space shows its progress, and a new pattern
// and the space's removal are carried out in chunks the same way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAddress, reverseName } from '../../src/domain/ip/address.js';
import { digQuery } from '../helpers/digClient.js';
import { createZone, type DnsLab, startDnsLab } from '../helpers/dnsLab.js';
import { eventually } from '../helpers/dnsQuery.js';
import { requireTool } from '../helpers/dnsTools.js';
import { startTestService, type TestService } from '../helpers/testService.js';

const ZONE = 'pool.example';
const CIDR = '198.18.0.0/18';
const TOTAL = 16_384;
const CHUNK = 4096;

// Each test waits up to a minute for the worker's chunks (`complete`); on a loaded CI machine a rename took over 30 s.
describe('forward records of a /18, written in chunks by the worker', { timeout: 120_000 }, () => {
  let lab: DnsLab;
  let worker: TestService | null = null;
  let spaceId: string;
  const port = () => lab.service.nameserver!.server.port;
  const answer = async (name: string, type: string) => (await digQuery(requireTool('dig')!, port(), `${name}.`, type)).answer.map((l) => l.split(' ').pop()!);
  const served = (name: string, type: string, expected: string[]) =>
    eventually(
      async () => (JSON.stringify(await answer(name, type)) === JSON.stringify(expected) ? true : undefined),
      30_000,
      `${name} ${type} = ${expected.join(', ')}`,
    );
  const space = async () => (await lab.platform.get(`/ip-spaces/${spaceId}`)).body;
  const complete = () =>
    eventually(async () => ((await space()).forward_records.state === 'complete' ? space() : undefined), 60_000, 'forward records complete');
  const keptBySpace = async () => Number((await lab.sql.query('SELECT count(*) AS n FROM records WHERE managed_by = $1', [spaceId])).rows[0].n);
  const changeSetsOfZone = async () =>
    Number(
      (await lab.sql.query("SELECT count(*) AS n FROM change_sets c JOIN zones z ON z.id = c.zone_id WHERE z.name = $1 AND c.kind = 'records'", [ZONE])).rows[0]
        .n,
    );

  beforeAll(async () => {
    // No worker role here: only the API and the nameserver. The worker process comes later.
    lab = await startDnsLab({ env: { ROLES: 'api,nameserver' } });
    await createZone(lab.platform, ZONE);
  });
  afterAll(async () => {
    await worker?.stop();
    await lab?.close();
  });

  it('writes the first chunk in the request and leaves the rest pending', async () => {
    const created = await lab.platform.post('/ip-spaces', { cidr: CIDR, ptr_pattern: 'static.{dashed}.pool.example.', forward_zone: ZONE });
    expect(created.status, created.text).toBe(201);
    spaceId = created.body.id;
    expect(created.body.forward_records).toEqual({ state: 'pending', total: TOTAL, written: CHUNK, stale: 0, error: null });
    expect(await keptBySpace()).toBe(CHUNK);
    expect(await changeSetsOfZone()).toBe(1);
    // The listing shows the same.
    const listed = (await lab.platform.get('/ip-spaces')).body.data.find((s: any) => s.id === spaceId);
    expect(listed.forward_records).toMatchObject({ state: 'pending', written: CHUNK });
  });

  it('is finished by a worker process started afterwards, one change set per chunk, and resolves', async () => {
    worker = await startTestService({ databaseUrl: lab.databaseUrl, env: { ROLES: 'worker', DNS_VERIFY_SERVERS: `127.0.0.1:${port()}` } });
    const done = await complete();
    expect(done.forward_records).toEqual({ state: 'complete', total: TOTAL, written: TOTAL, stale: 0, error: null });
    expect(await keptBySpace()).toBe(TOTAL);
    expect(await changeSetsOfZone()).toBe(TOTAL / CHUNK);
    // No change set larger than a chunk.
    const largest = (
      await lab.sql.query("SELECT max(c.item_count) AS n FROM change_sets c JOIN zones z ON z.id = c.zone_id WHERE z.name = $1 AND c.kind = 'records'", [ZONE])
    ).rows[0].n;
    expect(Number(largest)).toBe(CHUNK);
    for (const ip of ['198.18.0.0', '198.18.31.200', '198.18.63.255']) await served(`static.${ip.replaceAll('.', '-')}.${ZONE}`, 'A', [ip]);
    // The default PTR names the same host.
    await served(reverseName(parseAddress('198.18.63.255')), 'PTR', [`static.198-18-63-255.${ZONE}.`]);
  });

  it('renames them with a new pattern, chunk by chunk, old names removed', async () => {
    const patched = await lab.platform.patch(`/ip-spaces/${spaceId}`, { ptr_pattern: 'host-{dashed}.pool.example.' });
    expect(patched.status, patched.text).toBe(200);
    // The request's chunk: half new names, half old ones removed.
    expect(patched.body.forward_records).toEqual({ state: 'pending', total: TOTAL, written: CHUNK / 2, stale: TOTAL - CHUNK / 2, error: null });
    const done = await complete();
    expect(done.forward_records).toEqual({ state: 'complete', total: TOTAL, written: TOTAL, stale: 0, error: null });
    expect(await keptBySpace()).toBe(TOTAL);
    const oldNames = Number((await lab.sql.query("SELECT count(*) AS n FROM records WHERE managed_by = $1 AND name LIKE 'static.%'", [spaceId])).rows[0].n);
    expect(oldNames).toBe(0);
    await served(`host-198-18-40-1.${ZONE}`, 'A', ['198.18.40.1']);
    await served(`static.198-18-40-1.${ZONE}`, 'A', []);
  });

  it('reports a refused chunk on the space and finishes once the conflict is gone', async () => {
    // The platform takes a name the new zone's chunk will need (beyond the request's chunk).
    await createZone(lab.platform, 'pool2.example');
    const own = await lab.platform.post('/zones/pool2.example/records', { name: 'host-198-18-50-7', type: 'A', data: { address: '192.0.2.1' } });
    expect(own.status, own.text).toBe(201);
    const moved = await lab.platform.patch(`/ip-spaces/${spaceId}`, { ptr_pattern: 'host-{dashed}.pool2.example.', forward_zone: 'pool2.example' });
    expect(moved.status, moved.text).toBe(200);
    const failed = await eventually(
      async () => {
        const s = await space();
        return s.forward_records.state === 'failed' ? s : undefined;
      },
      60_000,
      'forward records failed',
    );
    expect(failed.forward_records.error).toMatchObject({ code: 'record_managed' });
    expect(failed.forward_records.written).toBeLessThan(TOTAL);
    // Backed off by the worker's clock: 10 s after the first failure, doubling with each attempt after it.
    const job = (await lab.sql.query('SELECT attempts, run_after FROM forward_record_jobs WHERE space_id = $1', [spaceId])).rows[0];
    expect(job.attempts).toBeGreaterThanOrEqual(1);
    expect(new Date(job.run_after).getTime() - worker!.clock.now().getTime()).toBe(Math.min(10_000 * 2 ** (job.attempts - 1), 15 * 60_000));
    // The platform removes its record and sends the zone again: the job is retried at once.
    expect((await lab.platform.delete(`/zones/pool2.example/records/${own.body.id}`)).status).toBe(202);
    expect((await lab.platform.patch(`/ip-spaces/${spaceId}`, { forward_zone: 'pool2.example' })).status).toBe(200);
    expect((await complete()).forward_records).toEqual({ state: 'complete', total: TOTAL, written: TOTAL, stale: 0, error: null });
    await served('host-198-18-50-7.pool2.example', 'A', ['198.18.50.7']);
    // Nothing of the space is left in the zone it left.
    expect(
      Number(
        (await lab.sql.query('SELECT count(*) AS n FROM records r JOIN zones z ON z.id = r.zone_id WHERE z.name = $1 AND managed_by = $2', [ZONE, spaceId]))
          .rows[0].n,
      ),
    ).toBe(0);
  });

  it('removes them with the space, the rest after the request by the worker', async () => {
    expect((await lab.platform.delete(`/ip-spaces/${spaceId}`)).status).toBe(204);
    await eventually(async () => ((await keptBySpace()) === 0 ? true : undefined), 60_000, 'the removed space’s records gone');
    expect(Number((await lab.sql.query('SELECT count(*) AS n FROM forward_record_jobs')).rows[0].n)).toBe(0);
    await served('host-198-18-63-1.pool2.example', 'A', []);
  });
});
