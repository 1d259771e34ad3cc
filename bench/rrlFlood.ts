// Response rate limiting under a spoofed-source flood: how much the nameserver amplifies, and
// whether legitimate clients are still answered. Our nameserver runs in a process of its own
// (bench/lib/standaloneNameserver.ts, one process) with the service's default rate limit (NSD's:
// 200 responses/s per /24 and answer, slip 2; --slip changes the slip alone) and again with it off, side by side. A flood process
// asks for one name with a large answer (a TXT RRset of about 1,000 octets, EDNS 4096, as an
// amplifier would) at --rate queries/s for -l seconds from "spoofed" sources: Linux lets a socket
// bind any address of 127.0.0.0/8 and routes it to the loopback, so a source address is whatever
// the flood binds. Three kinds of source:
//   victim     one address (127.0.0.2): the reflection attack RRL is for;
//   victim-24  random addresses in the victim's /24 (127.0.0.0/24): one netblock, many hosts;
//   random     random addresses across 127.0.0.0/8 (--sources sockets): a flood that names no
//              victim, each netblock asking below the rate, which RRL does not limit (by design).
// Meanwhile legitimate clients ask for the same name at a modest rate, as a resolver does: over UDP
// (EDNS 1232), on a truncated reply again over TCP, on silence again after 800 ms, three tries in
// all: --legit clients in another /24 (127.0.9.0/24) and one in the victim's /24 (127.0.0.3).
//
// Counted at the flood's sockets: queries sent and their octets, responses received and their
// octets (amplification = response octets ÷ query octets); at the legitimate clients: the share
// of questions answered (over UDP, or over TCP after TC). The flood's achieved rate is printed:
// it is what this machine sends, not necessarily --rate.
//
//   node --import tsx bench/rrlFlood.ts [-l 10] [--rate 50000] [--sources 512] [--legit 4] [--legit-rate 20] [--kinds victim,victim-24,random] [--slip 2]
import { fork } from 'node:child_process';
import dgram from 'node:dgram';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CLASS, OPCODE, TYPE } from '../nameserver/types.js';
import { MessageWriter } from '../nameserver/wire/messageWriter.js';
import { parseMessage } from '../nameserver/wire/parseMessage.js';
import type { ZoneDescription } from './lib/dnsBenchZone.js';
import { startOurs } from './lib/referenceServers.js';

const ORIGIN = 'flood.example';
const NAME = `big.${ORIGIN}`;

type Kind = 'victim' | 'victim-24' | 'random';

interface FloodOrder {
  port: number;
  rate: number;
  seconds: number;
  kind: Kind;
  sources: number;
}

interface FloodReport {
  sent: number;
  sentOctets: number;
  received: number;
  receivedOctets: number;
  truncated: number;
  seconds: number;
  /** Responses per second at the busiest /24 of the sources. */
  busiestBlockRate: number;
}

function query(id: number, udpSize: number): Buffer {
  const w = new MessageWriter(512, { id, opcode: OPCODE.QUERY, rcode: 0 });
  w.addQuestion({ name: NAME, qtype: TYPE.TXT, qclass: CLASS.IN });
  w.addOpt({ udpSize });
  return w.finish();
}

const randomByte = () => Math.floor(Math.random() * 254) + 1;

function sourceAddresses(kind: Kind, count: number): string[] {
  if (kind === 'victim') return ['127.0.0.2'];
  const seen = new Set<string>();
  while (seen.size < count) {
    const address = kind === 'victim-24' ? `127.0.0.${randomByte()}` : `127.${randomByte()}.${randomByte()}.${randomByte()}`;
    // Not the legitimate clients' addresses.
    if (address !== '127.0.0.3' && !address.startsWith('127.0.9.')) seen.add(address);
    if (kind === 'victim-24' && seen.size >= 250) break;
  }
  return [...seen];
}

