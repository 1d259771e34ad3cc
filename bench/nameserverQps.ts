// Queries per second of the embedded nameserver over UDP, measured with dnsperf, on a zone of
// 10,000 names (one A record each) built in-process — no database, no service. The query file asks
// for existing names 90% of the time and for names that do not exist (NXDOMAIN) 10% of the time,
// in random order. Three servers in turn, in this process, each for the same time:
//   1. ours, as the service runs it (response cache on);
//   2. ours with the response cache off (every query parsed, looked up, encoded);
//   3. dns2's UDPServer answering the same zone naively (a Map lookup in its request handler):
//      what the server would cost on top of dns2's own packet parsing and encoding.
// Printed per server: dnsperf's queries per second, lost queries and average latency, and this
// process's CPU seconds (user + system, process.cpuUsage) per answered query. Response rate
// limiting is off (dnsperf asks from one address, far above its rate; bench/rrlFlood.ts measures it).
//   node --import tsx bench/nameserverQps.ts [seconds=10] [clients=4]
import { spawn } from 'node:child_process';
import dgram from 'node:dgram';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import dns2 from 'dns2';
import { startDnsServer, type DnsServer } from '../nameserver/server.js';
import { silentLogger } from '../nameserver/server/logger.js';
import { TYPE, type ZoneRecord } from '../nameserver/types.js';
import { encodeRdata } from '../nameserver/wire/rdata.js';
import { buildZoneSnapshot } from '../nameserver/zone/snapshot.js';
import { ZoneStore } from '../nameserver/zone/store.js';
import { mulberry32 } from '../test/helpers/seededRandom.js';

const seconds = Number(process.argv[2] ?? 10);
const clients = Number(process.argv[3] ?? 4);
const ORIGIN = 'bench.test';
const NAMES = 10_000;
const SOA = { mname: `ns1.${ORIGIN}`, rname: `hostmaster.${ORIGIN}`, serial: 1, refresh: 3600, retry: 600, expire: 604800, minimum: 300 };

const addressOf = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

function zoneRecords(): ZoneRecord[] {
  const records: ZoneRecord[] = [
    { name: ORIGIN, type: TYPE.SOA, ttl: 3600, rdata: encodeRdata('SOA', SOA) },
    { name: ORIGIN, type: TYPE.NS, ttl: 3600, rdata: encodeRdata('NS', { nameserver: `ns1.${ORIGIN}` }) },
  ];
  for (let i = 0; i < NAMES; i++) records.push({ name: `host-${i}.${ORIGIN}`, type: TYPE.A, ttl: 300, rdata: encodeRdata('A', { address: addressOf(i) }) });
  return records;
}

/** 100,000 lines, fixed seed: 90% existing names at random, 10% among 1,000 names that do not exist. */
function queryFile(dir: string): string {
  const random = mulberry32(12345);
  const lines: string[] = [];
  for (let i = 0; i < 100_000; i++) {
    lines.push(random() < 0.9 ? `host-${Math.floor(random() * NAMES)}.${ORIGIN} A` : `nx-${Math.floor(random() * 1000)}.${ORIGIN} A`);
  }
  const file = path.join(dir, 'queries.txt');
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

interface PerfResult {
  qps: number;
  sent: number;
  completed: number;
  lost: number;
  latencyMs: number;
  rcodes: string;
}

function dnsperf(port: number, file: string): Promise<PerfResult> {
  return new Promise((resolve, reject) => {
    const args = ['-s', '127.0.0.1', '-p', String(port), '-d', file, '-l', String(seconds), '-c', String(clients), '-Q', '200000'];
    const child = spawn('dnsperf', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', () => {
      const num = (re: RegExp) => Number(re.exec(out)?.[1] ?? NaN);
      resolve({
        qps: num(/Queries per second:\s+([\d.]+)/),
        sent: num(/Queries sent:\s+(\d+)/),
        completed: num(/Queries completed:\s+(\d+)/),
        lost: num(/Queries lost:\s+(\d+)/),
        latencyMs: num(/Average Latency \(s\):\s+([\d.]+)/) * 1000,
        rcodes: /Response codes:\s+(.*)/.exec(out)?.[1] ?? '?',
      });
    });
  });
}

