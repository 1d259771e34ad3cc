// The zone snapshot alone, in-process, without PostgreSQL: the cost of a one-record diff and the
// memory of a 1,000,000-record zone (the same zone bench/nameserverMemory.ts seeds: SOA, two NS,
// A records h1…h999997). Each measurement runs in its own child process (`--expose-gc`), and the
// children of two source trees alternate (A, B, A, B, …) so that load from other work on a shared
// machine falls on both alike; the summary gives medians over the rounds.
//
//   node --import tsx bench/snapshotDiff.ts [--before <tree>] [--rounds 3] [--records 1000000] [--diffs 2000]
//
// <tree> is a checkout of another version of this repository (e.g. `git archive <commit> | tar -x
// -C /tmp/before`); without it only the current tree is measured.
//
// Per child: heap and RSS of the snapshot after GC (the records it was built from dropped, as the
// feed drops them), build time, then `--diffs` one-record diffs applied one after another as the
// publisher writes them (old SOA out; new SOA and one new A in), each timed, and finally the heap
// each retained version costs while 100 successive versions are kept (what structural sharing
// saves). Where the tree has the canonical-order index of owners: the first owner query (which
// makes the index where the tree makes it on first use), then `--diffs` more diffs with the index
// in place, and the time of a covering query.
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 && args[at + 1] !== undefined ? args[at + 1]! : fallback;
};
const RECORDS = Number(option('records', '1000000'));
const DIFFS = Number(option('diffs', '2000'));
const ORIGIN = 'z1.bench.example';
const SERIAL = 2026112201;

interface ChildResult {
  tree: string;
  heapMiB: number;
  rssMiB: number;
  buildS: number;
  /** CPU time of the build (records encoded and snapshot built), seconds. */
  buildCpuS: number;
  diffUs: { p50: number; p90: number; p99: number; max: number };
  /** CPU time (user + system) of the whole diff loop over the number of diffs: less sensitive to other work than wall time. */
  diffCpuUs: number;
  perVersionKiB: number;
  afterDiffsHeapMiB: number;
  queryUs: number | null;
  /** Time of the first owner query, which makes the owner index where the tree makes it on first use, ms. */
  firstQueryMs: number | null;
  /** One-record diffs again, now that the owner index exists (kept by every diff from then on). */
  indexedDiffUs: { p50: number; p90: number } | null;
}

const MiB = 1024 * 1024;
const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const median = (xs: number[]) =>
  quantile(
    [...xs].sort((a, b) => a - b),
    0.5,
  );

function gc(): void {
  const collect = globalThis.gc;
  if (!collect) throw new Error('run the child with --expose-gc');
  collect();
  collect();
}

async function child(tree: string): Promise<ChildResult> {
  const load = (file: string) => import(pathToFileURL(path.join(tree, file)).href);
  const { buildZoneSnapshot, applyZoneDiff } = await load('nameserver/zone/snapshot.ts');
  const { encodeRdata } = await load('nameserver/wire/rdata.ts');
  const { TYPE } = await load('nameserver/types.ts');
  const soa = (serial: number) => ({
    name: ORIGIN,
    type: TYPE.SOA,
    ttl: 3600,
    rdata: encodeRdata('SOA', {
      mname: 'ns1.bench.example',
      rname: 'hostmaster.bench.example',
      serial,
      refresh: 10800,
      retry: 3600,
      expire: 1209600,
      minimum: 300,
    }),
  });
  gc();
  const heap0 = process.memoryUsage().heapUsed;
  const rss0 = process.memoryUsage().rss;

  const t0 = performance.now();
  const buildCpu0 = process.cpuUsage();
  let snapshot = (() => {
    const records = [soa(SERIAL)];
    for (const n of [1, 2]) records.push({ name: ORIGIN, type: TYPE.NS, ttl: 3600, rdata: encodeRdata('NS', { nameserver: `ns${n}.bench.example` }) });
    for (let i = 1; i <= RECORDS - 3; i++) {
      const address = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
      records.push({ name: `h${i}.${ORIGIN}`, type: TYPE.A, ttl: 3600, rdata: encodeRdata('A', { address }) });
    }
    return buildZoneSnapshot(ORIGIN, records);
  })();
  const buildS = (performance.now() - t0) / 1000;
  const buildCpu = process.cpuUsage(buildCpu0);
  const buildCpuS = (buildCpu.user + buildCpu.system) / 1e6;
  gc();
  const heapMiB = (process.memoryUsage().heapUsed - heap0) / MiB;
  const rssMiB = (process.memoryUsage().rss - rss0) / MiB;

  const a = encodeRdata('A', { address: '192.0.2.1' });
  const diffOf = (k: number) => ({
    fromSerial: SERIAL + k - 1,
    toSerial: SERIAL + k,
    removed: [soa(SERIAL + k - 1)],
    added: [soa(SERIAL + k), { name: `new${k}.${ORIGIN}`, type: TYPE.A, ttl: 3600, rdata: a }],
  });
  let k = 1;
  const timedDiffs = (count: number): number[] => {
    const times: number[] = [];
    for (const end = k + count; k < end; k++) {
      const diff = diffOf(k);
      const started = performance.now();
      snapshot = applyZoneDiff(snapshot, diff);
      times.push((performance.now() - started) * 1000);
    }
    return times.sort((x, y) => x - y);
  };
  const cpu0 = process.cpuUsage();
  const times = timedDiffs(DIFFS);
  const cpu = process.cpuUsage(cpu0);
  const diffCpuUs = (cpu.user + cpu.system) / DIFFS;
  gc();
  const afterDiffsHeapMiB = (process.memoryUsage().heapUsed - heap0) / MiB;

  // 100 versions kept alive at once: each costs only the paths its diff copied.
  const kept = [snapshot];
  for (let v = 0; v < 100; v++, k++) kept.push((snapshot = applyZoneDiff(snapshot, diffOf(k))));
  gc();
  const perVersionKiB = (((process.memoryUsage().heapUsed - heap0) / MiB - afterDiffsHeapMiB) * 1024) / 100;

  let queryUs: number | null = null;
  let firstQueryMs: number | null = null;
  let indexedDiffUs: ChildResult['indexedDiffUs'] = null;
  if (typeof snapshot.previousOwner === 'function') {
    const first = performance.now();
    snapshot.previousOwner(`x.${ORIGIN}`);
    firstQueryMs = performance.now() - first;
    const indexed = timedDiffs(DIFFS);
    indexedDiffUs = { p50: quantile(indexed, 0.5), p90: quantile(indexed, 0.9) };
    const queries = 100_000;
    const names = Array.from({ length: queries }, (_, i) => `x${(i * 7919) % RECORDS}.${ORIGIN}`);
    const started = performance.now();
    let found = 0;
    for (const name of names) if (snapshot.previousOwner(name) !== undefined) found++;
    queryUs = ((performance.now() - started) * 1000) / queries;
    if (found !== queries) throw new Error(`previousOwner found ${found} of ${queries}`);
  }
  kept.length = 0;
  return {
    tree,
    heapMiB,
    rssMiB,
    buildS,
    buildCpuS,
    diffUs: { p50: quantile(times, 0.5), p90: quantile(times, 0.9), p99: quantile(times, 0.99), max: times[times.length - 1]! },
    diffCpuUs,
    perVersionKiB,
    afterDiffsHeapMiB,
    queryUs,
    firstQueryMs,
    indexedDiffUs,
  };
}

