// Real dynamic DNS clients against GET /nic/update (docs/dyndns.md "Clients"): Debian's ddclient
// and inadyn, configured as a user would (custom server, dyndns2, plain HTTP on the loopback),
// run once each in a temporary directory. What the user checks: dig gets the new address from the
// nameserver; the same address again is nochg and writes no change set; a wrong password is
// badauth and the client says so.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digQuery } from '../helpers/digClient.js';
import { createZone, type DnsLab, startDnsLab } from '../helpers/dnsLab.js';
import { eventually } from '../helpers/dnsQuery.js';
import { requireTool, runToolAsync } from '../helpers/dnsTools.js';

describe('ddclient and inadyn update DynDNS hosts', () => {
  let lab: DnsLab;
  let dir: string;
  const tools = { ddclient: requireTool('ddclient'), inadyn: requireTool('inadyn'), dig: requireTool('dig') };
  const httpPort = () => new URL(lab.url).port;
  const changeSets = async (zone: string) =>
    Number((await lab.sql.query('SELECT count(*) AS n FROM change_sets c JOIN zones z ON z.id = c.zone_id WHERE z.name = $1', [zone])).rows[0].n);
  const served = (name: string, type: 'A' | 'AAAA', expected: string) =>
    eventually(
      async () => {
        const r = await digQuery(tools.dig!, lab.service.nameserver!.server.port, `${name}.`, type);
        return r.answer.some((l) => l.split(' ')[3] === type && l.endsWith(` ${expected}`)) ? r : undefined;
      },
      15_000,
      `${type} of ${name} = ${expected}`,
    );
  const newHost = async (name: string) => {
    const res = await lab.customerA.post('/dyndns/hosts', { zone: 'clients.example', name });
    expect(res.status, res.text).toBe(201);
    return res.body as { username: string; password: string; hostname: string };
  };
  const file = (name: string, text: string) => {
    const p = path.join(dir, name);
    fs.writeFileSync(p, text, { mode: 0o600 });
    return p;
  };

  beforeAll(async () => {
    lab = await startDnsLab({ env: { ROLES: 'api,nameserver,worker' } });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdns-dyndns-clients-'));
    await createZone(lab.customerA, 'clients.example');
    await eventually(async () => ((await lab.customerA.get('/zones/clients.example')).body.status === 'active' ? true : undefined), 15_000, 'zone active');
  });
  afterAll(async () => {
    await lab?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** One run of ddclient, in the foreground, as a one-shot process; its output (stdout and stderr). */
  const ddclient = async (run: string, host: { username: string; password: string; hostname: string }, ip: string) => {
    const conf = file(
      `ddclient-${run}.conf`,
      [
        'daemon=0',
        'syslog=no',
        'ssl=no',
        'usev4=ipv4',
        `ipv4=${ip}`,
        'protocol=dyndns2',
        `server=127.0.0.1:${httpPort()}`,
        'script=/nic/update',
        `login=${host.username}`,
        `password='${host.password}'`,
        host.hostname,
        '',
      ].join('\n'),
    );
    const r = await runToolAsync(
      tools.ddclient!,
      [
        '-foreground',
        '-daemon=0',
        '-file',
        conf,
        '-cache',
        path.join(dir, `ddclient-${run}.cache`),
        '-pid',
        path.join(dir, `ddclient-${run}.pid`),
        '-verbose',
        '-noquiet',
      ],
      60_000,
    );
    return `${r.stdout}${r.stderr}`;
  };

  it('ddclient: good, the nameserver answers; again nochg with nothing written; a wrong password is reported', async () => {
    const host = await newHost('ddclient');
    const before = await changeSets('clients.example');
    const first = await ddclient('first', host, '192.0.2.101');
    expect(first, first).toMatch(/SUCCESS: +updating ddclient\.clients\.example: good: IP address set to 192\.0\.2\.101/);
    await served(host.hostname, 'A', '192.0.2.101');
    expect(await changeSets('clients.example')).toBe(before + 1);

    // A fresh cache, so that ddclient asks again rather than skip an update it thinks done.
    const second = await ddclient('second', host, '192.0.2.101');
    expect(second, second).toMatch(/RECEIVE: +nochg 192\.0\.2\.101/);
    expect(await changeSets('clients.example')).toBe(before + 1);

    const wrong = await ddclient('wrong', { ...host, password: 'not-the-password' }, '192.0.2.102');
    expect(wrong, wrong).toMatch(/FAILED:.*authorization failed/i);
    await served(host.hostname, 'A', '192.0.2.101');
  });

  /** One run of inadyn: --once in the foreground, its cache in the temporary directory. */
  const inadyn = async (run: string, host: { username: string; password: string; hostname: string }, ip: string) => {
    const conf = file(
      `inadyn-${run}.conf`,
      [
        'allow-ipv6 = true',
        'custom test {',
        '  ssl = false',
        `  username = "${host.username}"`,
        `  password = "${host.password}"`,
        `  ddns-server = "127.0.0.1:${httpPort()}"`,
        '  ddns-path = "/nic/update?hostname=%h&myip=%i"',
        `  checkip-command = "/bin/echo ${ip}"`,
        `  hostname = "${host.hostname}"`,
        '}',
        '',
      ].join('\n'),
    );
    const cache = path.join(dir, `inadyn-${run}-cache`);
    fs.mkdirSync(cache, { recursive: true });
    const r = await runToolAsync(tools.inadyn!, ['--once', '--foreground', '--no-pidfile', '-l', 'debug', '-f', conf, `--cache-dir=${cache}`], 60_000);
    return { code: r.code, output: `${r.stdout}${r.stderr}` };
  };

  it('inadyn: good for IPv4 and IPv6, the nameserver answers; again nochg with nothing written; a wrong password is reported', async () => {
    const host = await newHost('inadyn');
    const before = await changeSets('clients.example');
    const first = await inadyn('first', host, '192.0.2.111');
    expect(first.output, first.output).toMatch(/good 192\.0\.2\.111/);
    await served(host.hostname, 'A', '192.0.2.111');
    expect(await changeSets('clients.example')).toBe(before + 1);

    const second = await inadyn('second', host, '192.0.2.111');
    expect(second.output, second.output).toMatch(/nochg 192\.0\.2\.111/);
    expect(await changeSets('clients.example')).toBe(before + 1);

    // Its IPv6 address in its own request (myip carrying IPv6): the AAAA, the A left as it is.
    const v6 = await inadyn('v6', host, '2001:db8::111');
    expect(v6.output, v6.output).toMatch(/good 2001:db8::111/);
    await served(host.hostname, 'AAAA', '2001:db8::111');
    await served(host.hostname, 'A', '192.0.2.111');

    const wrong = await inadyn('wrong', { ...host, password: 'not-the-password' }, '192.0.2.112');
    // inadyn: "Error code 50: Authentication failure", and it exits non-zero.
    expect(wrong.output, wrong.output).toMatch(/Authentication failure/);
    expect(wrong.code).not.toBe(0);
    await served(host.hostname, 'A', '192.0.2.111');
  });
});
