// TSIG on the real server (startDnsServer on 127.0.0.1) with the key ring: the deployment's keys
// (any algorithm) and the tenants' (setTenantTsigKeys, replaced at run time). dig and kdig sign
// queries with each of the six algorithms over UDP and TCP and check our signed answers (a
// negative control shows they notice a bad one); signed queries bypass the response cache;
// tenant keys never authorize a zone transfer and never shadow a deployment key; UDP helper
// processes (DNS_UDP_PROCESSES) follow the tenant keys and pass UPDATEs to the main process.
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { startDnsServer, type DnsServer, type UpdateRequest } from '../../nameserver/server.js';
import { RCODE } from '../../nameserver/types.js';
import { MirroredZoneStore } from '../../nameserver/udpProcesses.js';
import { TSIG_ALGORITHMS, type TsigAlgorithm, type TsigKey } from '../../nameserver/wire/tsig.js';
import { buildZoneSnapshot } from '../../nameserver/zone/snapshot.js';
import { requireTool, runToolAsync } from '../helpers/dnsTools.js';
import { digQuery, normalise } from '../helpers/digClient.js';
import { exampleRecords, memoryLogger, startTestServer, storeWith, zoneRecord } from '../helpers/fixtureZones.js';

const tenantKeys: TsigKey[] = TSIG_ALGORITHMS.map((algorithm, i) => ({
  name: `${algorithm}.tenant.key`,
  algorithm,
  secret: Buffer.from(`tenant secret ${i}, ${algorithm}`.padEnd(40, '!')),
  owner: `credential-${i}`,
}));
const tenantKey = (algorithm: TsigAlgorithm) => tenantKeys.find((k) => k.algorithm === algorithm)!;
/** The deployment's key, of a non-default algorithm (DNS_TSIG_KEYS=hmac-sha384:xfr.key:…). */
const DEPLOYMENT = { name: 'Xfr.Key.', algorithm: 'hmac-sha384' as const, secret: Buffer.from('the deployment secret, 48 octets long, or so it is') };
const yArg = (k: Pick<TsigKey, 'name' | 'algorithm' | 'secret'>) => ['-y', `${k.algorithm}:${k.name}:${k.secret.toString('base64')}`];

async function dig(ctx: TestContext, tool: 'dig' | 'kdig', port: number, name: string, type: string, extra: string[] = []) {
  return digQuery(requireTool(tool, ctx), port, name, type, extra);
}

/** What the tools print when they cannot verify our signature. */
const VERIFY_FAILURE = /tsig verify failure|Couldn't verify|failed to verify|expected a TSIG/i;

describe('signed queries with the key ring', () => {
  let server: DnsServer;
  let logger: ReturnType<typeof memoryLogger>;

  beforeAll(async () => {
    ({ server, logger } = await startTestServer(storeWith({ 'example.com': exampleRecords() }), { tsigKeys: [DEPLOYMENT] }));
    server.setTenantTsigKeys(tenantKeys);
  });
  afterAll(async () => {
    await server?.close();
  });

  for (const tool of ['dig', 'kdig'] as const) {
    it(`${tool}: a query signed with each algorithm is answered signed, over UDP and TCP; the answer is the unsigned one's`, async (ctx) => {
      const unsigned = await dig(ctx, tool, server.port, 'www.example.com', 'A');
      expect(unsigned.status).toBe('NOERROR');
      for (const key of [...tenantKeys, { ...DEPLOYMENT, name: 'xfr.key' }]) {
        for (const transport of ['+notcp', '+tcp']) {
          const signed = await dig(ctx, tool, server.port, 'www.example.com', 'A', [transport, ...yArg(key)]);
          expect(signed.status, `${key.algorithm} ${transport}`).toBe('NOERROR');
          expect(signed.output).toMatch(/TSIG PSEUDOSECTION/);
          expect(signed.output, `${key.algorithm} ${transport}`).not.toMatch(VERIFY_FAILURE);
          // The tools print the TSIG record after the last section they show.
          expect(signed.answer.filter((l) => !/ TSIG /.test(l))).toEqual(unsigned.answer);
        }
      }
    });
  }

  it('negative controls: a wrong secret is BADSIG, an unknown key BADKEY, an algorithm not the key’s BADKEY; dig reads NOTAUTH', async (ctx) => {
    const key = tenantKey('hmac-sha224');
    const badSig = await dig(ctx, 'dig', server.port, 'www.example.com', 'A', yArg({ ...key, secret: Buffer.from('another secret entirely, 32 oct') }));
    expect(badSig.status).toBe('NOTAUTH');
    expect(badSig.output).toMatch(/BADSIG/);
    const badKey = await dig(ctx, 'dig', server.port, 'www.example.com', 'A', yArg({ ...key, name: 'nobody.key' }));
    expect(badKey.output).toMatch(/BADKEY/);
    const otherAlgorithm = await dig(ctx, 'kdig', server.port, 'www.example.com', 'A', yArg({ ...key, algorithm: 'hmac-sha256' }));
    expect(otherAlgorithm.output).toMatch(/BADKEY/);
    expect(logger.lines.filter((l) => l.msg === 'TSIG verification failed').map((l) => (l.obj as { error: string }).error)).toEqual([
      'BADSIG',
      'BADKEY',
      'BADKEY',
    ]);
  });

  it('signed queries bypass the response cache (each answer signed afresh); unsigned ones use it', async (ctx) => {
    const before = server.stats().cache;
    await dig(ctx, 'dig', server.port, 'txt.example.com', 'TXT');
    await dig(ctx, 'dig', server.port, 'txt.example.com', 'TXT');
    const unsigned = server.stats().cache;
    expect(unsigned.hits - before.hits).toBe(1);
    const key = tenantKey('hmac-sha1');
    const macs: string[] = [];
    for (let i = 0; i < 2; i++) {
      const signed = await dig(ctx, 'dig', server.port, 'txt.example.com', 'TXT', yArg(key));
      expect(signed.output).not.toMatch(VERIFY_FAILURE);
      macs.push(/TSIG\s+hmac-sha1\. \d+ 300 20 (\S+)/.exec(signed.output)![1]!);
    }
    // No hit, no miss: a signed query is not even looked up.
    expect(server.stats().cache).toMatchObject({ hits: unsigned.hits, misses: unsigned.misses });
    expect(macs[0]).not.toBe(macs[1]);
  });

  it('NOTIFY signed with a tenant key of any algorithm is acknowledged, signed', async (ctx) => {
    for (const algorithm of ['hmac-md5', 'hmac-sha512'] as const) {
      const run = await dig(ctx, 'dig', server.port, 'example.com', 'SOA', ['+opcode=notify', ...yArg(tenantKey(algorithm))]);
      expect(run.output).toMatch(/opcode: NOTIFY, status: NOERROR/);
      expect(run.output).not.toMatch(VERIFY_FAILURE);
    }
  });
});

