// Dynamic DNS over real HTTP, PostgreSQL and the in-process nameserver (docs/dyndns.md): hosts
// created, read, rotated and deleted through the API; GET /nic/update as routers send it (Basic
// auth or query credentials, host lists, myip/myipv6, the source address, offline), each change
// one change set that the nameserver then answers, a repeat `nochg` with nothing written; the
// answers for bad credentials, foreign names and bad input; the rate limits; a host of one
// tenant never reaching another tenant's zone; and `911` when the database is gone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digQuery } from '../helpers/digClient.js';
import { createRecord, createZone, type DnsLab, startDnsLab, validationErrors } from '../helpers/dnsLab.js';
import { eventually } from '../helpers/dnsQuery.js';
import { requireTool } from '../helpers/dnsTools.js';
import { type FreezableProxy, startFreezableProxy } from '../helpers/freezableProxy.js';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createDatabase, startTestService } from '../helpers/testService.js';

interface Nic {
  status: number;
  text: string;
  headers: Headers;
}

describe('DynDNS hosts and GET /nic/update', () => {
  let database: Awaited<ReturnType<typeof createDatabase>>;
  let proxy: FreezableProxy;
  let lab: DnsLab;
  let dig: string | null;
  const port = () => lab.service.nameserver!.server.port;

  /** GET /nic/update with Basic auth (`auth`: [user, password]) or none, and the query given. */
  const nic = async (query: string, auth?: [string, string], headers: Record<string, string> = {}): Promise<Nic> => {
    const h: Record<string, string> = { 'user-agent': 'test-router/1.0', ...headers };
    if (auth) h.authorization = `Basic ${Buffer.from(`${auth[0]}:${auth[1]}`).toString('base64')}`;
    const res = await fetch(`${lab.url}/nic/update${query ? `?${query}` : ''}`, { headers: h });
    return { status: res.status, text: await res.text(), headers: res.headers };
  };
  const changeSets = async (zone: string) =>
    Number((await lab.sql.query('SELECT count(*) AS n FROM change_sets c JOIN zones z ON z.id = c.zone_id WHERE z.name = $1', [zone])).rows[0].n);
  /** What the nameserver answers for name/type, once it answers `expected` (an empty list: no such records). */
  const served = (name: string, type: 'A' | 'AAAA', expected: string[]) =>
    eventually(
      async () => {
        const r = await digQuery(dig!, port(), `${name}.`, type);
        const got = r.answer
          .filter((l) => l.split(' ')[3] === type)
          .map((l) => l.split(' ').pop()!)
          .sort();
        return JSON.stringify(got) === JSON.stringify([...expected].sort()) ? r : undefined;
      },
      15_000,
      `${type} of ${name} = ${expected.join(',')}`,
    );
  const zoneActive = (api: DnsLab['customerA'], zone: string) =>
    eventually(async () => ((await api.get(`/zones/${zone}`)).body.status === 'active' ? true : undefined), 15_000, `${zone} active`);

  beforeAll(async () => {
    dig = requireTool('dig');
    database = await createDatabase();
    proxy = await startFreezableProxy(database.url);
    lab = await startDnsLab({
      databaseUrl: proxy.url,
      // The test client is a trusted proxy (it connects from the loopback): X-Forwarded-For names
      // the router's address, so a test can send from the Internet as routers do.
      env: {
        ROLES: 'api,nameserver,worker',
        DB_STATEMENT_TIMEOUT_MS: '1000',
        DB_ACQUIRE_TIMEOUT_MS: '1500',
        DB_CONNECT_TIMEOUT_MS: '1000',
        DYNDNS_TRUSTED_PROXIES: '127.0.0.1',
      },
    });
    await createZone(lab.customerA, 'dyn-a.example');
    await createZone(lab.customerB, 'dyn-b.example');
    await zoneActive(lab.customerA, 'dyn-a.example');
    await zoneActive(lab.customerB, 'dyn-b.example');
  });
  afterAll(async () => {
    proxy?.thaw();
    await lab?.close();
    await proxy?.close();
    await database?.drop();
  });

  let home: { id: string; username: string; password: string; hostname: string };

  it('creates a host: credentials once, the TTL for dynamic addresses, nothing written without addresses', async () => {
    const before = await changeSets('dyn-a.example');
    const res = await lab.customerA.post('/dyndns/hosts', { zone: 'dyn-a.example', name: 'home' });
    expect(res.status, res.text).toBe(201);
    expect(res.headers.get('location')).toBe(`/api/v1/dyndns/hosts/${res.body.id}`);
    expect(res.body).toMatchObject({
      zone: 'dyn-a.example',
      name: 'home',
      hostname: 'home.dyn-a.example',
      username: res.body.id,
      ttl: 60,
      ipv4: null,
      ipv6: null,
      last_update: null,
    });
    expect(res.body.password).toMatch(/^[0-9a-v]{32}$/);
    home = res.body;
    expect(await changeSets('dyn-a.example')).toBe(before);
    // Stored hashed only; never shown again.
    const stored = (await lab.sql.query('SELECT password_hash FROM dyndns_hosts WHERE id = $1', [home.id])).rows[0].password_hash;
    expect(stored).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(stored).not.toContain(home.password);
    const read = await lab.customerA.get(`/dyndns/hosts/${home.id}`);
    expect(read.status).toBe(200);
    expect(read.body.password).toBeUndefined();
    const list = await lab.customerA.get('/dyndns/hosts?zone=dyn-a.example');
    expect(list.body.data.map((h: any) => h.id)).toEqual([home.id]);
    expect((await lab.customerB.get('/dyndns/hosts')).body.data).toEqual([]);
  });

  it('refuses bad hosts: reverse or unknown zones, names in use, wrong address families, a second host', async () => {
    await createRecord(lab.customerA, 'dyn-a.example', { name: 'www', type: 'A', data: { address: '192.0.2.80' } });
    await createRecord(lab.customerA, 'dyn-a.example', { name: 'alias', type: 'CNAME', data: { target: 'www.dyn-a.example.' } });
    const inUse = await lab.customerA.post('/dyndns/hosts', { zone: 'dyn-a.example', name: 'www' });
    expect(inUse.status).toBe(409);
    expect(inUse.body.detail).toContain('www');
    expect((await lab.customerA.post('/dyndns/hosts', { zone: 'dyn-a.example', name: 'alias' })).status).toBe(409);
    expect((await lab.customerA.post('/dyndns/hosts', { zone: 'dyn-a.example', name: 'HOME' })).status).toBe(409);
    expect((await lab.customerA.post('/dyndns/hosts', { zone: 'dyn-b.example', name: 'x' })).status).toBe(404);
    const bad = await lab.customerA.post('/dyndns/hosts', { zone: 'dyn-a.example', name: 'bad name', ipv4: '2001:db8::1', ipv6: 'nope' });
    expect(bad.status).toBe(422);
    expect(
      validationErrors(bad)
        .map((e) => e.pointer)
        .sort(),
    ).toEqual(['/ipv4', '/ipv6']);
    const badName = await lab.customerA.post('/dyndns/hosts', { zone: 'dyn-a.example', name: 'bad name' });
    expect(validationErrors(badName)[0]).toMatchObject({ pointer: '/name' });
    expect((await lab.customerA.post('/dyndns/hosts', { zone: 'dyn-a.example', name: 'x', ttl: 5 })).status).toBe(422);
  });

  it('updates with Basic auth: good, one change set, live on the nameserver; the same again is nochg and writes nothing', async () => {
    const before = await changeSets('dyn-a.example');
    const good = await nic('hostname=home.dyn-a.example&myip=192.0.2.10', [home.username, home.password]);
    expect(good.status).toBe(200);
    expect(good.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(good.text).toBe('good 192.0.2.10\n');
    expect(await changeSets('dyn-a.example')).toBe(before + 1);
    await served('home.dyn-a.example', 'A', ['192.0.2.10']);
    const again = await nic('hostname=home.dyn-a.example&myip=192.0.2.10', [home.username, home.password]);
    expect(again.text).toBe('nochg 192.0.2.10\n');
    expect(await changeSets('dyn-a.example')).toBe(before + 1);
    const host = (await lab.customerA.get(`/dyndns/hosts/${home.id}`)).body;
    expect(host).toMatchObject({ ipv4: '192.0.2.10', ipv6: null, last_update: { ip: '192.0.2.10', client: 'test-router/1.0' } });
    // The change set is the host's, published like any: its records are ordinary records of the zone.
    const records = (await lab.customerA.get('/zones/dyn-a.example/records?name=home')).body.data;
    expect(records.map((r: any) => [r.type, r.ttl, r.data.address, r.managed_by])).toEqual([['A', 60, '192.0.2.10', home.id]]);
    // Kept by the host: the record API refuses to change them (docs/records.md "Managed records").
    const patched = await lab.customerA.patch(`/zones/dyn-a.example/records/${records[0].id}`, { data: { address: '192.0.2.99' } });
    expect([patched.status, patched.body.code]).toEqual([409, 'record_managed']);
    expect((await lab.customerA.delete(`/zones/dyn-a.example/records/${records[0].id}`)).status).toBe(409);
    const added = await lab.customerA.post('/zones/dyn-a.example/records', { name: 'home', type: 'A', data: { address: '192.0.2.98' } });
    expect([added.status, added.body.code]).toEqual([409, 'record_managed']);
    expect(await changeSets('dyn-a.example')).toBe(before + 1);
    const cs = (await lab.customerA.get('/zones/dyn-a.example/changesets?limit=1')).body.data[0];
    expect(cs).toMatchObject({ comment: 'DynDNS update of home.dyn-a.example' });
    await eventually(
      async () => ((await lab.customerA.get(`/zones/dyn-a.example/changesets/${cs.id}`)).body.state === 'live' ? true : undefined),
      15_000,
      'live',
    );
  });

  it('takes credentials from the query, IPv6 in myip as AAAA, each family alone, both at once, and the source address', async () => {
    const q = `username=${home.username}&password=${home.password}`;
    expect((await nic(`${q}&hostname=home.dyn-a.example&myip=2001:db8::10`)).text).toBe('good 2001:db8::10\n');
    await served('home.dyn-a.example', 'AAAA', ['2001:db8::10']);
    // The IPv4 record stayed as it was (dual-stack clients send each family alone).
    await served('home.dyn-a.example', 'A', ['192.0.2.10']);
    expect((await nic(`${q}&hostname=home.dyn-a.example&myip=192.0.2.11`)).text).toBe('good 192.0.2.11\n');
    await served('home.dyn-a.example', 'AAAA', ['2001:db8::10']);
    expect((await nic(`${q}&hostname=home.dyn-a.example&myip=192.0.2.12,2001:db8::12`)).text).toBe('good 192.0.2.12\n');
    expect((await nic(`${q}&hostname=home.dyn-a.example&myipv6=2001:db8::13`)).text).toBe('good 2001:db8::13\n');
    const host = (await lab.customerA.get(`/dyndns/hosts/${home.id}`)).body;
    expect([host.ipv4, host.ipv6]).toEqual(['192.0.2.12', '2001:db8::13']);
    // No address given: the client's own (from the trusted proxy's X-Forwarded-For); no hostname: the credentials' host.
    expect((await nic(q, undefined, { 'x-forwarded-for': '198.51.100.7' })).text).toBe('good 198.51.100.7\n');
    // The right-most address that is not a trusted proxy; what the client wrote before it is not believed.
    expect((await nic(q, undefined, { 'x-forwarded-for': '192.0.2.250, 198.51.100.7, 127.0.0.1' })).text).toBe('nochg 198.51.100.7\n');
    await served('home.dyn-a.example', 'A', ['198.51.100.7']);
  });

  it('answers one line per host name: nohost for other names, notfqdn for non-names', async () => {
    const res = await nic('hostname=home.dyn-a.example,www.dyn-a.example,nonsense,home.dyn-a.example.&myip=192.0.2.20', [home.username, home.password]);
    expect(res.status).toBe(200);
    expect(res.text).toBe('good 192.0.2.20\nnohost\nnotfqdn\ngood 192.0.2.20\n');
    expect((await nic('hostname=www.dyn-a.example&myip=192.0.2.21', [home.username, home.password])).text).toBe('nohost\n');
    // The record at www was not touched.
    await served('www.dyn-a.example', 'A', ['192.0.2.80']);
  });

  it('numhost for more than 20 host names, whatever they are, before the credentials; 20 are answered line by line', async () => {
    const before = await changeSets('dyn-a.example');
    const names = (n: number) => Array.from({ length: n }, () => 'home.dyn-a.example').join(',');
    for (const auth of [
      [home.username, home.password],
      [home.username, 'wrong'],
    ] as [string, string][]) {
      const res = await nic(`hostname=${names(21)}&myip=192.0.2.30`, auth);
      expect([res.status, res.text]).toEqual([200, 'numhost\n']);
    }
    // Repeated parameters count like a comma-separated list.
    const repeated = await nic(`${Array.from({ length: 21 }, (_, i) => `hostname=h${i}.dyn-a.example`).join('&')}&myip=192.0.2.30`, [
      home.username,
      home.password,
    ]);
    expect(repeated.text).toBe('numhost\n');
    expect(await changeSets('dyn-a.example')).toBe(before);
    await served('home.dyn-a.example', 'A', ['192.0.2.20']);

    const twenty = await nic(`hostname=${names(20)}&myip=192.0.2.30`, [home.username, home.password]);
    expect(twenty.text).toBe('good 192.0.2.30\n'.repeat(20));
    await served('home.dyn-a.example', 'A', ['192.0.2.30']);
    expect(await changeSets('dyn-a.example')).toBe(before + 1);
  });

  it('offline=YES withdraws the addresses until the next update', async () => {
    expect((await nic('hostname=home.dyn-a.example&offline=YES', [home.username, home.password])).text).toBe('good\n');
    await served('home.dyn-a.example', 'A', []);
    await served('home.dyn-a.example', 'AAAA', []);
    expect((await nic('hostname=home.dyn-a.example&myip=192.0.2.22', [home.username, home.password])).text).toBe('good 192.0.2.22\n');
    await served('home.dyn-a.example', 'A', ['192.0.2.22']);
  });

  it('badauth (401) for wrong or missing credentials; bad input is 400 dnserr, never a 500', async () => {
    for (const auth of [
      [home.username, 'wrong'],
      ['dyn_aaaaaaaaaaaaaaaaaaaaaaaaaa', home.password],
      ['nobody', 'x'],
    ] as [string, string][]) {
      const res = await nic('hostname=home.dyn-a.example&myip=192.0.2.99', auth);
      expect(res.status).toBe(401);
      expect(res.text).toBe('badauth\n');
      expect(res.headers.get('www-authenticate')).toMatch(/^Basic /);
    }
    expect((await nic('hostname=home.dyn-a.example')).status).toBe(401);
    const bad = await nic('hostname=home.dyn-a.example&myip=999.1.1.1', [home.username, home.password]);
    expect([bad.status, bad.text]).toEqual([400, 'dnserr\n']);
    for (const q of [
      'myip=192.0.2.1,192.0.2.2',
      'myip=%ff%fe',
      'hostname=%00&myip=1.2.3.4',
      `hostname=${'a'.repeat(300)}&myip=1.2.3.4`,
      'myip=1.2.3.4&myip=5.6.7.8',
    ]) {
      const res = await nic(q, [home.username, home.password]);
      expect(res.status, q).toBeLessThan(500);
    }
    const raw = await fetch(`${lab.url}/nic/update`, { headers: { authorization: 'Basic !!!notbase64' } });
    expect(raw.status).toBe(401);
    // Only GET updates: a HEAD or POST with good credentials writes nothing.
    const auth = { authorization: `Basic ${Buffer.from(`${home.username}:${home.password}`).toString('base64')}` };
    for (const method of ['HEAD', 'POST']) expect((await fetch(`${lab.url}/nic/update?myip=192.0.2.97`, { method, headers: auth })).status, method).toBe(405);
    await served('home.dyn-a.example', 'A', ['192.0.2.22']);
    // An IPv4-mapped IPv6 address (a dual-stack socket's form) is the IPv4 address.
    expect((await nic('myip=::ffff:192.0.2.24', [home.username, home.password])).text).toBe('good 192.0.2.24\n');
  });

  it('rotation: the new password works, the old one stops at once', async () => {
    const rotated = await lab.customerA.post(`/dyndns/hosts/${home.id}/rotate`);
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body.password).not.toBe(home.password);
    expect((await nic('myip=192.0.2.23', [home.username, home.password])).text).toBe('badauth\n');
    home.password = rotated.body.password;
    expect((await nic('myip=192.0.2.23', [home.username, home.password])).text).toBe('good 192.0.2.23\n');
  });

  it('isolation: a host’s credentials never reach a name of another tenant', async () => {
    await createRecord(lab.customerB, 'dyn-b.example', { name: 'victim', type: 'A', data: { address: '198.51.100.1' } });
    const theirs = await lab.customerB.post('/dyndns/hosts', { zone: 'dyn-b.example', name: 'nas', ipv4: '198.51.100.2' });
    expect(theirs.status, theirs.text).toBe(201);
    const before = await changeSets('dyn-b.example');
    for (const name of ['victim.dyn-b.example', 'nas.dyn-b.example', 'dyn-b.example']) {
      expect((await nic(`hostname=${name}&myip=192.0.2.66`, [home.username, home.password])).text).toBe('nohost\n');
    }
    // Their username with our password, our username with theirs: badauth.
    expect((await nic('hostname=nas.dyn-b.example&myip=192.0.2.66', [theirs.body.username, home.password])).text).toBe('badauth\n');
    expect((await nic('hostname=nas.dyn-b.example&myip=192.0.2.66', [home.username, theirs.body.password])).text).toBe('badauth\n');
    expect(await changeSets('dyn-b.example')).toBe(before);
    await served('victim.dyn-b.example', 'A', ['198.51.100.1']);
    await served('nas.dyn-b.example', 'A', ['198.51.100.2']);
    // Their own update works, while their tenant is not suspended.
    expect((await nic('hostname=nas.dyn-b.example&myip=198.51.100.3', [theirs.body.username, theirs.body.password])).text).toBe('good 198.51.100.3\n');
    const customerB = lab.tokens.tenants.customers[1];
    expect((await lab.reseller.post(`/tenants/${customerB}/suspend`, { reason: 'dyndns test' })).status).toBe(200);
    expect((await nic('hostname=nas.dyn-b.example&myip=198.51.100.4', [theirs.body.username, theirs.body.password])).text).toBe('abuse\n');
    expect((await lab.reseller.post(`/tenants/${customerB}/unsuspend`)).status).toBe(200);
    await served('nas.dyn-b.example', 'A', ['198.51.100.3']);
  });

  it('rate limits: abuse after too many requests of one host, and after too many failed logins from one address', async () => {
    lab.clock.advance(60_000);
    const limit = lab.service.config.dyndns.hostUpdatesPerMinute;
    const answers: string[] = [];
    for (let i = 0; i <= limit; i++) answers.push((await nic('myip=192.0.2.30', [home.username, home.password])).text);
    expect(answers.slice(0, limit).every((a) => a.startsWith('good') || a.startsWith('nochg'))).toBe(true);
    expect(answers[limit]).toBe('abuse\n');
    lab.clock.advance(60_000);
    expect((await nic('myip=192.0.2.31', [home.username, home.password])).text).toBe('good 192.0.2.31\n');

    const failures = lab.service.config.dyndns.authFailuresPerMinute;
    const fresh = await lab.customerA.post('/dyndns/hosts', { zone: 'dyn-a.example', name: 'guessed' });
    for (let i = 0; i < failures; i++) expect((await nic('myip=192.0.2.32', [fresh.body.username, `guess${i}`])).status).toBe(401);
    // Even the right password is not heard out from that address this minute.
    expect((await nic('myip=192.0.2.32', [fresh.body.username, fresh.body.password])).text).toBe('abuse\n');
    lab.clock.advance(60_000);
    expect((await nic('myip=192.0.2.32', [fresh.body.username, fresh.body.password])).text).toBe('good 192.0.2.32\n');
  });

  it('an update that finds its host deleted once it holds the zone lock is nohost and keeps nothing', async () => {
    const racer = (await lab.customerA.post('/dyndns/hosts', { zone: 'dyn-a.example', name: 'racer' })).body;
    expect((await nic('myip=192.0.2.60', [racer.username, racer.password])).text).toBe('good 192.0.2.60\n');
    const before = await changeSets('dyn-a.example');
    const blocker = await lab.sql.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query("SELECT 1 FROM zones WHERE name = 'dyn-a.example' FOR UPDATE");
      // The update reads its host (still there), then waits for the zone; the host goes meanwhile.
      const pending = nic('myip=192.0.2.61', [racer.username, racer.password]);
      await eventually(
        async () =>
          (await lab.sql.query("SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE '%from \"zones\"%for no key update%'")).rowCount
            ? true
            : undefined,
        15_000,
        'the update waiting for the zone',
      );
      await blocker.query('DELETE FROM records WHERE managed_by = $1', [racer.id]);
      await blocker.query('DELETE FROM dyndns_hosts WHERE id = $1', [racer.id]);
      await blocker.query('COMMIT');
      expect((await pending).text).toBe('nohost\n');
    } finally {
      blocker.release();
    }
    expect(await changeSets('dyn-a.example')).toBe(before);
    expect(
      (await lab.sql.query("SELECT count(*)::int AS n FROM records r JOIN zones z ON z.id = r.zone_id WHERE z.name = 'dyn-a.example' AND r.name = 'racer'"))
        .rows[0].n,
    ).toBe(0);
  });

  it('deleting a host removes its records in one change set; deleting the zone deletes its hosts', async () => {
    const fresh = (await lab.customerA.get('/dyndns/hosts?zone=dyn-a.example')).body.data.find((h: any) => h.name === 'guessed');
    await served('guessed.dyn-a.example', 'A', ['192.0.2.32']);
    const before = await changeSets('dyn-a.example');
    expect((await lab.customerA.delete(`/dyndns/hosts/${fresh.id}`)).status).toBe(204);
    expect(await changeSets('dyn-a.example')).toBe(before + 1);
    expect((await lab.customerA.get(`/dyndns/hosts/${fresh.id}`)).status).toBe(404);
    await served('guessed.dyn-a.example', 'A', []);

    await createZone(lab.customerA, 'dyn-gone.example');
    await zoneActive(lab.customerA, 'dyn-gone.example');
    const doomed = await lab.customerA.post('/dyndns/hosts', { zone: 'dyn-gone.example', name: 'h', ipv4: '192.0.2.40' });
    expect(doomed.status).toBe(201);
    expect((await lab.customerA.delete('/zones/dyn-gone.example?confirm=dyn-gone.example')).status).toBe(202);
    expect((await lab.customerA.get(`/dyndns/hosts/${doomed.body.id}`)).status).toBe(404);
    expect((await nic('myip=192.0.2.41', [doomed.body.username, doomed.body.password])).text).toBe('badauth\n');
  });

  it('counts the hosts in /stats', async () => {
    lab.clock.advance(120_000);
    const stats = await lab.customerA.get('/stats');
    expect(stats.body.dyndns).toEqual({ hosts: 1, with_address: 1 });
    const reseller = await lab.reseller.get('/stats');
    expect(reseller.body.dyndns.hosts).toBe(2);
  });

  it('answers 911 when the database is gone, never a stack trace, and recovers', async () => {
    lab.clock.advance(60_000);
    proxy.freeze();
    try {
      // A new password is not in the process's memory: its host must be read.
      const res = await nic('myip=192.0.2.50', [home.username, home.password]);
      expect(res.status).toBe(200);
      expect(res.text).toBe('911\n');
    } finally {
      proxy.thaw();
    }
    await eventually(
      async () => ((await nic('myip=192.0.2.51', [home.username, home.password])).text === 'good 192.0.2.51\n' ? true : undefined),
      15_000,
      'recovery',
    );
  });

  it('counts every answer line by its code in /metrics (dyndns_answers_total)', async () => {
    lab.clock.advance(60_000);
    const counts = async () => {
      const text = await (await fetch(`${lab.url}/metrics`)).text();
      return Object.fromEntries([...text.matchAll(/^dyndns_answers_total\{code="([^"]+)"\} (\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]));
    };
    const before = await counts();
    expect((await nic('hostname=home.dyn-a.example,www.dyn-a.example,nonsense&myip=192.0.2.60', [home.username, home.password])).text).toBe(
      'good 192.0.2.60\nnohost\nnotfqdn\n',
    );
    expect((await nic('myip=192.0.2.60', [home.username, home.password])).text).toBe('nochg 192.0.2.60\n');
    expect((await nic('myip=192.0.2.61', [home.username, 'wrong'])).text).toBe('badauth\n');
    expect((await nic('myip=999.1.1.1', [home.username, home.password])).text).toBe('dnserr\n');
    const after = await counts();
    const grew = (code: string) => (after[code] ?? 0) - (before[code] ?? 0);
    expect(Object.fromEntries(['good', 'nohost', 'notfqdn', 'nochg', 'badauth', 'dnserr', 'abuse', '911'].map((c) => [c, grew(c)]))).toEqual({
      good: 1,
      nohost: 1,
      notfqdn: 1,
      nochg: 1,
      badauth: 1,
      dnserr: 1,
      abuse: 0,
      '911': 0,
    });
    // The 911 of the test before was counted too.
    expect(after['911']).toBeGreaterThanOrEqual(1);
  });

  /** A Prometheus sample of /metrics (0 when absent). */
  const metric = async (pattern: RegExp) => Number(pattern.exec(await (await fetch(`${lab.url}/metrics`)).text())?.[1] ?? 0);
  const passwordChecks = () => metric(/^dyndns_password_checks_total (\d+)$/m);

  it('failed logins are counted before the password is checked: of 60 guesses at once from one address, only the limit are checked', async () => {
    lab.clock.advance(60_000);
    const limit = lab.service.config.dyndns.authFailuresPerMinute;
    const target = (await lab.customerA.post('/dyndns/hosts', { zone: 'dyn-a.example', name: 'flooded' })).body;
    const from = { 'x-forwarded-for': '203.0.113.60' };
    const checksBefore = await passwordChecks();
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => nic('myip=192.0.2.70', [target.username, `guess-${i}`], from)));
    const tally: Record<string, number> = {};
    for (const a of answers) tally[`${a.status} ${a.text.trim()}`] = (tally[`${a.status} ${a.text.trim()}`] ?? 0) + 1;
    // Exactly the limit heard out (and refused), the rest not checked at all: no 911, no pool exhausted.
    expect(tally).toEqual({ '401 badauth': limit, '200 abuse': 60 - limit });
    expect((await passwordChecks()) - checksBefore).toBe(limit);
    // The right password too is not heard out from that address this minute; from another it is.
    expect((await nic('myip=192.0.2.70', [target.username, target.password], from)).text).toBe('abuse\n');
    expect((await nic('myip=192.0.2.70', [target.username, target.password], { 'x-forwarded-for': '203.0.113.61' })).text).toBe('good 192.0.2.70\n');
    expect((await lab.customerA.delete(`/dyndns/hosts/${target.id}`)).status).toBe(204);
  });

  it('a right password gives its count back: the limit is on failed logins', async () => {
    lab.clock.advance(60_000);
    const limit = lab.service.config.dyndns.authFailuresPerMinute;
    const target = (await lab.customerA.post('/dyndns/hosts', { zone: 'dyn-a.example', name: 'returned' })).body;
    const from = { 'x-forwarded-for': '203.0.113.62' };
    for (let i = 0; i < limit - 1; i++) expect((await nic('myip=192.0.2.71', [target.username, `guess-${i}`], from)).text).toBe('badauth\n');
    // Checked (it was not proven in this process yet), right, and then not counted as a failure.
    const checksBefore = await passwordChecks();
    expect((await nic('myip=192.0.2.71', [target.username, target.password], from)).text).toBe('good 192.0.2.71\n');
    expect((await passwordChecks()) - checksBefore).toBe(1);
    expect((await nic('myip=192.0.2.71', [target.username, 'guess-last'], from)).text).toBe('badauth\n');
    expect((await nic('myip=192.0.2.71', [target.username, 'guess-over'], from)).text).toBe('abuse\n');
    // A proven password is remembered: it costs no check and is heard out even now.
    expect((await nic('myip=192.0.2.72', [target.username, target.password], from)).text).toBe('good 192.0.2.72\n');
    expect((await passwordChecks()) - checksBefore).toBe(2);
    expect((await lab.customerA.delete(`/dyndns/hosts/${target.id}`)).status).toBe(204);
  });

  it('refuses addresses no one can reach with 400 dnserr and writes nothing; private addresses and, in the sandbox, documentation ones are published', async () => {
    lab.clock.advance(60_000);
    const auth: [string, string] = [home.username, home.password];
    expect((await nic('myip=192.0.2.80,2001:db8::80', auth)).text).toBe('good 192.0.2.80\n');
    const before = await changeSets('dyn-a.example');
    for (const ip of [
      '0.0.0.0',
      '0.1.2.3',
      '255.255.255.255',
      '240.0.0.1',
      '127.0.0.1',
      '127.1.2.3',
      '169.254.169.254',
      '224.0.0.1',
      '::ffff:127.0.0.1',
      '::',
      '::1',
      'fe80::1',
      'fe80::1%eth0',
      '[fe80::1%25eth0]',
      '2001:db8::1%eth0',
      'ff02::1',
      '100::1',
    ]) {
      for (const param of ['myip', 'myipv6']) {
        const res = await nic(`${param}=${encodeURIComponent(ip)}`, auth);
        expect([res.status, res.text], `${param}=${ip}`).toEqual([400, 'dnserr\n']);
      }
    }
    // One unusable address spoils the request: nothing of it is written.
    expect((await nic('myip=192.0.2.81,fe80::81', auth)).status).toBe(400);
    expect(await changeSets('dyn-a.example')).toBe(before);
    expect(await lab.customerA.get(`/dyndns/hosts/${home.id}`).then((r) => [r.body.ipv4, r.body.ipv6])).toEqual(['192.0.2.80', '2001:db8::80']);
    await served('home.dyn-a.example', 'A', ['192.0.2.80']);
    await served('home.dyn-a.example', 'AAAA', ['2001:db8::80']);
    // No address sent and the client's own unusable (a peer on the loopback, no proxy header): dnserr, nothing written.
    const own = await nic('', auth);
    expect([own.status, own.text]).toEqual([200, 'dnserr\n']);
    expect(await changeSets('dyn-a.example')).toBe(before);
    // A LAN's or a carrier NAT's address is someone's to reach.
    expect((await nic('myip=10.0.0.80,fd00::80', auth)).text).toBe('good 10.0.0.80\n');
    expect((await nic('myip=100.64.0.80', auth)).text).toBe('good 100.64.0.80\n');
    await served('home.dyn-a.example', 'AAAA', ['fd00::80']);
  });
});

