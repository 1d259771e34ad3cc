// TCP against clients that hold connections without using them (RFC 7766 §6.2.3): many clients
// that trickle a query a byte at a time and reconnect when closed, clients that open more
// connections than their share, a message that never completes. Real sockets on the loopback;
// the crowding clients come from other loopback addresses (127.0.0.2 …) so that the per-client
// bound and the global one can be told apart. Before the I/O timeout and eviction, the tricklers
// held every slot for as long as they liked and real queries got no answer (0 of 12).
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { DnsServer } from '../../nameserver/server.js';
import { RCODE, TYPE } from '../../nameserver/types.js';
import { parseMessage } from '../../nameserver/wire/parseMessage.js';
import { exampleRecords, startTestServer, storeWith } from '../helpers/fixtureZones.js';
import { buildQuery, frame, TcpDnsClient } from '../helpers/tcpClient.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A client that sends a query one octet every `everyMs` from `localAddress`, never finishing it in
 * time, and opens a new connection whenever the server closes its current one, until stopped.
 */
function trickler(port: number, localAddress: string, everyMs: number) {
  let stopped = false;
  let socket: net.Socket | null = null;
  let connections = 0;
  const bytes = frame(buildQuery(1, 'www.example.com', TYPE.A));
  const run = async () => {
    while (!stopped) {
      connections++;
      const s = net.connect({ port, host: '127.0.0.1', localAddress });
      socket = s;
      s.on('error', () => {});
      const closed = new Promise<void>((resolve) => s.once('close', () => resolve()));
      await new Promise<void>((resolve) => {
        s.once('connect', () => resolve());
        s.once('close', () => resolve());
      });
      for (let i = 0; i < bytes.length && !s.destroyed && !stopped; i++) {
        s.write(bytes.subarray(i, i + 1));
        await Promise.race([sleep(everyMs), closed]);
      }
      // Sent all of it (it was not closed): start over on a new connection, as an attacker would.
      s.destroy();
      await closed;
    }
  };
  const done = run();
  return {
    get connections() {
      return connections;
    },
    async stop() {
      stopped = true;
      socket?.destroy();
      await done;
    },
  };
}

