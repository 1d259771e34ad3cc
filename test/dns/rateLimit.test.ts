// Response rate limiting on the real server over real sockets: a burst from one address gets about
// `rate` answers a second, every other limited answer as a truncated reply and the rest nothing;
// another netblock, an exempt address and TCP are answered in full meanwhile; dig from the
// limited netblock gets its answer by retrying over TCP. Linux routes all of 127.0.0.0/8 to the
// loopback, so a client socket bound to 127.0.1.1 is a client of another /24.
import dgram from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DnsServer, RRL_DEFAULTS } from '../../nameserver/server.js';
import { MirroredZoneStore } from '../../nameserver/udpProcesses.js';
import { buildZoneSnapshot } from '../../nameserver/zone/snapshot.js';
import type { ZoneStore } from '../../nameserver/zone/store.js';
import { TYPE } from '../../nameserver/types.js';
import { parseMessage } from '../../nameserver/wire/parseMessage.js';
import { requireTool } from '../helpers/dnsTools.js';
import { digQuery } from '../helpers/digClient.js';
import { exampleRecords, startTestServer, storeWith, zoneRecord } from '../helpers/fixtureZones.js';
import { buildQuery, TcpDnsClient } from '../helpers/tcpClient.js';

const RATE = 10;

/** A UDP client on one source address, counting what comes back. */
class UdpClient {
  full = 0;
  truncated = 0;
  private constructor(private readonly socket: dgram.Socket) {
    socket.on('message', (m) => {
      const reply = parseMessage(m)!;
      if (reply.tc) {
        expect(reply.answer).toEqual([]);
        this.truncated++;
      } else {
        expect(reply.answer.length).toBeGreaterThan(0);
        this.full++;
      }
    });
  }

  static async bound(address: string): Promise<UdpClient> {
    const socket = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, address, resolve));
    return new UdpClient(socket);
  }

  /** Sends `count` queries for www.example.com A, paced so that the kernel's buffers never drop any. */
  async ask(port: number, count: number, pauseEvery = 50): Promise<void> {
    for (let i = 0; i < count; i++) {
      this.socket.send(buildQuery(i & 0xffff, 'www.example.com', TYPE.A, { edns: 1232 }), port, '127.0.0.1');
      if (i % pauseEvery === pauseEvery - 1) await new Promise((r) => setTimeout(r, 1));
    }
  }

  close(): void {
    this.socket.close();
  }
}

const settle = () => new Promise((r) => setTimeout(r, 300));

describe(`response rate limiting (${RATE} answers/s, slip 2)`, () => {
  let server: DnsServer;
  beforeAll(async () => {
    ({ server } = await startTestServer(storeWith({ 'example.com': exampleRecords() }), {
      rateLimit: { ...RRL_DEFAULTS, rate: RATE, exempt: ['127.0.2.0/24'] },
    }));
  });
  afterAll(() => server.close());

  it('answers a burst of 1,000 identical queries from one address about `rate` times a second, truncates every second limited answer and drops the rest; another /24 is answered in full meanwhile', async () => {
    const flood = await UdpClient.bound('127.0.0.1');
    const other = await UdpClient.bound('127.0.1.1');
    const before = server.stats().rateLimit;
    try {
      const started = performance.now();
      await Promise.all([flood.ask(server.port, 1000), other.ask(server.port, 5, 1)]);
      await settle();
      const seconds = (performance.now() - started) / 1000;
      // The burst's one second of credit, then `rate` a second.
      expect(flood.full).toBeGreaterThanOrEqual(RATE);
      expect(flood.full).toBeLessThanOrEqual(RATE + Math.ceil(RATE * seconds));
      const limited = 1000 - flood.full;
      expect(Math.abs(flood.truncated - limited / 2)).toBeLessThanOrEqual(1);
      expect(other).toMatchObject({ full: 5, truncated: 0 });
      const after = server.stats().rateLimit;
      expect(after.slipped - before.slipped).toBe(flood.truncated);
      // Every query arrived: those not answered were dropped by the limit, not lost on the way.
      expect(after.dropped - before.dropped).toBe(limited - flood.truncated);
      expect(limited - flood.truncated).toBeGreaterThan(400);
    } finally {
      flood.close();
      other.close();
    }
  });

  it('answers an exempt address every time', async () => {
    const exempt = await UdpClient.bound('127.0.2.1');
    try {
      await exempt.ask(server.port, 300);
      await settle();
      expect(exempt).toMatchObject({ full: 300, truncated: 0 });
    } finally {
      exempt.close();
    }
  });

  it('never limits TCP, even for a netblock limited over UDP', async () => {
    const flood = await UdpClient.bound('127.0.0.1');
    const tcp = await TcpDnsClient.connect(server.port, '127.0.0.1', '127.0.0.1');
    try {
      await flood.ask(server.port, 200);
      tcp.send(...Array.from({ length: 100 }, (_, i) => buildQuery(i, 'www.example.com', TYPE.A)));
      const replies = await tcp.waitFor(100);
      await settle();
      expect(flood.full).toBeLessThan(100);
      expect(replies.map((r) => parseMessage(r)!).filter((m) => !m.tc && m.answer.length === 1)).toHaveLength(100);
    } finally {
      flood.close();
      tcp.close();
    }
  });
});