const row = (label: string, r: ChildResult) =>
  `| ${label} | ${r.heapMiB.toFixed(0)} | ${r.rssMiB.toFixed(0)} | ${r.buildS.toFixed(1)} | ${r.buildCpuS.toFixed(1)} | ${r.diffUs.p50.toFixed(1)} | ${r.diffUs.p90.toFixed(1)} | ${r.diffUs.p99.toFixed(1)} | ${r.diffCpuUs.toFixed(1)} | ${r.perVersionKiB.toFixed(1)} | ${r.queryUs === null ? '–' : r.queryUs.toFixed(2)} | ${r.firstQueryMs === null ? '–' : r.firstQueryMs.toFixed(0)} | ${r.indexedDiffUs === null ? '–' : `${r.indexedDiffUs.p50.toFixed(1)} / ${r.indexedDiffUs.p90.toFixed(1)}`} |`;

if (args[0] === 'child') {
  const result = await child(args[1]!);
  process.stdout.write(JSON.stringify(result));
} else {
  const here = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
  const before = args.includes('--before') ? path.resolve(option('before', '')) : null;
  const rounds = Number(option('rounds', '3'));
  const run = (tree: string): ChildResult =>
    JSON.parse(
      execFileSync(
        process.execPath,
        [
          '--expose-gc',
          '--max-old-space-size=8192',
          '--import',
          'tsx',
          path.join(here, 'bench/snapshotDiff.ts'),
          'child',
          tree,
          '--records',
          String(RECORDS),
          '--diffs',
          String(DIFFS),
        ],
        {
          encoding: 'utf8',
          cwd: here,
        },
      ),
    );
  console.log(`${new Date().toISOString()}, ${os.cpus().length} × ${os.cpus()[0]?.model}, Node ${process.version}, ${RECORDS} records, ${DIFFS} diffs`);
  const header =
    '| tree | snapshot heap MiB | RSS growth MiB | build s | build CPU s | diff p50 µs | p90 µs | p99 µs | diff CPU µs (mean) | heap per retained version KiB | previousOwner µs | first owner query ms | diff p50 / p90 µs with the owner index |';
  console.log(header);
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  const results: Record<string, ChildResult[]> = { before: [], after: [] };
  for (let r = 0; r < rounds; r++) {
    for (const [label, tree] of before
      ? ([
          ['before', before],
          ['after', here],
        ] as const)
      : ([['after', here]] as const)) {
      const result = run(tree);
      results[label]!.push(result);
      console.log(row(`${label} (round ${r + 1})`, result));
    }
  }
  for (const [label, rs] of Object.entries(results)) {
    if (rs.length === 0) continue;
    const med: ChildResult = {
      tree: label,
      heapMiB: median(rs.map((r) => r.heapMiB)),
      rssMiB: median(rs.map((r) => r.rssMiB)),
      buildS: median(rs.map((r) => r.buildS)),
      buildCpuS: median(rs.map((r) => r.buildCpuS)),
      diffUs: {
        p50: median(rs.map((r) => r.diffUs.p50)),
        p90: median(rs.map((r) => r.diffUs.p90)),
        p99: median(rs.map((r) => r.diffUs.p99)),
        max: median(rs.map((r) => r.diffUs.max)),
      },
      diffCpuUs: median(rs.map((r) => r.diffCpuUs)),
      perVersionKiB: median(rs.map((r) => r.perVersionKiB)),
      afterDiffsHeapMiB: median(rs.map((r) => r.afterDiffsHeapMiB)),
      queryUs: rs[0]!.queryUs === null ? null : median(rs.map((r) => r.queryUs!)),
      firstQueryMs: rs[0]!.firstQueryMs === null ? null : median(rs.map((r) => r.firstQueryMs!)),
      indexedDiffUs:
        rs[0]!.indexedDiffUs === null ? null : { p50: median(rs.map((r) => r.indexedDiffUs!.p50)), p90: median(rs.map((r) => r.indexedDiffUs!.p90)) },
    };
    console.log(row(`**${label}, median of ${rs.length}**`, med));
  }
}
