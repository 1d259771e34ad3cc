// RFC 2136 dynamic update on the real server (startDnsServer on 127.0.0.1), sent by clients
// nobody here wrote: BIND's nsupdate (-y alg:name:secret, -v for TCP) and Knot's knsupdate (the
// script's `key alg:name secret`). The UpdateHandler is the test's own — the service boundary:
// it records what the nameserver hands over and answers the rcode the test chooses. Checked:
// every TSIG algorithm over UDP and TCP, how RFC 2136 encodes each prerequisite and update
// (classes, TTLs, RDATA), SOA discovery without a `zone` line, and each refusal in its order
// (BADKEY, BADSIG, NOTAUTH for a zone not served, NOTZONE, REFUSED unsigned, NOTIMP without a
// handler) as the clients report it.
import dgram from 'node:dgram';
import { afterAll, beforeAll, beforeEach, describe, expect, it, type TestContext } from 'vitest';
import type { DnsServer, UpdateRequest } from '../../nameserver/server.js';
import { CLASS, OPCODE, RCODE, TYPE } from '../../nameserver/types.js';
import { MessageWriter } from '../../nameserver/wire/messageWriter.js';
import { encodeName } from '../../nameserver/wire/name.js';
import { parseMessage } from '../../nameserver/wire/parseMessage.js';
import { encodeRdata } from '../../nameserver/wire/rdata.js';
import { signMessage, TSIG_ALGORITHMS, type TsigAlgorithm, type TsigKey } from '../../nameserver/wire/tsig.js';
import { requireTool, runToolAsync } from '../helpers/dnsTools.js';
import { failedWith, runUpdate, type UpdateClient, type UpdateRunOptions } from '../helpers/nsupdate.js';
import { exampleRecords, startTestServer, storeWith } from '../helpers/fixtureZones.js';
import { buildQuery, TcpDnsClient } from '../helpers/tcpClient.js';

type Client = UpdateClient;

/** One tenant key per algorithm ("hmac-sha1.tenant", …), each its own secret and owner. */
const tenantKeys: TsigKey[] = TSIG_ALGORITHMS.map((algorithm, i) => ({
  name: `${algorithm}.tenant`,
  algorithm,
  secret: Buffer.from(`tenant secret ${i} for ${algorithm}`.padEnd(32, '.')),
  owner: `credential-${i}`,
}));
const keyOf = (algorithm: TsigAlgorithm) => tenantKeys.find((k) => k.algorithm === algorithm)!;
const DEFAULT_KEY = keyOf('hmac-sha256');

/** Runs `client` with the script `lines` (after `server` and, unless noZone, `zone example.com`), then `send`. */
const update = (ctx: TestContext, client: Client, port: number, lines: string[], options: Omit<UpdateRunOptions, 'zone'> & { noZone?: boolean } = {}) =>
  runUpdate(ctx, client, port, lines, { ...options, zone: options.noZone ? null : 'example.com' });

const empty = Buffer.alloc(0);
const rr = (name: string, type: number, klass: number, ttl: number, rdata: Buffer = empty) => ({ name, type, klass, ttl, rdata });
const a = (address: string) => encodeRdata('A', { address });

