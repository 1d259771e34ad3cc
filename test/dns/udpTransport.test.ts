// UDP through each transport (nameserver/server/udpEndpoint.ts): the batched addon (recvmmsg and
// sendmmsg, native/udp) and node:dgram. A burst of queries from many client sockets at once is
// answered, every answer right and sent to the socket that asked; malformed datagrams leave the
// server answering; with a helper process (DNS_UDP_PROCESSES=2) both processes answer on the port.
// The batched case fails when CI (REQUIRE_DNS_TOOLS=1) has not built the addon.
import dgram from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';
import type { DnsServer, UdpTransportKind } from '../../nameserver/server.js';
import { DEFAULT_ADDON_PATH, loadBatchedUdp } from '../../nameserver/server/nativeUdp.js';
import { TYPE } from '../../nameserver/types.js';
import { parseMessage } from '../../nameserver/wire/parseMessage.js';
import { MirroredZoneStore } from '../../nameserver/udpProcesses.js';
import { buildZoneSnapshot } from '../../nameserver/zone/snapshot.js';
import { ZoneStore } from '../../nameserver/zone/store.js';
import { exampleRecords, hasIpv6Loopback, type RecordSpec, startTestServer, zoneRecord } from '../helpers/fixtureZones.js';
import { buildQuery } from '../helpers/tcpClient.js';

const CLIENTS = 40;
const PER_CLIENT = 50;
const HOSTS = 200;
const hostAddress = (i: number) => `10.0.${i >> 8}.${i & 255}`;

const zone = (): RecordSpec[] => [
  ...exampleRecords(),
  ...Array.from({ length: HOSTS }, (_, i): RecordSpec => [`h${i}.example.com`, 'A', 300, { address: hostAddress(i) }]),
];
const snapshot = () => buildZoneSnapshot('example.com', zone().map(zoneRecord));

const addonBuilt = 'addon' in loadBatchedUdp(DEFAULT_ADDON_PATH);
const hasIpv6 = await hasIpv6Loopback();

/** Skips (or, in CI, fails) the batched case without the addon. */
function requireTransport(kind: UdpTransportKind, ctx: { skip: (note: string) => void }): void {
  if (kind === 'dgram' || addonBuilt) return;
  if (process.env.REQUIRE_DNS_TOOLS === '1') throw new Error(`the batched UDP addon is not built (${DEFAULT_ADDON_PATH}); npm ci builds it`);
  ctx.skip('the batched UDP addon is not built');
}

/**
 * CLIENTS sockets each ask PER_CLIENT questions (query id = a number unique over all sockets),
 * all at once, asking again what is unanswered; resolves with each socket's answers by id.
 */
async function burst(host: string, port: number): Promise<Map<number, Buffer>[]> {
  const type = host.includes(':') ? 'udp6' : 'udp4';
  const sockets = await Promise.all(
    Array.from(
      { length: CLIENTS },
      () =>
        new Promise<dgram.Socket>((resolve) => {
          const s = dgram.createSocket(type);
          s.bind(0, host, () => resolve(s));
        }),
    ),
  );
  const answers = sockets.map(() => new Map<number, Buffer>());
  sockets.forEach((s, c) => s.on('message', (m) => answers[c]!.set(m.readUInt16BE(0), m)));
  const ask = () => {
    sockets.forEach((s, c) => {
      for (let k = 0; k < PER_CLIENT; k++) {
        const id = c * PER_CLIENT + k;
        if (!answers[c]!.has(id)) s.send(buildQuery(id, `h${id % HOSTS}.example.com`, TYPE.A), port, host);
      }
    });
  };
  try {
    for (let round = 0; round < 20; round++) {
      ask();
      await new Promise((r) => setTimeout(r, 250));
      if (answers.every((a) => a.size >= PER_CLIENT)) break;
    }
  } finally {
    for (const s of sockets) s.close();
  }
  return answers;
}

/** Every socket got exactly its own questions' answers, each with the host's address. */
function expectAllAnswered(answers: Map<number, Buffer>[]): void {
  answers.forEach((byId, c) => {
    const ids = [...byId.keys()].sort((a, b) => a - b);
    expect(ids).toEqual(Array.from({ length: PER_CLIENT }, (_, k) => c * PER_CLIENT + k));
    for (const [id, message] of byId) {
      const reply = parseMessage(message)!;
      expect(reply.questions[0]!.name).toBe(`h${id % HOSTS}.example.com`);
      expect(reply.answer.map((r) => [...r.rdata].join('.'))).toEqual([hostAddress(id % HOSTS)]);
    }
  });
}

