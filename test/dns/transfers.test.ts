// Zone transfers as secondaries see them: AXFR (RFC 5936) checked by BIND's named-checkzone, IXFR
// (RFC 1995) after diffs, who may transfer (transferAllow, TSIG per RFC 8945) — with dig and kdig
// as the clients, and a raw TCP client for what the tools do not show (message layout, the TSIG
// chain of a multi-message stream, AXFR over UDP).
import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DnsServer } from '../../nameserver/server.js';
import { RCODE, TYPE } from '../../nameserver/types.js';
import { parseMessage } from '../../nameserver/wire/parseMessage.js';
import { signMessage, verifyTsig, type TsigKey } from '../../nameserver/wire/tsig.js';
import type { ZoneStore } from '../../nameserver/zone/store.js';
import { requireTool } from '../helpers/dnsTools.js';
import { normalise, runAsync } from '../helpers/digClient.js';
import { EXAMPLE_SERIAL, exampleDiff, exampleRecords, hasIpv6Loopback, type RecordSpec, soaData, startTestServer, storeWith } from '../helpers/fixtureZones.js';
import { buildQuery, TcpDnsClient } from '../helpers/tcpClient.js';

const key: TsigKey = { name: 'xfr.key', algorithm: 'hmac-sha256', secret: randomBytes(32), owner: null };
const keyArg = `hmac-sha256:${key.name}:${key.secret.toString('base64')}`;

/** 6,000 names: about 150 KB of records, so an AXFR takes several 64 KB messages. */
function largeRecords(): RecordSpec[] {
  const o = 'large.test';
  return [
    [o, 'SOA', 3600, soaData(o, 7)],
    [o, 'NS', 3600, { nameserver: `ns1.${o}` }],
    [`ns1.${o}`, 'A', 3600, { address: '192.0.2.1' }],
    ...Array.from({ length: 6000 }, (_, i): RecordSpec => [`host-${i}.${o}`, 'TXT', 300, { text: `record number ${i}` }]),
  ];
}

/** The record lines of dig/kdig output (comments and blank lines dropped). */
const recordLines = (output: string) =>
  output
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith(';'))
    .map(normalise);

async function axfrWith(tool: string, port: number, zone: string, extra: string[] = [], host = '127.0.0.1') {
  const run = await runAsync(tool, [`@${host}`, '-p', String(port), zone, 'AXFR', ...extra]);
  return { ...run, records: recordLines(run.stdout), output: run.stdout + run.stderr, comments: commentLines(run.stdout) + run.stderr };
}

/** What the tools say besides records: their comments and stderr, where failures are reported. */
const commentLines = (output: string) =>
  output
    .split('\n')
    .filter((l) => l.startsWith(';'))
    .join('\n');

