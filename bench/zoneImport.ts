// Zone-file import of a ~1 MiB file (~20,000 records: A, AAAA, TXT, MX, SRV and CNAME, each at
// its own name) into an empty zone: POST /zones/{zone}/import as a dry run and applied, and the
// same file imported again with `mode: replace` (nothing changes: the round trip of an export).
// Every repetition uses a fresh empty zone. Times are client-side: upload, the whole request,
// and reading the response (a dry run answers with the full diff).
//
// The service runs as a child process as `npm start` runs it, with ROLES=api (no publication
// worker competing for the two cores between repetitions). The script creates its own SCRATCH
// database on the server of DATABASE_URL and drops it at the end; it never touches `postgres`
// or `test`.
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node --import tsx bench/zoneImport.ts [repetitions]
// With BENCH_CPU_PROF=<dir> the service writes a V8 CPU profile (.cpuprofile) into <dir> on exit.
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

const repetitions = Number(process.argv[2] ?? 5);
const MAX_FILE = 1024 * 1024;

const serverUrl = process.env.DATABASE_URL;
if (!serverUrl) throw new Error('Set DATABASE_URL to the PostgreSQL server (any database; a scratch database is created next to it).');
const scratch = `mdns_bench_import_${randomBytes(4).toString('hex')}`;
if (['postgres', 'test'].includes(scratch)) throw new Error('refusing to use a shared database');
const scratchUrl = new URL(serverUrl);
scratchUrl.pathname = `/${scratch}`;

