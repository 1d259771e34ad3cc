// Fuzzing the nameserver's query handler in-process, at volume: N random and mutated messages
// (default 1,000,000) through QueryHandler.handleQuery, as test/dns/fuzz.test.ts does with fewer.
// Prints the count, the time, the replies by rcode, and every exception: thrown out of the handler
// (must never happen) or caught inside it and answered SERVFAIL (a bug in the code below it).
//   node --import tsx bench/fuzzNameserver.ts [packets] [seed]
import { QueryHandler } from '../nameserver/server.js';
import { checkReply, FUZZ_KEY, fuzzPacket, fuzzStore, seedMessages } from '../test/helpers/fuzzPackets.js';
import { mulberry32 } from '../test/helpers/seededRandom.js';
import { memoryLogger } from '../test/helpers/fixtureZones.js';

const packets = Number(process.argv[2] ?? 1_000_000);
const seed = Number(process.argv[3] ?? Date.now() % 0xffffffff);

const logger = memoryLogger();
const store = fuzzStore();
const handlers = [
  new QueryHandler({ store, transferAllow: ['127.0.0.1/32'], tsigKeys: [FUZZ_KEY], logger, cache: { maxEntries: 5000 } }),
  new QueryHandler({ store, transferAllow: ['127.0.0.0/8'], tsigKeys: [], logger, cache: { maxEntries: 5000 } }),
];
const random = mulberry32(seed);
const seeds = seedMessages();
const thrown: string[] = [];
let replies = 0;
let messages = 0;
const started = process.hrtime.bigint();
for (let i = 0; i < packets; i++) {
  const packet = fuzzPacket(random, seeds);
  try {
    const r = checkReply(handlers[i & 1]!, packet, random() < 0.5 ? 'udp' : 'tcp');
    if (r.messages > 0) replies++;
    messages += r.messages;
  } catch (err) {
    thrown.push(`${(err as Error).message} (packet ${packet.toString('hex')})`);
  }
}
const seconds = Number(process.hrtime.bigint() - started) / 1e9;

const responses: Record<string, number> = {};
for (const h of handlers) for (const [rcode, n] of Object.entries(h.stats.responses)) responses[rcode] = (responses[rcode] ?? 0) + n;
const caught = logger.lines.filter((l) => l.level === 'error');
console.log(`packets:     ${packets} (seed ${seed})`);
console.log(`time:        ${seconds.toFixed(2)} s (${Math.round(packets / seconds)} packets/s)`);
console.log(`replies:     ${replies} (${messages} messages; ${packets - replies} dropped)`);
console.log(`by rcode:    ${JSON.stringify(responses)}`);
console.log(`cache hits:  ${handlers[0]!.stats.cache.hits + handlers[1]!.stats.cache.hits}`);
console.log(`thrown out of handleQuery or bad replies: ${thrown.length}`);
for (const t of thrown.slice(0, 10)) console.log(`  ${t}`);
console.log(`exceptions caught inside (answered SERVFAIL): ${caught.length}`);
for (const c of caught.slice(0, 10)) console.log(`  ${c.msg}: ${(c.obj as { err?: Error }).err?.stack?.split('\n').slice(0, 3).join(' | ')}`);
process.exitCode = thrown.length > 0 || caught.length > 0 ? 1 : 0;