async function namedCheckzone(zone: string, text: string): Promise<{ code: number | null; output: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdns-axfr-'));
  try {
    const file = path.join(dir, `${zone}.zone`);
    fs.writeFileSync(file, text);
    const run = await runAsync(requireTool('named-checkzone')!, [zone, file]);
    return { code: run.code, output: run.stdout + run.stderr };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const soaSerialOf = (line: string) => Number(line.split(' ')[6]);

describe('AXFR and IXFR without TSIG (transferAllow: loopback)', () => {
  let server: DnsServer;
  let store: ZoneStore;
  let logger: Awaited<ReturnType<typeof startTestServer>>['logger'];

  beforeAll(async () => {
    store = storeWith({ 'example.com': exampleRecords(), 'large.test': largeRecords() });
    const hosts = (await hasIpv6Loopback()) ? ['127.0.0.1', '::1'] : ['127.0.0.1'];
    ({ server, logger } = await startTestServer(store, { hosts }));
  });
  afterAll(async () => {
    await server?.close();
  });

  for (const tool of ['dig', 'kdig'] as const) {
    it(`${tool} axfr: SOA first and last, every record once, and named-checkzone accepts it`, async (ctx) => {
      const got = await axfrWith(requireTool(tool, ctx), server.port, 'example.com');
      const specs = exampleRecords();
      expect(got.records, got.output).toHaveLength(specs.length + 1);
      expect(got.records[0]).toMatch(/^example\.com\. 3600 IN SOA /);
      expect(got.records.at(-1)).toBe(got.records[0]);
      const check = await namedCheckzone('example.com', got.stdout);
      expect(check.code, check.output).toBe(0);
      expect(check.output).toMatch(/loaded serial 2026010101\nOK/);
    });
  }

  it('dig axfr of a zone larger than one message: several messages, named-checkzone accepts it', async (ctx) => {
    const got = await axfrWith(requireTool('dig', ctx), server.port, 'large.test');
    expect(got.records).toHaveLength(6003 + 1);
    const size = /XFR size: (\d+) records \(messages (\d+), bytes (\d+)\)/.exec(got.stdout);
    expect(Number(size?.[1])).toBe(6004);
    expect(Number(size?.[2])).toBeGreaterThan(1);
    const check = await namedCheckzone('large.test', got.stdout);
    expect(check.code, check.output).toBe(0);
  });

  it('streams the messages as RFC 5936 §2.2 says: question only in the first, each ≤ 65535, AA, SOA first and last', async () => {
    const client = await TcpDnsClient.connect(server.port);
    try {
      client.send(buildQuery(0x4242, 'large.test', TYPE.AXFR));
      let records: { type: number }[] = [];
      const messages = [];
      // Read until the closing SOA.
      for (let n = 1; ; n++) {
        const [m] = (await client.waitFor(n)).slice(-1);
        const parsed = parseMessage(m!)!;
        messages.push({ size: m!.length, parsed });
        records = records.concat(parsed.answer);
        if (records.length > 1 && records.at(-1)!.type === TYPE.SOA) break;
      }
      expect(messages.length).toBeGreaterThan(1);
      for (const [i, { size, parsed }] of messages.entries()) {
        expect(size).toBeLessThanOrEqual(65535);
        expect(parsed.id).toBe(0x4242);
        expect(parsed.aa).toBe(true);
        expect(parsed.rcode).toBe(RCODE.NOERROR);
        expect(parsed.questions).toHaveLength(i === 0 ? 1 : 0);
      }
      expect(records[0]!.type).toBe(TYPE.SOA);
      expect(records.filter((r) => r.type === TYPE.SOA)).toHaveLength(2);
      expect(records).toHaveLength(6004);
    } finally {
      client.close();
    }
  });

  it('AXFR over UDP is FORMERR (as BIND answers it)', async () => {
    const socket = dgram.createSocket('udp4');
    try {
      const reply = await new Promise<Buffer>((resolve, reject) => {
        socket.once('message', resolve);
        socket.send(buildQuery(7, 'example.com', TYPE.AXFR), server.port, '127.0.0.1', (err) => err && reject(err));
      });
      const parsed = parseMessage(reply)!;
      expect(parsed.rcode).toBe(RCODE.FORMERR);
      expect(parsed.answer).toEqual([]);
    } finally {
      socket.close();
    }
  });

  it('AXFR of a zone not served here: NOTAUTH', async (ctx) => {
    const got = await axfrWith(requireTool('dig', ctx), server.port, 'example.org');
    expect(got.output).toMatch(/Transfer failed/);
    const client = await TcpDnsClient.connect(server.port);
    try {
      client.send(buildQuery(9, 'example.org', TYPE.AXFR));
      const [m] = await client.waitFor(1);
      expect(parseMessage(m!)!.rcode).toBe(RCODE.NOTAUTH);
    } finally {
      client.close();
    }
  });

  it('AXFR over IPv6 from ::1', async (ctx) => {
    if (!(await hasIpv6Loopback())) ctx.skip('no IPv6 loopback');
    const got = await axfrWith(requireTool('dig', ctx), server.port, 'example.com', [], '::1');
    expect(got.records, got.output).toHaveLength(exampleRecords().length + 1);
  });

  describe('IXFR (RFC 1995)', () => {
    const first = EXAMPLE_SERIAL;
    const second = EXAMPLE_SERIAL + 1;
    const third = EXAMPLE_SERIAL + 2;
    const soaLine = (serial: number) => `example.com. 3600 IN SOA ns1.example.com. hostmaster.example.com. ${serial} 3600 600 604800 300`;

    beforeAll(() => {
      store.applyDiff('example.com', exampleDiff(first, second, { oldAddress: '192.0.2.10', newAddress: '192.0.2.11', added: 'new1.example.com' }));
      store.applyDiff('example.com', exampleDiff(second, third, { oldAddress: '192.0.2.11', newAddress: '192.0.2.12', added: 'new2.example.com' }));
    });

    for (const tool of ['dig', 'kdig'] as const) {
      it(`${tool} ixfr=<one version back>: the one diff, in RFC 1995 §4 order`, async (ctx) => {
        const run = await runAsync(requireTool(tool, ctx), [
          '@127.0.0.1',
          '-p',
          String(server.port),
          'example.com',
          `IXFR=${second}`,
          ...(tool === 'kdig' ? ['+tcp'] : []),
        ]);
        expect(recordLines(run.stdout), run.stdout + run.stderr).toEqual([
          soaLine(third),
          soaLine(second),
          'www.example.com. 300 IN A 192.0.2.11',
          soaLine(third),
          'www.example.com. 300 IN A 192.0.2.12',
          `new2.example.com. 300 IN TXT "added in ${third}"`,
          soaLine(third),
        ]);
      });
    }

    it('dig ixfr=<two versions back>: both diffs, oldest first', async (ctx) => {
      const run = await runAsync(requireTool('dig', ctx), ['@127.0.0.1', '-p', String(server.port), 'example.com', `IXFR=${first}`]);
      const lines = recordLines(run.stdout);
      expect(lines.filter((l) => / SOA /.test(l)).map(soaSerialOf)).toEqual([third, first, second, second, third, third]);
      expect(lines).toContain('www.example.com. 300 IN A 192.0.2.10');
      expect(lines).toContain(`new1.example.com. 300 IN TXT "added in ${second}"`);
    });

    it('ixfr=<current serial>: a single SOA', async (ctx) => {
      const run = await runAsync(requireTool('dig', ctx), ['@127.0.0.1', '-p', String(server.port), 'example.com', `IXFR=${third}`]);
      expect(recordLines(run.stdout)).toEqual([soaLine(third)]);
    });

    it('ixfr=<a serial newer than ours>: a single SOA', async (ctx) => {
      const run = await runAsync(requireTool('dig', ctx), ['@127.0.0.1', '-p', String(server.port), 'example.com', `IXFR=${third + 10}`]);
      expect(recordLines(run.stdout)).toEqual([soaLine(third)]);
    });

    it('ixfr=<a serial the journal does not know>: the whole zone, AXFR-style', async (ctx) => {
      const run = await runAsync(requireTool('dig', ctx), ['@127.0.0.1', '-p', String(server.port), 'example.com', 'IXFR=1']);
      const lines = recordLines(run.stdout);
      expect(lines[0]).toBe(soaLine(third));
      expect(lines.at(-1)).toBe(soaLine(third));
      expect(lines).toContain('www.example.com. 300 IN A 192.0.2.12');
      expect(lines).toHaveLength(exampleRecords().length + 2 + 1);
      const check = await namedCheckzone('example.com', run.stdout);
      expect(check.code, check.output).toBe(0);
    });

    it('IXFR over UDP: only the current SOA (RFC 1995 §2), the client then asks over TCP', async (ctx) => {
      const run = await runAsync(requireTool('dig', ctx), ['@127.0.0.1', '-p', String(server.port), 'example.com', `IXFR=${first}`, '+notcp']);
      expect(recordLines(run.stdout)).toEqual([soaLine(third)]);
    });

    it('logs each transfer with its style', () => {
      const styles = logger.lines.filter((l) => l.msg === 'zone transfer').map((l) => (l.obj as { style: string }).style);
      expect(styles).toEqual(expect.arrayContaining(['full', 'soa', 'incremental (1 diffs)', 'incremental (2 diffs)', 'full (history unknown)']));
    });
  });
});

describe('transfers refused from outside transferAllow', () => {
  let server: DnsServer;
  let logger: Awaited<ReturnType<typeof startTestServer>>['logger'];

  beforeAll(async () => {
    ({ server, logger } = await startTestServer(storeWith({ 'example.com': exampleRecords() }), { transferAllow: ['192.0.2.0/24'] }));
  });
  afterAll(async () => {
    await server?.close();
  });

  for (const tool of ['dig', 'kdig'] as const) {
    it(`${tool} axfr from 127.0.0.1 is REFUSED`, async (ctx) => {
      const got = await axfrWith(requireTool(tool, ctx), server.port, 'example.com');
      expect(got.records).toEqual([]);
      expect(got.output).toMatch(/REFUSED|[Tt]ransfer failed/);
    });
  }

  it('IXFR too, over TCP and UDP; each refusal is logged', async () => {
    for (const viaUdp of [false, true]) {
      const query = buildQuery(11, 'example.com', TYPE.IXFR, { authoritySoa: { serial: 1 } });
      let reply: Buffer;
      if (viaUdp) {
        const socket = dgram.createSocket('udp4');
        reply = await new Promise<Buffer>((resolve) => {
          socket.once('message', resolve);
          socket.send(query, server.port, '127.0.0.1');
        });
        socket.close();
      } else {
        const client = await TcpDnsClient.connect(server.port);
        client.send(query);
        [reply] = (await client.waitFor(1)) as [Buffer];
        client.close();
      }
      expect(parseMessage(reply)!.rcode).toBe(RCODE.REFUSED);
    }
    const refusals = logger.lines.filter((l) => l.msg === 'zone transfer refused');
    expect(refusals.length).toBeGreaterThanOrEqual(4);
    expect(refusals[0]!.obj).toMatchObject({ remote: '127.0.0.1', zone: 'example.com', reason: 'address not in transferAllow' });
    expect(server.stats().transfers.refused).toBe(refusals.length);
  });

  it('still answers ordinary queries from the same client', async () => {
    const socket = dgram.createSocket('udp4');
    const reply = await new Promise<Buffer>((resolve) => {
      socket.once('message', resolve);
      socket.send(buildQuery(12, 'www.example.com', TYPE.A), server.port, '127.0.0.1');
    });
    socket.close();
    expect(parseMessage(reply)!.answer).toHaveLength(1);
  });
});

describe('transfers with TSIG keys configured (RFC 8945)', () => {
  let server: DnsServer;

  beforeAll(async () => {
    const store = storeWith({ 'example.com': exampleRecords(), 'large.test': largeRecords() });
    ({ server } = await startTestServer(store, { tsigKeys: [key] }));
  });
  afterAll(async () => {
    await server?.close();
  });

  it('an unsigned AXFR is REFUSED', async (ctx) => {
    const got = await axfrWith(requireTool('dig', ctx), server.port, 'example.com');
    expect(got.records).toEqual([]);
    expect(got.output).toMatch(/REFUSED|Transfer failed/);
  });

  for (const tool of ['dig', 'kdig'] as const) {
    it(`${tool} -y accepts the signed AXFR of a several-message zone (every message signed, chained)`, async (ctx) => {
      const got = await axfrWith(requireTool(tool, ctx), server.port, 'large.test', ['-y', keyArg]);
      expect(got.comments).not.toMatch(/verify|BADSIG|BADKEY|failed|error|WARNING/i);
      // Each message carries its TSIG RR, which the tools print as a record line.
      const tsig = got.records.filter((l) => / TSIG /.test(l));
      const data = got.records.filter((l) => !/ TSIG /.test(l));
      expect(data).toHaveLength(6004);
      expect(tsig.length).toBeGreaterThan(1);
      const check = await namedCheckzone('large.test', `${data.join('\n')}\n`);
      expect(check.code, check.output).toBe(0);
    });
  }

  it('kdig -y: IXFR signed as well', async (ctx) => {
    const run = await runAsync(requireTool('kdig', ctx), ['@127.0.0.1', '-p', String(server.port), 'example.com', 'IXFR=1', '+tcp', '-y', keyArg]);
    expect(run.stdout + run.stderr).not.toMatch(/BADSIG|BADKEY|failed/i);
    expect(recordLines(run.stdout).filter((l) => !/ TSIG /.test(l))).toHaveLength(exampleRecords().length + 1);
  });

  it('a wrong secret: NOTAUTH with BADSIG, nothing transferred', async (ctx) => {
    const got = await axfrWith(requireTool('dig', ctx), server.port, 'example.com', ['-y', `hmac-sha256:${key.name}:${randomBytes(32).toString('base64')}`]);
    expect(got.records.filter((l) => !/ TSIG /.test(l))).toEqual([]);
    expect(got.output).toMatch(/NOTAUTH|BADSIG|failed/i);
  });

  it('an unknown key: NOTAUTH with BADKEY', async (ctx) => {
    const got = await axfrWith(requireTool('dig', ctx), server.port, 'example.com', ['-y', `hmac-sha256:other.key:${key.secret.toString('base64')}`]);
    expect(got.records.filter((l) => !/ TSIG /.test(l))).toEqual([]);
    expect(got.output).toMatch(/NOTAUTH|BADKEY|failed/i);
  });

  it('the stream verifies message by message: the request MAC, then each previous MAC (RFC 8945 §5.3.1)', async () => {
    const now = new Date();
    const signed = signMessage(buildQuery(0x5151, 'large.test', TYPE.AXFR), key, { now });
    const client = await TcpDnsClient.connect(server.port);
    try {
      client.send(signed.message);
      const keys = new Map([[key.name, key]]);
      let previous: Buffer | null = null;
      let soas = 0;
      for (let n = 1; soas < 2; n++) {
        const m = (await client.waitFor(n))[n - 1]!;
        const parsed = parseMessage(m)!;
        expect(parsed.tsig, `message ${n}`).not.toBeNull();
        const check = verifyTsig(m, parsed.tsig!, keys, new Date(), previous ? { previousMac: previous, timersOnly: true } : { requestMac: signed.mac });
        expect(check.ok, `message ${n}`).toBe(true);
        previous = parsed.tsig!.mac;
        soas += parsed.answer.filter((r) => r.type === TYPE.SOA).length;
      }
    } finally {
      client.close();
    }
  });

  it('queries signed with dig -y get signed answers dig accepts', async (ctx) => {
    const run = await runAsync(requireTool('dig', ctx), ['@127.0.0.1', '-p', String(server.port), 'www.example.com', 'A', '+norec', '-y', keyArg]);
    expect(run.stdout).toMatch(/status: NOERROR/);
    expect(run.stdout).toMatch(/;; TSIG PSEUDOSECTION:\n\S+\s+0\s+ANY\s+TSIG\s+hmac-sha256\. \d+ 300 32 \S+ \d+ NOERROR 0/);
    expect(run.stdout + run.stderr).not.toMatch(/Couldn't verify|failure|expected a TSIG/i);
  });

  it('kdig -y on a query: the TSIG of the answer verifies', async (ctx) => {
    const run = await runAsync(requireTool('kdig', ctx), ['@127.0.0.1', '-p', String(server.port), 'www.example.com', 'A', '+norec', '-y', keyArg]);
    expect(run.stdout).toMatch(/status: NOERROR/);
    expect(run.stdout + run.stderr).not.toMatch(/BADSIG|BADKEY|failed|WARNING/i);
  });
});
