// NOTIFY (RFC 1996) from the nameserver to secondaries: message content, retries with back-off until
// a NOERROR response, TSIG (signed request, signed response required), giving up without throwing;
// and Knot DNS (knotd) as a real secondary that is notified, transfers by AXFR, and catches up by
// IXFR after a diff.
import dgram from 'node:dgram';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DnsServer } from '../../nameserver/server.js';
import { OPCODE, RCODE, TYPE } from '../../nameserver/types.js';
import { flagsWord } from '../../nameserver/wire/header.js';
import { parseMessage, type Message } from '../../nameserver/wire/parseMessage.js';
import { signMessage, verifyTsig, type TsigKey } from '../../nameserver/wire/tsig.js';
import type { ZoneStore } from '../../nameserver/zone/store.js';
import { findTool, requireTool } from '../helpers/dnsTools.js';
import { eventually } from '../helpers/dnsQuery.js';
import { type KnotSecondary, startKnotSecondary } from '../helpers/knot.js';
import { digQuery } from '../helpers/digClient.js';
import { EXAMPLE_SERIAL, exampleDiff, exampleRecords, freeDualPort, startTestServer, storeWith } from '../helpers/fixtureZones.js';

const key: TsigKey = { name: 'notify.key', algorithm: 'hmac-sha256', secret: Buffer.from('an HMAC-SHA256 secret, 32 octets'), owner: null };

