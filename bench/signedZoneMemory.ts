// Memory of a signed zone's snapshot against the same zone unsigned: the zone of
// bench/nameserverCompare.ts (bench/lib/dnsBenchZone.ts, default 100,000 names), signed once by
// ldns-signzone (NSEC3 SHA-1, 0 extra iterations, no salt, ECDSA P-256 KSK and ZSK), both read
// into a snapshot the way bench/lib/standaloneNameserver.ts reads a master file. Each measurement
// runs in a child process of its own (`--expose-gc`); unsigned and signed children alternate, and
// the summary gives medians over the rounds.
//
//   node --import tsx bench/signedZoneMemory.ts [--hosts 100000] [--rounds 3]
//
// Then Knot (knotd on the PATH) loads the same two files, and its RSS and PSS are printed beside
// ours' process RSS.
//
// Per child: heap used plus array buffers, and RSS growth, after the snapshot is built and the parsed records and the
// file's text are dropped (GC twice), the build time (records to snapshot), and the time of the
// first NXDOMAIN query with DO through the query handler (cache off), which for the signed zone
// makes the NSEC3 index a denial proof needs.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildBenchZone } from './lib/dnsBenchZone.js';
import { collectAll, memoryOnceLoaded, SETTLE_MS } from './lib/procMemory.js';
import { startKnot } from './lib/referenceServers.js';

const MiB = 1024 * 1024;
const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: { hosts: { type: 'string', default: '100000' }, rounds: { type: 'string', default: '3' }, child: { type: 'boolean', default: false } },
});

interface ChildResult {
  records: number;
  heapMiB: number;
  rssMiB: number;
  totalRssMiB: number;
  buildMs: number;
  firstNxMs: number;
}

async function child(file: string): Promise<ChildResult> {
  const { buildZoneSnapshot } = await import('../nameserver/zone/snapshot.js');
  const { ZoneStore } = await import('../nameserver/zone/store.js');
  const { QueryHandler } = await import('../nameserver/server/queryHandler.js');
  const { MessageWriter } = await import('../nameserver/wire/messageWriter.js');
  const { OPCODE, TYPE } = await import('../nameserver/types.js');
  const { readZone } = await import('../test/helpers/signedZones.js');
  const gc = collectAll;
  gc();
  // The zone may live on the heap (objects) or beside it (array buffers): count both.
  const held = () => process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
  const heap0 = held();
  const rss0 = process.memoryUsage().rss;
  let records = readZone(fs.readFileSync(file, 'utf8'));
  const count = records.length;
  // A copy: the name read from the file is a slice of its whole text, which would stay alive with it.
  const origin = Buffer.from(records.find((r) => r.type === TYPE.SOA)!.name).toString();
  const t0 = performance.now();
  const snapshot = buildZoneSnapshot(origin, records);
  const buildMs = performance.now() - t0;
  records = [];
  // V8 keeps the subject of the last regular-expression match, and the reader matched the whole
  // file's text: match something small so that the text can go.
  /x/.exec('x');
  // Taken as the peers' are: once the load has settled.
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  gc();
  const heapMiB = (held() - heap0) / MiB;
  const rssMiB = (process.memoryUsage().rss - rss0) / MiB;
  const totalRssMiB = process.memoryUsage().rss / MiB;
  const store = new ZoneStore();
  store.set(snapshot);
  const quiet = () => {};
  const handler = new QueryHandler({ store, transferAllow: [], tsigKeys: [], logger: { info: quiet, warn: quiet, error: quiet, debug: quiet }, cache: false });
  const w = new MessageWriter(512, { id: 1, opcode: OPCODE.QUERY, rcode: 0 });
  w.addQuestion({ name: `nx-first.${origin}`, qtype: TYPE.A, qclass: 1 });
  w.addOpt({ udpSize: 1232, dnssecOk: true });
  const t1 = performance.now();
  handler.handleQuery(w.finish(), { transport: 'udp', remoteAddress: '127.0.0.1' });
  return { records: count, heapMiB, rssMiB, totalRssMiB, buildMs, firstNxMs: performance.now() - t1 };
}

