// Issue 23's soak: 30–40 clients of every kind of tenant (the platform, the reseller, customers
// with their own tokens and through the reseller's X-Act-As-Customer) write at once for
// SOAK_SECONDS (30) over a mix of every write endpoint, seeded by SOAK_SEED (printed: a failure
// is replayed from it; the interleaving is the machine's, the choices are the seed's). The hot
// spots are hit on purpose: zone creations of one customer beside staff assigning it addresses
// (the deadlock of `tenants … for update` against `insert into ip_assignments`), many clients
// writing the same zones while DNSSEC is switched on and off under them, concurrent creations
// against a small zone quota, webhooks to receivers that are gone.
//
// A user's checks afterwards: no 5xx (and no `911`) at all, each 4xx one the mix may produce
// (EXPECTED_4XX), every acknowledged write read back through the API and a sample answered by
// the nameserver over `dig`, the quota held, nothing half-applied, and a ping to a live receiver
// delivered within 2 s. Each client owns what it writes (its record names, addresses, hosts,
// webhooks), so what the model expects never depends on how the clients interleaved.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAddress, reverseName } from '../../src/domain/ip/address.js';
import { SCOPES } from '../../src/domain/scopes.js';
import { digQuery } from '../helpers/digClient.js';
import type { ApiClient, ApiResponse } from '../helpers/apiClient.js';
import { issueToken } from '../helpers/credentials.js';
import { createZone, type DnsLab, listAll, newCustomer, startDnsLab } from '../helpers/dnsLab.js';
import { eventually } from '../helpers/dnsQuery.js';
import { requireTool } from '../helpers/dnsTools.js';
import { Barrier, LogCapture, type LoggedRequest, RequestLog, Rng } from '../helpers/soak.js';
import { WebhookReceiver } from '../helpers/webhookReceiver.js';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 30);
const SEED = Number(process.env.SOAK_SEED ?? 230023) >>> 0;
/** A request still unanswered after this long counts as a failure (and keeps the file's time bounded). */
const REQUEST_TIMEOUT_MS = 20_000;
const QUOTA = 3;
const SPACE = '198.51.100.0/24';
const SOAK = `s${SEED.toString(36)}`;

/**
 * The 4xx answers the mix may legitimately produce, per route ("status code"); any other 4xx
 * fails the test. Routes marked "(invalid)" are requests made to be refused: a 2xx there fails.
 */
const EXPECTED_4XX: Record<string, readonly string[]> = {
  // Concurrent creations against the quota customer's max_zones.
  'POST /zones': ['409 quota_exceeded'],
  // Switching DNSSEC while a switch is still walking its states.
  'POST /zones/{zone}/dnssec/enable': ['409 dnssec_transition_in_progress'],
  'POST /zones/{zone}/dnssec/disable': ['409 dnssec_transition_in_progress'],
  // A reverse zone of the same prefix's earlier attachment still being deleted.
  'POST /prefixes': ['409 conflict'],
  // A CNAME beside an A of the same name: the whole change set is refused.
  'POST /zones/{zone}/changesets (invalid)': ['422 validation_failed'],
  // The host's update limit per minute.
  'GET /nic/update': ['200 abuse'],
  // A wrong password: refused, or `abuse` once this address has failed too often.
  'GET /nic/update (wrong password)': ['401 badauth', '200 abuse'],
};
const EXPECTED_EVERYWHERE = ['429 rate_limited'];
/** /nic/update's answer words that mean the write was taken (or already so). */
const NIC_OK = ['good', 'nochg'];

type TenantKey = 'platform' | 'reseller' | 'c0' | 'c1' | 'c2';
type Role = 'ips' | 'resellerIps' | 'prefixes' | 'zoneChurn' | 'quota' | 'writer' | 'dnssec' | 'templates' | 'ptr' | 'dyndns' | 'webhooks';

interface Client {
  name: string;
  tenant: TenantKey;
  role: Role;
  api: ApiClient;
  rng: Rng;
  seq: number;
}

/** An object one client wrote; `present` false: deleted by an acknowledged write of that client. */
interface Tracked {
  present: boolean;
  /** A write of it answered 5xx or not at all: what it is now cannot be known. */
  unknown?: boolean;
}
interface TrackedRecord extends Tracked {
  client: string;
  zone: string;
  name: string;
  type: 'A' | 'TXT';
  value: string;
  id?: string;
  /** How it was written; for a change set or an import, which one (its records stand or fall together). */
  via: string;
}
interface TrackedZone extends Tracked {
  name: string;
  tenant: TenantKey;
  owner: string;
  deleting?: boolean;
}
interface TrackedAssignment extends Tracked {
  id: string;
  cidr: string;
}
interface TrackedHost extends Tracked {
  id: string;
  zone: string;
  hostname: string;
  username: string;
  password: string;
  ipv4: string | null;
  updates: number;
}