describe('GET /nic/update in production', () => {
  it('refuses the documentation ranges the lab publishes, with the rest of the unreachable addresses', async () => {
    const prod = await startTestService({ env: { DEPLOYMENT: 'production', ROLES: 'api' } });
    try {
      // The operator's way to the first live token (as in labReset.test.ts).
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/cli/admin.ts', 'create-platform', 'Production Platform'], {
        env: { ...process.env, DATABASE_URL: prod.databaseUrl, DEPLOYMENT: 'production', DNSSEC_KEY_ENCRYPTION_KEY: '5a'.repeat(32), LOG_LEVEL: 'silent' },
      });
      const live = prod.as(JSON.parse(stdout).token);
      expect((await live.post('/zones', { name: 'dyn-prod.example.com' })).status).toBe(201);
      const host = await live.post('/dyndns/hosts', { zone: 'dyn-prod.example.com', name: 'home' });
      expect(host.status, host.text).toBe(201);
      const nic = async (query: string) => {
        const res = await fetch(`${prod.url}/nic/update?${query}`, {
          headers: { authorization: `Basic ${Buffer.from(`${host.body.username}:${host.body.password}`).toString('base64')}` },
        });
        return [res.status, await res.text()];
      };
      for (const ip of ['192.0.2.1', '198.51.100.1', '203.0.113.1', '2001:db8::1', '127.0.0.1', 'fe80::1'])
        expect(await nic(`myip=${ip}`), ip).toEqual([400, 'dnserr\n']);
      expect(await nic('myip=93.184.215.14,2606:2800:21f:cb07:6820:80da:af6b:8b2c')).toEqual([200, 'good 93.184.215.14\n']);
      expect((await live.get(`/dyndns/hosts/${host.body.id}`)).body).toMatchObject({ ipv4: '93.184.215.14', ipv6: '2606:2800:21f:cb07:6820:80da:af6b:8b2c' });
    } finally {
      await prod.stop();
    }
  });
});
