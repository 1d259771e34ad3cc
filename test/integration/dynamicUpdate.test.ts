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
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import dgram from 'node:dgram';
import { CLASS, OPCODE, RCODE, TYPE } from '../../nameserver/types.js';
import { MessageWriter } from '../../nameserver/wire/messageWriter.js';
import { encodeName } from '../../nameserver/wire/name.js';
import { parseMessage } from '../../nameserver/wire/parseMessage.js';
import { encodeRdata } from '../../nameserver/wire/rdata.js';
import { signMessage, TSIG_ALGORITHMS, type TsigAlgorithm } from '../../nameserver/wire/tsig.js';
import { loadConfig } from '../../src/config/index.js';
import { createLogger } from '../../src/observability/logger.js';
import { type RunningService, startService } from '../../src/service.js';
import { ApiClient } from '../helpers/apiClient.js';
import { createRecord, createZone, type DnsLab, listAll, newCustomer, startDnsLab } from '../helpers/dnsLab.js';
import { eventually } from '../helpers/dnsQuery.js';
import { requireTool, runToolAsync } from '../helpers/dnsTools.js';
import { type FreezableProxy, startFreezableProxy } from '../helpers/freezableProxy.js';
import { failedWith, runUpdate, type UpdateClient, type UpdateRunOptions } from '../helpers/nsupdate.js';
import { portOutsideEphemeralRange } from '../helpers/reservedPort.js';
import { createDatabase } from '../helpers/testService.js';

const ZONE = 'upd.example';
/** The deployment's own key (DNS_TSIG_KEYS, for its secondaries): it signs transfers, never updates. */
const DEPLOYMENT_KEY = { id: '', name: 'xfr.provider.example', algorithm: 'hmac-sha256' as const, secret: Buffer.alloc(32, 9) };
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
  await eventually(
    async () => ((await dig(ZONE, 'SOA', key)).includes('status: NOERROR') ? true : undefined),
    10_000,
    `key ${key.name} known to the nameserver`,
  );
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
  return (await listAll(api, `/zones/${zone}/records`))
    .filter((r) => !r.system)
    .map((r) => `${r.name} ${r.type} ${r.ttl ?? '-'} ${r.content}`)
    .sort();
}