async function measure(label: string, port: number, file: string, answered: () => number): Promise<void> {
  await new Promise((r) => setTimeout(r, 200));
  const before = answered();
  const cpu = process.cpuUsage();
  const result = await dnsperf(port, file);
  const used = process.cpuUsage(cpu);
  const count = answered() - before;
  const cpuSeconds = (used.user + used.system) / 1e6;
  console.log(
    `${label.padEnd(34)} ${result.qps.toFixed(0).padStart(7)} q/s  lost ${String(result.lost).padStart(6)} of ${result.sent}  ` +
      `latency ${result.latencyMs.toFixed(2)} ms  CPU ${cpuSeconds.toFixed(2)} s = ${((cpuSeconds / Math.max(count, 1)) * 1e6).toFixed(1)} µs/query  (${result.rcodes})`,
  );
}

async function freeUdpPort(): Promise<number> {
  const s = dgram.createSocket('udp4');
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function ours(file: string, cache: boolean): Promise<void> {
  const store = new ZoneStore();
  store.set(buildZoneSnapshot(ORIGIN, zoneRecords()));
  const server: DnsServer = await startDnsServer({
    hosts: ['127.0.0.1'],
    port: 0,
    store,
    maxTcpConnections: 16,
    tcpIdleMs: 10_000,
    transferAllow: [],
    tsigKeys: [],
    logger: silentLogger,
    cache: cache ? {} : false,
    rateLimit: false,
  });
  try {
    await measure(`nameserver/server.ts (cache ${cache ? 'on' : 'off'})`, server.port, file, () => server.stats().queries.udp);
    const stats = server.stats();
    console.log(
      `${''.padEnd(34)} cache hits ${stats.cache.hits}, misses ${stats.cache.misses}, entries ${stats.cache.entries}; ${JSON.stringify(stats.responses)}`,
    );
  } finally {
    await server.close();
  }
}

async function naiveDns2(file: string): Promise<void> {
  const { Packet } = dns2;
  const addresses = new Map<string, string>();
  for (let i = 0; i < NAMES; i++) addresses.set(`host-${i}.${ORIGIN}`, addressOf(i));
  let answered = 0;
  const server = dns2.createServer({
    udp: true,
    handle: (request: any, send: (response: any) => void) => {
      const response = Packet.createResponseFromRequest(request) as any;
      const [question] = request.questions;
      const name = String(question.name).toLowerCase();
      const address = addresses.get(name);
      response.header.aa = 1;
      if (address && question.type === Packet.TYPE.A) {
        response.answers.push({ name: question.name, type: Packet.TYPE.A, class: Packet.CLASS.IN, ttl: 300, address });
      } else if (!address) {
        response.header.rcode = 3;
        response.authorities.push({
          name: ORIGIN,
          type: Packet.TYPE.SOA,
          class: Packet.CLASS.IN,
          ttl: 300,
          primary: SOA.mname,
          admin: SOA.rname,
          serial: SOA.serial,
          refresh: SOA.refresh,
          retry: SOA.retry,
          expiration: SOA.expire,
          minimum: SOA.minimum,
        });
      }
      answered++;
      send(response);
    },
  } as never) as any;
  const port = await freeUdpPort();
  await server.listen({ udp: { port, address: '127.0.0.1' } });
  try {
    await measure('dns2 UDPServer, naive handler', port, file, () => answered);
  } finally {
    await server.close();
  }
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdns-qps-'));
try {
  const file = queryFile(dir);
  console.log(
    `zone: ${NAMES} names (A); queries: 90% existing, 10% NXDOMAIN; dnsperf -l ${seconds} -c ${clients} -Q 200000; ${os.cpus().length} CPUs (${os.cpus()[0]?.model})`,
  );
  await ours(file, true);
  await ours(file, false);
  await naiveDns2(file);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
