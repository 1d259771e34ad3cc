// `npm start` on the embedded database, as a newcomer runs it: the real entry point in a child
// process with no DATABASE_URL, its lab tokens file, one request, and a clean SIGTERM. Then a
// restart on the same DATA_DIR keeps the tokens.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

interface Started {
  child: ChildProcess;
  base: string;
  stdout: () => string;
  exited: Promise<number | null>;
}

async function startLab(dataDir: string): Promise<Started> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, HTTP_PORT: String(await freePort()), EMBEDDED_PG_PORT: String(await freePort()) };
  delete env.DATABASE_URL;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const base = `http://127.0.0.1:${env.HTTP_PORT}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`npm start exited early:\n${out}`);
    const ok = await fetch(`${base}/healthz`).then((r) => r.status === 200, () => false);
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`not healthy in time:\n${out}`);
    await new Promise((r) => setTimeout(r, 300));
  }
  return { child, base, stdout: () => out, exited };
}

const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'mdns-smoke-'));
afterAll(() => fs.rm(dataDir, { recursive: true, force: true }));

describe('npm start on the embedded database', () => {
  let firstTokens: { reseller: string };

  it('starts the lab, writes lab-tokens.json, serves it, and stops cleanly on SIGTERM', async () => {
    const lab = await startLab(dataDir);
    const file = JSON.parse(await fs.readFile(path.join(dataDir, 'lab-tokens.json'), 'utf8'));
    expect(Object.keys(file).sort()).toEqual(['customers', 'platform', 'reseller', 'tenants']);
    expect(file.platform).toMatch(/^svc_test_/);
    expect(file.customers).toHaveLength(2);
    expect(file.tenants.customers).toHaveLength(2);
    expect(lab.stdout()).toContain(path.join(dataDir, 'lab-tokens.json'));
    firstTokens = file;

    const me = await fetch(`${lab.base}/api/v1/me`, { headers: { authorization: `Bearer ${file.reseller}`, 'x-act-as-customer': file.tenants.customers[1] } });
    expect(me.status).toBe(200);
    expect((await me.json()).id).toBe(file.tenants.customers[1]);
    const requestId = me.headers.get('x-request-id');

    // One JSON log line per request, with its request id.
    const line = lab
      .stdout()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l))
      .find((l) => l.request_id === requestId);
    expect(line).toMatchObject({ status: 200, acting_tenant_id: file.tenants.customers[1], on_behalf_of: true });
    expect(line.api_client_id).toMatch(/^cli_/);
    expect(typeof line.duration_ms).toBe('number');

    lab.child.kill('SIGTERM');
    expect(await lab.exited).toBe(0);
    // The embedded PostgreSQL was stopped with the service.
    expect(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
  }, 180_000);

  it('keeps the lab tokens across a restart on the same DATA_DIR', async () => {
    const lab = await startLab(dataDir);
    try {
      const file = JSON.parse(await fs.readFile(path.join(dataDir, 'lab-tokens.json'), 'utf8'));
      expect(file.reseller).toBe(firstTokens.reseller);
      const me = await fetch(`${lab.base}/api/v1/me`, { headers: { authorization: `Bearer ${firstTokens.reseller}` } });
      expect(me.status).toBe(200);
    } finally {
      lab.child.kill('SIGINT');
      expect(await lab.exited).toBe(0);
    }
  }, 180_000);
});
