// The service under test for every benchmark: started as `npm start` starts it (a child process
// running src/main.ts), on free ports, with a fresh DATA_DIR; the load comes from the caller.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import { openSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

export interface LabTokens {
  platform: string;
  reseller: string;
  customers: [string, string];
  tenants: { platform: string; reseller: string; customers: [string, string] };
}

export interface BenchService {
  base: string;
  /** The embedded nameserver's port (UDP and TCP on 127.0.0.1). */
  dnsPort: number;
  tokens: LabTokens;
  dataDir: string;
  /** The service's processes (for their CPU time): one, or two with `secondProcess`. */
  pids: number[];
  stop(): Promise<void>;
}

/** The roles of a second process, in a documented split deployment on one machine. */
export type SecondProcess = 'nameserver' | 'worker,nameserver';

/**
 * `secondProcess`: a split deployment on one machine (ARCHITECTURE "Roles"): those roles in a
 * second process, the others (the API among them) in the first, on the same database; the second
 * serves `dnsPort`, which the worker's verification asks (DNS_HOST:DNS_PORT).
 */
export async function startBenchService(
  options: { env?: Record<string, string>; nodeArgs?: string[]; secondProcess?: SecondProcess } = {},
): Promise<BenchService> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'mdns-bench-'));
  const second = options.secondProcess;
  // Two processes of one lab must share its key-encryption key (each would make its own under DATA_DIR).
  const sharedKek = second ? { SECRET_KEY_ENCRYPTION_KEY: crypto.randomBytes(32).toString('hex') } : {};
  const port = await freePort();
  const dnsPort = Number(options.env?.DNS_PORT ?? (await freePort()));
  const spawnService = async (dir: string, httpPort: number, env: Record<string, string>) =>
    spawn(process.execPath, [...(options.nodeArgs ?? []), '--import', 'tsx', 'src/main.ts'], {
      env: {
        ...process.env,
        DATA_DIR: dir,
        HTTP_PORT: String(httpPort),
        DNS_PORT: String(dnsPort),
        EMBEDDED_PG_PORT: String(await freePort()),
        LOG_LEVEL: 'info',
        ...sharedKek,
        ...options.env,
        ...env,
      },
      // BENCH_SERVICE_LOG=FILE keeps the service's log lines (its stdout) there, to see why a run went wrong.
      stdio: ['ignore', process.env.BENCH_SERVICE_LOG ? openSync(process.env.BENCH_SERVICE_LOG, 'a') : 'ignore', 'inherit'],
    });
  const firstRoles: Record<string, string> = second ? { ROLES: second === 'nameserver' ? 'api,worker' : 'api' } : {};
  const child = await spawnService(dataDir, port, firstRoles);
  const children = [child];
  const base = `http://127.0.0.1:${port}`;
  for (
    let i = 0;
    !(await fetch(`${base}/healthz`).then(
      (r) => r.ok,
      () => false,
    ));
    i++
  ) {
    if (i > 600 || child.exitCode !== null) throw new Error('service did not become healthy');
    await new Promise((r) => setTimeout(r, 200));
  }
  const dataDirs = [dataDir];
  if (second) {
    // Started once the first has migrated the database; its readiness shows as zones going live.
    const nsDir = await fs.mkdtemp(path.join(os.tmpdir(), 'mdns-bench-ns-'));
    dataDirs.push(nsDir);
    children.push(await spawnService(nsDir, await freePort(), { ROLES: second }));
  }
  const tokens = JSON.parse(await fs.readFile(path.join(dataDir, 'lab-tokens.json'), 'utf8')) as LabTokens;
  return {
    base,
    dnsPort,
    tokens,
    dataDir,
    pids: children.map((c) => c.pid!),
    stop: async () => {
      for (const c of children) {
        c.kill('SIGTERM');
        if (c.exitCode === null) await new Promise((r) => c.on('exit', r));
      }
      for (const dir of dataDirs) await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

/** Lifts the lab tenants' rate limits, so a benchmark measures its path, not the 429 path. */
export async function liftRateLimits(s: BenchService): Promise<void> {
  for (const id of [s.tokens.tenants.reseller, ...s.tokens.tenants.customers]) {
    const r = await fetch(`${s.base}/api/v1/tenants/${id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${s.tokens.platform}`, 'content-type': 'application/json' },
      body: JSON.stringify({ limits: { api_rate_limit_per_minute: 1_000_000 } }),
    });
    if (r.status !== 200) throw new Error(`raising limits failed: ${r.status}`);
  }
}

/** A JSON API call as `token`; throws on any status from 300 up. */
export const benchApi =
  (base: string, token: string) =>
  async (method: string, p: string, body?: unknown): Promise<any> => {
    const r = await fetch(`${base}/api/v1${p}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${await r.text()}`);
    return r.status === 204 ? null : r.json();
  };

/** Creates `zone` through the API and waits until its first version is served (publication `live`). */
export async function createLiveZone(api: ReturnType<typeof benchApi>, zone: string): Promise<void> {
  await api('POST', '/zones', { name: zone });
  for (let i = 0; (await api('GET', `/zones/${zone}`)).publication?.state !== 'live'; i++) {
    if (i > 300) throw new Error(`zone ${zone} did not become live`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