describe('zone transfers: deployment keys only', () => {
  const axfr = async (ctx: TestContext, port: number, extra: string[] = []) => {
    const run = await runToolAsync(requireTool('dig', ctx), ['@127.0.0.1', '-p', String(port), 'example.com', 'AXFR', ...extra]);
    const records = run.stdout
      .split('\n')
      .filter((l) => l.trim() !== '' && !l.startsWith(';') && !/\sTSIG\s/.test(l))
      .map(normalise);
    return { records, output: run.stdout + run.stderr };
  };

  it('with deployment keys: the deployment key (hmac-sha384) transfers; a tenant key, or none, is REFUSED', async (ctx) => {
    const { server, logger } = await startTestServer(storeWith({ 'example.com': exampleRecords() }), { tsigKeys: [DEPLOYMENT] });
    try {
      server.setTenantTsigKeys(tenantKeys);
      const ok = await axfr(ctx, server.port, yArg({ ...DEPLOYMENT, name: 'xfr.key' }));
      expect(ok.records).toHaveLength(exampleRecords().length + 1);
      expect(ok.output).not.toMatch(VERIFY_FAILURE);
      for (const key of [tenantKey('hmac-sha384'), tenantKey('hmac-md5')]) {
        const refused = await axfr(ctx, server.port, yArg(key));
        expect(refused.records).toEqual([]);
        expect(refused.output).toMatch(/REFUSED|Transfer failed/);
      }
      expect((await axfr(ctx, server.port)).records).toEqual([]);
      expect(logger.lines.filter((l) => l.msg === 'zone transfer refused').map((l) => (l.obj as { reason: string }).reason)).toEqual([
        "signed with a tenant's key",
        "signed with a tenant's key",
        'no TSIG (keys are configured)',
      ]);
    } finally {
      await server.close();
    }
  });

  it('without deployment keys: unsigned transfers from transferAllow work, a tenant-signed one is still REFUSED', async (ctx) => {
    const { server } = await startTestServer(storeWith({ 'example.com': exampleRecords() }));
    try {
      server.setTenantTsigKeys(tenantKeys);
      expect((await axfr(ctx, server.port)).records).toHaveLength(exampleRecords().length + 1);
      const refused = await axfr(ctx, server.port, yArg(tenantKey('hmac-sha256')));
      expect(refused.records).toEqual([]);
      expect(refused.output).toMatch(/REFUSED|Transfer failed/);
    } finally {
      await server.close();
    }
  });

  it("a tenant key named like a deployment key is left out (the deployment's wins); replacing the set drops old keys", async (ctx) => {
    const { server, logger } = await startTestServer(storeWith({ 'example.com': exampleRecords() }), { tsigKeys: [DEPLOYMENT] });
    try {
      const impostor: TsigKey = {
        name: 'XFR.key',
        algorithm: 'hmac-sha384',
        secret: Buffer.from('a tenant who wants the provider key name'),
        owner: 'credential-x',
      };
      server.setTenantTsigKeys([impostor, tenantKey('hmac-sha1')]);
      expect(logger.lines.find((l) => l.msg.startsWith('tenant TSIG keys left out'))?.obj).toEqual({ shadowed: ['xfr.key'], duplicates: [] });
      const asImpostor = await dig(ctx, 'dig', server.port, 'www.example.com', 'A', yArg(impostor));
      expect(asImpostor.output).toMatch(/BADSIG/);
      expect((await axfr(ctx, server.port, yArg(impostor))).records).toEqual([]);
      expect((await axfr(ctx, server.port, yArg({ ...DEPLOYMENT, name: 'xfr.key' }))).records).toHaveLength(exampleRecords().length + 1);

      expect((await dig(ctx, 'dig', server.port, 'www.example.com', 'A', yArg(tenantKey('hmac-sha1')))).status).toBe('NOERROR');
      server.setTenantTsigKeys([tenantKey('hmac-sha512')]);
      expect((await dig(ctx, 'dig', server.port, 'www.example.com', 'A', yArg(tenantKey('hmac-sha1')))).output).toMatch(/BADKEY/);
      expect((await dig(ctx, 'dig', server.port, 'www.example.com', 'A', yArg(tenantKey('hmac-sha512')))).status).toBe('NOERROR');
    } finally {
      await server.close();
    }
  });
});