describe.skipIf(CLIENTS_MISSING && process.env.REQUIRE_DNS_TOOLS !== '1')('RFC 2136 UPDATE against the service', () => {
  beforeAll(async () => {
    lab = await startDnsLab({
      env: { ROLES: 'api,nameserver,worker', DNS_TSIG_KEYS: `hmac-sha256:${DEPLOYMENT_KEY.name}:${DEPLOYMENT_KEY.secret.toString('base64')}` },
    });
    port = lab.service.nameserver!.server.port;
    await createZone(lab.customerA, ZONE);
    await createZone(lab.customerB, OTHER_ZONE);
    for (const zone of [ZONE, OTHER_ZONE]) {
      await eventually(
        async () => ((await (zone === ZONE ? lab.customerA : lab.customerB).get(`/zones/${zone}`)).body.publication.state === 'live' ? true : undefined),
        20_000,
        `${zone} live`,
      );
    }
  }, 60_000);
  afterAll(async () => lab?.close());

  describe('updates that apply', () => {
    for (const client of ['nsupdate', 'knsupdate'] as const) {
      it(`${client}: an add and a delete signed with each algorithm, over UDP and TCP; dig sees each the moment the client returns`, async (ctx) => {
        for (const algorithm of TSIG_ALGORITHMS) {
          const key = await createKey(lab.customerA, { algorithm });
          const name = `${client}-${algorithm}.${ZONE}`;
          const add = await update(ctx, client, key, [`update add ${name} 120 TXT "made by ${client}"`], {
            tcp: algorithm.endsWith('1') || algorithm.endsWith('256'),
          });
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
      const run = await update(ctx, 'nsupdate', key, [
        `update add a.story.${ZONE} 300 A 192.0.2.1`,
        `update add a.story.${ZONE} 300 A 192.0.2.2`,
        `update add b.story.${ZONE} 300 AAAA 2001:db8::1`,
      ]);
      expect(run.code, run.output).toBe(0);
      const [latest] = await changeSets(lab.customerA);
      expect(latest).toMatchObject({ source: 'rfc2136', source_id: key.id, kind: 'records', state: 'live', summary: { created: 3, updated: 0, deleted: 0 } });
      expect(latest.comment).toContain(key.name);
      const audit = await lab.customerA.get(`/audit-log?target=${latest.id}`);
      expect(audit.status, audit.text).toBe(200);
      expect(audit.body.data).toEqual([expect.objectContaining({ action: 'changeset.created', actor: expect.objectContaining({ api_client_id: key.id }) })]);
      // The outbox holds its zone.changed and, once live, its record.published: what webhooks receive.
      // (The feed lists an event once every write begun before it ended: a moment after its commit.)
      const kinds = async () =>
        (await listAll(lab.customerA, '/events?type=zone.changed,record.published')).filter((e) => e.changeset_id === latest.id).map((e) => e.type as string);
      expect(await eventually(async () => ((await kinds()).length === 2 ? kinds() : undefined), 5000, 'both events listed')).toEqual([
        'zone.changed',
        'record.published',
      ]);
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
      const same = await update(ctx, 'knsupdate', key, [
        `update add ${name} 120 TXT "new"`,
        `update delete nothing-here.${ZONE} A`,
        `update delete ${name} TXT "absent"`,
      ]);
      expect(same.output).toMatch(/status: NOERROR/);
      expect(await changeSets(lab.customerA)).toHaveLength(before + 1);
      // An add with another TTL changes the whole RRset's TTL (RFC 2181 §5.2).
      expect((await update(ctx, 'nsupdate', key, [`update add ${name} 300 TXT "second"`])).code).toBe(0);
      expect((await records(lab.customerA)).filter((r) => r.startsWith('_acme-challenge.swap '))).toEqual([
        '_acme-challenge.swap TXT 300 "new"',
        '_acme-challenge.swap TXT 300 "second"',
      ]);
    });

    it('a copy of an UPDATE sent again over UDP while the first is applied gets the first’s answer; it is applied once', async (ctx) => {
      const key = await createKey(lab.customerA);
      const name = `copy.${ZONE}`;
      // `prereq nxdomain` then an add: a copy applied after the first would answer YXDOMAIN.
      const w = new MessageWriter(512, { id: 4242, opcode: OPCODE.UPDATE, rcode: 0 });
      w.addQuestion({ name: ZONE, nameWire: encodeName(ZONE), qtype: TYPE.SOA, qclass: CLASS.IN });
      w.addRecord('answer', { name, type: TYPE.ANY, klass: CLASS.NONE, ttl: 0, rdata: Buffer.alloc(0) });
      w.addRecord('authority', { name, type: TYPE.A, ttl: 300, rdata: encodeRdata('A', { address: '192.0.2.42' }) });
      const message = signMessage(w.finish(), { name: key.name, algorithm: key.algorithm, secret: key.secret, owner: null }, { now: new Date() }).message;
      const socket = dgram.createSocket('udp4');
      const rcodes: number[] = [];
      socket.on('message', (m) => rcodes.push(parseMessage(m)!.rcode));
      await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
      try {
        socket.send(message, port, '127.0.0.1');
        socket.send(message, port, '127.0.0.1');
        await eventually(async () => (rcodes.length === 2 ? true : undefined), 10_000, 'two answers');
      } finally {
        socket.close();
      }
      expect(rcodes).toEqual([RCODE.NOERROR, RCODE.NOERROR]);
      expect(await answer(name, 'A')).toEqual(['192.0.2.42']);
      expect((await changeSets(lab.customerA)).filter((c) => c.source_id === key.id)).toHaveLength(1);
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
      for (const line of [
        `update add x.rules.${ZONE} 300 DNSKEY 257 3 13 ${Buffer.alloc(64, 1).toString('base64')}`,
        `update delete rules.${ZONE} RRSIG`,
        `update delete ${ZONE} NSEC3PARAM`,
      ]) {
        const { before, after } = await expectAnswer(ctx, [line, `update add refused.rules.${ZONE} 300 A 192.0.2.1`], 'REFUSED');
        expect(after).toEqual(before);
      }
    });

    it('types the service does not hold: an add is REFUSED, a delete changes nothing', async (ctx) => {
      const { before, after } = await expectAnswer(ctx, [`update add x.rules.${ZONE} 300 AFSDB 1 afs.example.net.`], 'REFUSED');
      expect(after).toEqual(before);
      await expectAnswer(ctx, [`update delete x.rules.${ZONE} AFSDB`], 'NOERROR');
    });

    it('the SOA is ignored; the apex NS set is kept (deletions ignored, a new one REFUSED)', async (ctx) => {
      const soa = (await answer(ZONE, 'SOA'))[0]!;
      const ns = await answer(ZONE, 'NS');
      const fields = soa.split(' ');
      const raised = [...fields.slice(0, 2), String(Number(fields[2]) + 1000), ...fields.slice(3)].join(' ');
      const applied = await expectAnswer(
        ctx,
        [
          `update add ${ZONE} 300 SOA ${raised}`,
          `update delete ${ZONE} NS`,
          `update delete ${ZONE} NS ${ns[0]}`,
          `update delete ${ZONE} SOA`,
          `update add kept.rules.${ZONE} 300 A 192.0.2.7`,
        ],
        'NOERROR',
      );
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
      await expectAnswer(
        ctx,
        [
          `update add host.cname.${ZONE} 300 CNAME elsewhere.example.`,
          `update add alias.cname.${ZONE} 300 TXT "beside a cname"`,
          `update add other.cname.${ZONE} 300 A 192.0.2.3`,
        ],
        'NOERROR',
      );
      expect(await answer(`host.cname.${ZONE}`, 'CNAME')).toEqual([]);
      expect(await answer(`alias.cname.${ZONE}`, 'TXT')).toEqual([`host.cname.${ZONE}.`]);
      expect(await answer(`other.cname.${ZONE}`, 'A')).toEqual(['192.0.2.3']);
      // A CNAME replaces the CNAME; a delete first makes room for a CNAME in the same message.
      await expectAnswer(
        ctx,
        [
          `update add alias.cname.${ZONE} 300 CNAME other.cname.${ZONE}.`,
          `update delete host.cname.${ZONE} A`,
          `update add host.cname.${ZONE} 300 CNAME other.cname.${ZONE}.`,
        ],
        'NOERROR',
      );
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
        expect(audit.body.data[0], lines.join('\n')).toMatchObject({
          target: { type: 'credential', id: k.id },
          details: expect.objectContaining({ ...details, dns_update: expect.objectContaining({ zone }) }),
        });
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

    it('the deployment’s own key (DNS_TSIG_KEYS) is REFUSED: it is for transfers, not updates', async (ctx) => {
      const run = await update(ctx, 'nsupdate', DEPLOYMENT_KEY, [`update add xfr-key.${ZONE} 300 A 192.0.2.1`]);
      expect(run.output).toMatch(failedWith('nsupdate', 'REFUSED'));
      expect(await answer(`xfr-key.${ZONE}`, 'A')).toEqual([]);
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
      await eventually(
        async () => ((await customer.api.get('/zones/limited.example')).body.publication.state === 'live' ? true : undefined),
        20_000,
        'zone live',
      );
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
      await eventually(
        async () => ((await suspended.api.get('/zones/suspended-upd.example')).body.publication.state === 'live' ? true : undefined),
        20_000,
        'zone live',
      );
      const suspendedKey = await createKey(suspended.api);
      expect((await lab.reseller.post(`/tenants/${suspended.id}/suspend`, {})).status).toBeLessThan(300);
      const run = await update(ctx, 'nsupdate', suspendedKey, ['update add x.suspended-upd.example 300 A 192.0.2.1'], { zone: 'suspended-upd.example' });
      expect(run.output).toMatch(failedWith('nsupdate', 'REFUSED'));
    });
  });
});

// The production default: the nameserver and worker roles in their own thread (THREADED_ROLES=on,
// as `npm start` runs; the tests above run every role on the test's thread), and two processes
// answering UDP (DNS_UDP_PROCESSES=2): a helper sends each UPDATE it reads to the main process.
describe.skipIf(CLIENTS_MISSING && process.env.REQUIRE_DNS_TOOLS !== '1')('RFC 2136 UPDATE with the roles in their own thread and two UDP processes', () => {
  let service: RunningService;
  let database: { url: string; drop: () => Promise<void> };
  let dataDir: string;
  let customer: ApiClient;
  let dnsPort: number;

  beforeAll(async () => {
    database = await createDatabase();
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'mdns-update-threads-'));
    const config = loadConfig({
      DATABASE_URL: database.url,
      HTTP_PORT: '0',
      DNS_PORT: '0',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      LAB_RDNS_SEED: 'off',
      DNS_UDP_PROCESSES: '2',
    });
    expect(config.threadedRoles).toBe(true);
    service = await startService(config, { logger: createLogger('silent'), shutdownGraceMs: 5000 });
    customer = new ApiClient(service.httpUrl!, service.lab!.tokens.customers[0]!);
    dnsPort = service.rolesThread!.dnsPort!;
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
    await database?.drop();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  /** UDP messages each process received so far (main, helper-1), from /metrics. */
  async function receivedByProcess(): Promise<Record<string, number>> {
    const text = await (await fetch(`${service.httpUrl}/metrics`)).text();
    return Object.fromEntries([...text.matchAll(/^dns_queries_received_by_process\{process="([^"]+)"\} (\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]));
  }

  it('applies UPDATEs read by either process, over UDP and TCP, each answered once live', async (ctx) => {
    await createZone(customer, 'threads-upd.example');
    await eventually(
      async () => ((await customer.get('/zones/threads-upd.example')).body.publication.state === 'live' ? true : undefined),
      20_000,
      'zone live',
    );
    const created = await customer.post('/tsig-keys', { name: 'threads.keys.example', algorithm: 'hmac-sha512' });
    expect(created.status, created.text).toBe(201);
    const key = { name: created.body.name as string, algorithm: 'hmac-sha512', secret: Buffer.from(created.body.secret, 'base64') };
    const ask = async (name: string, type: string, signed = false) => {
      const sign = signed ? ['-y', `${key.algorithm}:${key.name}:${key.secret.toString('base64')}`] : [];
      return (await runToolAsync(DIG!, ['@127.0.0.1', '-p', String(dnsPort), name, type, '+norecurse', '+time=2', '+tries=1', ...sign])).stdout;
    };
    // Both processes know the key (the helper a moment after the main process): several signed queries, each to either.
    await eventually(
      async () => {
        for (let i = 0; i < 6; i++) if (!(await ask('threads-upd.example', 'SOA', true)).includes('status: NOERROR')) return undefined;
        return true;
      },
      10_000,
      'the key known to both processes',
    );

    /** Per run: how many messages the helper read while nsupdate ran (its one UPDATE, or none). */
    const helperRead: number[] = [];
    // The kernel spreads datagrams by source port: of 16 runs (each its own port) some reach the helper.
    for (let i = 0; i < 16; i++) {
      const before = await receivedByProcess();
      const run = await runUpdate(ctx, 'nsupdate', dnsPort, [`update add h${i}.threads-upd.example 300 A 192.0.2.${i + 1}`], {
        zone: 'threads-upd.example',
        key,
        tcp: i === 15,
      });
      expect(run.code, run.output).toBe(0);
      helperRead.push((await receivedByProcess())['helper-1']! - before['helper-1']!);
      expect(await ask(`h${i}.threads-upd.example`, 'A'), `h${i}`).toMatch(new RegExp(`\\sA\\s+192\\.0\\.2\\.${i + 1}\\n`));
    }
    expect(helperRead.filter((n) => n > 0).length, 'UPDATEs read by the helper').toBeGreaterThan(0);
    const sets = (await listAll(customer, '/zones/threads-upd.example/changesets')).filter((c) => c.source === 'rfc2136');
    expect(sets.map((c) => c.state)).toEqual(Array(16).fill('live'));
  }, 60_000);
});

// PostgreSQL that stops answering (test/integration/databaseOutage.test.ts): an UPDATE cannot be
// applied, and says so within the database bounds — SERVFAIL, nothing half done — while the
// nameserver keeps answering; once the path is back the same UPDATE applies.
describe.skipIf(CLIENTS_MISSING && process.env.REQUIRE_DNS_TOOLS !== '1')('RFC 2136 UPDATE while PostgreSQL does not answer', () => {
  let database: Awaited<ReturnType<typeof createDatabase>>;
  let proxy: FreezableProxy;
  let outage: DnsLab;
  beforeAll(async () => {
    database = await createDatabase();
    proxy = await startFreezableProxy(database.url);
    outage = await startDnsLab({ databaseUrl: proxy.url, env: { ROLES: 'api,nameserver,worker' } });
  }, 60_000);
  afterAll(async () => {
    proxy?.thaw();
    await outage?.close();
    await proxy?.close();
    await database?.drop();
  });

  it('answers SERVFAIL within the bounds, and applies the UPDATE once PostgreSQL is back', async (ctx) => {
    const dnsPort = outage.service.nameserver!.server.port;
    await createZone(outage.customerA, 'outage-upd.example');
    await eventually(
      async () => ((await outage.customerA.get('/zones/outage-upd.example')).body.publication.state === 'live' ? true : undefined),
      20_000,
      'zone live',
    );
    const created = await outage.customerA.post('/tsig-keys', { name: 'outage.keys.example' });
    expect(created.status, created.text).toBe(201);
    const key = { name: created.body.name as string, algorithm: 'hmac-sha256', secret: Buffer.from(created.body.secret, 'base64') };
    const send = () =>
      runUpdate(ctx, 'knsupdate', dnsPort, ['update add w.outage-upd.example 300 A 192.0.2.1'], { zone: 'outage-upd.example', key, tcp: true });
    await eventually(
      async () =>
        (
          await runToolAsync(DIG!, [
            '@127.0.0.1',
            '-p',
            String(dnsPort),
            'outage-upd.example',
            'SOA',
            '-y',
            `${key.algorithm}:${key.name}:${key.secret.toString('base64')}`,
          ])
        ).stdout.includes('status: NOERROR')
          ? true
          : undefined,
      10_000,
      'key known',
    );

    proxy.freeze();
    const started = performance.now();
    const failed = await send();
    // The database bounds (pool 5 s, statement 5 s + 1 s), with room for a loaded machine.
    expect(performance.now() - started).toBeLessThan(6000 + 2500);
    expect(failed.output).toMatch(/status: SERVFAIL/);
    proxy.thaw();
    const applied = await eventually(
      async () => {
        const run = await send();
        return run.output.includes('status: NOERROR') ? run : undefined;
      },
      30_000,
      'the UPDATE applied once PostgreSQL is back',
    );
    expect(applied.output).toMatch(/status: NOERROR/);
    const sets = (await listAll(outage.customerA, '/zones/outage-upd.example/changesets')).filter((c) => c.source === 'rfc2136');
    expect(sets).toHaveLength(1);
  }, 90_000);
});

// A change that is not live in time: a secondary that never answers (DNS_SECONDARIES naming a
// port nobody listens on) keeps every version `pushed` — served by our nameserver, never `live`.
// The UPDATE is committed all the same: its answer is NOERROR at DNS_UPDATE_WAIT_MS, and a
// stopping service answers the UPDATEs still waiting at once, before its sockets close.
describe.skipIf(CLIENTS_MISSING && process.env.REQUIRE_DNS_TOOLS !== '1')('RFC 2136 UPDATE whose change is not live in time', () => {
  const WAIT_MS = 3000;
  let slow: DnsLab;
  let dnsPort: number;
  let key: UpdateRunOptions['key'];
  beforeAll(async () => {
    const silent = await portOutsideEphemeralRange();
    slow = await startDnsLab({ env: { ROLES: 'api,nameserver,worker', DNS_SECONDARIES: `127.0.0.1:${silent}`, DNS_UPDATE_WAIT_MS: String(WAIT_MS) } });
    dnsPort = slow.service.nameserver!.server.port;
    await createZone(slow.customerA, 'slow-upd.example');
    const created = await slow.customerA.post('/tsig-keys', { name: 'slow.keys.example' });
    expect(created.status, created.text).toBe(201);
    key = { name: created.body.name, algorithm: 'hmac-sha256', secret: Buffer.from(created.body.secret, 'base64') };
    const signedSoa = ['@127.0.0.1', '-p', String(dnsPort), 'slow-upd.example', 'SOA', '-y', `hmac-sha256:${key.name}:${key.secret.toString('base64')}`];
    await eventually(
      async () => ((await runToolAsync(DIG!, signedSoa)).stdout.includes('status: NOERROR') ? true : undefined),
      20_000,
      'zone served and key known',
    );
  }, 60_000);
  afterAll(async () => slow?.close());

  it('answers NOERROR once DNS_UPDATE_WAIT_MS is over; the change is stored and served by our nameserver', async (ctx) => {
    const started = performance.now();
    const run = await runUpdate(ctx, 'knsupdate', dnsPort, ['update add late.slow-upd.example 300 A 192.0.2.5'], { zone: 'slow-upd.example', key, tcp: true });
    expect(run.output).toMatch(/status: NOERROR/);
    expect(performance.now() - started).toBeGreaterThanOrEqual(WAIT_MS);
    const [latest] = await listAll(slow.customerA, '/zones/slow-upd.example/changesets');
    expect(latest).toMatchObject({ source: 'rfc2136', state: 'pushed' });
    expect((await runToolAsync(DIG!, ['@127.0.0.1', '-p', String(dnsPort), 'late.slow-upd.example', 'A', '+short'])).stdout.trim()).toBe('192.0.2.5');
  });

  it('a stopping service answers the UPDATEs still waiting (NOERROR), before its sockets close', async (ctx) => {
    const started = performance.now();
    const pending = runUpdate(ctx, 'knsupdate', dnsPort, ['update add at-stop.slow-upd.example 300 A 192.0.2.6'], { zone: 'slow-upd.example', key, tcp: true });
    // Once it is stored (and waiting), stop.
    await eventually(
      async () => ((await slow.sql.query("SELECT 1 FROM records WHERE name = 'at-stop'")).rowCount ? true : undefined),
      5000,
      'the UPDATE stored',
    );
    const stopping = slow.service.stop();
    const run = await pending;
    expect(run.output).toMatch(/status: NOERROR/);
    // Answered by the stop, not by the end of the wait.
    expect(performance.now() - started).toBeLessThan(WAIT_MS);
    await stopping;
  });
});