async function admin(sql: string) {
  const c = new pg.Client({ connectionString: serverUrl });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

/** The benchmark file: ~1 MiB, every record at its own name, relative names under $ORIGIN. */
function zoneFile(zone: string): { text: string; records: number } {
  const lines = [`; benchmark import for ${zone}`, `$ORIGIN ${zone}.`, '$TTL 3600'];
  let size = lines.join('\n').length + 1;
  let records = 0;
  for (let i = 0; ; i++) {
    const h = (i >> 8) & 255;
    const l = i & 255;
    let line: string;
    switch (i % 6) {
      case 0:
        line = `host${i}\tIN\tA\t10.${(i >> 16) & 255}.${h}.${l}`;
        break;
      case 1:
        line = `v6-${i}\t300\tIN\tAAAA\t2001:db8:${(i >> 16).toString(16)}:${(i & 0xffff).toString(16)}::1`;
        break;
      case 2:
        line = `txt${i}\tIN\tTXT\t"v=spf1 ip4:10.${h}.${l}.0/24 include:_spf.example.net ~all"`;
        break;
      case 3:
        line = `mx${i}\tIN\tMX\t10 mail${i % 97}.example.net.`;
        break;
      case 4:
        line = `_svc${i}._tcp\t600\tIN\tSRV\t10 5 ${1024 + (i % 60000)} host${i - 4}`;
        break;
      default:
        line = `alias${i}\tIN\tCNAME\thost${i - 5}.${zone}.`;
    }
    if (size + line.length + 1 > MAX_FILE) break;
    lines.push(line);
    size += line.length + 1;
    records++;
  }
  return { text: `${lines.join('\n')}\n`, records };
}

await admin(`CREATE DATABASE ${scratch}`);
const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'mdns-bench-import-'));
const port = await freePort();
// BENCH_CPU_PROF=<dir>: the service writes a V8 CPU profile there when it stops.
const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
const child = spawn(process.execPath, [...profile, '--import', 'tsx', 'src/main.ts'], {
  env: {
    ...process.env,
    DATABASE_URL: scratchUrl.toString(),
    DATA_DIR: dataDir,
    HTTP_PORT: String(port),
    DNS_PORT: String(await freePort()),
    ROLES: 'api',
    LOG_LEVEL: 'warn',
  },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const stop = async () => {
  if (child.exitCode === null) {
    child.kill('SIGTERM');
    await new Promise((r) => child.on('exit', r));
  }
  await fs.rm(dataDir, { recursive: true, force: true });
  await admin(`DROP DATABASE IF EXISTS ${scratch} WITH (FORCE)`);
};

try {
  const base = `http://127.0.0.1:${port}`;
  for (
    let i = 0;
    !(await fetch(`${base}/healthz`).then(
      (r) => r.ok,
      () => false,
    ));
    i++
  ) {
    if (i > 600) throw new Error('service did not become healthy');
    await new Promise((r) => setTimeout(r, 200));
  }
  const tokens = JSON.parse(await fs.readFile(path.join(dataDir, 'lab-tokens.json'), 'utf8'));
  const call = async (method: string, p: string, token: string, body?: unknown) => {
    const t = performance.now();
    const r = await fetch(`${base}/api/v1${p}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    const ms = performance.now() - t;
    return { status: r.status, body: text ? JSON.parse(text) : null, ms, bytes: text.length };
  };
  const ok = async (expected: number, p: Promise<Awaited<ReturnType<typeof call>>>) => {
    const r = await p;
    if (r.status !== expected) throw new Error(`expected ${expected}, got ${r.status}: ${JSON.stringify(r.body).slice(0, 500)}`);
    return r;
  };
  await ok(
    200,
    call('PATCH', `/tenants/${tokens.tenants.customers[0]}`, tokens.platform, { limits: { api_rate_limit_per_minute: 1_000_000, max_zones: 1000 } }),
  );
  const token = tokens.customers[0] as string;
  const stamp = Date.now().toString(36);

  const dry: number[] = [];
  const applied: number[] = [];
  const replaceSame: number[] = [];
  let fileInfo = '';
  let dryBytes = 0;
  // Warm-up (JIT, connection pool, caches): one small import.
  const warm = `warm-${stamp}.test`;
  await ok(201, call('POST', '/zones', token, { name: warm }));
  await ok(
    201,
    call('POST', `/zones/${warm}/import`, token, {
      zonefile: zoneFile(warm)
        .text.slice(0, 20_000)
        .replace(/\n[^\n]*$/, '\n'),
    }),
  );

  for (let rep = 0; rep < repetitions; rep++) {
    const zone = `imp${rep}-${stamp}.test`;
    await ok(201, call('POST', '/zones', token, { name: zone }));
    const { text, records } = zoneFile(zone);
    fileInfo = `${Buffer.byteLength(text)} bytes, ${records} records`;
    const d = await ok(200, call('POST', `/zones/${zone}/import`, token, { zonefile: text, mode: 'merge', dry_run: true }));
    if (d.body.summary.created !== records) throw new Error(`dry run: ${JSON.stringify(d.body.summary)}`);
    dry.push(d.ms);
    dryBytes = d.bytes;
    const a = await ok(201, call('POST', `/zones/${zone}/import`, token, { zonefile: text, mode: 'merge' }));
    if (a.body.changeset.summary.created !== records) throw new Error(`applied: ${JSON.stringify(a.body.changeset.summary)}`);
    applied.push(a.ms);
    const r = await ok(201, call('POST', `/zones/${zone}/import`, token, { zonefile: text, mode: 'replace' }));
    const s = r.body.changeset.summary;
    if (s.created + s.updated + s.deleted !== 0 || r.body.unchanged !== records) throw new Error(`replace: ${JSON.stringify(r.body).slice(0, 300)}`);
    replaceSame.push(r.ms);
  }

  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
  };
  const row = (label: string, xs: number[]) =>
    `| ${label} | ${xs.length} | ${median(xs).toFixed(0)} | ${Math.max(...xs).toFixed(0)} | ${xs.map((x) => x.toFixed(0)).join(', ')} |`;
  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  console.log(`\n${new Date().toISOString()}, ${os.cpus().length} × ${os.cpus()[0]?.model}, Node ${process.version}, load average at the end ${load}`);
  console.log(`File: ${fileInfo} (A, AAAA, TXT, MX, SRV, CNAME in turn, each at its own name); dry-run response ${(dryBytes / 1e6).toFixed(1)} MB`);
  console.log('| POST /zones/{zone}/import | n | median ms | max ms | all ms |\n|---|---|---|---|---|');
  console.log(row('dry run, merge, into an empty zone', dry));
  console.log(row('applied, merge, into an empty zone', applied));
  console.log(row('applied, replace with the same file (no change)', replaceSame));
} finally {
  await stop();
}