describe('UDP helper processes (DNS_UDP_PROCESSES=2): tenant keys and UPDATE forwarding', () => {
  let server: DnsServer;
  let store: MirroredZoneStore;
  const requests: UpdateRequest[] = [];

  beforeAll(async () => {
    store = new MirroredZoneStore();
    store.set(buildZoneSnapshot('example.com', exampleRecords().map(zoneRecord)));
    server = await startDnsServer({
      hosts: ['127.0.0.1'],
      port: 0,
      store,
      maxTcpConnections: 16,
      tcpIdleMs: 5000,
      transferAllow: ['127.0.0.1/32'],
      tsigKeys: [DEPLOYMENT],
      logger: memoryLogger(),
      updates: async (request) => {
        requests.push(request);
        return RCODE.NOERROR;
      },
    });
    await store.startHelpers(1, server.udp, { transferAllow: ['127.0.0.1/32'], tsigKeys: [DEPLOYMENT], handler: server.handler });
  }, 60_000);
  afterAll(async () => {
    await store?.stopHelpers();
    await server?.close();
  });

  /** Runs `round` until the helper's counter `counter` grew (the kernel decides which process reads a datagram). */
  async function untilHelperCounts(counter: (s: Awaited<ReturnType<MirroredZoneStore['helperStats']>>[number]) => number, round: () => Promise<void>) {
    const before = counter((await store.helperStats())[0]!);
    for (let i = 0; i < 10; i++) {
      await round();
      if (counter((await store.helperStats())[0]!) > before) return;
    }
    throw new Error('the helper process read none of the datagrams in 10 rounds');
  }

  it('tenant keys set after the helpers started reach them: signed queries the helper answers verify', async (ctx) => {
    server.setTenantTsigKeys(tenantKeys);
    await new Promise((r) => setTimeout(r, 100));
    await untilHelperCounts(
      (s) => s.queries.udp,
      async () => {
        const runs = await Promise.all(tenantKeys.flatMap((key) => [1, 2, 3].map(() => dig(ctx, 'dig', server.port, 'www.example.com', 'A', yArg(key)))));
        for (const run of runs) {
          expect(run.status, run.output).toBe('NOERROR');
          expect(run.output).not.toMatch(VERIFY_FAILURE);
        }
      },
    );
  });

  it('an UPDATE read by the helper is answered by the main process (one handler), signed, through the helper', async (ctx) => {
    server.setTenantTsigKeys(tenantKeys);
    const nsupdate = requireTool('nsupdate', ctx);
    let sent = 0;
    await untilHelperCounts(
      (s) => s.updates.forwarded,
      async () => {
        const runs = await Promise.all(
          Array.from({ length: 12 }, (_, i) => {
            const key = tenantKeys[i % tenantKeys.length]!;
            sent++;
            return runToolAsync(
              nsupdate,
              yArg(key),
              30_000,
              `server 127.0.0.1 ${server.port}\nzone example.com.\nupdate add n${sent}.example.com 60 A 192.0.2.1\nsend\n`,
            );
          }),
        );
        for (const run of runs) expect(run.code, run.stdout + run.stderr).toBe(0);
      },
    );
    expect(requests).toHaveLength(sent);
    expect(new Set(requests.map((r) => r.updates[0]!.name)).size).toBe(sent);
    expect(requests.every((r) => r.transport === 'udp' && r.remoteAddress === '127.0.0.1' && r.key?.owner?.startsWith('credential-'))).toBe(true);
    const helper = (await store.helperStats())[0]!;
    expect(server.stats().updates.received).toBe(sent);
    expect(helper.updates.forwarded).toBeGreaterThan(0);
    expect(helper.updates.received).toBe(0);
  });
});
