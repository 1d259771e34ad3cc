// RFC 2136 UPDATE survives kill -9 (issue 24): the service as `npm start` runs it, in its own
// process group on the run's PostgreSQL (DATABASE_URL of a scratch database, as the tests'), a
// zone and a TSIG key made through the API; 20 nsupdate processes at once, each sending its
// UPDATEs one after the other over TCP, every UPDATE adding two TXT records at two names. Once a
// third of them are acknowledged the whole process group gets SIGKILL; nsupdate gives up at its
// first failed exchange. Restarted on the same database, DATA_DIR and ports, the service must hold
// every UPDATE nsupdate saw acknowledged (NOERROR in `answer`): stored (the API), live, and
// answered by the nameserver (dig) as soon as it serves the zone again; and no UPDATE, whether
// acknowledged or not, half-applied: its two records both there or both absent, in the API and
// in DNS alike.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ApiClient } from '../helpers/apiClient.js';
import { listAll } from '../helpers/dnsLab.js';
import { eventually, queryDns } from '../helpers/dnsQuery.js';
import { requireTool, runTool, tempFile } from '../helpers/dnsTools.js';
import { portOutsideEphemeralRange } from '../helpers/reservedPort.js';
import { createDatabase } from '../helpers/testService.js';

const ZONE = 'kill9-update.test';
const PROCESSES = 20;
const UPDATES = 6;

interface Service {
  child: ChildProcess;
  exited: Promise<unknown>;
  output: () => string;
}

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

/** `npm start` leading its own process group (so kill -9 takes any helper process with it). */
async function startService(env: NodeJS.ProcessEnv, base: string): Promise<Service> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const service = { child, exited, output: () => out };
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
    await exited;
  });
  await eventually(
    async () => {
      if (child.exitCode !== null) throw new Error(`the service exited:\n${out}`);
      return (
        (await fetch(`${base}/healthz`).then(
          (r) => r.ok,
          () => false,
        )) || undefined
      );
    },
    60_000,
    'the service to be healthy',
  );
  return service;
}

/** The UPDATE `u` of nsupdate process `p`: two TXT records at two names. */
const names = (p: number, u: number) => [`p${p}-u${u}-a.${ZONE}`, `p${p}-u${u}-b.${ZONE}`] as const;
const text = (name: string) => `"${name.split('.')[0]}"`;

