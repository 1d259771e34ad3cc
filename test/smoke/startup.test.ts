// `npm start` on the embedded database, as a newcomer runs it: the real entry point in a child
// process with no DATABASE_URL, its lab tokens file, one request, and a clean SIGTERM. Then a
// restart on the same DATA_DIR keeps the tokens. Then the embedded database's lifecycle: DATA_DIR
// locked against a second start, the postmaster restarted when it dies (or exit 70), a first
// restart that succeeds after kill -9 of the whole process group (test/smoke/slowReaper.py keeps
// the killed postmaster a zombie, as a slow init does; needs python3), PostgreSQL's own reason
// when it really cannot start.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/dnsQuery.js';

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
  /** stdout and stderr as they came. */
  stdout: () => string;
  /** stdout alone: the JSON log. */
  jsonLog: () => string;
  exited: Promise<number | null>;
  ports: Ports;
}

interface Ports {
  http: number;
  postgres: number;
}

/** `npm start` in a child process, as a newcomer runs it (or under the slow reaper, see LabOptions). */
interface LabOptions {
  ports?: Ports;
  /**
   * Under test/smoke/slowReaper.py: the service leads its own process group, and what is
   * orphaned when that group is killed stays a zombie for seconds (a slow init). The reaper's
   * first output line is the service's pid.
   */
  slowReaper?: boolean;
}

async function spawnLab(dataDir: string, options: LabOptions = {}): Promise<Started> {
  const ports = options.ports ?? { http: await freePort(), postgres: await freePort() };
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    HTTP_PORT: String(ports.http),
    EMBEDDED_PG_PORT: String(ports.postgres),
    REAP_DELAY_S: '8',
  };
  delete env.DATABASE_URL;
  const command = [process.execPath, '--import', 'tsx', 'src/main.ts'];
  const child = options.slowReaper
    ? spawn('python3', ['test/smoke/slowReaper.py', ...command], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(command[0]!, command.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let json = '';
  child.stdout!.on('data', (d) => {
    out += d;
    json += d;
  });
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, base: `http://127.0.0.1:${ports.http}`, stdout: () => out, jsonLog: () => json, exited, ports };
}