/** A fake secondary: answers each NOTIFY as `respond` says (null: stays silent). */
async function fakeSecondary(respond: (request: Message, raw: Buffer, index: number) => Buffer | null) {
  const socket = dgram.createSocket('udp4');
  const received: { message: Message; raw: Buffer; at: number }[] = [];
  socket.on('message', (raw, remote) => {
    const message = parseMessage(raw)!;
    received.push({ message, raw, at: Date.now() });
    const reply = respond(message, raw, received.length - 1);
    if (reply) socket.send(reply, remote.port, remote.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return { port: (socket.address() as { port: number }).port, received, close: () => socket.close() };
}

/** The acknowledgement a secondary sends: the request's header and question, QR set. */
function acknowledgement(raw: Buffer, rcode: number = RCODE.NOERROR): Buffer {
  const m = parseMessage(raw)!;
  const questionEnd = 12 + (m.questions[0]!.name.length + 2) + 4;
  const out = Buffer.from(raw.subarray(0, questionEnd));
  out.writeUInt16BE(flagsWord({ opcode: OPCODE.NOTIFY, qr: true, aa: true, rcode }), 2);
  out.writeUInt16BE(0, 6);
  out.writeUInt16BE(0, 8);
  out.writeUInt16BE(0, 10);
  return out;
}

describe('notifySecondaries', () => {
  let server: DnsServer;
  let store: ZoneStore;
  const closers: (() => void)[] = [];

  afterEach(async () => {
    for (const c of closers.splice(0)) c();
    await server?.close();
  });

  it('sends NOTIFY with AA, the SOA question and the new SOA, retrying with back-off until NOERROR', async () => {
    store = storeWith({ 'example.com': exampleRecords() });
    ({ server } = await startTestServer(store, { notify: { attempts: 5, initialTimeoutMs: 100 } }));
    // Silent twice, then an answer.
    const secondary = await fakeSecondary((_m, raw, i) => (i < 2 ? null : acknowledgement(raw)));
    closers.push(secondary.close);
    const [result] = await server.notifySecondaries('example.com', EXAMPLE_SERIAL, [{ host: '127.0.0.1', port: secondary.port }]);
    expect(result).toMatchObject({ acknowledged: true, attempts: 3, rcode: RCODE.NOERROR });
    const [first, second, third] = secondary.received;
    expect(first!.message).toMatchObject({ opcode: OPCODE.NOTIFY, aa: true, qr: false });
    expect(first!.message.questions).toEqual([{ name: 'example.com', type: TYPE.SOA, klass: 1 }]);
    expect(first!.message.answer).toHaveLength(1);
    expect(first!.message.answer[0]!.rdata.readUInt32BE(first!.message.answer[0]!.rdata.length - 20)).toBe(EXAMPLE_SERIAL);
    // Back-off: 100 ms, then 200 ms.
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(90);
    expect(third!.at - second!.at).toBeGreaterThanOrEqual(180);
    expect(server.stats().notify).toMatchObject({ sent: 1, acknowledged: 1, failed: 0 });
  });

  it('keeps trying after an error rcode, gives up after the last try without throwing', async () => {
    store = storeWith({ 'example.com': exampleRecords() });
    ({ server } = await startTestServer(store, { notify: { attempts: 3, initialTimeoutMs: 50 } }));
    const refusing = await fakeSecondary((_m, raw) => acknowledgement(raw, RCODE.REFUSED));
    const silent = await fakeSecondary(() => null);
    closers.push(refusing.close, silent.close);
    const results = await server.notifySecondaries('example.com', EXAMPLE_SERIAL, [
      { host: '127.0.0.1', port: refusing.port },
      { host: '127.0.0.1', port: silent.port },
      { host: 'no-such-host.invalid', port: 53 },
    ]);
    expect(results.map((r) => [r.acknowledged, r.attempts, r.rcode])).toEqual([
      [false, 3, RCODE.REFUSED],
      [false, 3, null],
      [false, 3, null],
    ]);
    expect(refusing.received).toHaveLength(3);
    expect(server.stats().notify).toMatchObject({ sent: 3, acknowledged: 0, failed: 3 });
  });

  it.each(['hmac-sha256', 'hmac-md5', 'hmac-sha512'] as const)(
    'signs NOTIFY with the first key (%s) and believes only a signed answer (RFC 8945)',
    async (algorithm) => {
      store = storeWith({ 'example.com': exampleRecords() });
      const first = { ...key, algorithm };
      ({ server } = await startTestServer(store, {
        tsigKeys: [first, { name: 'second.key', secret: Buffer.alloc(32, 2) }],
        notify: { attempts: 2, initialTimeoutMs: 100 },
      }));
      const keys = new Map([[first.name, first]]);
      const signing = await fakeSecondary((m, raw) => {
        expect(verifyTsig(raw, m.tsig!, keys, new Date()).ok).toBe(true);
        return signMessage(acknowledgement(raw), first, { requestMac: m.tsig!.mac, now: new Date() }).message;
      });
      const unsigned = await fakeSecondary((_m, raw) => acknowledgement(raw));
      // Signed, but with the key's secret under another algorithm: not believed either.
      const otherAlgorithm = await fakeSecondary((m, raw) => {
        const other = { ...first, algorithm: algorithm === 'hmac-md5' ? ('hmac-sha1' as const) : ('hmac-md5' as const) };
        return signMessage(acknowledgement(raw), other, { requestMac: m.tsig!.mac, now: new Date() }).message;
      });
      closers.push(signing.close, unsigned.close, otherAlgorithm.close);
      const results = await server.notifySecondaries('example.com', EXAMPLE_SERIAL, [
        { host: '127.0.0.1', port: signing.port },
        { host: '127.0.0.1', port: unsigned.port },
        { host: '127.0.0.1', port: otherAlgorithm.port },
      ]);
      expect(results.map((r) => r.acknowledged)).toEqual([true, false, false]);
      expect(signing.received[0]!.message.tsig).toMatchObject({
        keyName: key.name,
        algorithm: algorithm === 'hmac-md5' ? 'hmac-md5.sig-alg.reg.int' : algorithm,
      });
    },
  );

  it('close() cuts the retries short', async () => {
    store = storeWith({ 'example.com': exampleRecords() });
    ({ server } = await startTestServer(store, { notify: { attempts: 10, initialTimeoutMs: 1000 } }));
    const silent = await fakeSecondary(() => null);
    closers.push(silent.close);
    const pending = server.notifySecondaries('example.com', EXAMPLE_SERIAL, [{ host: '127.0.0.1', port: silent.port }]);
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    await server.close();
    const [result] = await pending;
    expect(Date.now() - started).toBeLessThan(1000);
    expect(result!.acknowledged).toBe(false);
  });
});

describe.skipIf(!findTool('knotd') && process.env.REQUIRE_DNS_TOOLS !== '1')('Knot DNS as a secondary (NOTIFY, AXFR, IXFR, TSIG)', () => {
  let server: DnsServer;
  let store: ZoneStore;
  let knot: KnotSecondary;

  const knotAnswer = async (name: string, type: string) => digQuery(requireTool('dig')!, knot.port, name, type);
  const soon = <T>(probe: () => Promise<T | undefined>, what: string) => eventually(probe, 15_000, what);

  beforeAll(async () => {
    store = storeWith({ 'example.com': exampleRecords() });
    ({ server } = await startTestServer(store, { tsigKeys: [key] }));
    knot = await startKnotSecondary({ port: freeDualPort, primaryPort: server.port, zones: ['example.com'], key });
  }, 30_000);

  afterAll(async () => {
    await knot?.close();
    await server?.close();
  });

  it('transfers the zone (AXFR with TSIG) and serves it', { timeout: 60_000 }, async () => {
    const www = await soon(async () => {
      const r = await knotAnswer('www.example.com', 'A');
      return r.status === 'NOERROR' && r.answer.length > 0 ? r : undefined;
    }, 'knot to load the zone');
    expect(www.answer).toEqual(['www.example.com. 300 IN A 192.0.2.10']);
    expect(knot.log()).toMatch(/AXFR, incoming.*finished/);
    expect((await knotAnswer('long.example.com', 'TXT')).answer).toHaveLength(1);
  });

  it('acknowledges our signed NOTIFY and catches up by IXFR', { timeout: 60_000 }, async () => {
    store.applyDiff(
      'example.com',
      exampleDiff(EXAMPLE_SERIAL, EXAMPLE_SERIAL + 1, { oldAddress: '192.0.2.10', newAddress: '192.0.2.11', added: 'new.example.com' }),
    );
    const [result] = await server.notifySecondaries('example.com', EXAMPLE_SERIAL + 1, [{ host: '127.0.0.1', port: knot.port }]);
    expect(result, knot.log()).toMatchObject({ acknowledged: true, attempts: 1 });
    await soon(async () => {
      const r = await knotAnswer('www.example.com', 'A');
      return r.answer[0] === 'www.example.com. 300 IN A 192.0.2.11' ? true : undefined;
    }, 'knot to serve the new address');
    expect((await knotAnswer('new.example.com', 'TXT')).answer).toEqual([`new.example.com. 300 IN TXT "added in ${EXAMPLE_SERIAL + 1}"`]);
    expect(knot.log()).toMatch(/IXFR, incoming.*finished/);
  });
});
