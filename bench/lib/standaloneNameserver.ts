// Our nameserver alone in a process of its own, for benchmarks that measure it from outside (its
// CPU apart from the load generator's, no shared event loop):
//
//   node --import tsx bench/lib/standaloneNameserver.ts <zone.json> <port> [--host 127.0.0.1] [--no-cache] [--processes N] [--udp-transport auto|batched|dgram] [--rrl [--rrl-slip N]]
//
// <zone> is a master file in the one-record-a-line form ldns-signzone writes (any name not ending
// in .json; a signed zone's RRSIG/NSEC3 records are served as they are), or <zone.json> describes one zone: { "origin": "bench.example", "records": [{ "name", "type"
// (mnemonic, e.g. "A"), "ttl", "data" (the service's record data, see nameserver/wire/rdata.ts) }] },
// names absolute without the trailing dot. Prints `ready <port> <pid>` once it listens; on SIGTERM
// or SIGINT closes the server and prints `{"cpu":{"user":µs,"system":µs},"stats":{...}}` (its
// process.cpuUsage() totals and the server's counters) as one JSON line, then exits. Response rate
// limiting is off, in the main process and its helpers (a throughput benchmark asks from one
// address far above any rate limit), unless --rrl: then it has the service's defaults (NSD's), the slip --rrl-slip when given.
import fs from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { RRL_DEFAULTS, startDnsServer, type UdpTransportMode } from '../../nameserver/server.js';
import { silentLogger } from '../../nameserver/server/logger.js';
import { TYPE, type ZoneRecord } from '../../nameserver/types.js';
import { normalizeName } from '../../nameserver/wire/name.js';
import { encodeRdata } from '../../nameserver/wire/rdata.js';
import { buildZoneSnapshot } from '../../nameserver/zone/snapshot.js';
import { ZoneStore } from '../../nameserver/zone/store.js';
import { MirroredZoneStore } from '../../nameserver/udpProcesses.js';
import { readZone } from '../../test/helpers/signedZones.js';
import type { ZoneDescription } from './dnsBenchZone.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    host: { type: 'string', default: '127.0.0.1' },
    'no-cache': { type: 'boolean', default: false },
    processes: { type: 'string', default: '1' },
    rrl: { type: 'boolean', default: false },
    'rrl-slip': { type: 'string' },
    'udp-transport': { type: 'string', default: 'auto' },
  },
});
const [zonePath, portArg] = positionals;
if (!zonePath || portArg === undefined) {
  console.error('usage: standaloneNameserver.ts <zone.json or master file> <port> [--host 127.0.0.1] [--no-cache]');
  process.exit(2);
}

function loadZone(text: string): { origin: string; records: ZoneRecord[] } {
  if (!zonePath!.endsWith('.json')) {
    const records = readZone(text);
    const soa = records.find((r) => r.type === TYPE.SOA);
    if (!soa) throw new Error(`${zonePath}: no SOA record`);
    return { origin: soa.name, records };
  }
  const zone = JSON.parse(text) as ZoneDescription;
  const records = zone.records.map((r) => {
    const type = (TYPE as Record<string, number>)[r.type];
    if (type === undefined) throw new Error(`unknown type ${r.type}`);
    return { name: normalizeName(r.name), type, ttl: r.ttl, rdata: encodeRdata(r.type, r.data) };
  });
  return { origin: normalizeName(zone.origin), records };
}
const { origin, records } = loadZone(await fs.readFile(zonePath, 'utf8'));
const processes = Number(values.processes);
const rateLimit = values.rrl ? { ...RRL_DEFAULTS, slip: Number(values['rrl-slip'] ?? RRL_DEFAULTS.slip) } : false;
const store = processes > 1 ? new MirroredZoneStore() : new ZoneStore();
store.set(buildZoneSnapshot(origin, records));

const server = await startDnsServer({
  hosts: [values.host],
  port: Number(portArg),
  store,
  maxTcpConnections: 100,
  tcpIdleMs: 10_000,
  transferAllow: [],
  tsigKeys: [],
  logger: silentLogger,
  rateLimit,
  udpTransport: values['udp-transport'] as UdpTransportMode,
  ...(values['no-cache'] ? { cache: false as const } : {}),
});
if (store instanceof MirroredZoneStore) await store.startHelpers(processes - 1, server.udp, { transferAllow: [], tsigKeys: [], rateLimit });
console.log(`ready ${server.port} ${process.pid}`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  if (store instanceof MirroredZoneStore) await store.stopHelpers();
  await server.close();
  const cpu = process.cpuUsage();
  process.stdout.write(`${JSON.stringify({ cpu, stats: server.stats() })}\n`, () => process.exit(0));
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