/** The flood, in a process of its own so that its sending does not delay the legitimate clients. */
async function flood(order: FloodOrder): Promise<FloodReport> {
  const addresses = sourceAddresses(order.kind, order.sources);
  const sockets = await Promise.all(
    addresses.map(async (address) => {
      const socket = dgram.createSocket('udp4');
      await new Promise<void>((resolve) => socket.bind(0, address, resolve));
      return socket;
    }),
  );
  const packet = query(0x4242, 4096);
  const report: FloodReport = { sent: 0, sentOctets: 0, received: 0, receivedOctets: 0, truncated: 0, seconds: 0, busiestBlockRate: 0 };
  const byBlock = new Map<string, number>();
  for (const [i, socket] of sockets.entries()) {
    const block = addresses[i]!.split('.').slice(0, 3).join('.');
    socket.on('message', (m) => {
      report.received++;
      report.receivedOctets += m.length;
      if (m[2]! & 0x02) report.truncated++;
      byBlock.set(block, (byBlock.get(block) ?? 0) + 1);
    });
  }
  const started = performance.now();
  const end = started + order.seconds * 1000;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      const due = Math.min(Math.floor(((now - started) / 1000) * order.rate), order.rate * order.seconds);
      // A bounded batch per turn, so that replies are read while sending.
      for (let n = 0; report.sent < due && n < 2000; n++) {
        sockets[report.sent % sockets.length]!.send(packet, order.port, '127.0.0.1');
        report.sent++;
        report.sentOctets += packet.length;
      }
      if (now < end) setImmediate(tick);
      else resolve();
    };
    tick();
  });
  report.seconds = (performance.now() - started) / 1000;
  await new Promise((r) => setTimeout(r, 1000));
  report.busiestBlockRate = Math.max(0, ...byBlock.values()) / report.seconds;
  for (const socket of sockets) socket.close();
  return report;
}

interface LegitTally {
  asked: number;
  udp: number;
  tcp: number;
  unanswered: number;
}

/** One question as a resolver asks it: UDP, TCP after TC, three tries 800 ms apart. */
async function ask(local: string, port: number, tally: LegitTally): Promise<void> {
  tally.asked++;
  for (let attempt = 0; attempt < 3; attempt++) {
    const id = Math.floor(Math.random() * 0xffff);
    const reply = await udpExchange(local, port, query(id, 1232), id, 800);
    if (reply === 'timeout') continue;
    if (!reply.tc && reply.answer.length > 0) {
      tally.udp++;
      return;
    }
    const overTcp = await tcpExchange(local, port, query(id, 1232), 2000);
    if (overTcp && overTcp.answer.length > 0) {
      tally.tcp++;
      return;
    }
  }
  tally.unanswered++;
}

function udpExchange(local: string, port: number, packet: Buffer, id: number, timeoutMs: number) {
  return new Promise<(ReturnType<typeof parseMessage> & object) | 'timeout'>((resolve) => {
    const socket = dgram.createSocket('udp4');
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    const finish = (result: (ReturnType<typeof parseMessage> & object) | 'timeout') => {
      clearTimeout(timer);
      socket.close();
      resolve(result);
    };
    socket.on('message', (m) => {
      const reply = parseMessage(m);
      if (reply && reply.id === id) finish(reply);
    });
    socket.bind(0, local, () => socket.send(packet, port, '127.0.0.1'));
  });
}

function tcpExchange(local: string, port: number, packet: Buffer, timeoutMs: number) {
  return new Promise<ReturnType<typeof parseMessage>>((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress: local });
    let received = Buffer.alloc(0);
    const timer = setTimeout(() => finish(null), timeoutMs);
    const finish = (result: ReturnType<typeof parseMessage>) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    socket.on('error', () => finish(null));
    socket.on('connect', () => {
      const framed = Buffer.alloc(packet.length + 2);
      framed.writeUInt16BE(packet.length, 0);
      packet.copy(framed, 2);
      socket.write(framed);
    });
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      if (received.length >= 2 && received.length >= 2 + received.readUInt16BE(0)) finish(parseMessage(received.subarray(2, 2 + received.readUInt16BE(0))));
    });
  });
}

/** Clients on `addresses`, each asking `rate` times a second until `until`. */
async function legitimate(addresses: string[], port: number, rate: number, until: number): Promise<LegitTally> {
  const tally: LegitTally = { asked: 0, udp: 0, tcp: 0, unanswered: 0 };
  const pending: Promise<void>[] = [];
  await Promise.all(
    addresses.map(async (address) => {
      while (performance.now() < until) {
        pending.push(ask(address, port, tally));
        await new Promise((r) => setTimeout(r, 1000 / rate));
      }
    }),
  );
  await Promise.all(pending);
  return tally;
}