describe('UPDATE with nsupdate and knsupdate (RFC 2136, TSIG per RFC 8945)', () => {
  let server: DnsServer;
  let logger: Awaited<ReturnType<typeof startTestServer>>['logger'];
  const requests: UpdateRequest[] = [];
  let answer: (request: UpdateRequest) => Promise<number> = async () => RCODE.NOERROR;

  beforeAll(async () => {
    const deploymentKey = { name: 'xfr.key', secret: Buffer.from('the deployment key, 32 octets!!!') };
    ({ server, logger } = await startTestServer(storeWith({ 'example.com': exampleRecords() }), {
      tsigKeys: [deploymentKey],
      updates: (request) => {
        requests.push(request);
        return answer(request);
      },
    }));
    server.setTenantTsigKeys(tenantKeys);
  });
  afterAll(async () => {
    await server?.close();
  });
  beforeEach(() => {
    requests.length = 0;
    answer = async () => RCODE.NOERROR;
  });

  for (const client of ['nsupdate', 'knsupdate'] as const) {
    for (const algorithm of TSIG_ALGORITHMS) {
      it(`${client}, ${algorithm}: an add over UDP and over TCP reaches the handler with its key; the client believes our signed answer`, async (ctx) => {
        const key = keyOf(algorithm);
        for (const tcp of [false, true]) {
          const run = await update(ctx, client, server.port, [`update add ${algorithm}.example.com 300 A 192.0.2.7`], { key, tcp });
          expect(run.code, run.output).toBe(0);
          expect(run.output).not.toMatch(/failed|BADSIG|BADKEY|ERROR:/);
        }
        expect(requests.map((r) => [r.zone, r.transport, r.key, r.prerequisites, r.updates])).toEqual(
          (['udp', 'tcp'] as const).map((transport) => [
            'example.com',
            transport,
            key,
            [],
            [rr(`${algorithm}.example.com`, TYPE.A, CLASS.IN, 300, a('192.0.2.7'))],
          ]),
        );
      });
    }

    it(`${client}: every prerequisite and update form, as RFC 2136 §2.4 and §2.5 encode them`, async (ctx) => {
      const run = await update(
        ctx,
        client,
        server.port,
        [
          'prereq yxdomain www.example.com',
          'prereq nxdomain new.example.com',
          'prereq yxrrset www.example.com A',
          'prereq yxrrset www.example.com A 192.0.2.10',
          'prereq nxrrset www.example.com TXT',
          'update add new.example.com 300 A 192.0.2.7',
          'update add new.example.com 600 MX 10 mx.example.com.',
          'update add new.example.com 60 TXT "v=spf1 -all"',
          'update delete www.example.com AAAA',
          'update delete txt.example.com',
          'update delete www.example.com A 192.0.2.10',
        ],
        { key: DEFAULT_KEY, tcp: client === 'knsupdate' },
      );
      expect(run.code, run.output).toBe(0);
      expect(requests).toHaveLength(1);
      const [request] = requests;
      expect(request).toMatchObject({ zone: 'example.com', key: DEFAULT_KEY, remoteAddress: '127.0.0.1' });
      expect(request!.prerequisites).toEqual([
        rr('www.example.com', TYPE.ANY, CLASS.ANY, 0), // name is in use
        rr('new.example.com', TYPE.ANY, CLASS.NONE, 0), // name is not in use
        rr('www.example.com', TYPE.A, CLASS.ANY, 0), // RRset exists (value independent)
        rr('www.example.com', TYPE.A, CLASS.IN, 0, a('192.0.2.10')), // RRset exists (value dependent)
        rr('www.example.com', TYPE.TXT, CLASS.NONE, 0), // RRset does not exist
      ]);
      expect(request!.updates).toEqual([
        rr('new.example.com', TYPE.A, CLASS.IN, 300, a('192.0.2.7')), // add
        // Names in RDATA arrive uncompressed, whatever the client did on the wire.
        rr('new.example.com', TYPE.MX, CLASS.IN, 600, encodeRdata('MX', { preference: 10, exchange: 'mx.example.com' })),
        rr('new.example.com', TYPE.TXT, CLASS.IN, 60, encodeRdata('TXT', { text: 'v=spf1 -all' })),
        rr('www.example.com', TYPE.AAAA, CLASS.ANY, 0), // delete an RRset
        rr('txt.example.com', TYPE.ANY, CLASS.ANY, 0), // delete all RRsets at a name
        rr('www.example.com', TYPE.A, CLASS.NONE, 0, a('192.0.2.10')), // delete one RR
      ]);
    });

    it(`${client}: the handler's rcode is what the client gets (NXRRSET, YXDOMAIN, REFUSED), signed; a handler that fails is SERVFAIL`, async (ctx) => {
      for (const rcode of ['NXRRSET', 'YXDOMAIN', 'REFUSED'] as const) {
        answer = async () => RCODE[rcode];
        const run = await update(ctx, client, server.port, ['prereq yxrrset www.example.com TXT', 'update add www.example.com 300 TXT "x"'], {
          key: DEFAULT_KEY,
        });
        expect(run.code, run.output).not.toBe(0);
        expect(run.output).toMatch(failedWith(client, rcode));
        // The answer is signed with the request's key: a client that could not verify it says so.
        expect(run.output).not.toMatch(/BADSIG|failed to verify|tsig verify failure|expected a TSIG/i);
      }
      answer = async () => {
        throw new Error('the database is gone');
      };
      const run = await update(ctx, client, server.port, ['update add www.example.com 300 TXT "x"'], { key: DEFAULT_KEY });
      expect(run.output).toMatch(failedWith(client, 'SERVFAIL'));
      expect(logger.lines.some((l) => l.level === 'error' && l.msg.includes('UPDATE handler failed'))).toBe(true);
      expect(requests).toHaveLength(4);
    });
  }

  // knsupdate needs a zone line ("no zone specified"); nsupdate asks for the first name's SOA.
  it('nsupdate without a zone line finds the zone by a signed SOA query (the SOA in AUTHORITY of NXDOMAIN), UDP and TCP', async (ctx) => {
    for (const tcp of [false, true]) {
      const run = await update(ctx, 'nsupdate', server.port, ['update add _acme-challenge.deep.below.example.com 60 TXT "token"'], {
        key: keyOf('hmac-md5'),
        tcp,
        noZone: true,
      });
      expect(run.code, run.output).toBe(0);
    }
    expect(requests.map((r) => [r.zone, r.transport, r.updates[0]!.name])).toEqual([
      ['example.com', 'udp', '_acme-challenge.deep.below.example.com'],
      ['example.com', 'tcp', '_acme-challenge.deep.below.example.com'],
    ]);
    // An existing name (NODATA for SOA) and the apex itself (SOA in ANSWER) work too.
    for (const name of ['www.example.com', 'example.com']) {
      const run = await update(ctx, 'nsupdate', server.port, [`update add ${name} 60 TXT "token"`], { key: keyOf('hmac-sha1'), noZone: true });
      expect(run.code, run.output).toBe(0);
    }
    expect(requests.slice(2).map((r) => r.zone)).toEqual(['example.com', 'example.com']);
  });

  it('an unknown key is BADKEY, a wrong secret BADSIG, a key of another algorithm BADKEY: NOTAUTH, the handler not asked', async (ctx) => {
    const line = ['update add x.example.com 300 A 192.0.2.1'];
    const unknown = await update(ctx, 'nsupdate', server.port, line, { key: { ...DEFAULT_KEY, name: 'nobody.tenant' } });
    expect(unknown.output).toMatch(/update failed: NOTAUTH\(BADKEY\)/);
    const wrong = await update(ctx, 'nsupdate', server.port, line, { key: { ...DEFAULT_KEY, secret: Buffer.from('not the secret of this key at all') } });
    expect(wrong.output).toMatch(/update failed: NOTAUTH\(BADSIG\)/);
    const otherAlgorithm = await update(ctx, 'nsupdate', server.port, line, { key: { ...DEFAULT_KEY, algorithm: 'hmac-sha512' } });
    expect(otherAlgorithm.output).toMatch(/update failed: NOTAUTH\(BADKEY\)/);
    const knot = await update(ctx, 'knsupdate', server.port, line, {
      key: { ...DEFAULT_KEY, secret: Buffer.from('not the secret of this key at all') },
      tcp: true,
    });
    expect(knot.output).toMatch(/BADSIG/);
    expect(requests).toEqual([]);
  });

  it('an unsigned UPDATE is REFUSED, over UDP and TCP, by both clients; the handler is not asked', async (ctx) => {
    for (const client of ['nsupdate', 'knsupdate'] as const) {
      for (const tcp of [false, true]) {
        const run = await update(ctx, client, server.port, ['update add x.example.com 300 A 192.0.2.1'], { tcp });
        expect(run.output, `${client} tcp=${tcp}`).toMatch(failedWith(client, 'REFUSED'));
      }
    }
    expect(requests).toEqual([]);
  });

  it('a zone not served here is NOTAUTH; a record or prerequisite outside the zone NOTZONE', async (ctx) => {
    const elsewhere = await runToolAsync(
      requireTool('nsupdate', ctx),
      ['-y', `${DEFAULT_KEY.algorithm}:${DEFAULT_KEY.name}:${DEFAULT_KEY.secret.toString('base64')}`],
      30_000,
      `server 127.0.0.1 ${server.port}\nzone example.org.\nupdate add www.example.org 300 A 192.0.2.1\nsend\n`,
    );
    expect(elsewhere.stdout + elsewhere.stderr).toMatch(/update failed: NOTAUTH/);
    const outside = await update(ctx, 'nsupdate', server.port, ['update add www.example.net 300 A 192.0.2.1'], { key: DEFAULT_KEY });
    expect(outside.output).toMatch(/update failed: NOTZONE/);
    const knotOutside = await update(ctx, 'knsupdate', server.port, ['prereq nxdomain www.example.net'], { key: DEFAULT_KEY });
    expect(knotOutside.output).toMatch(/status: NOTZONE/);
    expect(requests).toEqual([]);
  });
});

