// RFC 2136 dynamic update against the real service (docs/dynamic-update.md): every role running on
// PostgreSQL, TSIG keys made through the API as a customer makes them, UPDATEs sent by clients
// nobody here wrote (BIND's nsupdate, Knot's knsupdate) to the service's own nameserver, and the
// result read back by dig and through the API. Checked: every algorithm over UDP and TCP with dig
// seeing the record the moment the client returns (the answer waits until live); the change set
// (source rfc2136, the key's id), its audit entry and zone.changed event; each prerequisite's
// rcode with nothing written; a delete and an add in one message applied together; the §3.4
// decisions (SOA, apex NS, DNSSEC types, CNAME, unsupported types); the API's rules (managed
// records, TTL bounds); policy refusals audited; the key's tenant's zones only; rate limits and
// suspension; SOA discovery without a zone line; a deleted key stopping at once.
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { TSIG_ALGORITHMS, type TsigAlgorithm } from '../../nameserver/wire/tsig.js';
import type { ApiClient } from '../helpers/apiClient.js';
import { createRecord, createZone, type DnsLab, listAll, newCustomer, startDnsLab } from '../helpers/dnsLab.js';
import { eventually } from '../helpers/dnsQuery.js';
import { requireTool, runToolAsync } from '../helpers/dnsTools.js';
import { failedWith, runUpdate, type UpdateClient, type UpdateRunOptions } from '../helpers/nsupdate.js';

const ZONE = 'upd.example';
const OTHER_ZONE = 'upd-other.example';

interface Key {
  id: string;
  name: string;
  algorithm: TsigAlgorithm;
  secret: Buffer;
}

let lab: DnsLab;
let port: number;
let n = 0;

/** The clients this file runs: without them (and without REQUIRE_DNS_TOOLS=1) it is skipped. */
const DIG = requireTool('dig');
const CLIENTS_MISSING = !DIG || !requireTool('nsupdate') || !requireTool('knsupdate');

/** A key of `api`'s tenant through POST /tsig-keys, once the nameserver verifies it (it reloads on commit). */
async function createKey(api: ApiClient, body: { algorithm?: TsigAlgorithm; policy?: unknown } = {}): Promise<Key> {
  const res = await api.post('/tsig-keys', { name: `k${++n}-${body.algorithm ?? 'default'}.keys.upd.example`, ...body });
  expect(res.status, res.text).toBe(201);
  const key: Key = { id: res.body.id, name: res.body.name, algorithm: res.body.algorithm, secret: Buffer.from(res.body.secret, 'base64') };
  await eventually(async () => ((await dig(ZONE, 'SOA', key)).includes('status: NOERROR') ? true : undefined), 10_000, `key ${key.name} known to the nameserver`);
  return key;
}

/** dig's whole output for a query to the service's nameserver (signed with `key` when given). */
async function dig(name: string, type: string, key?: Key, extra: string[] = []): Promise<string> {
  const sign = key ? ['-y', `${key.algorithm}:${key.name}:${key.secret.toString('base64')}`] : [];
  const run = await runToolAsync(DIG!, ['@127.0.0.1', '-p', String(port), name, type, '+norecurse', '+time=2', '+tries=1', ...sign, ...extra]);
  return run.stdout + run.stderr;
}

/** The +short answer of dig for name/type. */
async function answer(name: string, type: string): Promise<string[]> {
  const run = await runToolAsync(DIG!, ['@127.0.0.1', '-p', String(port), name, type, '+short', '+norecurse', '+time=2', '+tries=1']);
  expect(run.code, run.stderr).toBe(0);
  return run.stdout.split('\n').filter(Boolean).sort();
}

const update = (ctx: TestContext, client: UpdateClient, key: Key | undefined, lines: string[], options: Partial<UpdateRunOptions> = {}) =>
  runUpdate(ctx, client, port, lines, { zone: ZONE, key, ...options });

/** The zone's change sets, newest first. */
const changeSets = async (api: ApiClient, zone = ZONE) => listAll(api, `/zones/${zone}/changesets`);
/** Their ids: what a refused update must leave as it was (states move on with publication). */
const changeSetIds = async (api: ApiClient, zone = ZONE) => (await changeSets(api, zone)).map((c) => c.id as string);

/** The zone's records other than the SOA and apex NS, as `name type content` lines. */
async function records(api: ApiClient, zone = ZONE): Promise<string[]> {
  return (await listAll(api, `/zones/${zone}/records`)).filter((r) => !r.system).map((r) => `${r.name} ${r.type} ${r.ttl ?? '-'} ${r.content}`).sort();
}