function runFloodProcess(order: FloodOrder): Promise<FloodReport> {
  const child = fork(new URL(import.meta.url).pathname, ['--flood-child'], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', (m: FloodReport) => {
      resolve(m);
      child.disconnect();
    });
    child.once('exit', (code) => (code !== 0 ? reject(new Error(`flood process exited ${code}`)) : undefined));
    child.send(order);
  });
}

if (process.argv.includes('--flood-child')) {
  process.once('message', (order: FloodOrder) => void flood(order).then((report) => process.send!(report)));
} else {
  await main();
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      l: { type: 'string', short: 'l', default: '10' },
      rate: { type: 'string', default: '50000' },
      sources: { type: 'string', default: '512' },
      legit: { type: 'string', default: '4' },
      'legit-rate': { type: 'string', default: '20' },
      kinds: { type: 'string', default: 'victim,victim-24,random' },
      slip: { type: 'string', default: '2' },
    },
  });
  const seconds = Number(values.l);
  const rate = Number(values.rate);
  const legitRate = Number(values['legit-rate']);
  const others = Array.from({ length: Number(values.legit) }, (_, i) => `127.0.9.${i + 1}`);
  const kinds = values.kinds.split(',') as Kind[];

  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'rrl-flood-'));
  const zone: ZoneDescription = {
    origin: ORIGIN,
    records: [
      {
        name: ORIGIN,
        type: 'SOA',
        ttl: 3600,
        data: { mname: `ns1.${ORIGIN}`, rname: `hostmaster.${ORIGIN}`, serial: 1, refresh: 3600, retry: 600, expire: 604800, minimum: 300 },
      },
      { name: ORIGIN, type: 'NS', ttl: 3600, data: { nameserver: `ns1.${ORIGIN}` } },
      { name: `ns1.${ORIGIN}`, type: 'A', ttl: 3600, data: { address: '192.0.2.1' } },
      ...Array.from({ length: 4 }, (_, i) => ({ name: NAME, type: 'TXT', ttl: 300, data: { text: `${i}`.padEnd(240, 'x') } })),
    ],
  };
  const zoneJson = path.join(dir, 'zone.json');
  await fs.writeFile(zoneJson, JSON.stringify(zone));

  console.log(
    `rrlFlood: ${seconds} s per run, flood target ${rate} q/s for ${NAME} TXT (EDNS 4096); legitimate: ${others.length} clients in 127.0.9.0/24 and 1 in the victim's /24 (127.0.0.3), ${legitRate} q/s each`,
  );
  console.log(
    `machine: ${os.cpus().length} cores, ${os.cpus()[0]?.model}, node ${process.version}, load ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const rows: string[] = [];
  for (const kind of kinds) {
    for (const rrl of [true, false]) {
      const server = await startOurs(path.join(dir, `${kind}-${rrl}`), zoneJson, { rrl, rrlSlip: Number(values.slip) });
      try {
        const until = performance.now() + seconds * 1000;
        const [report, other, neighbour] = await Promise.all([
          runFloodProcess({ port: server.port, rate, seconds, kind, sources: Number(values.sources) }),
          legitimate(others, server.port, legitRate, until),
          legitimate(['127.0.0.3'], server.port, legitRate, until),
        ]);
        await server.stop();
        const stats = server.exitReport()?.stats as { rateLimit?: { dropped: number; slipped: number } } | undefined;
        const pct = (t: LegitTally) => `${((100 * (t.udp + t.tcp)) / t.asked).toFixed(2)} % of ${t.asked} (${t.tcp} over TCP)`;
        const row = [
          `${kind.padEnd(9)} RRL ${rrl ? `on (slip ${values.slip})` : 'off'}`,
          `flood ${(report.sent / report.seconds).toFixed(0)} q/s sent, ${report.received} responses (${report.truncated} TC)`,
          `amplification ${(report.receivedOctets / report.sentOctets).toFixed(2)}× (${report.sentOctets} octets out, ${report.receivedOctets} back)`,
          `busiest /24 got ${report.busiestBlockRate.toFixed(0)} responses/s`,
          `server dropped ${stats?.rateLimit?.dropped ?? '?'}, slipped ${stats?.rateLimit?.slipped ?? '?'}`,
          `legitimate elsewhere ${pct(other)}`,
          `legitimate in the victim's /24 ${pct(neighbour)}`,
        ].join('; ');
        rows.push(row);
        console.log(row);
      } finally {
        await server.stop();
      }
    }
  }
  await fs.rm(dir, { recursive: true, force: true });
}
