// The lab's parent side as a validating resolver will walk it: a lab root and TLDs served by the
// lab's own nameserver, delegating every lab zone to the service's nameservers with glue on
// loopback, kept in step as zones come and go, hidden from the zone and record API. Queried with
// dig over UDP; the transferred parent zones checked by named-checkzone.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createZone, type DnsLab, startDnsLab } from '../helpers/dnsLab.js';
import { eventually } from '../helpers/dnsQuery.js';
import { requireTool, runTool, tempFile } from '../helpers/dnsTools.js';
import { digQuery, normalise, runAsync } from '../dns/digClient.js';

const ALL_ROLES = { ROLES: 'api,nameserver,worker' };

describe('lab parent zones', () => {
  let lab: DnsLab;
  let dig: string;
  const port = () => lab.service.nameserver!.server.port;
  const ask = (name: string, type: string) => digQuery(dig, port(), name, type);
  /** The zone by AXFR from our server (allowed from loopback), one normalised line per record. */
  const transfer = async (origin: string) => {
    const run = await runAsync(dig, ['@127.0.0.1', '-p', String(port()), origin, 'AXFR', '+time=2', '+tries=1', '+nocomments', '+nostats', '+nocmd']);
    return run.stdout.split('\n').filter((l) => l.trim() && !l.startsWith(';')).map(normalise);
  };
  const escape = (s: string) => s.replace(/\./g, '\\.');

  beforeAll(async () => {
    lab = await startDnsLab({ env: ALL_ROLES });
  });
  afterAll(async () => lab?.close());

  it('serves a lab root that delegates the lab TLDs to the service nameservers, with loopback glue', async (ctx) => {
    dig = requireTool('dig', ctx);
    const soa = await eventually(async () => {
      const r = await ask('.', 'SOA');
      return r.status === 'NOERROR' && r.answer.length ? r : undefined;
    }, 10_000, 'the root SOA');
    expect(soa.flags).toContain('aa');
    expect(soa.answer[0]).toMatch(/^\. \d+ IN SOA ns1\.lab-dns\.test\. /);

    const root = await eventually(async () => {
      const lines = await transfer('.');
      return lines.some((l) => / IN NS /.test(l) && l.startsWith('de. ')) ? lines : undefined;
    }, 10_000, 'the root with its delegations');
    for (const tld of ['test', 'example', 'com', 'net', 'org', 'de']) {
      expect(root.filter((l) => l.startsWith(`${tld}. `) && l.includes(' IN NS ')).sort(), tld).toEqual([
        expect.stringMatching(new RegExp(`^${tld}\\. \\d+ IN NS ns1\\.lab-dns\\.test\\.$`)),
        expect.stringMatching(new RegExp(`^${tld}\\. \\d+ IN NS ns2\\.lab-dns\\.test\\.$`)),
      ]);
    }
    // Glue: the nameserver names lie below test., which the root delegates.
    expect(root.filter((l) => l.startsWith('ns')).sort()).toEqual([
      expect.stringMatching(/^ns1\.lab-dns\.test\. \d+ IN A 127\.0\.0\.1$/),
      expect.stringMatching(/^ns1\.lab-dns\.test\. \d+ IN AAAA ::1$/),
      expect.stringMatching(/^ns2\.lab-dns\.test\. \d+ IN A 127\.0\.0\.1$/),
      expect.stringMatching(/^ns2\.lab-dns\.test\. \d+ IN AAAA ::1$/),
    ]);

    // The same server holds test. too, so it answers for it itself (as it would for the child of
    // any parent it serves): the apex NS set, and the nameserver names' addresses.
    const testNs = await ask('test.', 'NS');
    expect(testNs.flags).toContain('aa');
    expect(testNs.answer.sort()).toEqual([
      expect.stringMatching(/^test\. \d+ IN NS ns1\.lab-dns\.test\.$/),
      expect.stringMatching(/^test\. \d+ IN NS ns2\.lab-dns\.test\.$/),
    ]);
    const ns1 = await ask('ns1.lab-dns.test.', 'AAAA');
    expect(ns1.flags).toContain('aa');
    expect(ns1.answer).toEqual([expect.stringMatching(/^ns1\.lab-dns\.test\. \d+ IN AAAA ::1$/)]);
  });

  it('delegates a new lab zone from its TLD within seconds, and withdraws it after deletion', async (ctx) => {
    dig = requireTool('dig', ctx);
    const name = `shop-${randomBytes(4).toString('hex')}.test`;
    await createZone(lab.customerA, name);
    const delegation = (lines: string[]) => lines.filter((l) => l.startsWith(`${name}. `)).sort();
    const started = Date.now();
    const parent = await eventually(async () => {
      const lines = await transfer('test.');
      return delegation(lines).length ? lines : undefined;
    }, 15_000, `the delegation of ${name} in test.`);
    const seconds = (Date.now() - started) / 1000;
    expect(seconds).toBeLessThan(15);
    expect(delegation(parent)).toEqual([
      expect.stringMatching(new RegExp(`^${escape(name)}\\. \\d+ IN NS ns1\\.lab-dns\\.test\\.$`)),
      expect.stringMatching(new RegExp(`^${escape(name)}\\. \\d+ IN NS ns2\\.lab-dns\\.test\\.$`)),
    ]);
    // The addresses of the NS names are in test. itself: a referral from test. carries them.
    expect(parent).toContainEqual(expect.stringMatching(/^ns1\.lab-dns\.test\. \d+ IN A 127\.0\.0\.1$/));

    const del = await lab.customerA.delete(`/zones/${name}?confirm=${name}`);
    expect(del.status, del.text).toBe(202);
    await eventually(async () => (delegation(await transfer('test.')).length === 0 ? true : undefined), 15_000, `the delegation of ${name} to go`);
  });

  it('creates the TLD zone of a lab zone under a new TLD, delegated from the root', async (ctx) => {
    dig = requireTool('dig', ctx);
    const name = `lab-${randomBytes(4).toString('hex')}.info`;
    await createZone(lab.customerA, name);
    const info = await eventually(async () => {
      const lines = await transfer('info.');
      return lines.some((l) => l.startsWith(`${name}. `)) ? lines : undefined;
    }, 15_000, `the delegation of ${name} in info.`);
    expect(info.filter((l) => l.startsWith(`${name}. `))).toHaveLength(2);
    const root = await transfer('.');
    expect(root).toContainEqual(expect.stringMatching(/^info\. \d+ IN NS ns1\.lab-dns\.test\.$/));
  });

  it('hides the parent zones from the zone API and refuses writes to them with 404', async () => {
    const zones = await lab.platform.get('/zones?limit=200');
    expect(zones.status).toBe(200);
    const names = zones.body.data.map((z: { name: string }) => z.name);
    for (const parent of ['test', 'com', 'example']) expect(names).not.toContain(parent);
    for (const parent of ['test', 'com', 'test.']) {
      const get = await lab.platform.get(`/zones/${parent}`);
      expect(get.status, parent).toBe(404);
      expect(get.headers.get('content-type')).toContain('application/problem+json');
      const write = await lab.platform.post(`/zones/${parent}/records`, { name: 'evil', type: 'NS', data: { nameserver: 'ns.evil.example' } });
      expect(write.status, parent).toBe(404);
      expect(write.body.code).toBe('not_found');
    }
    const stats = await lab.platform.get('/stats');
    expect(stats.status).toBe(200);
    const created = await lab.platform.post('/zones', { name: 'test' });
    expect(created.status).toBe(422);
  });

  it('transfers root and TLD zones that named-checkzone accepts', async (ctx) => {
    dig = requireTool('dig', ctx);
    const checkzone = requireTool('named-checkzone', ctx);
    for (const origin of ['.', 'test.', 'com.']) {
      const axfr = await runAsync(dig, ['@127.0.0.1', '-p', String(port()), origin, 'AXFR', '+time=2', '+tries=1']);
      expect(axfr.stdout, origin).toMatch(/IN\s+SOA/);
      const zonefile = tempFile(`lab-parent-${origin}zone`, axfr.stdout);
      try {
        const check = runTool(checkzone, ['-i', 'local', origin, zonefile.file]);
        expect(check.status, `${origin}\n${check.output}`).toBe(0);
      } finally {
        zonefile.remove();
      }
    }
  });
});
