// DNS over TCP (RFC 7766) with a small node:net client: several messages per connection, pipelined
// and split across segments, transfers followed by queries, the bound on open connections, the idle
// timeout and shutdown. Slow and crowding clients: tcpSlowClients.test.ts.
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { DnsServer } from '../../nameserver/server.js';
import { RCODE, TYPE } from '../../nameserver/types.js';
import { parseMessage } from '../../nameserver/wire/parseMessage.js';
import { exampleRecords, startTestServer, storeWith } from '../helpers/fixtureZones.js';
import { buildQuery, frame, TcpDnsClient } from '../helpers/tcpClient.js';

const store = () => storeWith({ 'example.com': exampleRecords() });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('DNS over TCP', () => {
  let server: DnsServer | null = null;
  const clients: TcpDnsClient[] = [];

  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await server?.close();
    server = null;
  });

  const connect = async () => {
    const c = await TcpDnsClient.connect(server!.port);
    clients.push(c);
    return c;
  };

  it('answers several queries on one connection, one after another', async () => {
    ({ server } = await startTestServer(store()));
    const c = await connect();
    const names = ['www.example.com', 'mail.example.com', 'nx.example.com', 'alias.example.com'];
    for (const [i, name] of names.entries()) {
      c.send(buildQuery(100 + i, name, TYPE.A));
      const reply = parseMessage((await c.waitFor(i + 1))[i]!)!;
      expect(reply.id).toBe(100 + i);
      expect(reply.questions[0]!.name).toBe(name);
    }
    expect(parseMessage(c.messages[2]!)!.rcode).toBe(RCODE.NXDOMAIN);
  });

  it('answers pipelined queries sent in one segment, in order', async () => {
    ({ server } = await startTestServer(store()));
    const c = await connect();
    const queries = Array.from({ length: 50 }, (_, i) =>
      buildQuery(1000 + i, i % 2 ? 'www.example.com' : 'txt.example.com', i % 2 ? TYPE.A : TYPE.TXT, { edns: 1232 }),
    );
    c.send(...queries);
    const replies = (await c.waitFor(50)).map((m) => parseMessage(m)!);
    expect(replies.map((r) => r.id)).toEqual(queries.map((_, i) => 1000 + i));
    expect(replies.every((r) => r.rcode === RCODE.NOERROR && r.answer.length === 1)).toBe(true);
  });

  it('reassembles a message that arrives one octet at a time', async () => {
    ({ server } = await startTestServer(store()));
    const c = await connect();
    const bytes = frame(buildQuery(77, 'www.example.com', TYPE.A));
    for (const octet of bytes) {
      c.socket.write(Buffer.from([octet]));
      await sleep(1);
    }
    const [reply] = await c.waitFor(1);
    expect(parseMessage(reply!)!.id).toBe(77);
  });

  it('answers a query sent after an AXFR on the same connection once the transfer is complete', async () => {
    ({ server } = await startTestServer(store()));
    const c = await connect();
    c.send(buildQuery(1, 'example.com', TYPE.AXFR), buildQuery(2, 'www.example.com', TYPE.A));
    const messages = (await c.waitFor(2)).map((m) => parseMessage(m)!);
    expect(messages[0]!.id).toBe(1);
    expect(messages[0]!.answer.length).toBe(exampleRecords().length + 1);
    expect(messages[1]!.id).toBe(2);
    expect(messages[1]!.answer).toHaveLength(1);
  });

  it('skips a message too short to answer and keeps serving the connection', async () => {
    ({ server } = await startTestServer(store()));
    const c = await connect();
    c.socket.write(frame(Buffer.from([1, 2, 3])));
    c.send(buildQuery(5, 'www.example.com', TYPE.A));
    const [reply] = await c.waitFor(1);
    expect(parseMessage(reply!)!.id).toBe(5);
    expect(server!.stats().dropped).toBe(1);
  });

  it('answers a client that has already shut down its sending side', async () => {
    ({ server } = await startTestServer(store()));
    const c = await connect();
    c.socket.end(frame(buildQuery(6, 'www.example.com', TYPE.A)));
    const [reply] = await c.waitFor(1);
    expect(parseMessage(reply!)!.id).toBe(6);
    await c.waitClosed();
  });

  it('at maxTcpConnections, closes the connection that made progress least recently for a new one', async () => {
    ({ server } = await startTestServer(store(), { maxTcpConnections: 3 }));
    const open = [await connect(), await connect(), await connect()];
    // open[1] is answered last of all, open[0] before it, open[2] first: open[2] is the stalest.
    for (const i of [2, 0, 1]) {
      open[i]!.send(buildQuery(i, 'www.example.com', TYPE.A));
      await open[i]!.waitFor(1);
      await sleep(20);
    }
    const extra = await connect();
    extra.send(buildQuery(9, 'www.example.com', TYPE.A));
    expect(parseMessage((await extra.waitFor(1))[0]!)!.id).toBe(9);
    await open[2]!.waitClosed(2000);
    expect(open[0]!.closed || open[1]!.closed).toBe(false);
    expect(server!.stats().tcp).toMatchObject({ open: 3, evicted: 1 });
  });

  it('closes a connection idle for tcpIdleMs', async () => {
    ({ server } = await startTestServer(store(), { tcpIdleMs: 300 }));
    const c = await connect();
    c.send(buildQuery(1, 'www.example.com', TYPE.A));
    await c.waitFor(1);
    const started = Date.now();
    await c.waitClosed(3000);
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(250);
    expect(waited).toBeLessThan(2000);
    expect(server!.stats().tcp.idleClosed).toBe(1);
  });

  it('keeps a connection that is in use open past tcpIdleMs', async () => {
    ({ server } = await startTestServer(store(), { tcpIdleMs: 300 }));
    const c = await connect();
    for (let i = 0; i < 6; i++) {
      c.send(buildQuery(i, 'www.example.com', TYPE.A));
      await c.waitFor(i + 1);
      await sleep(150);
    }
    expect(c.closed).toBe(false);
  });

  it('close() ends open connections and stops listening on UDP and TCP', async () => {
    ({ server } = await startTestServer(store()));
    const port = server.port;
    const c = await connect();
    c.send(buildQuery(1, 'www.example.com', TYPE.A));
    await c.waitFor(1);
    await server.close();
    expect(server.listening).toBe(false);
    await c.waitClosed(2000);
    await expect(
      new Promise((resolve, reject) => {
        const s = net.connect({ port, host: '127.0.0.1' }, () => {
          s.destroy();
          resolve('connected');
        });
        s.once('error', reject);
      }),
    ).rejects.toThrow(/ECONNREFUSED/);
    server = null;
  });
});