describe('a real client limited over UDP', () => {
  it('dig from the limited netblock gets a truncated reply, retries over TCP and gets its answer', async (ctx) => {
    const dig = requireTool('dig', ctx);
    // Slip 1: every limited answer is truncated, so dig's one UDP try is answered with TC for sure.
    const { server } = await startTestServer(storeWith({ 'example.com': exampleRecords() }), { rateLimit: { ...RRL_DEFAULTS, rate: RATE, slip: 1 } });
    const flood = await UdpClient.bound('127.0.0.2');
    let flooding = true;
    const keepFlooding = (async () => {
      while (flooding) await flood.ask(server.port, 20, 20);
    })();
    try {
      await new Promise((r) => setTimeout(r, 100));
      const result = await digQuery(dig, server.port, 'www.example.com', 'A', ['-b', '127.0.0.1']);
      expect(result.output).toContain('Truncated, retrying in TCP mode');
      expect(result.answer).toEqual(['www.example.com. 300 IN A 192.0.2.10']);
      expect(flood.truncated).toBeGreaterThan(0);
    } finally {
      flooding = false;
      await keepFlooding;
      flood.close();
      await server.close();
    }
  });
});

describe('rate limiting in UDP helper processes', () => {
  it('each process limits with the settings the main process gave it: with three, a netblock gets up to three times the rate', {
    timeout: 30_000,
  }, async () => {
    const store = new MirroredZoneStore();
    store.set(buildZoneSnapshot('example.com', exampleRecords().map(zoneRecord)));
    const rateLimit = { ...RRL_DEFAULTS, rate: RATE };
    const { server } = await startTestServer(store as ZoneStore, { rateLimit });
    await store.startHelpers(2, server.udp, { transferAllow: [], tsigKeys: [], handler: server.handler, rateLimit });
    // From many source ports of one address: each process has a socket of its own (SO_REUSEPORT)
    // and the kernel picks one by source address and port, so one port would reach one process.
    const flood = await Promise.all(Array.from({ length: 24 }, () => UdpClient.bound('127.0.0.1')));
    try {
      const started = performance.now();
      await Promise.all(flood.map((client) => client.ask(server.port, 50)));
      await settle();
      const seconds = (performance.now() - started) / 1000;
      const full = flood.reduce((sum, client) => sum + client.full, 0);
      const truncated = flood.reduce((sum, client) => sum + client.truncated, 0);
      expect(full).toBeLessThanOrEqual(3 * (RATE + Math.ceil(RATE * seconds)));
      expect(truncated).toBeGreaterThan(200);
      const helpers = await store.helperStats();
      // The helpers read their share of the burst and limited it themselves.
      expect(helpers.filter((h) => h.rateLimit.slipped > 0)).toHaveLength(2);
    } finally {
      for (const client of flood) client.close();
      await store.stopHelpers();
      await server.close();
    }
  });
});