if (opts.child) {
  process.stdout.write(`${JSON.stringify(await child(positionals[0]!))}\n`);
} else {
  const hosts = Number(opts.hosts);
  const rounds = Number(opts.rounds);
  const origin = 'bench.example';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdns-signedmem-'));
  try {
    const unsigned = path.join(dir, 'unsigned.zone');
    const signed = path.join(dir, 'signed.zone');
    fs.writeFileSync(unsigned, buildBenchZone(origin, hosts).masterFile);
    const keygen = (ksk: boolean) =>
      path.join(dir, execFileSync('ldns-keygen', ['-a', 'ECDSAP256SHA256', ...(ksk ? ['-k'] : []), origin], { cwd: dir, encoding: 'utf8' }).trim());
    execFileSync('ldns-signzone', ['-n', '-t', '0', '-s', '', '-o', origin, '-f', signed, unsigned, keygen(true), keygen(false)]);
    // The unsigned zone in the same one-record-a-line form, so both go through the same reader.
    const unsignedLines = path.join(dir, 'unsigned.lines');
    fs.writeFileSync(unsignedLines, execFileSync('ldns-read-zone', [unsigned], { encoding: 'utf8', maxBuffer: 1 << 30 }));
    const results: Record<'unsigned' | 'signed', ChildResult[]> = { unsigned: [], signed: [] };
    for (let round = 1; round <= rounds; round++) {
      for (const [label, file] of [
        ['unsigned', unsignedLines],
        ['signed', signed],
      ] as const) {
        const out = execFileSync(
          process.execPath,
          ['--expose-gc', '--max-old-space-size=8192', '--import', 'tsx', new URL(import.meta.url).pathname, '--child', file],
          { encoding: 'utf8', maxBuffer: 1 << 20 },
        );
        const r = JSON.parse(out.trim().split('\n').at(-1)!) as ChildResult;
        results[label].push(r);
        process.stderr.write(`[signedZoneMemory] round ${round} ${label}: ${JSON.stringify(r)}\n`);
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
    console.log(
      `${new Date().toISOString()}, nproc ${os.cpus().length}, ${os.cpus()[0]?.model}, Node ${process.version}; ${hosts} names, ${rounds} rounds alternating, medians (all rounds in brackets)`,
    );
    console.log('| zone | records | snapshot MiB (heap + array buffers) | RSS growth MiB | build ms | first NXDOMAIN+DO query ms |');
    console.log('|---|---|---|---|---|---|');
    for (const label of ['unsigned', 'signed'] as const) {
      const rs = results[label];
      const cell = (f: (r: ChildResult) => number, d = 0) => `${median(rs.map(f)).toFixed(d)} (${rs.map((r) => f(r).toFixed(d)).join(', ')})`;
      console.log(
        `| ${label} | ${rs[0]!.records} | ${cell((r) => r.heapMiB, 1)} | ${cell((r) => r.rssMiB)} | ${cell((r) => r.buildMs)} | ${cell((r) => r.firstNxMs, 1)} |`,
      );
    }
    const ratio = median(results.signed.map((r) => r.heapMiB)) / median(results.unsigned.map((r) => r.heapMiB));
    console.log(`\nsigned ÷ unsigned snapshot: ${ratio.toFixed(2)}×`);
    // The same two files served by Knot (no signing of its own: it serves the signed file as it is).
    console.log('\n| server | zone | records | RSS MiB | PSS MiB | peak RSS MiB |');
    console.log('|---|---|---|---|---|---|');
    for (const label of ['unsigned', 'signed'] as const) {
      const rs = results[label];
      console.log(`| ours (process RSS, median) | ${label} | ${rs[0]!.records} | ${median(rs.map((r) => r.totalRssMiB)).toFixed(0)} | – | – |`);
    }
    for (const [label, file] of [
      ['unsigned', unsigned],
      ['signed', signed],
    ] as const) {
      const started = performance.now();
      const knot = await startKnot(path.join(dir, `knot-${label}`), origin, file);
      try {
        const { memory } = await memoryOnceLoaded(knot, started, origin, 'SOA', (answer) => answer.length > 0);
        console.log(
          `| Knot ${knot.version.replace(/^.*version /, '')} | ${label} | ${results[label][0]!.records} | ${(memory.largestRss / MiB).toFixed(0)} | ${(memory.pss / MiB).toFixed(0)} | ${(memory.largestPeakRss / MiB).toFixed(0)} |`,
        );
      } finally {
        await knot.stop();
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