describe('TCP under slow and crowding clients', () => {
  let server: DnsServer | null = null;
  const stops: (() => Promise<void>)[] = [];

  afterEach(async () => {
    await Promise.all(stops.splice(0).map((stop) => stop()));
    await server?.close();
    server = null;
  });

  const start = async (limits: { maxTcpConnections: number; maxTcpConnectionsPerClient?: number; tcpIoTimeoutMs?: number; tcpIdleMs?: number }) => {
    ({ server } = await startTestServer(storeWith({ 'example.com': exampleRecords() }), { tcpIdleMs: 10_000, ...limits }));
    return server!;
  };

  it('answers every real TCP query while 300 clients trickle one octet a second', async () => {
    const s = await start({ maxTcpConnections: 64, maxTcpConnectionsPerClient: 8, tcpIoTimeoutMs: 500 });
    // 300 tricklers over 30 addresses (127.0.0.2 … 127.0.0.31), one octet a second: the idle
    // timer (10 s) alone would never close them.
    const tricklers = Array.from({ length: 300 }, (_, i) => trickler(s.port, `127.0.0.${2 + (i % 30)}`, 1000));
    stops.push(...tricklers.map((t) => () => t.stop()));
    await sleep(1500);
    expect(s.stats().tcp.open).toBeLessThanOrEqual(64);

    // 12 real queries, each on its own connection, from an address of their own and from the
    // tricklers' addresses: every one is answered.
    const addresses = ['127.0.0.1', '127.0.0.2', '127.0.0.3', '127.0.0.1', '127.0.0.17', '127.0.0.31'];
    const answers = await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        const c = await TcpDnsClient.connect(s.port, '127.0.0.1', addresses[i % addresses.length]);
        stops.push(async () => c.close());
        c.send(buildQuery(100 + i, 'www.example.com', TYPE.A));
        // Closed without an answer (as before the fix, at the limit): no message.
        const [reply] = await c.waitFor(1, 5000);
        return reply ? parseMessage(reply) : null;
      }),
    );
    expect(answers.map((m) => m?.id ?? 'no answer')).toEqual(Array.from({ length: 12 }, (_, i) => 100 + i));
    expect(answers.every((m) => m?.rcode === RCODE.NOERROR && m.answer.length === 1)).toBe(true);
    // The tricklers reconnect as fast as they are closed: the slots turn over by eviction (the
    // I/O timeout alone is the next test).
    const tcp = s.stats().tcp;
    expect(tcp.evicted).toBeGreaterThan(0);
    expect(tricklers.reduce((n, t) => n + t.connections, 0)).toBeGreaterThan(300);
    expect(tcp.open).toBeLessThanOrEqual(64);
  });

  it('closes a connection whose message does not arrive whole within the I/O timeout, though bytes keep coming', async () => {
    const s = await start({ maxTcpConnections: 16, tcpIoTimeoutMs: 400 });
    const t = trickler(s.port, '127.0.0.1', 50);
    stops.push(() => t.stop());
    const started = Date.now();
    while (s.stats().tcp.slowClosed === 0 && Date.now() - started < 3000) await sleep(20);
    const waited = Date.now() - started;
    expect(s.stats().tcp.slowClosed).toBeGreaterThan(0);
    expect(waited).toBeGreaterThanOrEqual(350);
    expect(waited).toBeLessThan(1500);
    expect(s.stats().tcp.idleClosed).toBe(0);
  });

  it('a message completed in time resets the clock: pipelined queries split across segments are answered', async () => {
    const s = await start({ maxTcpConnections: 16, tcpIoTimeoutMs: 300 });
    const c = await TcpDnsClient.connect(s.port);
    stops.push(async () => c.close());
    // Each message takes ~200 ms to arrive (split in two halves), 5 in a row: 1 s in all.
    for (let i = 0; i < 5; i++) {
      const bytes = frame(buildQuery(i, 'www.example.com', TYPE.A));
      c.socket.write(bytes.subarray(0, 10));
      await sleep(200);
      c.socket.write(bytes.subarray(10));
    }
    expect((await c.waitFor(5)).map((m) => parseMessage(m)!.id)).toEqual([0, 1, 2, 3, 4]);
    expect(c.closed).toBe(false);
  });

  it('one address holds at most maxTcpConnectionsPerClient connections: its own oldest ones go', async () => {
    const s = await start({ maxTcpConnections: 64, maxTcpConnectionsPerClient: 4 });
    const other = await TcpDnsClient.connect(s.port, '127.0.0.1', '127.0.0.3');
    stops.push(async () => other.close());
    const crowd: TcpDnsClient[] = [];
    for (let i = 0; i < 10; i++) {
      const c = await TcpDnsClient.connect(s.port, '127.0.0.1', '127.0.0.2');
      stops.push(async () => c.close());
      crowd.push(c);
      await sleep(5);
    }
    await Promise.all(crowd.slice(0, 6).map((c) => c.waitClosed(2000)));
    await sleep(50);
    expect(crowd.slice(6).map((c) => c.closed)).toEqual([false, false, false, false]);
    expect(other.closed).toBe(false);
    expect(s.stats().tcp).toMatchObject({ open: 5, evicted: 6 });
    // The newest of the crowd and the other client are served.
    crowd[9]!.send(buildQuery(7, 'www.example.com', TYPE.A));
    other.send(buildQuery(8, 'www.example.com', TYPE.A));
    expect(parseMessage((await crowd[9]!.waitFor(1))[0]!)!.id).toBe(7);
    expect(parseMessage((await other.waitFor(1))[0]!)!.id).toBe(8);
  });

  it('with one connection per client, each new one replaces the last', async () => {
    const s = await start({ maxTcpConnections: 64, maxTcpConnectionsPerClient: 1 });
    const clients: TcpDnsClient[] = [];
    for (let i = 0; i < 3; i++) {
      const c = await TcpDnsClient.connect(s.port, '127.0.0.1', '127.0.0.4');
      stops.push(async () => c.close());
      clients.push(c);
      await sleep(20);
    }
    await clients[0]!.waitClosed(2000);
    await clients[1]!.waitClosed(2000);
    clients[2]!.send(buildQuery(3, 'www.example.com', TYPE.A));
    expect(parseMessage((await clients[2]!.waitFor(1))[0]!)!.id).toBe(3);
    expect(s.stats().tcp).toMatchObject({ open: 1, evicted: 2 });
  });
});
