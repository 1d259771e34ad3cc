// The cost of DNSSEC answers on the query path, in-process: one 10,000-name zone unsigned, signed
// with NSEC and with NSEC3 (ldns-signzone, keys from ldns-keygen: signing is not ours), each query
// through QueryHandler.handleQuery with the response cache off (parse, lookup, denial proof,
// encode). Existing names (A) and random missing names (NXDOMAIN), with and without DO; µs per
// query, median of 5 rounds.
//
//   node --import tsx bench/dnssecLookup.ts [names]
import { performance } from 'node:perf_hooks';
import { QueryHandler } from '../nameserver/server/queryHandler.js';
import { OPCODE, TYPE, type ZoneRecord } from '../nameserver/types.js';
import { MessageWriter } from '../nameserver/wire/messageWriter.js';
import { buildZoneSnapshot } from '../nameserver/zone/snapshot.js';
import { ZoneStore } from '../nameserver/zone/store.js';
import { readZone, signZone } from '../test/helpers/signedZones.js';

const ORIGIN = 'bench.test';
const NAMES = Number(process.argv[2] ?? 10_000);
const QUERIES = 20_000;
const ROUNDS = 5;

/** One record a line, names absolute: what both ldns-signzone and readZone take. */
function unsignedText(): string {
  const o = `${ORIGIN}.`;
  const lines = [`${o} 3600 IN SOA ns1.${o} hostmaster.${o} 1 7200 3600 1209600 300`, `${o} 3600 IN NS ns1.${o}`, `ns1.${o} 3600 IN A 192.0.2.1`];
  for (let i = 0; i < NAMES; i++) lines.push(`host${i}.${o} 3600 IN A 198.51.${(i >> 8) & 255}.${i & 255}`);
  return `${lines.join('\n')}\n`;
}

function query(id: number, name: string, dnssecOk: boolean): Buffer {
  const w = new MessageWriter(512, { id, opcode: OPCODE.QUERY, rcode: 0 });
  w.addQuestion({ name, qtype: TYPE.A, qclass: 1 });
  w.addOpt({ udpSize: 1232, dnssecOk });
  return w.finish();
}

function handlerFor(records: ZoneRecord[]): QueryHandler {
  const store = new ZoneStore();
  store.set(buildZoneSnapshot(ORIGIN, records));
  const quiet = () => {};
  return new QueryHandler({ store, transferAllow: [], tsigKeys: [], logger: { info: quiet, warn: quiet, error: quiet, debug: quiet }, cache: false });
}

function timePerQuery(handler: QueryHandler, queries: Buffer[]): number {
  const context = { transport: 'udp' as const, remoteAddress: '127.0.0.1' };
  for (const q of queries.slice(0, 2000)) handler.handleQuery(q, context);
  const rounds: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const start = performance.now();
    for (const q of queries) handler.handleQuery(q, context);
    rounds.push(((performance.now() - start) * 1000) / queries.length);
  }
  return rounds.sort((a, b) => a - b)[ROUNDS >> 1]!;
}

const text = unsignedText();
const zones: [string, ZoneRecord[]][] = [['unsigned', readZone(text)]];
for (const nsec3 of [false, true]) {
  const start = performance.now();
  const signed = signZone(ORIGIN, text, { nsec3 });
  console.error(`signed with ${nsec3 ? 'NSEC3' : 'NSEC'} in ${((performance.now() - start) / 1000).toFixed(1)} s (${signed.records.length} records)`);
  zones.push([nsec3 ? 'NSEC3' : 'NSEC', signed.records]);
  signed.remove();
}

const existing = (dnssecOk: boolean) => Array.from({ length: QUERIES }, (_, i) => query(i & 0xffff, `host${(i * 7919) % NAMES}.${ORIGIN}`, dnssecOk));
const missing = (dnssecOk: boolean) =>
  Array.from({ length: QUERIES }, (_, i) => query(i & 0xffff, `nx${Math.random().toString(36).slice(2, 10)}.${ORIGIN}`, dnssecOk));

console.log(`| zone (${NAMES} names) | A, DO=0 | A, DO=1 | NXDOMAIN, DO=0 | NXDOMAIN, DO=1 |`);
console.log('|---|---|---|---|---|');
for (const [label, records] of zones) {
  const handler = handlerFor(records);
  const cells = [existing(false), existing(true), missing(false), missing(true)].map((qs) => `${timePerQuery(handler, qs).toFixed(2)} µs`);
  console.log(`| ${label} | ${cells.join(' | ')} |`);
}
