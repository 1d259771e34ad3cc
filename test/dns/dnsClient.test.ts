// The service's one DNS client (nameserver/client/dnsQuery.ts), on its own: a server name that does
// not resolve and a closed port are answers of their own ("unreachable"), never an exception out of
// a socket callback; a real answer comes back over UDP from our nameserver.
import dgram from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchangeUdp, queryDns } from '../../nameserver/client/dnsQuery.js';
import type { DnsServer } from '../../nameserver/server.js';
import { TYPE } from '../../nameserver/types.js';
import { exampleRecords, startTestServer, storeWith } from '../helpers/fixtureZones.js';

let server: DnsServer;
beforeAll(async () => {
  ({ server } = await startTestServer(storeWith({ 'example.com': exampleRecords() })));
});
afterAll(() => server?.close());

const uncaught: unknown[] = [];
const onUncaught = (err: unknown) => uncaught.push(err);
beforeAll(() => void process.on('uncaughtException', onUncaught));
afterAll(() => void process.off('uncaughtException', onUncaught));

describe('queryDns', () => {
  it('answers the SOA of a zone it is asked about', async () => {
    const reply = await queryDns({ host: '127.0.0.1', port: server.port }, 'example.com', TYPE.SOA);
    expect(reply).toMatchObject({ kind: 'reply', rcode: 0, aa: true });
    expect(reply.kind === 'reply' && reply.answer.map((r) => r.type)).toContain(TYPE.SOA);
  });

  it('says unreachable for a server name that does not resolve, and throws nothing anywhere', async () => {
    const reply = await queryDns({ host: 'no-such-host.invalid', port: 53 }, 'example.com', TYPE.SOA, { timeoutMs: 3000 });
    expect(reply.kind).toBe('unreachable');
    await new Promise((r) => setTimeout(r, 100));
    expect(uncaught).toEqual([]);
  });

  it('says unreachable at once for a closed port (ICMP port unreachable), not after the timeout', async () => {
    const closed = dgram.createSocket('udp4');
    await new Promise<void>((r) => closed.bind(0, '127.0.0.1', r));
    const closedPort = closed.address().port;
    await new Promise<void>((r) => closed.close(() => r()));
    const started = Date.now();
    const reply = await queryDns({ host: '127.0.0.1', port: closedPort }, 'example.com', TYPE.SOA, { timeoutMs: 5000 });
    expect(reply.kind).toBe('unreachable');
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('exchangeUdp', () => {
  it('gives up when its signal aborts, and waits for a datagram it accepts', async () => {
    const silent = dgram.createSocket('udp4');
    await new Promise<void>((r) => silent.bind(0, '127.0.0.1', r));
    const target = { host: '127.0.0.1', port: silent.address().port };
    try {
      const abort = new AbortController();
      const asking = exchangeUdp(target, Buffer.from('ping'), 10_000, () => 'taken', abort.signal);
      setTimeout(() => abort.abort(), 50);
      await expect(asking).rejects.toThrow(/given up/);

      // The first datagram is refused by `accept`, the second taken.
      silent.on('message', (_m, remote) => {
        silent.send(Buffer.from('noise'), remote.port, remote.address);
        silent.send(Buffer.from('pong'), remote.port, remote.address);
      });
      const answer = await exchangeUdp(target, Buffer.from('ping'), 2000, (d) => (d.toString() === 'pong' ? d.toString() : undefined));
      expect(answer).toBe('pong');
    } finally {
      silent.close();
    }
  });
});