describe('concurrency soak: every write endpoint, 30–40 clients of every tenant kind', { timeout: (SECONDS + 120) * 1000 }, () => {
  let lab: DnsLab;
  const log = new LogCapture();
  const requests = new RequestLog();
  const readers = {} as Record<TenantKey, ApiClient>;
  const sharedZones = {} as Record<'c0' | 'c1' | 'c2', string[]>;
  const tenantIds = {} as Record<TenantKey, string>;
  let templateIds: string[] = [];
  const staffApis: ApiClient[] = [];
  let clockTicker: NodeJS.Timeout | undefined;
  const liveReceiver = new WebhookReceiver();
  let deadUrl = '';

  // What the clients were told, per kind of object.
  const records: TrackedRecord[] = [];
  /** Names a refused (all-or-nothing) change set held: none of them may exist afterwards. */
  const refusedNames: { zone: string; name: string; tenant: TenantKey }[] = [];
  const zones: TrackedZone[] = [];
  const assignments: TrackedAssignment[] = [];
  const prefixes = new Map<string, Tracked & { tenant: TenantKey }>();
  /** ip → the last target an acknowledged write set (null: reset to the default). */
  const ptrs = new Map<string, Tracked & { target: string | null; tenant: TenantKey }>();
  const hosts: (TrackedHost & { tenant: TenantKey })[] = [];
  const webhooks: (Tracked & { id: string; tenant: TenantKey })[] = [];
  const templates: (Tracked & { id: string })[] = [];
  /** Which client made each DynDNS host and webhook: only that one updates or deletes it. */
  const hostOwner = new Map<string, string>();
  const webhookOwner = new Map<string, string>();
  let wrongPasswords = 0;
  let seconds = 0;

  const clientSeed = (i: number) => (SEED ^ Math.imul(i + 1, 0x9e3779b1)) >>> 0;

  /** One request of the mix, logged with its route template; null when no answer came. */
  async function call(c: Client, route: string, path: string, body?: unknown, api = c.api): Promise<ApiResponse | null> {
    const method = route.split(' ')[0]!;
    const started = performance.now();
    try {
      const res = await api.request(method, path, { body, timeoutMs: REQUEST_TIMEOUT_MS });
      const code = typeof res.body === 'object' && res.body && 'code' in res.body && res.status >= 400 ? String(res.body.code) : null;
      requests.add({
        client: c.name,
        route,
        method,
        path,
        status: res.status,
        code,
        ms: performance.now() - started,
        body: res.text.slice(0, 600),
        requestId: res.headers.get('x-request-id'),
      });
      return res;
    } catch (err) {
      requests.add({
        client: c.name,
        route,
        method,
        path,
        status: 0,
        code: 'no_answer',
        ms: performance.now() - started,
        body: String((err as Error).message),
        requestId: null,
      });
      return null;
    }
  }

  const ok = (res: ApiResponse | null) => res !== null && res.status >= 200 && res.status < 300;
  const failed = (res: ApiResponse | null) => res === null || res.status >= 500;
  const label = (c: Client, what: string) => `${c.name}-${what}${++c.seq}`;
  const address = (rng: Rng) => `192.0.2.${rng.int(1, 255)}`;
  const sharedOf = (c: Client) => sharedZones[c.tenant as 'c0' | 'c1' | 'c2'];

  // --- the actions: each writes only what its client owns (names, addresses, hosts, hooks) ---

  async function createRecord(c: Client, zone: string) {
    const type = c.rng.chance(0.7) ? 'A' : 'TXT';
    const name = label(c, 'r');
    const value = type === 'A' ? address(c.rng) : `soak ${name}`;
    const res = await call(c, 'POST /zones/{zone}/records', `/zones/${zone}/records`, {
      type,
      name,
      data: type === 'A' ? { address: value } : { text: value },
    });
    if (ok(res)) records.push({ client: c.name, zone, name, type, value, id: res!.body.id, present: true, via: 'record' });
    else if (failed(res)) records.push({ client: c.name, zone, name, type, value, present: false, unknown: true, via: 'record' });
  }

  async function patchRecord(c: Client) {
    const mine = records.filter((r) => r.client === c.name && r.present && r.id && !r.unknown && r.type === 'A');
    if (mine.length === 0) return createRecord(c, c.rng.pick(sharedOf(c)));
    const r = c.rng.pick(mine);
    const value = address(c.rng);
    const res = await call(c, 'PATCH /zones/{zone}/records/{record}', `/zones/${r.zone}/records/${r.id}`, { data: { address: value } });
    if (ok(res)) r.value = value;
    else if (failed(res)) r.unknown = true;
  }

  async function deleteRecord(c: Client) {
    const mine = records.filter((r) => r.client === c.name && r.present && r.id && !r.unknown);
    if (mine.length === 0) return createRecord(c, c.rng.pick(sharedOf(c)));
    const r = c.rng.pick(mine);
    const res = await call(c, 'DELETE /zones/{zone}/records/{record}', `/zones/${r.zone}/records/${r.id}`);
    if (ok(res)) r.present = false;
    else if (failed(res)) r.unknown = true;
  }

  async function changeSet(c: Client) {
    const zone = c.rng.pick(sharedOf(c));
    const items = Array.from({ length: c.rng.int(2, 5) }, () => ({ name: label(c, 'cs'), value: address(c.rng) }));
    const res = await call(c, 'POST /zones/{zone}/changesets', `/zones/${zone}/changesets`, {
      changes: items.map((i) => ({ op: 'create', record: { type: 'A', name: i.name, data: { address: i.value } } })),
      comment: `soak ${c.name}`,
    });
    for (const i of items) {
      if (ok(res)) records.push({ client: c.name, zone, name: i.name, type: 'A', value: i.value, present: true, via: `changeset ${items[0]!.name}` });
      else if (failed(res))
        records.push({ client: c.name, zone, name: i.name, type: 'A', value: i.value, present: false, unknown: true, via: `changeset ${items[0]!.name}` });
    }
  }

  async function invalidChangeSet(c: Client) {
    const zone = c.rng.pick(sharedOf(c));
    const clash = label(c, 'bad');
    const other = label(c, 'bad');
    await call(c, 'POST /zones/{zone}/changesets (invalid)', `/zones/${zone}/changesets`, {
      changes: [
        { op: 'create', record: { type: 'A', name: other, data: { address: address(c.rng) } } },
        { op: 'create', record: { type: 'A', name: clash, data: { address: address(c.rng) } } },
        { op: 'create', record: { type: 'CNAME', name: clash, data: { target: 'elsewhere.example.' } } },
      ],
    });
    refusedNames.push({ zone, name: clash, tenant: c.tenant }, { zone, name: other, tenant: c.tenant });
  }

  async function importZoneFile(c: Client) {
    const zone = c.rng.pick(sharedOf(c));
    const items = Array.from({ length: c.rng.int(1, 4) }, () => ({ name: label(c, 'imp'), value: address(c.rng) }));
    const zonefile = items.map((i) => `${i.name} 300 IN A ${i.value}\n${i.name} 300 IN TXT "soak ${i.name}"\n`).join('');
    const res = await call(c, 'POST /zones/{zone}/import', `/zones/${zone}/import`, { zonefile, mode: 'merge' });
    for (const i of items) {
      for (const [type, value] of [
        ['A', i.value],
        ['TXT', `soak ${i.name}`],
      ] as const) {
        if (ok(res)) records.push({ client: c.name, zone, name: i.name, type, value, present: true, via: `import ${items[0]!.name}` });
        else if (failed(res)) records.push({ client: c.name, zone, name: i.name, type, value, present: false, unknown: true, via: `import ${items[0]!.name}` });
      }
    }
  }

  async function applyTemplate(c: Client, api = c.api, zone = c.rng.pick(sharedOf(c))) {
    const template = c.rng.pick(
      templates
        .filter((t) => t.present && !t.unknown)
        .map((t) => t.id)
        .concat(templateIds),
    );
    const name = label(c, 'tpl');
    const res = await call(c, 'POST /zones/{zone}/apply-template', `/zones/${zone}/apply-template`, { template_id: template, variables: { label: name } }, api);
    const entry = { client: c.name, zone, name, type: 'TXT' as const, value: `soak template ${name}`, via: 'template' };
    if (ok(res)) records.push({ ...entry, present: true });
    else if (failed(res)) records.push({ ...entry, present: false, unknown: true });
  }

  async function createTemplate(c: Client) {
    const name = label(c, 'template');
    const res = await call(c, 'POST /templates', '/templates', {
      name: `soak ${name}`,
      variables: [{ name: 'label', kind: 'string', required: true }],
      records: [{ type: 'TXT', name: '{{label}}', data: { text: 'soak template {{label}}' } }],
    });
    if (ok(res)) templates.push({ id: res!.body.id, present: true });
  }

  /** Zone creations of one customer: the quota lock, beside /ips assigning to the same customer. */
  async function createOwnZone(c: Client) {
    // A registrable domain of its own (as the issue's `dl$i-$RANDOM.test`): creations in one
    // domain family queue on its advisory lock and would never meet at the tenants' rows.
    const name = `${label(c, 'z')}-${SOAK}.example`;
    const zone: TrackedZone = { name, tenant: c.tenant, owner: c.name, present: false };
    zones.push(zone);
    const res = await call(c, 'POST /zones', '/zones', {
      name,
      records: [
        { type: 'A', name: 'www', data: { address: '192.0.2.80' } },
        { type: 'TXT', name: 'info', data: { text: `created by ${c.name}` } },
      ],
    });
    if (ok(res)) zone.present = true;
    else if (failed(res)) zone.unknown = true;
  }

  async function deleteOwnZone(c: Client) {
    const mine = zones.filter((z) => z.owner === c.name && z.present && !z.unknown);
    if (mine.length === 0) return createOwnZone(c);
    const zone = c.rng.pick(mine);
    const res = await call(c, 'DELETE /zones/{zone}', `/zones/${zone.name}?confirm=${zone.name}`);
    if (ok(res)) zone.present = false;
    else if (failed(res)) zone.unknown = true;
  }

  async function recordInOwnZone(c: Client) {
    const mine = zones.filter((z) => z.owner === c.name && z.present && !z.unknown);
    if (mine.length === 0) return createOwnZone(c);
    const zone = c.rng.pick(mine);
    const before = records.length;
    await createRecord(c, zone.name);
    // Records of a zone its owner deletes later are not checked; the zone's own check covers them.
    for (const r of records.slice(before)) r.via = `own zone ${zone.name}`;
  }

  async function toggleDnssec(c: Client) {
    const zone = c.rng.pick(sharedOf(c));
    const on = c.rng.chance(0.5);
    await call(
      c,
      on ? 'POST /zones/{zone}/dnssec/enable' : 'POST /zones/{zone}/dnssec/disable',
      `/zones/${zone}/dnssec/${on ? 'enable' : 'disable'}`,
      on ? {} : undefined,
    );
  }

  /** Staff assigning single addresses to customers, most to the one whose zones are churning. */
  async function assignIp(c: Client, pool: string[], to: TenantKey[]): Promise<void> {
    const used = new Set(assignments.filter((a) => a.present || a.unknown).map((a) => a.cidr));
    const free = pool.filter((cidr) => !used.has(cidr));
    if (free.length === 0) return unassignIp(c, pool, to);
    const cidr = c.rng.pick(free);
    const res = await call(c, 'POST /ips', '/ips', { cidr, tenant_id: tenantIds[c.rng.pick(to)], server_name: `${label(c, 'srv')}.${SOAK}.example` });
    if (ok(res)) assignments.push({ id: res!.body.id, cidr, present: true });
    else if (failed(res)) assignments.push({ id: '', cidr, present: false, unknown: true });
  }

  async function unassignIp(c: Client, pool: string[], to: TenantKey[]): Promise<void> {
    const mine = assignments.filter((a) => a.present && !a.unknown && pool.includes(a.cidr));
    if (mine.length === 0) return assignIp(c, pool, to);
    const a = c.rng.pick(mine);
    const res = await call(c, 'DELETE /ips/{assignment}', `/ips/${a.id}`);
    if (ok(res)) a.present = false;
    else if (failed(res)) a.unknown = true;
  }

  async function togglePrefix(c: Client, pool: string[], to: TenantKey[]) {
    const cidr = c.rng.pick(pool);
    const known = prefixes.get(cidr);
    if (known?.unknown) return;
    if (known?.present) {
      const res = await call(c, 'DELETE /prefixes/{prefix}', `/prefixes/${cidr.replace('/', '-')}`);
      if (ok(res)) known.present = false;
      else if (failed(res)) known.unknown = true;
      return;
    }
    const tenant = c.rng.pick(to);
    const res = await call(c, 'POST /prefixes', '/prefixes', { cidr, tenant_id: tenantIds[tenant] });
    if (ok(res)) prefixes.set(cidr, { present: true, tenant });
    else if (failed(res)) prefixes.set(cidr, { present: false, unknown: true, tenant });
  }

  async function writePtr(c: Client, mine: string[]) {
    const kind = c.rng.weighted({ single: 5, bulk: 3, reset: 2 });
    const target = () => `${label(c, 'ptr')}.${SOAK}.example.`;
    const note = (ip: string, res: ApiResponse | null, value: string | null) => {
      if (ok(res)) ptrs.set(ip, { present: true, target: value, tenant: c.tenant });
      else if (failed(res)) ptrs.set(ip, { present: false, unknown: true, target: null, tenant: c.tenant });
    };
    if (kind === 'bulk') {
      const items = [...new Set(Array.from({ length: c.rng.int(2, 5) }, () => c.rng.pick(mine)))].map((ip) => ({
        ip,
        target: c.rng.chance(0.85) ? target() : null,
      }));
      const res = await call(c, 'POST /ptr/bulk', '/ptr/bulk', { items });
      for (const i of items) note(i.ip, res, i.target);
      return;
    }
    const ip = c.rng.pick(mine);
    if (kind === 'reset') return note(ip, await call(c, 'DELETE /ptr/{ip}', `/ptr/${ip}`), null);
    const t = target();
    note(ip, await call(c, 'PUT /ptr/{ip}', `/ptr/${ip}`, { target: t }), t);
  }

  async function nicUpdate(c: Client, host: TrackedHost, password = host.password) {
    const wrong = password !== host.password;
    const route = wrong ? 'GET /nic/update (wrong password)' : 'GET /nic/update';
    const ip = address(c.rng);
    const started = performance.now();
    const path = `/nic/update?hostname=${host.hostname}&myip=${ip}`;
    try {
      const res = await fetch(`${lab.url}${path}`, {
        headers: { authorization: `Basic ${Buffer.from(`${host.username}:${password}`).toString('base64')}`, 'user-agent': 'soak-router/1.0' },
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const text = await res.text();
      const word = text.split(/\s/)[0] ?? '';
      requests.add({
        client: c.name,
        route,
        method: 'GET',
        path,
        status: res.status,
        code: word,
        ms: performance.now() - started,
        body: text,
        requestId: res.headers.get('x-request-id'),
      });
      if (!wrong && res.status === 200 && NIC_OK.includes(word)) host.ipv4 = ip;
      else if (!wrong && (res.status >= 500 || word === '911' || word === 'dnserr')) host.unknown = true;
    } catch (err) {
      requests.add({
        client: c.name,
        route,
        method: 'GET',
        path,
        status: 0,
        code: 'no_answer',
        ms: performance.now() - started,
        body: String(err),
        requestId: null,
      });
      if (!wrong) host.unknown = true;
    }
  }

  async function dyndns(c: Client) {
    const mine = hosts.filter((h) => h.present && !h.unknown && hostOwner.get(h.id) === c.name);
    // A host takes DYNDNS_HOST_UPDATES_PER_MINUTE updates; then a new one keeps writes flowing.
    const usable = mine.filter((h) => h.updates < 18);
    const kind = usable.length === 0 ? 'create' : c.rng.weighted({ create: 2, update: 7, remove: 1, wrong: wrongPasswords < 12 ? 1 : 0 });
    if (kind === 'create') {
      const zone = c.rng.pick(sharedOf(c));
      const name = label(c, 'dyn');
      const res = await call(c, 'POST /dyndns/hosts', '/dyndns/hosts', { zone, name });
      if (ok(res)) {
        hosts.push({
          id: res!.body.id,
          zone,
          hostname: res!.body.hostname,
          username: res!.body.username,
          password: res!.body.password,
          ipv4: null,
          updates: 0,
          present: true,
          tenant: c.tenant,
        });
        hostOwner.set(res!.body.id, c.name);
      }
      return;
    }
    const host = c.rng.pick(usable);
    if (kind === 'remove') {
      const res = await call(c, 'DELETE /dyndns/hosts/{host}', `/dyndns/hosts/${host.id}`);
      if (ok(res)) host.present = false;
      else if (failed(res)) host.unknown = true;
      return;
    }
    if (kind === 'wrong') {
      wrongPasswords += 1;
      return nicUpdate(c, host, `${host.password}x`);
    }
    host.updates += 1;
    return nicUpdate(c, host);
  }

  async function webhook(c: Client) {
    const mine = webhooks.filter((w) => w.present && !w.unknown && webhookOwner.get(w.id) === c.name);
    const kind = mine.length === 0 ? 'create' : c.rng.weighted({ create: 3, ping: 4, remove: 3 });
    if (kind === 'create') {
      // Most to a receiver that is gone: the deliveries pile up and fail, as in the issue.
      const res = await call(c, 'POST /webhooks', '/webhooks', {
        url: c.rng.chance(0.7) ? deadUrl : liveReceiver.url,
        events: ['zone.changed', 'record.published'],
        description: label(c, 'hook'),
      });
      if (ok(res)) {
        webhooks.push({ id: res!.body.id, present: true, tenant: c.tenant });
        webhookOwner.set(res!.body.id, c.name);
        liveReceiver.secrets.push(res!.body.secret);
      }
      return;
    }
    const w = c.rng.pick(mine);
    if (kind === 'ping') return void (await call(c, 'POST /webhooks/{webhook}/ping', `/webhooks/${w.id}/ping`));
    const res = await call(c, 'DELETE /webhooks/{webhook}', `/webhooks/${w.id}`);
    if (ok(res)) w.present = false;
    else if (failed(res)) w.unknown = true;
  }

  // --- the clients ---

  /** IPv4 addresses `from`..`from+count-1` of SPACE, as strings or /32 blocks. */
  const addresses = (from: number, count: number) => Array.from({ length: count }, (_, i) => `198.51.100.${from + i}`);

  type Runner = Client & { step: () => Promise<void>; barrier?: Barrier };
  function clients(): Runner[] {
    const all: Runner[] = [];
    // The issue's reproduction: staff assigning addresses to c1 while c1 (and c2, beside it
    // under the same reseller and platform rows) creates zones, fired together. Each small group
    // (an address assigner with zone creators) starts its requests at the same moment; small, so
    // that a group waits for few slow answers and fires often.
    const hot = Array.from({ length: 6 }, () => new Barrier());
    const add = (tenant: TenantKey, role: Role, api: ApiClient, step: (c: Client) => Promise<void>, barrier?: Barrier) => {
      const c: Client = { name: `c${all.length}`, tenant, role, api, rng: new Rng(clientSeed(all.length)), seq: 0 };
      barrier?.join();
      all.push({ ...c, step: () => step(c), barrier });
    };
    const asCustomer = (key: 'c0' | 'c1' | 'c2') => readers.reseller.with({ 'X-Act-As-Customer': tenantIds[key] });
    const token = (key: 'c0' | 'c1') => lab.as(lab.tokens.customers[key === 'c0' ? 0 : 1]!);
    const staff = [...staffApis];
    const platform = () => staff.shift()!;

    // Staff assigning addresses (single /32s of SPACE's upper half, five disjoint pools) — most
    // to c1, whose zones are being created at the same time.
    for (let k = 0; k < 5; k++) {
      const pool = addresses(128 + 24 * k, 24).map((a) => `${a}/32`);
      add('platform', 'ips', platform(), (c) => (c.rng.chance(0.75) ? assignIp(c, pool, ['c1', 'c1', 'c1', 'c0']) : unassignIp(c, pool, ['c1'])), hot[k]);
    }
    // The reseller handing on addresses of its own block to c1.
    const handOn = addresses(96, 32).map((a) => `${a}/32`);
    add('reseller', 'resellerIps', readers.reseller, (c) => (c.rng.chance(0.75) ? assignIp(c, handOn, ['c1']) : unassignIp(c, handOn, ['c1'])), hot[5]);
    // Prefixes attached and detached for c0 and c1 (their reverse zones count as zones: tenant locks too).
    add('platform', 'prefixes', platform(), (c) =>
      togglePrefix(
        c,
        Array.from({ length: 6 }, (_, i) => `100.64.${i}.0/24`),
        ['c1', 'c0'],
      ),
    );
    add('reseller', 'prefixes', readers.reseller, (c) =>
      togglePrefix(
        c,
        Array.from({ length: 6 }, (_, i) => `100.65.${i}.0/24`),
        ['c1'],
      ),
    );
    // c1's zones created, written and deleted by six clients, own token and acting reseller.
    [token('c1'), token('c1'), token('c1'), asCustomer('c1'), asCustomer('c1'), asCustomer('c1')].forEach((api, j) => {
      add(
        'c1',
        'zoneChurn',
        api,
        (c) => {
          const k = c.rng.weighted({ create: 70, remove: 15, record: 15 });
          return k === 'create' ? createOwnZone(c) : k === 'remove' ? deleteOwnZone(c) : recordInOwnZone(c);
        },
        hot[j % hot.length],
      );
    });
    // The quota customer: concurrent creations against max_zones, records in its zone otherwise.
    for (let k = 0; k < 3; k++) {
      add('c2', 'quota', asCustomer('c2'), (c) => (c.seq === 0 || c.rng.chance(0.7) ? createOwnZone(c) : createRecord(c, c.rng.pick(sharedZones.c2))), hot[k]);
    }
    // Many writers on the same few zones of each customer.
    const writerApis: ['c0' | 'c1' | 'c2', ApiClient][] = [
      ['c0', token('c0')],
      ['c0', asCustomer('c0')],
      ['c1', token('c1')],
      ['c1', asCustomer('c1')],
      ['c2', asCustomer('c2')],
    ];
    for (const [tenant, api] of writerApis) {
      add(tenant, 'writer', api, (c) => {
        const k = c.rng.weighted({ create: 25, patch: 15, remove: 10, changeset: 15, invalid: 4, import: 12, template: 10 });
        if (k === 'create') return createRecord(c, c.rng.pick(sharedOf(c)));
        if (k === 'patch') return patchRecord(c);
        if (k === 'remove') return deleteRecord(c);
        if (k === 'changeset') return changeSet(c);
        if (k === 'invalid') return invalidChangeSet(c);
        if (k === 'import') return importZoneFile(c);
        return applyTemplate(c);
      });
    }
    // DNSSEC switched on and off on the zones the writers are writing, eight calls at a time
    // (the issue: a dozen at once exhausted the pool).
    const signers = new Barrier();
    for (const key of ['c0', 'c1'] as const) {
      for (const api of [token(key), token(key), asCustomer(key), asCustomer(key)]) add(key, 'dnssec', api, toggleDnssec, signers);
    }
    // The reseller defining templates and applying them for its customers.
    add('reseller', 'templates', readers.reseller, (c) => {
      if (c.rng.chance(0.3)) return createTemplate(c);
      const key = c.rng.pick(['c0', 'c1'] as const);
      return applyTemplate(c, asCustomer(key), c.rng.pick(sharedZones[key]));
    });
    // PTRs of the addresses assigned to c0 (two clients) and c1 before the soak.
    add('c0', 'ptr', token('c0'), (c) => writePtr(c, addresses(0, 10)));
    add('c0', 'ptr', asCustomer('c0'), (c) => writePtr(c, addresses(10, 10)));
    add('c1', 'ptr', token('c1'), (c) => writePtr(c, addresses(32, 10)));
    // DynDNS hosts and their routers.
    add('c0', 'dyndns', token('c0'), dyndns);
    add('c0', 'dyndns', asCustomer('c0'), dyndns);
    add('c1', 'dyndns', token('c1'), dyndns);
    // Webhooks of the reseller (its whole subtree: every event of the soak) and of customers.
    add('reseller', 'webhooks', readers.reseller, webhook);
    add('c0', 'webhooks', token('c0'), webhook);
    return all;
  }

  beforeAll(async () => {
    lab = await startDnsLab({
      env: { ROLES: 'api,nameserver,worker', WEBHOOK_POLL_INTERVAL_MS: '50', SLOW_REQUEST_LOG_MS: '5000' },
      logDestination: log,
      logLevel: 'warn',
    });
    // The nightly lab reset must not empty the lab mid-soak.
    lab.service.labReset?.stop();
    tenantIds.platform = lab.tokens.tenants.platform;
    tenantIds.reseller = lab.tokens.tenants.reseller;
    [tenantIds.c0, tenantIds.c1] = lab.tokens.tenants.customers as [string, string];
    readers.platform = lab.platform;
    readers.reseller = lab.reseller;
    readers.c0 = lab.customerA;
    readers.c1 = lab.customerB;
    // Room for every zone the churn makes in the reseller's subtree; the quota customer is the
    // one whose max_zones is meant to be reached.
    expect((await lab.platform.patch(`/tenants/${tenantIds.reseller}`, { limits: { max_zones: 100_000 } })).status).toBe(200);
    // Staff clients each with a token of their own API client: the platform's limit per API
    // client (its own tenant's, which nobody above can raise) is then each one's.
    for (let k = 0; k < 6; k++) staffApis.push(lab.as((await issueToken(lab.platform, tenantIds.platform, SCOPES, `soak staff ${k}`)).token));
    for (const key of ['c0', 'c1'] as const)
      expect((await lab.reseller.patch(`/tenants/${tenantIds[key]}`, { limits: { max_zones: 10_000 } })).status).toBe(200);
    const quota = await newCustomer(lab, `Soak quota ${SOAK}`, { max_zones: QUOTA });
    tenantIds.c2 = quota.id;
    readers.c2 = quota.api;

    sharedZones.c0 = ['a', 'b', 'c'].map((k) => `shared-${k}-${SOAK}.example`);
    sharedZones.c1 = ['d', 'e', 'f'].map((k) => `shared-${k}-${SOAK}.example`);
    sharedZones.c2 = [`shared-g-${SOAK}.example`];
    for (const key of ['c0', 'c1', 'c2'] as const) for (const zone of sharedZones[key]) await createZone(readers[key], zone);

    const space = await lab.platform.post('/ip-spaces', { cidr: SPACE, ptr_pattern: `static.{dashed}.${SOAK}.example.` });
    expect(space.status, space.text).toBe(201);
    for (const [cidr, tenant] of [
      ['198.51.100.0/27', 'c0'],
      ['198.51.100.32/27', 'c1'],
      ['198.51.100.96/27', 'reseller'],
    ] as const) {
      const res = await lab.platform.post('/ips', { cidr, tenant_id: tenantIds[tenant] });
      expect(res.status, res.text).toBe(201);
    }
    const template = await lab.reseller.post('/templates', {
      name: `soak ${SOAK}`,
      variables: [{ name: 'label', kind: 'string', required: true }],
      records: [{ type: 'TXT', name: '{{label}}', data: { text: 'soak template {{label}}' } }],
    });
    expect(template.status, template.text).toBe(201);
    templateIds = [template.body.id];

    // The service's time follows the real one from here, as a deployment's would: rate-limit
    // windows end, DNSSEC's worker sees time pass.
    let last = Date.now();
    clockTicker = setInterval(() => {
      const now = Date.now();
      lab.clock.advance(now - last);
      last = now;
    }, 200);

    await liveReceiver.start();
    const gone = await new WebhookReceiver().start();
    deadUrl = gone.url;
    await gone.stop();
  });

  afterAll(async () => {
    clearInterval(clockTicker);
    await liveReceiver.stop();
    await lab?.close();
  });

  it(`runs the mix for SOAK_SECONDS (seed ${SEED})`, async () => {
    const all = clients();
    console.log(`soak: seed ${SEED} (SOAK_SEED=${SEED} to replay), ${all.length} clients, ${SECONDS} s`);
    expect(all.length).toBeGreaterThanOrEqual(30);
    const started = Date.now();
    const until = started + SECONDS * 1000;
    await Promise.all(
      all.map(async (c) => {
        try {
          while (Date.now() < until) {
            await c.barrier?.arrive();
            await c.step();
          }
        } finally {
          // Also when a step throws: the rest of its group must not wait for it.
          c.barrier?.leave();
        }
      }),
    );
    seconds = (Date.now() - started) / 1000;
    const n = requests.entries.length;
    console.log(`soak: ${n} requests in ${seconds.toFixed(1)} s (${(n / seconds).toFixed(1)}/s)`);
    console.table(requests.mixTable());
    // What the service logged at warn and above, by message and PostgreSQL code (the 5xx below name theirs).
    const logged = new Map<string, number>();
    for (const l of log.lines) {
      // knex's message is "<statement> - <PostgreSQL's message>": the statement's start and the message.
      const [statement, ...cause] = String(l.err?.message ?? '')
        .split('\n')[0]!
        .split(' - ');
      const why = l.err
        ? ` (${l.err.code ? `${l.err.code} ` : ''}${cause.length ? `${cause.join(' - ')} in ${statement!.slice(0, 60)}…` : statement!.slice(0, 100)})`
        : '';
      const key = `${l.level >= 50 ? 'error' : 'warn'} ${String(l.msg).split('\n')[0]!.slice(0, 100)}${why}`;
      logged.set(key, (logged.get(key) ?? 0) + 1);
    }
    console.log(`soak: service log at warn and above:${logged.size ? [...logged].map(([k, c]) => `\n  ${c} × ${k}`).join('') : ' nothing'}`);
    // A request unanswered after SLOW_REQUEST_LOG_MS, with where it waited (src/db/slowRequestWatch.ts): whole.
    for (const l of log.lines.filter((line) => line.msg === 'slow request')) console.log(`soak: slow request ${JSON.stringify(l)}`);
    expect(n).toBeGreaterThan(0);
  });

  const describeRequest = (e: LoggedRequest) => {
    // A 503 is a known answer, not logged: the pool's acquire timeout or a statement timeout (src/api/app.ts).
    const why =
      log.errorOf(e.requestId) ??
      (e.status === 503 ? 'nothing (503: pool acquire or statement timeout, DB_ACQUIRE_TIMEOUT_MS / DB_STATEMENT_TIMEOUT_MS)' : null);
    return `${e.client} ${e.method} ${e.path} → ${e.status}${e.code ? ` ${e.code}` : ''} after ${Math.round(e.ms)} ms${why ? ` — logged: ${why}` : ''}: ${e.body.slice(0, 300)}`;
  };

  it('answers no 5xx, no 911 and never leaves a request unanswered', () => {
    const bad = requests.entries.filter(
      (e) => e.status >= 500 || e.status === 0 || (e.route.startsWith('GET /nic/update') && (e.code === '911' || e.code === 'dnserr')),
    );
    if (bad.length) console.log(`soak: ${bad.length} failed requests:\n${bad.map(describeRequest).join('\n')}`);
    expect(bad.map(describeRequest)).toEqual([]);
  });

  it('answers only the 4xx the mix may produce (EXPECTED_4XX), and refuses the invalid requests', () => {
    const unexpected = requests.entries.filter((e) => {
      const outcome = `${e.status} ${e.code}`;
      const allowed = [...(EXPECTED_4XX[e.route] ?? []), ...EXPECTED_EVERYWHERE];
      if (e.route.endsWith('(invalid)') || e.route.endsWith('(wrong password)')) return e.status > 0 && e.status < 500 && !allowed.includes(outcome);
      if (e.route.startsWith('GET /nic/update'))
        return e.status === 200 && !NIC_OK.includes(e.code ?? '') && !allowed.includes(outcome) && e.code !== '911' && e.code !== 'dnserr';
      return e.status >= 400 && e.status < 500 && !allowed.includes(outcome);
    });
    expect(unexpected.map(describeRequest)).toEqual([]);
  });

  it('logs no deadlock', () => {
    const deadlocks = log.lines.filter((l) => JSON.stringify(l).includes('deadlock detected'));
    expect(deadlocks.map((l) => `${l.msg} ${l.request_id ?? ''}: ${l.err?.message ?? ''}`)).toEqual([]);
  });

  /** Every record of `zone` as the API lists it, by "name type". */
  async function recordsOf(api: ApiClient, zone: string): Promise<Map<string, string[]>> {
    const byKey = new Map<string, string[]>();
    for (const r of await listAll(api, `/zones/${zone}/records?limit=500`)) {
      const key = `${r.name} ${r.type}`;
      byKey.set(key, [...(byKey.get(key) ?? []), String(r.data.address ?? r.data.text ?? r.content)]);
    }
    return byKey;
  }

  it('shows every acknowledged record write through the API, and nothing of a refused change set', async () => {
    const missing: string[] = [];
    const sharedTenant = new Map(Object.entries(sharedZones).flatMap(([t, zs]) => zs.map((z) => [z, t as TenantKey])));
    for (const [zone, tenant] of sharedTenant) {
      const listed = await recordsOf(readers[tenant], zone);
      for (const r of records.filter((x) => x.zone === zone && !x.unknown)) {
        const values = listed.get(`${r.name} ${r.type}`) ?? [];
        if (r.present && !values.includes(r.value))
          missing.push(`${r.via} ${r.type} ${r.name}.${zone} = ${r.value} (${r.client}): listed ${JSON.stringify(values)}`);
        if (!r.present && values.length) missing.push(`deleted ${r.type} ${r.name}.${zone} (${r.client}) still listed: ${JSON.stringify(values)}`);
      }
      // A change set or import answered 5xx: unknown whether it was stored, but never in part.
      const unanswered = new Map<string, TrackedRecord[]>();
      for (const r of records.filter((x) => x.zone === zone && x.unknown && /^(changeset|import) /.test(x.via)))
        unanswered.set(r.via, [...(unanswered.get(r.via) ?? []), r]);
      for (const [via, items] of unanswered) {
        const stored = items.filter((r) => (listed.get(`${r.name} ${r.type}`) ?? []).includes(r.value)).length;
        if (stored !== 0 && stored !== items.length) missing.push(`${via} in ${zone} answered 5xx and stored ${stored} of its ${items.length} records`);
      }
      for (const refused of refusedNames.filter((x) => x.zone === zone)) {
        const left = [...listed.keys()].filter((k) => k.split(' ')[0] === refused.name);
        if (left.length) missing.push(`refused change set left ${left.join(', ')} in ${zone}`);
      }
    }
    expect(missing).toEqual([]);
    expect(records.filter((r) => r.present && !r.unknown).length).toBeGreaterThan(0);
  });

  it('keeps each zone whole: created ones with their initial records, deleted ones gone, the quota held', async () => {
    const wrong: string[] = [];
    for (const zone of zones) {
      const res = await readers[zone.tenant].get(`/zones/${zone.name}`);
      if (zone.present && !zone.unknown && res.status !== 200) wrong.push(`${zone.name}: created (2xx) but GET answers ${res.status}`);
      if (!zone.present && !zone.unknown && res.status === 200 && res.body.status !== 'deleting')
        wrong.push(`${zone.name}: deleted or refused but still ${res.body.status}`);
      if (res.status === 200 && res.body.status !== 'deleting') {
        // Also a zone whose creation answered 5xx: if it exists, it exists whole.
        const listed = await recordsOf(readers[zone.tenant], zone.name);
        if (!listed.get('www A')?.includes('192.0.2.80') || !listed.has('info TXT'))
          wrong.push(`${zone.name}: without its initial records: ${JSON.stringify([...listed.keys()])}`);
        for (const r of records.filter((x) => x.zone === zone.name && x.present && !x.unknown)) {
          if (!listed.get(`${r.name} ${r.type}`)?.includes(r.value)) wrong.push(`${zone.name}: acknowledged ${r.type} ${r.name} = ${r.value} missing`);
        }
      }
    }
    const quotaZones = await listAll(readers.c2, '/zones?limit=100');
    if (quotaZones.length > QUOTA)
      wrong.push(`quota customer holds ${quotaZones.length} zones, max_zones ${QUOTA}: ${quotaZones.map((z) => z.name).join(', ')}`);
    expect(wrong).toEqual([]);
    expect(
      requests.entries.some((e) => e.route === 'POST /zones' && e.code === 'quota_exceeded'),
      'the quota was reached during the soak',
    ).toBe(true);
  });

  it('shows the acknowledged addresses, prefixes, PTRs, DynDNS hosts, webhooks and templates', async () => {
    const wrong: string[] = [];
    const listed = new Map((await listAll(lab.platform, `/ips?within=${SPACE}&limit=100`)).map((a) => [a.id as string, a.cidr as string]));
    for (const a of assignments.filter((x) => !x.unknown)) {
      if (a.present && listed.get(a.id) !== a.cidr) wrong.push(`assignment ${a.cidr} (${a.id}) not listed`);
      if (!a.present && listed.has(a.id)) wrong.push(`unassigned ${a.cidr} (${a.id}) still listed`);
    }
    for (const [cidr, p] of prefixes) {
      if (p.unknown) continue;
      const res = await lab.platform.get(`/prefixes/${cidr.replace('/', '-')}`);
      if (p.present !== (res.status === 200)) wrong.push(`prefix ${cidr}: ${p.present ? 'attached' : 'detached'}, GET answers ${res.status}`);
    }
    for (const [ip, p] of ptrs) {
      if (p.unknown) continue;
      const res = await readers[p.tenant].get(`/ptr/${ip}`);
      const target = typeof res.body?.target === 'string' ? res.body.target.replace(/\.$/, '') : null;
      if (p.target !== null && target !== p.target.replace(/\.$/, ''))
        wrong.push(`PTR ${ip}: set to ${p.target}, reads ${res.status} ${res.text.slice(0, 200)}`);
      if (p.target === null && res.body?.source === 'set') wrong.push(`PTR ${ip}: reset, still set to ${res.body.target}`);
    }
    for (const h of hosts.filter((x) => !x.unknown)) {
      const res = await readers[h.tenant].get(`/dyndns/hosts/${h.id}`);
      if (!h.present && res.status !== 404) wrong.push(`DynDNS host ${h.hostname}: deleted, GET answers ${res.status}`);
      if (h.present && (res.status !== 200 || res.body.ipv4 !== h.ipv4))
        wrong.push(`DynDNS host ${h.hostname}: updated to ${h.ipv4}, reads ${res.status} ${res.body?.ipv4}`);
    }
    for (const w of webhooks.filter((x) => !x.unknown)) {
      const res = await readers[w.tenant].get(`/webhooks/${w.id}`);
      if (w.present !== (res.status === 200)) wrong.push(`webhook ${w.id}: ${w.present ? 'created' : 'deleted'}, GET answers ${res.status}`);
    }
    for (const t of templates) {
      const res = await lab.reseller.get(`/templates/${t.id}`);
      if (res.status !== 200) wrong.push(`template ${t.id}: created, GET answers ${res.status}`);
    }
    expect(wrong).toEqual([]);
  });

  it('serves a sample of the acknowledged writes over DNS (dig)', async (ctx) => {
    const dig = requireTool('dig', ctx);
    const port = lab.service.nameserver!.server.port;
    const rng = new Rng(SEED);
    const sample = <T>(items: T[], n: number) => [...items].sort(() => rng.float() - 0.5).slice(0, n);
    const checks: { name: string; type: string; expected: string | null }[] = [];
    for (const r of sample(
      records.filter((x) => x.present && !x.unknown && x.type === 'A' && sharedTenantOf(x.zone)),
      40,
    ))
      checks.push({ name: `${r.name}.${r.zone}.`, type: 'A', expected: r.value });
    for (const r of sample(
      records.filter(
        (x) => !x.present && !x.unknown && x.type === 'A' && sharedTenantOf(x.zone) && !records.some((y) => y !== x && y.zone === x.zone && y.name === x.name),
      ),
      10,
    )) {
      checks.push({ name: `${r.name}.${r.zone}.`, type: 'A', expected: null });
    }
    for (const z of sample(
      zones.filter((x) => x.present && !x.unknown),
      10,
    ))
      checks.push({ name: `www.${z.name}.`, type: 'A', expected: '192.0.2.80' });
    for (const [ip, p] of sample(
      [...ptrs].filter(([, p]) => !p.unknown && p.target !== null),
      10,
    ))
      checks.push({ name: `${reverseName(parseAddress(ip))}.`, type: 'PTR', expected: p.target!.replace(/\.?$/, '.') });
    for (const h of sample(
      hosts.filter((x) => x.present && !x.unknown && x.ipv4),
      10,
    ))
      checks.push({ name: `${h.hostname.replace(/\.?$/, '.')}`, type: 'A', expected: h.ipv4 });
    const wrong: string[] = [];
    const deadline = Date.now() + 30_000;
    for (let i = 0; i < checks.length; i += 6) {
      await Promise.all(
        checks.slice(i, i + 6).map(async (check) => {
          try {
            await eventually(
              async () => {
                const r = await digQuery(dig, port, check.name, check.type);
                const got = r.answer.filter((l) => l.split(' ')[3] === check.type).map((l) => l.split(' ').slice(4).join(' '));
                if (check.expected === null) return got.length === 0 && (r.status === 'NXDOMAIN' || r.status === 'NOERROR') ? true : undefined;
                return got.includes(check.expected) ? true : undefined;
              },
              Math.max(1_000, deadline - Date.now()),
              `${check.type} ${check.name} = ${check.expected}`,
            );
          } catch (err) {
            wrong.push((err as Error).message);
          }
        }),
      );
    }
    expect(wrong).toEqual([]);
    expect(checks.length).toBeGreaterThan(10);
  });
  const sharedTenantOf = (zone: string) => Object.values(sharedZones).some((zs) => zs.includes(zone));

  it('delivers a ping to a live receiver within 2 s after the soak', async () => {
    const receiver = await new WebhookReceiver().start();
    try {
      const hook = await lab.reseller.post('/webhooks', { url: receiver.url, events: ['zone.changed'] });
      expect(hook.status, hook.text).toBe(201);
      receiver.secrets = [hook.body.secret];
      const sent = Date.now();
      const ping = await lab.reseller.post(`/webhooks/${hook.body.id}/ping`);
      expect(ping.status, ping.text).toBe(202);
      await eventually(async () => (receiver.ofType('webhook.ping').length > 0 || Date.now() - sent > 2_000 ? true : undefined));
      const arrived = receiver.ofType('webhook.ping').length > 0 ? Date.now() - sent : null;
      console.log(`soak: the ping after the soak ${arrived === null ? 'did not arrive within 2 s' : `arrived after ${arrived} ms`}`);
      const deliveries = arrived === null ? JSON.stringify((await lab.reseller.get(`/webhooks/${hook.body.id}/deliveries`)).body?.data) : '';
      expect(receiver.ofType('webhook.ping'), `no ping within 2 s; its delivery: ${deliveries}`).toHaveLength(1);
    } finally {
      await receiver.stop();
    }
  });
});
