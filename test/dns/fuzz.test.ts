// Fuzzing the nameserver: random and mutated messages through the query handler in-process
// (FUZZ_PACKETS, default 100,000; FUZZ_SEED to replay), and a few thousand over real UDP to a
// running server, which must answer normally afterwards. The handler must never throw, and every
// reply must parse and repeat the query's ID.
import dgram from 'node:dgram';
import { describe, expect, it } from 'vitest';
import { QueryHandler } from '../../nameserver/server.js';
import { RCODE, TYPE } from '../../nameserver/types.js';
import { parseMessage } from '../../nameserver/wire/parseMessage.js';
import { startTestServer, memoryLogger } from '../helpers/fixtureZones.js';
import { checkReply, FUZZ_KEY, fuzzPacket, fuzzStore, seedMessages } from '../helpers/fuzzPackets.js';
import { mulberry32 } from '../helpers/seededRandom.js';
import { buildQuery, frame, TcpDnsClient } from '../helpers/tcpClient.js';

const PACKETS = Number(process.env.FUZZ_PACKETS ?? 100_000);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 0xffffffff);

describe('fuzzing the query handler', () => {
  it(`survives ${PACKETS} random and mutated messages (seed ${SEED})`, { timeout: 120_000 }, async () => {
    const random = mulberry32(SEED);
    const seeds = seedMessages();
    const logger = memoryLogger();
    const store = fuzzStore();
    // With keys (transfers need TSIG) and without; a small cache, so eviction runs too; one that
    // takes UPDATEs (answering NOERROR) and one that has no handler for them.
    let handed = 0;
    const handlers = [
      new QueryHandler({
        store,
        transferAllow: ['127.0.0.1/32'],
        tsigKeys: [FUZZ_KEY],
        logger,
        cache: { maxEntries: 500 },
        updates: async () => (handed++, RCODE.NOERROR),
      }),
      new QueryHandler({ store, transferAllow: ['127.0.0.0/8'], tsigKeys: [], logger, cache: { maxEntries: 500 } }),
    ];
    let replies = 0;
    let messages = 0;
    const later: Promise<void>[] = [];
    for (let i = 0; i < PACKETS; i++) {
      const packet = fuzzPacket(random, seeds);
      const result = checkReply(handlers[i & 1]!, packet, random() < 0.5 ? 'udp' : 'tcp');
      if (result.messages > 0) replies++;
      messages += result.messages;
      if (result.later) later.push(result.later);
    }
    await Promise.all(later);
    // Signed UPDATEs that stayed well-formed reached the handler.
    expect(handed).toBeGreaterThan(0);
    const stats = handlers.map((h) => h.stats);
    const errors = logger.lines.filter((l) => l.level === 'error');
    // Exceptions inside the handler became SERVFAIL (and a log line); there should be none at all.
    expect(errors.map((e) => `${e.msg}: ${String((e.obj as { err?: Error }).err?.stack)}`).slice(0, 3)).toEqual([]);
    expect(replies).toBeGreaterThan(PACKETS / 4);
    expect(messages).toBeGreaterThanOrEqual(replies);
    expect(stats[0]!.queries.udp + stats[0]!.queries.tcp + stats[1]!.queries.udp + stats[1]!.queries.tcp).toBe(PACKETS);
  });

  it('survives 5,000 of them over real UDP and still answers a normal query', { timeout: 60_000 }, async () => {
    const { server, logger } = await startTestServer(fuzzStore(), { tsigKeys: [FUZZ_KEY] });
    const socket = dgram.createSocket('udp4');
    try {
      let replies = 0;
      socket.on('message', () => replies++);
      await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
      const random = mulberry32(SEED ^ 0x5a5a5a5a);
      const seeds = seedMessages();
      for (let i = 0; i < 5000; i++) {
        socket.send(fuzzPacket(random, seeds), server.port, '127.0.0.1');
        // Let the server keep up: a burst larger than the socket buffers only tests the kernel.
        if (i % 50 === 49) await new Promise((r) => setTimeout(r, 2));
      }
      await new Promise((r) => setTimeout(r, 200));
      const answer = await new Promise<Buffer>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no answer after the fuzz')), 2000);
        socket.removeAllListeners('message');
        socket.on('message', (m) => {
          if (m.readUInt16BE(0) !== 0xbeef) return;
          clearTimeout(timer);
          resolve(m);
        });
        socket.send(buildQuery(0xbeef, 'www.example.com', TYPE.A), server.port, '127.0.0.1');
      });
      const parsed = parseMessage(answer)!;
      expect(parsed.answer).toHaveLength(1);
      expect(replies).toBeGreaterThan(1000);
      expect(server.stats().queries.udp).toBeGreaterThanOrEqual(4900);
      expect(logger.lines.filter((l) => l.level === 'error')).toEqual([]);
    } finally {
      socket.close();
      await server.close();
    }
  });

  it('survives 1,000 of them framed on one TCP connection; the server then answers on a new one', { timeout: 60_000 }, async () => {
    const { server, logger } = await startTestServer(fuzzStore(), { tsigKeys: [FUZZ_KEY] });
    try {
      const random = mulberry32(SEED ^ 0x3c3c3c3c);
      const seeds = seedMessages();
      const fuzzed = await TcpDnsClient.connect(server.port);
      // Frames must stay within 65535 octets: the packets are far smaller.
      fuzzed.socket.write(Buffer.concat(Array.from({ length: 1000 }, () => frame(fuzzPacket(random, seeds)))));
      await new Promise((r) => setTimeout(r, 500));
      fuzzed.close();
      const client = await TcpDnsClient.connect(server.port);
      client.send(buildQuery(0xcafe, 'www.example.com', TYPE.A));
      const [reply] = await client.waitFor(1);
      client.close();
      expect(parseMessage(reply!)!).toMatchObject({ id: 0xcafe, rcode: 0 });
      expect(server.stats().queries.tcp).toBeGreaterThan(900);
      expect(logger.lines.filter((l) => l.level === 'error')).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
