// The lab's parent side as a validating resolver will walk it: a lab root and TLDs served by the
// lab's own nameserver, delegating every lab zone to the service's nameservers with glue on
// loopback, kept in step as zones come and go, hidden from the zone and record API. Queried with
// dig over UDP; the transferred parent zones checked by named-checkzone.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createZone, type DnsLab, startDnsLab } from '../helpers/dnsLab.js';
import { createDatabase, startTestService } from '../helpers/testService.js';
import { noRegistrar as productionRegistrar } from '../../src/domain/dnssec/registrar.js';
import { eventually } from '../helpers/dnsQuery.js';
import { requireTool, runTool, tempFile } from '../helpers/dnsTools.js';
import { digQuery, normalise, runAsync } from '../helpers/digClient.js';

const ALL_ROLES = { ROLES: 'api,nameserver,worker' };

describe('lab parent zones', () => {
  let lab: DnsLab;
  let dig: string;
  const port = () => lab.service.nameserver!.server.port;
  const ask = (name: string, type: string) => digQuery(dig, port(), name, type);
  /** The zone by AXFR from our server (allowed from loopback), one normalised line per record. */
  const transfer = async (origin: string) => {
    const run = await runAsync(dig, ['@127.0.0.1', '-p', String(port()), origin, 'AXFR', '+time=2', '+tries=1', '+nocomments', '+nostats', '+nocmd']);
    return run.stdout
      .split('\n')
      .filter((l) => l.trim() && !l.startsWith(';'))
      .map(normalise);
  };
  const escape = (s: string) => s.replace(/\./g, '\\.');

  beforeAll(async () => {
    lab = await startDnsLab({ env: ALL_ROLES });
  });
  afterAll(async () => lab?.close());

  it('serves a lab root that delegates the lab TLDs to the service nameservers, with loopback glue', async (ctx) => {
    dig = requireTool('dig', ctx);
    const soa = await eventually(
      async () => {
        const r = await ask('.', 'SOA');
        return r.status === 'NOERROR' && r.answer.length ? r : undefined;
      },
      10_000,
      'the root SOA',
    );
    expect(soa.flags).toContain('aa');
    expect(soa.answer[0]).toMatch(/^\. \d+ IN SOA ns1\.lab-dns\.test\. /);

    const root = await eventually(
      async () => {
        const lines = await transfer('.');
        return lines.some((l) => / IN NS /.test(l) && l.startsWith('de. ')) ? lines : undefined;
      },
      10_000,
      'the root with its delegations',
    );
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
    const parent = await eventually(
      async () => {
        const lines = await transfer('test.');
        return delegation(lines).length ? lines : undefined;
      },
      15_000,
      `the delegation of ${name} in test.`,
    );
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
    const info = await eventually(
      async () => {
        const lines = await transfer('info.');
        return lines.some((l) => l.startsWith(`${name}. `)) ? lines : undefined;
      },
      15_000,
      `the delegation of ${name} in info.`,
    );
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

  describe('the simulated registry', () => {
    const name = `reg-${randomBytes(4).toString('hex')}.test`;
    const delegationOf = async () =>
      (await transfer('test.'))
        .filter((l) => l.startsWith(`${name}. `) && l.includes(' IN NS '))
        .map((l) => l.split(' ').at(-1))
        .sort();

    beforeAll(async () => {
      await createZone(lab.customerA, name);
    });

    it('points the delegation elsewhere and back, at the lab parent', async (ctx) => {
      dig = requireTool('dig', ctx);
      await eventually(async () => ((await delegationOf()).length ? true : undefined), 15_000, `the delegation of ${name}`);
      const moved = await lab.platform.patch(`/lab/registrations/${name}`, { delegation: ['NS1.Elsewhere.example', 'ns2.elsewhere.example.'] });
      expect(moved.status, moved.text).toBe(200);
      expect(moved.body).toEqual({ zone: name, registered_here: true, delegation: ['ns1.elsewhere.example', 'ns2.elsewhere.example'], ds: [] });
      await eventually(
        async () => ((await delegationOf()).join() === 'ns1.elsewhere.example.,ns2.elsewhere.example.' ? true : undefined),
        15_000,
        'the moved delegation',
      );
      const back = await lab.platform.patch(`/lab/registrations/${name}`, { delegation: null });
      expect(back.body.delegation).toBeNull();
      await eventually(
        async () => ((await delegationOf()).join() === 'ns1.lab-dns.test.,ns2.lab-dns.test.' ? true : undefined),
        15_000,
        'the delegation back at the service',
      );
    });

    it('marks a domain foreign-registered and takes any DS the customer sets there', async () => {
      expect((await lab.customerA.get(`/lab/registrations/${name}`)).body.registered_here).toBe(true);
      expect(await lab.service.registrar.registeredHere(name)).toBe(true);
      const ds = '12345 13 2 3E4F3BD6ED2A0A1B3F1E8B0B0F2DC0A1C7E0E3C6B4B8D9E2F7A1C5D3E9B2F4A6';
      const refused = await lab.platform.put(`/lab/registrations/${name}/ds`, { ds: [ds] });
      expect(refused.status, refused.text).toBe(409);
      expect(refused.headers.get('content-type')).toContain('application/problem+json');

      const foreign = await lab.platform.patch(`/lab/registrations/${name}`, { registered_here: false });
      expect(foreign.status, foreign.text).toBe(200);
      expect(await lab.service.registrar.registeredHere(name)).toBe(false);
      const set = await lab.platform.put(`/lab/registrations/${name}/ds`, { ds: [ds] });
      expect(set.status, set.text).toBe(200);
      // Stored in the codec's presentation (hex lower case).
      expect(set.body.ds).toEqual([ds.toLowerCase()]);
      const bad = await lab.platform.put(`/lab/registrations/${name}/ds`, { ds: ['12345 13 2 not-hex'] });
      expect(bad.status).toBe(422);
      expect(bad.body.errors[0].pointer).toBe('/ds/0');
      const removed = await lab.platform.put(`/lab/registrations/${name}/ds`, { ds: [] });
      expect(removed.body.ds).toEqual([]);
      // The service's own DS goes only to a domain registered here.
      await expect(lab.service.registrar.setDs(name, [])).rejects.toThrow(/foreign registrar/);
      expect((await lab.platform.patch(`/lab/registrations/${name}`, { registered_here: true })).status).toBe(200);
      await lab.service.registrar.setDs(name, [Buffer.from(`30390d02${'00'.repeat(32)}`, 'hex')]);
      expect((await lab.customerA.get(`/lab/registrations/${name}`)).body.ds).toEqual([`12345 13 2 ${'00'.repeat(32)}`]);
    });

    it('is changed by the lab platform token only, and read only for zones the token sees', async () => {
      for (const api of [lab.reseller, lab.customerA]) {
        const res = await api.patch(`/lab/registrations/${name}`, { registered_here: false });
        expect(res.status).toBe(403);
        expect(res.body.code).toBe('forbidden');
        expect((await api.put(`/lab/registrations/${name}/ds`, { ds: [] })).status).toBe(403);
      }
      expect((await lab.customerB.get(`/lab/registrations/${name}`)).status).toBe(404);
      expect((await lab.platform.get('/lab/registrations/nx-zone.test')).status).toBe(404);
    });

    it('has nothing registered here in production', async () => {
      expect(await productionRegistrar.registeredHere(name)).toBe(false);
      await expect(productionRegistrar.setDs(name, [])).rejects.toThrow();
    });
  });

  it('keeps the parents consistent with the zones that remain after a lab reset', async (ctx) => {
    dig = requireTool('dig', ctx);
    const name = `gone-${randomBytes(4).toString('hex')}.test`;
    await createZone(lab.customerA, name);
    await eventually(async () => ((await transfer('test.')).some((l) => l.startsWith(`${name}. `)) ? true : undefined), 15_000, `the delegation of ${name}`);
    expect((await lab.platform.post('/lab/reset')).status).toBe(204);
    await eventually(
      async () => ((await transfer('test.')).some((l) => / IN NS /.test(l) && !l.startsWith('test. ')) ? undefined : true),
      15_000,
      'the delegations to go',
    );
    expect((await lab.sql.query(`SELECT count(*)::int AS n FROM lab_registrations`)).rows[0].n).toBe(0);
    // The root and TLDs stay.
    expect(await transfer('.')).toContainEqual(expect.stringMatching(/^test\. \d+ IN NS ns1\.lab-dns\.test\.$/));
  });
});

describe('lab parents of an older DATA_DIR', () => {
  it('delegates at start the zones made before the lab parents existed', async (ctx) => {
    const dig = requireTool('dig', ctx);
    const database = await createDatabase();
    try {
      const older = await startTestService({ databaseUrl: database.url, env: { ROLES: 'api' } });
      const name = `old-${randomBytes(4).toString('hex')}.test`;
      await createZone(older.as(older.tokens.customers[0]), name);
      await older.stop();
      // As an older version left it: the zone live, no parent zones at all.
      const sql = new (await import('pg')).default.Client({ connectionString: database.url });
      await sql.connect();
      await sql.query(`UPDATE zones SET status = 'active' WHERE name = $1`, [name]);
      expect((await sql.query(`SELECT count(*)::int AS n FROM zones WHERE kind = 'lab_parent'`)).rows[0].n).toBe(0);
      await sql.end();

      const lab = await startTestService({ databaseUrl: database.url, env: ALL_ROLES });
      try {
        const port = lab.service.nameserver!.server.port;
        await eventually(
          async () => {
            const run = await runAsync(dig, ['@127.0.0.1', '-p', String(port), 'test.', 'AXFR', '+time=2', '+tries=1']);
            return run.stdout
              .split('\n')
              .map(normalise)
              .some((l) => l.startsWith(`${name}. `) && l.includes(' IN NS '))
              ? true
              : undefined;
          },
          15_000,
          `the delegation of ${name}`,
        );
      } finally {
        await lab.stop();
      }
    } finally {
      await database.drop();
    }
  });
});