describe('UPDATE without an UpdateHandler', () => {
  it('is NOTIMP, signed with the request key (the service has not plugged one in)', async (ctx) => {
    const { server } = await startTestServer(storeWith({ 'example.com': exampleRecords() }));
    try {
      server.setTenantTsigKeys([DEFAULT_KEY]);
      const run = await update(ctx, 'nsupdate', server.port, ['update add x.example.com 300 A 192.0.2.1'], { key: DEFAULT_KEY });
      expect(run.output).toMatch(/update failed: NOTIMP/);
      expect(run.output).not.toMatch(/BADSIG|tsig verify failure|expected a TSIG/);
    } finally {
      await server.close();
    }
  });
});

/** Resolves once `condition` holds (checked every 10 ms, at most 5 s). */
async function until(condition: () => boolean): Promise<void> {
  for (const deadline = Date.now() + 5000; !condition(); ) {
    if (Date.now() > deadline) throw new Error('condition not reached in 5 s');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('an answer that waits for the handler', () => {
  let server: DnsServer;
  let release: () => void = () => {};

  beforeAll(async () => {
    ({ server } = await startTestServer(storeWith({ 'example.com': exampleRecords() }), {
      tcpIdleMs: 150,
      updates: () =>
        new Promise<number>((resolve) => {
          release = () => resolve(RCODE.NOERROR);
        }),
    }));
    server.setTenantTsigKeys([DEFAULT_KEY]);
  });
  afterAll(async () => {
    await server?.close();
  });

  const signedUpdate = (id: number) => {
    const w = new MessageWriter(512, { id, opcode: OPCODE.UPDATE, rcode: 0 });
    w.addQuestion({ name: 'example.com', nameWire: encodeName('example.com'), qtype: TYPE.SOA, qclass: CLASS.IN });
    w.addRecord('authority', { name: 'slow.example.com', type: TYPE.A, ttl: 60, rdata: a('192.0.2.9') });
    return signMessage(w.finish(), DEFAULT_KEY, { now: new Date() }).message;
  };

  it('TCP: answers stay in order (the query after an UPDATE waits for it), and the idle timer does not close a connection we owe an answer', async () => {
    const client = await TcpDnsClient.connect(server.port);
    try {
      client.send(signedUpdate(1), buildQuery(2, 'www.example.com', TYPE.A));
      // Longer than tcpIdleMs: the connection stays open while the handler works.
      await new Promise((r) => setTimeout(r, 400));
      expect(client.messages).toHaveLength(0);
      expect(client.closed).toBe(false);
      release();
      const [first, second] = await client.waitFor(2);
      expect(parseMessage(first!)).toMatchObject({ id: 1, opcode: OPCODE.UPDATE, rcode: RCODE.NOERROR });
      expect(parseMessage(second!)).toMatchObject({ id: 2, opcode: OPCODE.QUERY, rcode: RCODE.NOERROR });
      // Idle again once answered: closed by the idle timer.
      await until(() => client.closed);
    } finally {
      client.close();
    }
  });

  it('UDP: queries are answered while an UPDATE waits', async () => {
    const socket = dgram.createSocket('udp4');
    const replies: { id: number; opcode: number }[] = [];
    socket.on('message', (m) => {
      const parsed = parseMessage(m)!;
      replies.push({ id: parsed.id, opcode: parsed.opcode });
    });
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    try {
      socket.send(signedUpdate(7), server.port, '127.0.0.1');
      socket.send(buildQuery(8, 'www.example.com', TYPE.A), server.port, '127.0.0.1');
      await until(() => replies.length > 0);
      expect(replies).toEqual([{ id: 8, opcode: OPCODE.QUERY }]);
      release();
      await until(() => replies.length > 1);
      expect(replies).toEqual([
        { id: 8, opcode: OPCODE.QUERY },
        { id: 7, opcode: OPCODE.UPDATE },
      ]);
    } finally {
      socket.close();
    }
  });
});