async function untilHealthy(lab: Started, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (lab.child.exitCode !== null) throw new Error(`npm start exited early:\n${lab.stdout()}`);
    const ok = await fetch(`${lab.base}/healthz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`not healthy in time:\n${lab.stdout()}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

async function startLab(dataDir: string, options: LabOptions = {}): Promise<Started> {
  const lab = await spawnLab(dataDir, options);
  await untilHealthy(lab);
  return lab;
}

const postmasterPid = async (dataDir: string) => Number((await fs.readFile(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0]);

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

describe('npm start and its DATA_DIR', () => {
  const me = (lab: Started, token: string) => fetch(`${lab.base}/api/v1/me`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);
  const reseller = async () => JSON.parse(await fs.readFile(path.join(dataDir, 'lab-tokens.json'), 'utf8')).reseller as string;

  it('refuses a second start on the same DATA_DIR with a clear message, and the first keeps its database', async () => {
    const first = await startLab(dataDir);
    try {
      const postmaster = await postmasterPid(dataDir);
      const second = await spawnLab(dataDir);
      const code = await second.exited;
      expect(code).not.toBe(0);
      expect(second.stdout()).toContain(`DATA_DIR ${dataDir} is in use by another managed-dns process (pid ${first.child.pid})`);
      expect(second.stdout()).not.toContain('orphaned');
      // Nothing was touched: the same postmaster serves the first instance.
      expect(await postmasterPid(dataDir)).toBe(postmaster);
      expect((await fetch(`${first.base}/healthz`)).status).toBe(200);
      expect(await me(first, await reseller())).toBe(200);
    } finally {
      first.child.kill('SIGTERM');
      expect(await first.exited).toBe(0);
    }
  }, 180_000);

  it('restarts its embedded PostgreSQL when it dies under it, logging only JSON lines meanwhile', async () => {
    const lab = await startLab(dataDir);
    try {
      const token = await reseller();
      const before = await postmasterPid(dataDir);
      process.kill(before, 'SIGKILL');
      // Requests while it is away get an answer (503), and the pool meets its dead connections.
      const during = await Promise.all(Array.from({ length: 5 }, () => me(lab, token)));
      for (const status of during) expect([200, 503]).toContain(status);
      await eventually(async () => ((await me(lab, token)) === 200 ? true : undefined), 60_000, 'the API to answer again');
      expect(await postmasterPid(dataDir)).not.toBe(before);
      expect(lab.stdout()).toContain('embedded PostgreSQL exited unexpectedly; restarting it');
      expect(lab.stdout()).toContain('embedded PostgreSQL restarted');
      const lines = lab
        .jsonLog()
        .split('\n')
        .filter((l) => l.trim() !== '');
      const notJson = lines.filter((l) => {
        try {
          JSON.parse(l);
          return false;
        } catch {
          return true;
        }
      });
      expect(notJson).toEqual([]);
    } finally {
      lab.child.kill('SIGTERM');
      expect(await lab.exited).toBe(0);
    }
  }, 180_000);

  it('exits non-zero (70, for its supervisor) when its embedded PostgreSQL cannot be restarted', async () => {
    const lab = await startLab(dataDir);
    const squatter = net.createServer();
    try {
      const postmaster = await postmasterPid(dataDir);
      process.kill(postmaster, 'SIGKILL');
      // Its port taken by someone else before the first restart attempt (0.5 s later).
      await eventually(
        () =>
          new Promise<true | undefined>((resolve) => {
            squatter.once('error', () => resolve(undefined));
            squatter.listen(lab.ports.postgres, '127.0.0.1', () => resolve(true));
          }),
        400,
        'the embedded PostgreSQL port to be free',
      );
      expect(await lab.exited).toBe(70);
      const fatal = lab
        .jsonLog()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l))
        .find((l) => l.level === 60);
      expect(fatal?.msg).toBe('embedded PostgreSQL cannot be restarted; exiting');
      expect(fatal?.err?.message).toContain('Address already in use');
    } finally {
      squatter.close();
      lab.child.kill('SIGKILL');
    }
  }, 180_000);

  it('starts at the first attempt after kill -9 of the whole process group (service and PostgreSQL)', async () => {
    const killed = await startLab(dataDir, { slowReaper: true });
    const servicePid = Number(killed.stdout().split('\n')[0]);
    const postmaster = await postmasterPid(dataDir);
    process.kill(-servicePid, 'SIGKILL');
    // The killed postmaster is a zombie now (its reaper is slow): pid taken, cmdline empty.
    await eventually(
      async () => ((await fs.readFile(`/proc/${postmaster}/stat`, 'utf8')).split(') ')[1]!.startsWith('Z') ? true : undefined),
      5000,
      'the postmaster to be a zombie',
    );
    // Same ports and directory, at once.
    const again = await startLab(dataDir, { ports: killed.ports });
    try {
      expect(again.stdout()).not.toContain('did not start');
      expect(await postmasterPid(dataDir)).not.toBe(postmaster);
      expect(await me(again, await reseller())).toBe(200);
    } finally {
      again.child.kill('SIGTERM');
      expect(await again.exited).toBe(0);
      await killed.exited;
    }
  }, 180_000);

  it("shows PostgreSQL's own reason when the embedded database really cannot start", async () => {
    const squatter = net.createServer().listen(0, '127.0.0.1');
    await new Promise((r) => squatter.once('listening', r));
    try {
      const port = (squatter.address() as net.AddressInfo).port;
      const lab = await spawnLab(dataDir, { ports: { http: await freePort(), postgres: port } });
      expect(await lab.exited).not.toBe(0);
      expect(lab.stdout()).toContain('embedded PostgreSQL did not start');
      expect(lab.stdout()).toMatch(/could not bind IPv4 address "127\.0\.0\.1": Address already in use/);
      // It released DATA_DIR: the next start is not refused.
      expect(existsSync(path.join(dataDir, 'managed-dns.lock'))).toBe(false);
    } finally {
      squatter.close();
    }
  }, 180_000);
});
