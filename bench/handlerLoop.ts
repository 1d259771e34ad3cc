// The cost of answering alone: QueryHandler.handleQuery in this process over nameserverQps.ts's
// query mix (10,000 names, 90 % hits, 10 % NXDOMAIN, EDNS), no sockets, so a shared machine's
// noise in system calls and scheduling stays out. Prints the minimum and median of 7 repetitions
// of 200,000 queries; compare minimums of interleaved runs of two trees (beforeAfter.sh copies
// this script into the earlier tree).
//   node --import tsx bench/handlerLoop.ts [cache|nocache]
import { silentLogger } from '../nameserver/server/logger.js';
import { QueryHandler } from '../nameserver/server/queryHandler.js';
import { TYPE, type ZoneRecord } from '../nameserver/types.js';
import { encodeRdata } from '../nameserver/wire/rdata.js';
import { buildZoneSnapshot } from '../nameserver/zone/snapshot.js';
import { ZoneStore } from '../nameserver/zone/store.js';
import { mulberry32 } from '../test/helpers/seededRandom.js';
const ORIGIN = 'bench.test';
const recs: ZoneRecord[] = [
  {
    name: ORIGIN,
    type: TYPE.SOA,
    ttl: 3600,
    rdata: encodeRdata('SOA', { mname: `ns1.${ORIGIN}`, rname: `h.${ORIGIN}`, serial: 1, refresh: 3600, retry: 600, expire: 604800, minimum: 300 }),
  },
  { name: ORIGIN, type: TYPE.NS, ttl: 3600, rdata: encodeRdata('NS', { nameserver: `ns1.${ORIGIN}` }) },
];
for (let i = 0; i < 10000; i++)
  recs.push({ name: `host-${i}.${ORIGIN}`, type: TYPE.A, ttl: 300, rdata: encodeRdata('A', { address: `10.0.${i >> 8}.${i & 255}` }) });
const store = new ZoneStore();
store.set(buildZoneSnapshot(ORIGIN, recs));
const cache = process.argv[2] !== 'nocache';
const handler = new QueryHandler({ store, transferAllow: [], tsigKeys: [], logger: silentLogger, cache: cache ? {} : false } as any);
const rnd = mulberry32(12345);
const qs: Buffer[] = [];
for (let i = 0; i < 20000; i++) {
  const name = rnd() < 0.9 ? `host-${Math.floor(rnd() * 10000)}.${ORIGIN}` : `nx-${Math.floor(rnd() * 1000)}.${ORIGIN}`;
  const parts = [Buffer.from([0x12, 0x34, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1])];
  for (const l of name.split('.')) parts.push(Buffer.from([l.length]), Buffer.from(l));
  parts.push(Buffer.from([0, 0, 1, 0, 1]), Buffer.from([0, 0, 41, 4, 0xd0, 0, 0, 0, 0, 0, 0]));
  qs.push(Buffer.concat(parts));
}
const ctx = { transport: 'udp', remoteAddress: '127.0.0.1' } as any;
for (let i = 0; i < 200000; i++) handler.handleQuery(qs[i % qs.length]!, ctx);
const times: number[] = [];
for (let r = 0; r < 7; r++) {
  const t = process.hrtime.bigint();
  for (let i = 0; i < 200000; i++) handler.handleQuery(qs[i % qs.length]!, ctx);
  times.push(Number(process.hrtime.bigint() - t) / 200000 / 1000);
}
times.sort((a, b) => a - b);
console.log(`${cache ? 'cache on ' : 'cache off'} min ${times[0]!.toFixed(3)} µs, median ${times[3]!.toFixed(3)} µs per handleQuery`);
