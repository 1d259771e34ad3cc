// The service under test for every benchmark: started as `npm start` starts it (a child process
// running src/main.ts), on free ports, with a fresh DATA_DIR; the load comes from the caller.
import { spawn } from 'node:child_process';
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
  stop(): Promise<void>;
}

export async function startBenchService(options: { env?: Record<string, string>; nodeArgs?: string[] } = {}): Promise<BenchService> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'mdns-bench-'));
  const port = await freePort();
  const dnsPort = Number(options.env?.DNS_PORT ?? (await freePort()));
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), '--import', 'tsx', 'src/main.ts'], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      HTTP_PORT: String(port),
      DNS_PORT: String(dnsPort),
      EMBEDDED_PG_PORT: String(await freePort()),
      LOG_LEVEL: 'info',
      ...options.env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; !(await fetch(`${base}/healthz`).then((r) => r.ok, () => false)); i++) {
    if (i > 600 || child.exitCode !== null) throw new Error('service did not become healthy');
    await new Promise((r) => setTimeout(r, 200));
  }
  const tokens = JSON.parse(await fs.readFile(path.join(dataDir, 'lab-tokens.json'), 'utf8')) as LabTokens;
  return {
    base,
    dnsPort,
    tokens,
    dataDir,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.on('exit', r));
      await fs.rm(dataDir, { recursive: true, force: true });
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
