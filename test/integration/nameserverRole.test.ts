// Scaling past one process: a second process started with ROLES=nameserver (as `npm start` runs
// it) against the same database serves every zone, and a version is `live` only once it serves
// it too.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../bench/lib/benchService.js';
import { createRecord, createZone, type DnsLab, startDnsLab } from '../helpers/dnsLab.js';
import { eventually, queryDns } from '../helpers/dnsQuery.js';
import { requireTool, runTool } from '../helpers/dnsTools.js';

describe('a second process with ROLES=nameserver', () => {
  let lab: DnsLab;
  let second: ChildProcess | null = null;
  let secondPort: number;
  let dataDir: string;
  let previousSerial = 0;

  const startSecond = async () => {
    second = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { ...process.env, ROLES: 'nameserver', DATABASE_URL: lab.databaseUrl, DNS_PORT: String(secondPort), DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    await eventually(
      async () => ((await queryDns(secondPort, 'nothing.invalid', 'SOA', { timeoutMs: 300 }).catch(() => null)) ? true : undefined),
      30_000,
      'the second nameserver',
    );
  };
  const stopSecond = async () => {
    if (!second) return;
    if (second.exitCode !== null || second.signalCode !== null) {
      second = null;
      return;
    }
    const exited = new Promise((r) => second!.once('exit', r));
    second.kill('SIGTERM');
    await exited;
    second = null;
  };

  beforeAll(async () => {
    secondPort = await freePort();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdns-ns2-'));
    lab = await startDnsLab({ env: { ROLES: 'api,nameserver,worker', DNS_VERIFY_SERVERS: `127.0.0.1:${secondPort}` } });
    await startSecond();
  });
  afterAll(async () => {
    await stopSecond();
    await lab?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves every zone and takes part in verification', async () => {
    await createZone(lab.customerA, 'second-ns.example');
    const record = await createRecord(lab.customerA, 'second-ns.example', { name: 'www', type: 'AAAA', data: { address: '2001:db8::5' } });
    await eventually(
      async () => {
        const set = (await lab.customerA.get(`/zones/second-ns.example/changesets/${record.publication.changeset_id}`)).body;
        return set.state === 'live' ? set : undefined;
      },
      15_000,
      'live',
    );
    const serial = (await lab.customerA.get('/zones/second-ns.example')).body.serial;
    const fromSecond = await queryDns(secondPort, 'www.second-ns.example', 'AAAA');
    expect(fromSecond.aa).toBe(true);
    expect(fromSecond.answers.map((a) => a.address)).toEqual(['2001:db8::5']);
    expect((await queryDns(secondPort, 'second-ns.example', 'SOA')).answers[0]!.serial).toBe(serial);
  });

  it('keeps a version `pushed` while that process is down; it loads every zone when it starts and the version goes live', async () => {
    await stopSecond();
    previousSerial = (await lab.customerA.get('/zones/second-ns.example')).body.serial;
    const record = await createRecord(lab.customerA, 'second-ns.example', { name: 'late', type: 'A', data: { address: '192.0.2.99' } });
    const setPath = `/zones/second-ns.example/changesets/${record.publication.changeset_id}`;
    await eventually(async () => ((await lab.customerA.get(setPath)).body.state === 'pushed' ? true : undefined));
    // The embedded nameserver serves it (its feed loads the version just after it is pushed); the second one is down.
    const late = async () => (await queryDns(lab.service.nameserver!.server.port, 'late.second-ns.example', 'A')).answers.map((a) => a.address);
    await eventually(async () => (JSON.stringify(await late()) === '["192.0.2.99"]' ? true : undefined), 10_000, 'the embedded nameserver to serve it');
    await new Promise((r) => setTimeout(r, 1000));
    expect((await lab.customerA.get(setPath)).body.state).toBe('pushed');

    await startSecond();
    await lab.service.publication!.reconcile();
    await eventually(async () => ((await lab.customerA.get(setPath)).body.state === 'live' ? true : undefined), 15_000, 'live after the restart');
    expect((await queryDns(secondPort, 'late.second-ns.example', 'A')).answers.map((a) => a.address)).toEqual(['192.0.2.99']);
  });

  it('answers IXFR for a change published while it was down, from the stored version history', (ctx) => {
    const dig = requireTool('dig', ctx);
    // The process above loaded the zone whole at start; its journal comes from zone_versions.
    const out = runTool(dig, ['@127.0.0.1', '-p', String(secondPort), '+tcp', '+noall', '+answer', `ixfr=${previousSerial}`, 'second-ns.example']).stdout;
    const soaSerials = out
      .split('\n')
      .filter((l) => /\tSOA\t/.test(l))
      .map((l) => Number(l.trim().split(/\s+/)[6]));
    // Incremental form: new SOA, then the old one opening the first difference (RFC 1995 §4).
    expect(soaSerials).toContain(previousSerial);
    expect(out).toMatch(/late\.second-ns\.example\.\s+\d+\s+IN\s+A\s+192\.0\.2\.99/);
    expect(out).not.toMatch(/www\.second-ns\.example/);
  });
});
