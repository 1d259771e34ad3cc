// NOTIFY (RFC 1996) from the nameserver to secondaries: message content, retries with back-off until
// a NOERROR response, TSIG (signed request, signed response required), giving up without throwing;
// and Knot DNS (knotd) as a real secondary that is notified, transfers by AXFR, and catches up by
// IXFR after a diff.
import { type ChildProcess, spawn } from 'node:child_process';
import dgram from 'node:dgram';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DnsServer } from '../../nameserver/server.js';
import { OPCODE, RCODE, TYPE } from '../../nameserver/types.js';
import { flagsWord } from '../../nameserver/wire/header.js';
import { parseMessage, type Message } from '../../nameserver/wire/parseMessage.js';
import { signMessage, verifyTsig } from '../../nameserver/wire/tsig.js';
import type { ZoneStore } from '../../nameserver/zone/store.js';
import { findTool, requireTool } from '../helpers/dnsTools.js';
import { digQuery } from './digClient.js';
import { EXAMPLE_SERIAL, exampleDiff, exampleRecords, freeDualPort, startTestServer, storeWith } from './fixtureZones.js';

const key = { name: 'notify.key', secret: Buffer.from('an HMAC-SHA256 secret, 32 octets') };

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

  it('signs NOTIFY with the first key and believes only a signed answer (RFC 8945)', async () => {
    store = storeWith({ 'example.com': exampleRecords() });
    ({ server } = await startTestServer(store, { tsigKeys: [key], notify: { attempts: 2, initialTimeoutMs: 100 } }));
    const keys = new Map([[key.name, key.secret]]);
    const signing = await fakeSecondary((m, raw) => {
      expect(verifyTsig(raw, m.tsig!, keys, new Date()).ok).toBe(true);
      return signMessage(acknowledgement(raw), key, { requestMac: m.tsig!.mac, now: new Date() }).message;
    });
    const unsigned = await fakeSecondary((_m, raw) => acknowledgement(raw));
    closers.push(signing.close, unsigned.close);
    const results = await server.notifySecondaries('example.com', EXAMPLE_SERIAL, [
      { host: '127.0.0.1', port: signing.port },
      { host: '127.0.0.1', port: unsigned.port },
    ]);
    expect(results.map((r) => r.acknowledged)).toEqual([true, false]);
    expect(signing.received[0]!.message.tsig?.keyName).toBe(key.name);
  });

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

/** Knot as a secondary of ours: TSIG on transfers and NOTIFY, the zone kept in its journal only. */
function knotConfig(dir: string, knotPort: number, primaryPort: number): string {
  return `server:
    rundir: "${dir}"
    listen: 127.0.0.1@${knotPort}
database:
    storage: "${dir}/db"
key:
  - id: ${key.name}
    algorithm: hmac-sha256
    secret: ${key.secret.toString('base64')}
remote:
  - id: primary
    address: 127.0.0.1@${primaryPort}
    key: ${key.name}
acl:
  - id: notify_from_primary
    address: 127.0.0.1
    key: ${key.name}
    action: notify
template:
  - id: default
    storage: "${dir}/zones"
    zonefile-sync: -1
    journal-content: all
zone:
  - domain: example.com
    master: primary
    acl: notify_from_primary
log:
  - target: stderr
    any: info
`;
}

describe.skipIf(!findTool('knotd') && process.env.REQUIRE_DNS_TOOLS !== '1')('Knot DNS as a secondary (NOTIFY, AXFR, IXFR, TSIG)', () => {
  let server: DnsServer;
  let store: ZoneStore;
  let knot: ChildProcess | null = null;
  let knotLog = '';
  let dir: string;
  let knotPort: number;

  const knotAnswer = async (name: string, type: string) => digQuery(requireTool('dig')!, knotPort, name, type);
  const eventually = async <T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 15_000): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = await probe().catch(() => undefined);
      if (v !== undefined) return v;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${knotLog}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  beforeAll(async () => {
    store = storeWith({ 'example.com': exampleRecords() });
    ({ server } = await startTestServer(store, { tsigKeys: [key] }));
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdns-knot-notify-'));
    fs.mkdirSync(path.join(dir, 'db'));
    fs.mkdirSync(path.join(dir, 'zones'));
    // knotd binds UDP and TCP; another test may take the port in between: try a few.
    for (let attempt = 1; ; attempt++) {
      knotPort = await freeDualPort();
      fs.writeFileSync(path.join(dir, 'knot.conf'), knotConfig(dir, knotPort, server.port));
      knotLog = '';
      const child = spawn(requireTool('knotd')!, ['-c', path.join(dir, 'knot.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
      child.stderr!.on('data', (d) => (knotLog += d.toString()));
      const exited = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), 1000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve(true);
        });
      });
      if (!exited) {
        knot = child;
        break;
      }
      if (attempt >= 3) throw new Error(`knotd did not start:\n${knotLog}`);
    }
  }, 30_000);

  afterAll(async () => {
    if (knot) {
      const exited = new Promise((r) => knot!.once('exit', r));
      knot.kill('SIGTERM');
      await exited;
    }
    await server?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('transfers the zone (AXFR with TSIG) and serves it', { timeout: 60_000 }, async () => {
    const www = await eventually(async () => {
      const r = await knotAnswer('www.example.com', 'A');
      return r.status === 'NOERROR' && r.answer.length > 0 ? r : undefined;
    }, 'knot to load the zone');
    expect(www.answer).toEqual(['www.example.com. 300 IN A 192.0.2.10']);
    expect(knotLog).toMatch(/AXFR, incoming.*finished/);
    expect((await knotAnswer('long.example.com', 'TXT')).answer).toHaveLength(1);
  });

  it('acknowledges our signed NOTIFY and catches up by IXFR', { timeout: 60_000 }, async () => {
    store.applyDiff('example.com', exampleDiff(EXAMPLE_SERIAL, EXAMPLE_SERIAL + 1, { oldAddress: '192.0.2.10', newAddress: '192.0.2.11', added: 'new.example.com' }));
    const [result] = await server.notifySecondaries('example.com', EXAMPLE_SERIAL + 1, [{ host: '127.0.0.1', port: knotPort }]);
    expect(result, knotLog).toMatchObject({ acknowledged: true, attempts: 1 });
    await eventually(async () => {
      const r = await knotAnswer('www.example.com', 'A');
      return r.answer[0] === 'www.example.com. 300 IN A 192.0.2.11' ? true : undefined;
    }, 'knot to serve the new address');
    expect((await knotAnswer('new.example.com', 'TXT')).answer).toEqual([`new.example.com. 300 IN TXT "added in ${EXAMPLE_SERIAL + 1}"`]);
    expect(knotLog).toMatch(/IXFR, incoming.*finished/);
  });
});