it('keeps every acknowledged UPDATE across kill -9, and half-applies none', async (ctx) => {
  const nsupdate = requireTool('nsupdate', ctx);
  const dig = requireTool('dig', ctx);
  const stdbuf = requireTool('stdbuf', ctx);
  const database = await createDatabase();
  cleanups.push(database.drop);
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'mdns-kill9-'));
  cleanups.push(() => fs.rm(dataDir, { recursive: true, force: true }));
  const httpPort = await portOutsideEphemeralRange();
  const dnsPort = await portOutsideEphemeralRange();
  const base = `http://127.0.0.1:${httpPort}`;
  const env = {
    ...process.env,
    DATABASE_URL: database.url,
    DATA_DIR: dataDir,
    HTTP_PORT: String(httpPort),
    DNS_PORT: String(dnsPort),
    LOG_LEVEL: 'warn',
    LAB_RDNS_SEED: 'off',
  };

  const first = await startService(env, base);
  const tokens = JSON.parse(await fs.readFile(path.join(dataDir, 'lab-tokens.json'), 'utf8'));
  const platform = new ApiClient(base, tokens.platform);
  const api = new ApiClient(base, tokens.customers[0]);
  // 120 change sets in seconds: the tenant's API rate limit is not what this is about.
  expect((await platform.patch(`/tenants/${tokens.tenants.customers[0]}`, { limits: { api_rate_limit_per_minute: 1_000_000 } })).status).toBe(200);
  expect((await api.post('/zones', { name: ZONE })).status).toBe(201);
  await eventually(async () => (await api.get(`/zones/${ZONE}`)).body.publication?.state === 'live' || undefined, 30_000, 'the zone to be live');
  const created = await api.post('/tsig-keys', { name: `kill9.${ZONE}`, algorithm: 'hmac-sha256', policy: { zones: [ZONE], types: ['TXT'] } });
  expect(created.status, created.text).toBe(201);
  const keyArg = `hmac-sha256:${created.body.name}:${created.body.secret}`;

  const script = (lines: string[]) => `${[`server 127.0.0.1 ${dnsPort}`, `zone ${ZONE}`, ...lines].join('\n')}\n`;
  const addBoth = (p: number, u: number) => [...names(p, u).map((n) => `update add ${n} 300 TXT ${text(n)}`), 'send', 'answer'];
  // The key reaches the nameserver by NOTIFY: one UPDATE acknowledged before the load starts.
  await eventually(
    async () => {
      const run = runTool(nsupdate, ['-v', '-t', '5', '-y', keyArg], { input: script(addBoth(PROCESSES, 0)) });
      if (run.status !== 0) throw new Error(run.output);
      return true;
    },
    15_000,
    'a first UPDATE acknowledged',
  );

  // The load: 20 nsupdate processes, each UPDATES sends one after the other; stdout line-buffered
  // (stdbuf) so their acknowledgements can be counted as they come.
  let acknowledged = 0;
  let killAt: () => void = () => undefined;
  const killTime = new Promise<void>((resolve) => (killAt = resolve));
  const runs = Array.from({ length: PROCESSES }, (_, p) => {
    const child = spawn(stdbuf, ['-oL', nsupdate, '-v', '-t', '5', '-y', keyArg], { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin!.end(script(Array.from({ length: UPDATES }, (_, u) => addBoth(p, u)).flat()));
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => {
      acknowledged += (String(d).match(/status: NOERROR/g) ?? []).length;
      stdout += d;
      if (acknowledged >= (PROCESSES * UPDATES) / 3) killAt();
    });
    child.stderr!.on('data', (d) => (stderr += d));
    return new Promise<{ stdout: string; stderr: string; code: number | null }>((resolve) => child.once('close', (code) => resolve({ stdout, stderr, code })));
  });
  // At a third acknowledged, or after 20 s at the latest (the assertions below say whether it was
  // in the middle). Acknowledgements come in bursts, when a version of the zone goes live; 60 ms
  // later, between two builds (100 ms apart, docs/publication.md), UPDATEs are committed that the
  // next version would have acknowledged.
  await Promise.race([killTime, new Promise((r) => setTimeout(r, 20_000))]);
  await new Promise((r) => setTimeout(r, 60));
  process.kill(-first.child.pid!, 'SIGKILL');
  await first.exited;
  const results = await Promise.all(runs);

  // Which UPDATEs nsupdate saw acknowledged: its answers come in the order of its sends (it prints
  // one after each send that got an answer, and gives up at the first exchange that fails).
  const acked: [number, number][] = [];
  const statuses = new Map<string, number>();
  results.forEach((r, p) => {
    const answers = r.stdout.split('Answer:').slice(1);
    expect(answers.length).toBeLessThanOrEqual(UPDATES);
    answers.forEach((answer, u) => {
      const status = /status: (\w+)/.exec(answer)?.[1] ?? 'none';
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      if (status === 'NOERROR') acked.push([p, u]);
    });
    // nsupdate's exit: 0 exactly when every send was acknowledged.
    expect(r.code === 0, `${r.stdout}${r.stderr}`).toBe(answers.length === UPDATES && answers.every((a) => a.includes('status: NOERROR')));
  });
  // The kill came in the middle: some acknowledged, some not; no refusal other than the kill's.
  expect(acked.length).toBeGreaterThan(0);
  expect(acked.length).toBeLessThan(PROCESSES * UPDATES);
  expect([...statuses.keys()]).toEqual(['NOERROR']);

  await startService(env, base);
  // As soon as the nameserver serves the zone again, every acknowledged UPDATE is answered.
  await eventually(async () => (await queryDns(dnsPort, ZONE, 'SOA', { timeoutMs: 500 })).aa || undefined, 30_000, 'the zone served again');
  const everyName = Array.from({ length: PROCESSES }, (_, p) => Array.from({ length: UPDATES }, (_, u) => names(p, u))).flat(2);
  const batch = tempFile('names', everyName.map((n) => `${n} TXT`).join('\n'));
  cleanups.push(async () => batch.remove());
  /** What the nameserver answers for every name now: one dig, its batch file of all the names. */
  const answered = () => {
    const run = runTool(dig, ['@127.0.0.1', '-p', String(dnsPort), '+norec', '+noall', '+answer', '-f', batch.file]);
    expect(run.status, run.output).toBe(0);
    const out = run.stdout;
    const got = new Map<string, string>();
    for (const line of out.split('\n').filter(Boolean)) {
      const [owner, , , type, ...rdata] = line.trim().split(/\s+/);
      if (type === 'TXT') got.set(owner!.replace(/\.$/, ''), rdata.join(' '));
    }
    return got;
  };
  const servedFirst = answered();
  for (const [p, u] of acked) for (const n of names(p, u)) expect(servedFirst.get(n), `${n} (acknowledged) answered`).toBe(text(n));

  // Stored: the API holds every acknowledged UPDATE, and every change set becomes live.
  await eventually(
    async () => {
      const open = await api.get(`/zones/${ZONE}/changesets?state=pending&state=pushed&state=failed&limit=1`);
      expect(open.status).toBe(200);
      return open.body.data.length === 0 || undefined;
    },
    30_000,
    'every change set live',
  );
  const stored = new Map((await listAll(api, `/zones/${ZONE}/records`)).filter((r) => r.type === 'TXT').map((r) => [`${r.name}.${ZONE}`, `"${r.data.text}"`]));
  for (const [p, u] of acked) for (const n of names(p, u)) expect(stored.get(n), `${n} (acknowledged) stored`).toBe(text(n));

  // None half-applied, acknowledged or not: in the API, and in what the nameserver answers now
  // that every version is live (the same as the API).
  const servedLive = answered();
  for (let p = 0; p < PROCESSES; p++) {
    for (let u = 0; u < UPDATES; u++) {
      const [a, b] = names(p, u);
      expect(stored.has(a), `UPDATE ${p}/${u} in the API`).toBe(stored.has(b));
      expect(servedLive.has(a), `UPDATE ${p}/${u} in DNS`).toBe(servedLive.has(b));
      expect(servedLive.has(a), `UPDATE ${p}/${u}: DNS as the API`).toBe(stored.has(a));
    }
  }
}, 120_000);
