// A standard secondary nobody here wrote: Knot DNS (knotd from Debian's packages) is configured
// as a secondary of the embedded nameserver, with TSIG (HMAC-SHA256) on NOTIFY and transfers, and
// as one of the zone's authoritative servers. `live` must wait until Knot serves the new serial.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../bench/lib/benchService.js';
import { createRecord, createZone, type DnsLab, startDnsLab } from '../helpers/dnsLab.js';
import { eventually, queryDns } from '../helpers/dnsQuery.js';
import { requireTool } from '../helpers/dnsTools.js';

const knotd = requireTool('knotd');
const ZONE = 'knot-secondary.example';
const secret = randomBytes(32).toString('base64');

function knotConfig(dir: string, knotPort: number, primaryPort: number): string {
  return `server:
    rundir: "${dir}"
    listen: 127.0.0.1@${knotPort}
database:
    storage: "${dir}/db"
key:
  - id: xfr.lab
    algorithm: hmac-sha256
    secret: ${secret}
remote:
  - id: primary
    address: 127.0.0.1@${primaryPort}
    key: xfr.lab
acl:
  - id: notify_from_primary
    address: 127.0.0.1
    key: xfr.lab
    action: notify
template:
  - id: default
    storage: "${dir}/zones"
    zonefile-sync: -1
    zonefile-load: none
    journal-content: all
zone:
  - domain: ${ZONE}
    master: primary
    acl: notify_from_primary
log:
  - target: stderr
    any: info
`;
}

describe.skipIf(!knotd && process.env.REQUIRE_DNS_TOOLS !== '1')('Knot as a secondary of the embedded nameserver', () => {
  let lab: DnsLab;
  let knot: ChildProcess | null = null;
  let knotLog = '';
  let dir: string;
  let knotPort: number;

  const startKnot = async () => {
    knot = spawn(requireTool('knotd')!, ['-c', path.join(dir, 'knot.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
    knot.stderr!.on('data', (d) => (knotLog += d.toString()));
    await eventually(async () => ((await queryDns(knotPort, 'version.server', 'TXT').catch(() => null)) ? true : undefined), 10_000, 'knotd to listen');
  };
  const stopKnot = async () => {
    if (!knot) return;
    const exited = new Promise((r) => knot!.once('exit', r));
    knot.kill('SIGTERM');
    await exited;
    knot = null;
  };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdns-knot-'));
    fs.mkdirSync(path.join(dir, 'db'));
    fs.mkdirSync(path.join(dir, 'zones'));
    knotPort = await freePort();
    lab = await startDnsLab({
      env: {
        ROLES: 'api,nameserver,worker',
        DNS_SECONDARIES: `127.0.0.1:${knotPort}`,
        DNS_TSIG_KEYS: `xfr.lab:${secret}`,
      },
    });
    fs.writeFileSync(path.join(dir, 'knot.conf'), knotConfig(dir, knotPort, lab.service.nameserver!.server.port));
    await startKnot();
  });
  afterAll(async () => {
    await stopKnot();
    await lab?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('transfers the zone on NOTIFY (TSIG) and only then is the zone live', async () => {
    const zone = await createZone(lab.customerA, ZONE, { records: [{ name: 'www', type: 'A', data: { address: '192.0.2.80' } }] });
    const live = await eventually(async () => {
      const z = (await lab.customerA.get(`/zones/${ZONE}`)).body;
      return z.publication.state === 'live' ? z : undefined;
    }, 20_000, 'zone to be live');
    expect(live.status).toBe('active');
    const fromKnot = await queryDns(knotPort, ZONE, 'SOA');
    expect(fromKnot.aa).toBe(true);
    expect(fromKnot.answers[0]!.serial).toBe(live.serial);
    expect((await queryDns(knotPort, `www.${ZONE}`, 'A')).answers.map((a) => a.address)).toEqual(['192.0.2.80']);
    expect(zone.publication.changeset_id).toBeTruthy();
  });

  it('waits in `pushed` while the secondary is down, and becomes live after it catches up by IXFR', async () => {
    await stopKnot();
    const record = await createRecord(lab.customerA, ZONE, { name: 'mail', type: 'A', data: { address: '192.0.2.81' } });
    const setPath = `/zones/${ZONE}/changesets/${record.publication.changeset_id}`;
    await eventually(async () => ((await lab.customerA.get(setPath)).body.state === 'pushed' ? true : undefined));
    await new Promise((r) => setTimeout(r, 1500));
    expect((await lab.customerA.get(setPath)).body.state).toBe('pushed');

    knotLog = '';
    await startKnot();
    await eventually(async () => ((await lab.customerA.get(setPath)).body.state === 'live' ? true : undefined), 30_000, 'change set to be live');
    expect((await queryDns(knotPort, `mail.${ZONE}`, 'A')).answers.map((a) => a.address)).toEqual(['192.0.2.81']);
    expect(knotLog).toMatch(/IXFR, incoming/);
  });
});