/** One query answered on `port` now (the server still works). */
async function answersOne(host: string, port: number): Promise<boolean> {
  const s = dgram.createSocket(host.includes(':') ? 'udp6' : 'udp4');
  try {
    return await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 2000);
      s.on('message', (m) => {
        clearTimeout(timer);
        resolve(parseMessage(m)?.answer[0]?.rdata.join('.') === '192.0.2.10');
      });
      s.send(buildQuery(4242, 'www.example.com', TYPE.A), port, host);
    });
  } finally {
    s.close();
  }
}

describe.each(['batched', 'dgram'] as const)('UDP over the %s transport', (kind) => {
  let server: DnsServer | null = null;
  let store: MirroredZoneStore | null = null;

  afterEach(async () => {
    await store?.stopHelpers();
    store = null;
    await server?.close();
    server = null;
  });

  const start = async (hosts: string[], withHelpers = false) => {
    store = withHelpers ? new MirroredZoneStore() : null;
    const zones = store ?? new ZoneStore();
    zones.set(snapshot());
    const started = await startTestServer(zones, { hosts, udpTransport: kind });
    server = started.server;
    return started;
  };

  it(`answers a burst of ${CLIENTS * PER_CLIENT} queries from ${CLIENTS} sockets over IPv4, each to the socket that asked`, async (ctx) => {
    requireTransport(kind, ctx);
    const { logger } = await start(['127.0.0.1']);
    expect(server!.udp.transport).toBe(kind);
    expect(logger.lines.some((l) => l.msg.startsWith('UDP transport') && (l.obj as { transport: string }).transport === kind)).toBe(true);
    expectAllAnswered(await burst('127.0.0.1', server!.port));
    expect(server!.stats().queries.udp).toBeGreaterThanOrEqual(CLIENTS * PER_CLIENT);
  });

  it.skipIf(!hasIpv6)('answers the burst over IPv6 (::1), beside IPv4 on the same port', async (ctx) => {
    requireTransport(kind, ctx);
    await start(['127.0.0.1', '::1']);
    expectAllAnswered(await burst('::1', server!.port));
    expect(await answersOne('127.0.0.1', server!.port)).toBe(true);
  });

  it('survives malformed datagrams: empty, short, random, oversized, a response', async (ctx) => {
    requireTransport(kind, ctx);
    await start(['127.0.0.1']);
    const port = server!.port;
    const s = dgram.createSocket('udp4');
    const junk = [
      Buffer.alloc(0),
      Buffer.from([1, 2, 3]),
      Buffer.alloc(11, 0xff),
      ...Array.from({ length: 50 }, (_, i) => Buffer.from(Array.from({ length: 12 + i * 7 }, (_, j) => (i * 31 + j * 17) & 0xff))),
      Buffer.alloc(60_000, 0x41),
      Buffer.from(buildQuery(9, 'www.example.com', TYPE.A).map((b, i) => (i === 2 ? b | 0x80 : b))),
    ];
    for (const datagram of junk) s.send(datagram, port, '127.0.0.1');
    await new Promise((r) => setTimeout(r, 200));
    s.close();
    expect(await answersOne('127.0.0.1', port)).toBe(true);
    expect(server!.stats().queries.udp).toBeGreaterThan(0);
  });

  it('with a helper process (DNS_UDP_PROCESSES=2) both processes answer queries on the port', async (ctx) => {
    requireTransport(kind, ctx);
    await start(['127.0.0.1'], true);
    await store!.startHelpers(1, server!.udp, { transferAllow: [], tsigKeys: [], handler: server!.handler });
    expectAllAnswered(await burst('127.0.0.1', server!.port));
    const main = server!.stats().queries.udp;
    const helper = (await store!.helperStats())[0]!.queries.udp;
    // The kernel spreads by source address and port (SO_REUSEPORT) or both read one socket: with
    // 40 client sockets each process gets its share.
    expect(main).toBeGreaterThan(0);
    expect(helper).toBeGreaterThan(0);
    expect(main + helper).toBeGreaterThanOrEqual(CLIENTS * PER_CLIENT);
  });
});