describe.skipIf(CLIENTS_MISSING && process.env.REQUIRE_DNS_TOOLS !== '1')('RFC 2136 UPDATE against the service', () => {
  beforeAll(async () => {
    lab = await startDnsLab({ env: { ROLES: 'api,nameserver,worker' } });
    port = lab.service.nameserver!.server.port;
    await createZone(lab.customerA, ZONE);
    await createZone(lab.customerB, OTHER_ZONE);
    for (const zone of [ZONE, OTHER_ZONE]) {
      await eventually(async () => ((await (zone === ZONE ? lab.customerA : lab.customerB).get(`/zones/${zone}`)).body.publication.state === 'live' ? true : undefined), 20_000, `${zone} live`);
    }
  }, 60_000);
  afterAll(async () => lab?.close());

  describe('updates that apply', () => {
    for (const client of ['nsupdate', 'knsupdate'] as const) {
      it(`${client}: an add and a delete signed with each algorithm, over UDP and TCP; dig sees each the moment the client returns`, async (ctx) => {
        for (const algorithm of TSIG_ALGORITHMS) {
          const key = await createKey(lab.customerA, { algorithm });
          const name = `${client}-${algorithm}.${ZONE}`;
          const add = await update(ctx, client, key, [`update add ${name} 120 TXT "made by ${client}"`], { tcp: algorithm.endsWith('1') || algorithm.endsWith('256') });
          expect(add.code, add.output).toBe(0);
          expect(add.output).not.toMatch(/failed|status: (?!NOERROR)/);
          expect(await answer(name, 'TXT'), algorithm).toEqual([`"made by ${client}"`]);
          const remove = await update(ctx, client, key, [`update delete ${name} TXT`], { tcp: !algorithm.endsWith('1') });
          expect(remove.code, remove.output).toBe(0);
          expect(await answer(name, 'TXT'), algorithm).toEqual([]);
        }
      }, 120_000);
    }

    it('stores one change set per message: source rfc2136 with the key’s id, its audit entry and its zone.changed event', async (ctx) => {
      const key = await createKey(lab.customerA);
      const run = await update(ctx, 'nsupdate', key, [`update add a.story.${ZONE} 300 A 192.0.2.1`, `update add a.story.${ZONE} 300 A 192.0.2.2`, `update add b.story.${ZONE} 300 AAAA 2001:db8::1`]);
      expect(run.code, run.output).toBe(0);
      const [latest] = await changeSets(lab.customerA);
      expect(latest).toMatchObject({ source: 'rfc2136', source_id: key.id, kind: 'records', state: 'live', summary: { created: 3, updated: 0, deleted: 0 } });
      expect(latest.comment).toContain(key.name);
      const audit = await lab.customerA.get(`/audit-log?target=${latest.id}`);
      expect(audit.status, audit.text).toBe(200);
      expect(audit.body.data).toEqual([expect.objectContaining({ action: 'changeset.created', actor: expect.objectContaining({ api_client_id: key.id }) })]);
      // The outbox holds its zone.changed and, once live, its record.published: what webhooks receive.
      const events = await listAll(lab.customerA, '/events?type=zone.changed,record.published');
      expect(events.filter((e) => e.changeset_id === latest.id).map((e) => e.type)).toEqual(['zone.changed', 'record.published']);
      // An API write beside it says so.
      await createRecord(lab.customerA, ZONE, { name: 'api-written', type: 'A', data: { address: '192.0.2.9' } });
      const [byApi] = await changeSets(lab.customerA);
      expect(byApi).toMatchObject({ source: 'api', source_id: expect.stringMatching(/^cli_/) });
    });

    it('applies a delete and an add of one message together (lego’s “present”), and nothing of a message that changes nothing', async (ctx) => {
      const key = await createKey(lab.customerA);
      const name = `_acme-challenge.swap.${ZONE}`;
      expect((await update(ctx, 'nsupdate', key, [`update add ${name} 120 TXT "old-1"`, `update add ${name} 120 TXT "old-2"`])).code).toBe(0);
      const before = (await changeSets(lab.customerA)).length;
      const swap = await update(ctx, 'nsupdate', key, [`update delete ${name} TXT`, `update add ${name} 120 TXT "new"`]);
      expect(swap.code, swap.output).toBe(0);
      expect(await answer(name, 'TXT')).toEqual(['"new"']);
      const sets = await changeSets(lab.customerA);
      expect(sets).toHaveLength(before + 1);
      expect(sets[0].summary).toEqual({ created: 1, updated: 0, deleted: 2 });
      // The same record again, a delete of nothing: NOERROR, no change set.
      const same = await update(ctx, 'knsupdate', key, [`update add ${name} 120 TXT "new"`, `update delete nothing-here.${ZONE} A`, `update delete ${name} TXT "absent"`]);
      expect(same.output).toMatch(/status: NOERROR/);
      expect(await changeSets(lab.customerA)).toHaveLength(before + 1);
      // An add with another TTL changes the whole RRset's TTL (RFC 2181 §5.2).
      expect((await update(ctx, 'nsupdate', key, [`update add ${name} 300 TXT "second"`])).code).toBe(0);
      expect((await records(lab.customerA)).filter((r) => r.startsWith('_acme-challenge.swap '))).toEqual(['_acme-challenge.swap TXT 300 "new"', '_acme-challenge.swap TXT 300 "second"']);
    });

    it('finds the zone without a zone line: nsupdate by a signed SOA query, UDP and TCP', async (ctx) => {
      const key = await createKey(lab.customerA, { algorithm: 'hmac-md5' });
      for (const tcp of [false, true]) {
        const name = `_acme-challenge.deep.below.discover-${tcp}.${ZONE}`;
        const run = await update(ctx, 'nsupdate', key, [`update add ${name} 60 TXT "found"`], { zone: null, tcp });
        expect(run.code, run.output).toBe(0);
        expect(await answer(name, 'TXT')).toEqual(['"found"']);
      }
    });
  });

  describe('prerequisites (RFC 2136 §3.2): the right rcode, nothing written', () => {
    const cases: [string, string, RegExp | 'ok'][] = [
      ['yxdomain', `prereq yxdomain nobody.pre.${ZONE}`, /NXDOMAIN/],
      ['nxdomain', `prereq nxdomain www.pre.${ZONE}`, /YXDOMAIN/],
      ['yxrrset', `prereq yxrrset www.pre.${ZONE} AAAA`, /NXRRSET/],
      ['nxrrset', `prereq nxrrset www.pre.${ZONE} A`, /YXRRSET/],
      ['yxrrset by value, a record missing', `prereq yxrrset www.pre.${ZONE} A 192.0.2.99`, /NXRRSET/],
      ['yxrrset by value, a record too few', `prereq yxrrset www.pre.${ZONE} A 192.0.2.10`, /NXRRSET/],
      ['yxrrset by value, one of the apex NS set only', `prereq yxrrset ${ZONE} NS ns1.lab-dns.test.`, /NXRRSET/],
      ['the apex is in use (its SOA and NS)', `prereq nxdomain ${ZONE}`, /YXDOMAIN/],
      ['the apex SOA exists', `prereq nxrrset ${ZONE} SOA`, /YXRRSET/],
    ];
    beforeAll(async () => {
      await createRecord(lab.customerA, ZONE, { name: 'www.pre', type: 'A', data: { address: '192.0.2.10' } });
      await createRecord(lab.customerA, ZONE, { name: 'www.pre', type: 'A', data: { address: '192.0.2.11' } });
    });

    for (const [what, prereq, rcode] of cases) {
      it(`${what} → ${rcode}`, async (ctx) => {
        const key = await createKey(lab.customerA);
        const before = await changeSetIds(lab.customerA);
        const run = await update(ctx, 'nsupdate', key, [prereq, `update add written.pre.${ZONE} 300 A 192.0.2.1`]);
        expect(run.output).toMatch(new RegExp(`update failed: ${(rcode as RegExp).source}`));
        expect(await changeSetIds(lab.customerA)).toEqual(before);
        expect(await answer(`written.pre.${ZONE}`, 'A')).toEqual([]);
      });
    }

    it('every prerequisite that holds, the apex SOA and NS among them: the update applies', async (ctx) => {
      const key = await createKey(lab.customerA);
      // §2.4.2: the RRset must be exactly the records listed: every NS of the apex.
      const ns = await answer(ZONE, 'NS');
      const run = await update(ctx, 'knsupdate', key, [
        `prereq yxdomain www.pre.${ZONE}`,
        `prereq nxdomain nobody.pre.${ZONE}`,
        `prereq yxrrset www.pre.${ZONE} A`,
        `prereq yxrrset www.pre.${ZONE} A 192.0.2.11`,
        `prereq yxrrset www.pre.${ZONE} A 192.0.2.10`,
        `prereq nxrrset www.pre.${ZONE} AAAA`,
        `prereq yxrrset ${ZONE} SOA`,
        ...ns.map((target) => `prereq yxrrset ${ZONE} NS ${target}`),
        `update add held.pre.${ZONE} 300 A 192.0.2.1`,
      ]);
      expect(run.output).toMatch(/status: NOERROR/);
      expect(await answer(`held.pre.${ZONE}`, 'A')).toEqual(['192.0.2.1']);
    });
  });

  describe('what an update may not change (RFC 2136 §3.4 and the API’s rules)', () => {
    let key: Key;
    beforeAll(async () => {
      key = await createKey(lab.customerA);
    });

    /** Runs the update expecting `rcode` (a name, or NOERROR) and returns the records after it. */
    async function expectAnswer(ctx: TestContext, lines: string[], rcode: string) {
      const before = await records(lab.customerA);
      const run = await update(ctx, 'knsupdate', key, lines);
      expect(run.output, lines.join('\n')).toMatch(new RegExp(`status: ${rcode}`));
      return { before, after: await records(lab.customerA) };
    }

    it('DNSSEC types are REFUSED, in an add and in a delete', async (ctx) => {
      for (const line of [`update add x.rules.${ZONE} 300 DNSKEY 257 3 13 ${Buffer.alloc(64, 1).toString('base64')}`, `update delete rules.${ZONE} RRSIG`, `update delete ${ZONE} NSEC3PARAM`]) {
        const { before, after } = await expectAnswer(ctx, [line, `update add refused.rules.${ZONE} 300 A 192.0.2.1`], 'REFUSED');
        expect(after).toEqual(before);
      }
    });

    it('types the service does not hold: an add is REFUSED, a delete changes nothing', async (ctx) => {
      const { before, after } = await expectAnswer(ctx, [`update add x.rules.${ZONE} 300 HINFO "cpu" "os"`], 'REFUSED');
      expect(after).toEqual(before);
      await expectAnswer(ctx, [`update delete x.rules.${ZONE} HINFO`], 'NOERROR');
    });

    it('the SOA is ignored; the apex NS set is kept (deletions ignored, a new one REFUSED)', async (ctx) => {
      const soa = (await answer(ZONE, 'SOA'))[0]!;
      const ns = await answer(ZONE, 'NS');
      const fields = soa.split(' ');
      const raised = [...fields.slice(0, 2), String(Number(fields[2]) + 1000), ...fields.slice(3)].join(' ');
      const applied = await expectAnswer(ctx, [`update add ${ZONE} 300 SOA ${raised}`, `update delete ${ZONE} NS`, `update delete ${ZONE} NS ${ns[0]}`, `update delete ${ZONE} SOA`, `update add kept.rules.${ZONE} 300 A 192.0.2.7`], 'NOERROR');
      expect(applied.after).toEqual([...applied.before, 'kept.rules A 300 192.0.2.7'].sort());
      expect(await answer(ZONE, 'NS')).toEqual(ns);
      expect((await answer(ZONE, 'SOA'))[0]!.split(' ')[2]).not.toBe(String(Number(fields[2]) + 1000));
      await expectAnswer(ctx, [`update add ${ZONE} 300 NS ${ns[0]}`], 'NOERROR');
      const refused = await expectAnswer(ctx, [`update add ${ZONE} 300 NS ns.elsewhere.example.`], 'REFUSED');
      expect(refused.after).toEqual(refused.before);
    });

    it('deleting every RRset at the apex keeps the SOA and NS (§3.4.2.3)', async (ctx) => {
      await createRecord(lab.customerA, ZONE, { name: '@', type: 'TXT', data: { text: 'apex text' } });
      const ns = await answer(ZONE, 'NS');
      await expectAnswer(ctx, [`update delete ${ZONE}`], 'NOERROR');
      expect(await answer(ZONE, 'TXT')).toEqual([]);
      expect(await answer(ZONE, 'NS')).toEqual(ns);
      expect(await answer(ZONE, 'SOA')).toHaveLength(1);
    });

    it('CNAME exclusivity: a conflicting add is ignored, as BIND and Knot do; the rest of the message applies', async (ctx) => {
      await createRecord(lab.customerA, ZONE, { name: 'host.cname', type: 'A', data: { address: '192.0.2.1' } });
      await createRecord(lab.customerA, ZONE, { name: 'alias.cname', type: 'CNAME', data: { target: `host.cname.${ZONE}` } });
      await expectAnswer(ctx, [`update add host.cname.${ZONE} 300 CNAME elsewhere.example.`, `update add alias.cname.${ZONE} 300 TXT "beside a cname"`, `update add other.cname.${ZONE} 300 A 192.0.2.3`], 'NOERROR');
      expect(await answer(`host.cname.${ZONE}`, 'CNAME')).toEqual([]);
      expect(await answer(`alias.cname.${ZONE}`, 'TXT')).toEqual([`host.cname.${ZONE}.`]);
      expect(await answer(`other.cname.${ZONE}`, 'A')).toEqual(['192.0.2.3']);
      // A CNAME replaces the CNAME; a delete first makes room for a CNAME in the same message.
      await expectAnswer(ctx, [`update add alias.cname.${ZONE} 300 CNAME other.cname.${ZONE}.`, `update delete host.cname.${ZONE} A`, `update add host.cname.${ZONE} 300 CNAME other.cname.${ZONE}.`], 'NOERROR');
      expect(await answer(`alias.cname.${ZONE}`, 'CNAME')).toEqual([`other.cname.${ZONE}.`]);
      expect(await answer(`host.cname.${ZONE}`, 'CNAME')).toEqual([`other.cname.${ZONE}.`]);
    });

    it('the API’s rules: a record a DynDNS host keeps, a TTL out of bounds and invalid data are REFUSED, nothing written', async (ctx) => {
      const host = await lab.customerA.post('/dyndns/hosts', { zone: ZONE, name: 'router', ipv4: '192.0.2.50' });
      expect(host.status, host.text).toBe(201);
      for (const lines of [
        [`update delete router.${ZONE} A`],
        [`update add router.${ZONE} 300 A 192.0.2.51`],
        [`update add short.rules.${ZONE} 10 A 192.0.2.1`],
        [`update add mx.rules.${ZONE} 300 MX 10 192.0.2.1.`],
        [`update add ok.rules.${ZONE} 300 A 192.0.2.1`, `update delete router.${ZONE}`],
      ]) {
        const { before, after } = await expectAnswer(ctx, lines, 'REFUSED');
        expect(after, lines.join('\n')).toEqual(before);
      }
    });
  });

  describe('who may update what', () => {
    it('outside the key’s policy (zone, name, type, source address): REFUSED, nothing written, audited as credential.refused', async (ctx) => {
      const key = await createKey(lab.customerA, { policy: { zones: [ZONE], names: ['_acme-challenge.*'], types: ['TXT'] } });
      const elsewhere = await createKey(lab.customerA, { policy: { source_cidrs: ['192.0.2.0/24'] } });
      const before = await changeSetIds(lab.customerA);
      const attempts: [Key, string[], string | null, Record<string, unknown>][] = [
        [key, [`update add www.policy.${ZONE} 60 TXT "x"`], ZONE, { rule: 'names', name: `www.policy.${ZONE}` }],
        // (nsupdate checks the owner of A, AAAA and MX records for host-name syntax itself.)
        [key, [`update add _acme-challenge.policy.${ZONE} 60 CAA 0 issue "ca.example"`], ZONE, { rule: 'types', type: 'CAA' }],
        [key, [`update add _acme-challenge.policy.${ZONE} 60 TXT "ok"`, `update delete www.pre.${ZONE} A`], ZONE, { rule: 'names' }],
        [key, [`prereq yxdomain www.${OTHER_ZONE}`, `update add _acme-challenge.${OTHER_ZONE} 60 TXT "x"`], OTHER_ZONE, { rule: 'zones', zone: OTHER_ZONE }],
        [elsewhere, [`update add _acme-challenge.policy.${ZONE} 60 TXT "x"`], ZONE, { rule: 'source_cidrs', source: '127.0.0.1' }],
      ];
      for (const [k, lines, zone, details] of attempts) {
        const run = await update(ctx, 'nsupdate', k, lines, { zone });
        expect(run.output, lines.join('\n')).toMatch(failedWith('nsupdate', 'REFUSED'));
        const audit = await lab.customerA.get(`/audit-log?action=credential.refused&target=${k.id}`);
        expect(audit.body.data[0], lines.join('\n')).toMatchObject({ target: { type: 'credential', id: k.id }, details: expect.objectContaining({ ...details, dns_update: expect.objectContaining({ zone }) }) });
      }
      expect(await changeSetIds(lab.customerA)).toEqual(before);
      // Within the policy it applies.
      const ok = await update(ctx, 'nsupdate', key, [`update add _acme-challenge.policy.${ZONE} 60 TXT "ok"`]);
      expect(ok.code, ok.output).toBe(0);
    });

    it('a zone of another tenant is NOTAUTH; a reseller’s key reaches its customers’ zones, as its API token does', async (ctx) => {
      const key = await createKey(lab.customerA);
      const before = await changeSetIds(lab.customerB, OTHER_ZONE);
      const run = await update(ctx, 'nsupdate', key, [`update add x.${OTHER_ZONE} 300 A 192.0.2.1`], { zone: OTHER_ZONE });
      expect(run.output).toMatch(failedWith('nsupdate', 'NOTAUTH'));
      const knot = await update(ctx, 'knsupdate', key, [`prereq yxdomain www.${OTHER_ZONE}`], { zone: OTHER_ZONE });
      expect(knot.output).toMatch(/status: NOTAUTH/);
      expect(await changeSetIds(lab.customerB, OTHER_ZONE)).toEqual(before);
      // The reseller's own key writes in its customer's zone, as its API token may.
      const resellers = await createKey(lab.reseller);
      const written = await update(ctx, 'nsupdate', resellers, [`update add by-reseller.${OTHER_ZONE} 300 A 192.0.2.2`], { zone: OTHER_ZONE });
      expect(written.code, written.output).toBe(0);
      expect(await answer(`by-reseller.${OTHER_ZONE}`, 'A')).toEqual(['192.0.2.2']);
    });

    it('an unknown key is NOTAUTH (BADKEY); a key deleted through the API stops working at once, without a restart', async (ctx) => {
      const key = await createKey(lab.customerA);
      const unknown = await update(ctx, 'nsupdate', { ...key, name: 'nobody.keys.upd.example' }, [`update add x.keys.${ZONE} 300 A 192.0.2.1`]);
      expect(unknown.output).toMatch(/NOTAUTH|BADKEY/);
      expect((await update(ctx, 'nsupdate', key, [`update add before-delete.keys.${ZONE} 300 A 192.0.2.1`])).code).toBe(0);
      expect((await lab.customerA.delete(`/tsig-keys/${key.id}`)).status).toBe(204);
      await eventually(async () => ((await dig(ZONE, 'SOA', key)).includes('BADKEY') ? true : undefined), 10_000, 'the deleted key to be unknown');
      const after = await update(ctx, 'nsupdate', key, [`update add after-delete.keys.${ZONE} 300 A 192.0.2.1`]);
      expect(after.output).toMatch(/NOTAUTH|BADKEY/);
      expect(await answer(`after-delete.keys.${ZONE}`, 'A')).toEqual([]);
    });

    it('each UPDATE counts against the key’s tenant’s rate limit; a suspended tenant’s key is REFUSED', async (ctx) => {
      const customer = await newCustomer(lab, 'update limits');
      await createZone(customer.api, 'limited.example', {});
      await eventually(async () => ((await customer.api.get('/zones/limited.example')).body.publication.state === 'live' ? true : undefined), 20_000, 'zone live');
      const key = await createKey(customer.api);
      expect((await lab.reseller.patch(`/tenants/${customer.id}`, { limits: { api_rate_limit_per_minute: 3 } })).status).toBe(200);
      const rcodes: string[] = [];
      for (let i = 0; i < 5; i++) {
        const run = await update(ctx, 'knsupdate', key, [`update add r${i}.limited.example 300 A 192.0.2.${i + 1}`], { zone: 'limited.example' });
        rcodes.push(/status: (\w+)/.exec(run.output)?.[1] ?? run.output);
      }
      expect(rcodes).toEqual(['NOERROR', 'NOERROR', 'NOERROR', 'REFUSED', 'REFUSED']);

      const suspended = await newCustomer(lab, 'update suspended');
      await createZone(suspended.api, 'suspended-upd.example', {});
      await eventually(async () => ((await suspended.api.get('/zones/suspended-upd.example')).body.publication.state === 'live' ? true : undefined), 20_000, 'zone live');
      const suspendedKey = await createKey(suspended.api);
      expect((await lab.reseller.post(`/tenants/${suspended.id}/suspend`, {})).status).toBeLessThan(300);
      const run = await update(ctx, 'nsupdate', suspendedKey, ['update add x.suspended-upd.example 300 A 192.0.2.1'], { zone: 'suspended-upd.example' });
      expect(run.output).toMatch(failedWith('nsupdate', 'REFUSED'));
    });
  });
});
