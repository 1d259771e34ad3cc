// The isolation proof (spec "Authentication" 3: a token sees and changes only objects in its own
// tenant's subtree). It walks `allRoutes`, so an operation added later is covered without being
// named here: every path parameter is filled with objects owned by someone else and must answer
// exactly like a missing object, with nothing changed in the database; every list must show a
// narrower token exactly what the platform sees of that token's subtree. A route this file
// cannot exercise (an unknown path parameter kind, a write without a body entry) fails loudly.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { allRoutes } from '../../src/api/resources/index.js';
import type { RouteSpec } from '../../src/api/routing/route.js';
import { TENANT_OWNED } from '../../src/db/tenantScope.js';
import { ManualClock } from '../../src/domain/clock.js';
import { SCOPES } from '../../src/domain/scopes.js';
import type { ApiClient, ApiResponse } from '../helpers/apiClient.js';
import { startTestService, type TestService } from '../helpers/testService.js';

// ---------------------------------------------------------------------------------------------
// What the test knows about the API. Extend these tables when a route needs it; the first test
// says which entry is missing.

/** Tables whose rows are objects a path parameter can name, beyond the tenant-owned ones. */
type ObjectTable = keyof typeof TENANT_OWNED | 'lab_billing_clients';

/**
 * Path parameter name → the table of the objects it names, and an id of the same form that names
 * no object (a foreign object must be indistinguishable from it).
 */
const PARAM_KINDS: Record<string, { table: ObjectTable; missing: string }> = {
  tenant: { table: 'tenants', missing: `ten_${'a'.repeat(26)}` },
  client: { table: 'api_clients', missing: `cli_${'a'.repeat(26)}` },
  token: { table: 'api_tokens', missing: `tok_${'a'.repeat(26)}` },
  user: { table: 'users', missing: `usr_${'a'.repeat(26)}` },
  client_id: { table: 'lab_billing_clients', missing: '99999' },
};

let serial = 0;
const unique = () => `${Date.now().toString(36)}-${++serial}`;

interface BodyRef {
  /** Top-level body field that names another object. */
  field: string;
  table: ObjectTable;
  /** What naming a foreign (or missing) object there answers. */
  denied: { status: number; code: string; pointer?: string };
  /** The object the positive control names there (default: customer D's). */
  control?: () => string;
}

interface WriteCase {
  /** A minimal valid body (a new one per call, so unique fields stay unique). */
  body?: () => Record<string, unknown>;
  refs?: BodyRef[];
}

/** Every write operation, keyed by operationId. A write route without an entry fails the test. */
const WRITE_CASES: Record<string, WriteCase> = {
  createTenant: {
    body: () => ({ type: 'customer', name: `Intruder ${unique()}` }),
    refs: [{ field: 'parent_id', table: 'tenants', denied: { status: 404, code: 'not_found' }, control: () => T.reseller2 }],
  },
  updateTenant: { body: () => ({ name: `Hijacked ${unique()}`, limits: { max_zones: 1 }, features: [] }) },
  suspendTenant: { body: () => ({ reason: 'isolation probe' }) },
  unsuspendTenant: {},
  createApiClient: { body: () => ({ name: `Intruder ${unique()}` }) },
  createToken: {
    body: () => ({ name: `Intruder ${unique()}`, scopes: ['tenant:read'] }),
    refs: [{ field: 'user_id', table: 'users', denied: { status: 422, code: 'validation_failed', pointer: '/user_id' } }],
  },
  revokeToken: {},
  createUser: { body: () => ({ email: `intruder-${unique()}@example.test`, permissions: [] }) },
  putLabBillingClient: { body: () => ({ name: 'Hijacked', email: null, status: 'closed' }) },
  resetLab: {},
};

const isWrite = (r: RouteSpec) => r.method !== 'get';
const paramNames = (r: RouteSpec) => [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
/** The lab's simulations are changed with the lab platform token only: 403 forbidden for everyone else. */
const isPlatformOnly = (r: RouteSpec) => r.labOnly === true && isWrite(r);
const isListRoute = (r: RouteSpec) => {
  const schema = r.responses[200]?.schema;
  return r.method === 'get' && schema instanceof z.ZodObject && schema.shape.data instanceof z.ZodArray;
};
const label = (r: RouteSpec) => `${r.method.toUpperCase()} ${r.path} (${r.operationId})`;

function pathOf(route: RouteSpec, params: Record<string, string>): string {
  return `/api/v1${route.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name]!))}`;
}

// ---------------------------------------------------------------------------------------------
// The world as the database has it: who owns what. Ownership is decided here from parent_id
// chains, independently of the service's own `path` column.

interface World {
  parentOf: Map<string, string | null>;
  objects: { table: ObjectTable; id: string; owner: string }[];
  ownerOf: Map<string, string>;
}

let lab: TestService;
let db: pg.Client;

async function loadWorld(): Promise<World> {
  const tenants = (await db.query<{ id: string; parent_id: string | null }>('SELECT id, parent_id FROM tenants')).rows;
  const platformId = tenants.find((t) => t.parent_id === null)!.id;
  const objects: World['objects'] = tenants.map((t) => ({ table: 'tenants', id: t.id, owner: t.id }));
  for (const [table, column] of Object.entries(TENANT_OWNED)) {
    if (table === 'tenants') continue;
    const rows = (await db.query<{ id: string; owner: string }>(`SELECT id, ${column} AS owner FROM ${table}`)).rows;
    for (const r of rows) objects.push({ table: table as ObjectTable, id: r.id, owner: r.owner });
  }
  // A billing client belongs to the customer linked to it; unlinked ones to the platform.
  const billing = await db.query<{ id: string; owner: string | null }>(
    'SELECT b.id, t.id AS owner FROM lab_billing_clients b LEFT JOIN tenants t ON t.billing_client_id = b.id',
  );
  for (const r of billing.rows) objects.push({ table: 'lab_billing_clients', id: r.id, owner: r.owner ?? platformId });
  return {
    parentOf: new Map(tenants.map((t) => [t.id, t.parent_id])),
    objects,
    ownerOf: new Map(objects.map((o) => [o.id, o.owner])),
  };
}

function inSubtree(world: World, tenantId: string, root: string): boolean {
  for (let t: string | null | undefined = tenantId; t; t = world.parentOf.get(t)) if (t === root) return true;
  return false;
}

/** Everything a request could change, as one comparable string (token use times excluded). */
async function snapshot(): Promise<Record<string, string>> {
  const tables = [...Object.keys(TENANT_OWNED), 'lab_billing_clients', 'lab_state', 'idempotency_records'];
  const columns = tables.map(
    (t) => `(SELECT coalesce(jsonb_agg(to_jsonb(x) - 'last_used_at' ORDER BY (to_jsonb(x) - 'last_used_at')::text), '[]'::jsonb)::text FROM ${t} x) AS ${t}`,
  );
  return (await db.query<Record<string, string>>(`SELECT ${columns.join(', ')}`)).rows[0]!;
}

const changedTables = (before: Record<string, string>, after: Record<string, string>) =>
  Object.keys(before).filter((t) => before[t] !== after[t]);

// ---------------------------------------------------------------------------------------------
// Fixtures: the lab's tree plus a second reseller with customers, a victim customer for the
// positive controls, and a direct customer of the platform. Every tenant gets an API client, a
// user and a token tied to that user.
//
//   platform ─┬─ reseller ─┬─ customer A        (lab seed)
//             │            └─ customer B        (lab seed)
//             ├─ reseller 2 ─┬─ customer C
//             │              └─ customer D      (victim of the positive controls; billing 10003)
//             └─ customer P                     (direct customer of the platform)

interface Actor {
  name: string;
  api: ApiClient;
  /** The acting tenant: root of what this actor may see. */
  root: string;
}

const T = {} as Record<'platform' | 'reseller' | 'customerA' | 'customerB' | 'reseller2' | 'customerC' | 'customerD' | 'customerP', string>;
let actors: Actor[];
let platformActor: Actor;

/** A fixture tenant's role for messages, e.g. "customerB". */
const who = (tenantId: string) => Object.entries(T).find(([, id]) => id === tenantId)?.[0] ?? tenantId;

function expectStatus(res: ApiResponse, status: number, what: string) {
  expect(res.status, `${what}: ${res.text}`).toBe(status);
  return res.body;
}

beforeAll(async () => {
  lab = await startTestService({ clock: new ManualClock('2026-11-22T12:00:00Z') });
  db = new pg.Client({ connectionString: lab.databaseUrl });
  await db.connect();
  const platform = lab.as(lab.tokens.platform);
  Object.assign(T, {
    platform: lab.tokens.tenants.platform,
    reseller: lab.tokens.tenants.reseller,
    customerA: lab.tokens.tenants.customers[0],
    customerB: lab.tokens.tenants.customers[1],
  });
  // The sweep sends a few hundred requests per token within one rate-limit window.
  const roomy = { limits: { api_rate_limit_per_minute: 1_000_000 } };
  for (const id of [T.reseller, T.customerA, T.customerB]) expectStatus(await platform.patch(`/tenants/${id}`, roomy), 200, 'raise limit');
  const create = async (body: Record<string, unknown>) => expectStatus(await platform.post('/tenants', { ...roomy, ...body }), 201, 'create tenant').id as string;
  T.reseller2 = await create({ type: 'reseller', name: 'Second Reseller' });
  T.customerC = await create({ type: 'customer', name: 'Customer C', parent_id: T.reseller2 });
  T.customerD = await create({ type: 'customer', name: 'Customer D', parent_id: T.reseller2, billing_client_id: '10003' });
  T.customerP = await create({ type: 'customer', name: 'Direct Customer P' });

  const tokenOf: Record<string, string> = {};
  for (const [role, tenantId] of Object.entries(T)) {
    const client = expectStatus(await platform.post(`/tenants/${tenantId}/api-clients`, { name: `Fixture client of ${role}` }), 201, 'client');
    const user = expectStatus(
      await platform.post(`/tenants/${tenantId}/users`, { email: `fixture@${role.toLowerCase()}.example`, permissions: [] }),
      201,
      'user',
    );
    expectStatus(
      await platform.post(`/api-clients/${client.id}/tokens`, { name: `Fixture token of ${role}`, scopes: ['tenant:read'], user_id: user.id }),
      201,
      'user token',
    );
    const full = expectStatus(await platform.post(`/api-clients/${client.id}/tokens`, { name: `Full token of ${role}`, scopes: [...SCOPES] }), 201, 'token');
    tokenOf[role] = full.token;
  }

  const actor = (name: string, token: string, root: string, actAs?: string): Actor => ({
    name,
    root,
    api: actAs ? lab.as(token).with({ 'X-Act-As-Customer': actAs }) : lab.as(token),
  });
  platformActor = actor('platform', lab.tokens.platform, T.platform);
  actors = [
    platformActor,
    actor('reseller', lab.tokens.reseller, T.reseller),
    actor('customer A', lab.tokens.customers[0], T.customerA),
    actor('customer B', lab.tokens.customers[1], T.customerB),
    actor('reseller 2', tokenOf.reseller2!, T.reseller2),
    actor('customer C', tokenOf.customerC!, T.customerC),
    actor('reseller acting as customer A', lab.tokens.reseller, T.customerA, T.customerA),
    actor('platform acting as customer C', lab.tokens.platform, T.customerC, T.customerC),
  ];
  // Each actor writes something of its own, so its audit log and lists are not empty.
  for (const a of actors) expectStatus(await a.api.post(`/tenants/${a.root}/api-clients`, { name: `Own client of ${a.name}` }), 201, a.name);
});

afterAll(async () => {
  await db?.end();
  await lab?.stop();
});

// ---------------------------------------------------------------------------------------------

describe('the isolation test knows every route', () => {
  it('has a fixture kind for every path parameter and a body entry for every write', () => {
    const problems: string[] = [];
    for (const route of allRoutes) {
      for (const name of paramNames(route)) {
        if (!PARAM_KINDS[name]) problems.push(`${label(route)}: path parameter {${name}} is unknown; add it to PARAM_KINDS with fixtures`);
      }
      if (isWrite(route)) {
        const entry = WRITE_CASES[route.operationId];
        if (!entry) problems.push(`${label(route)}: write route without an entry in WRITE_CASES`);
        else if (route.body && !entry.body) problems.push(`${label(route)}: takes a body but WRITE_CASES has none`);
      }
    }
    for (const op of Object.keys(WRITE_CASES)) {
      if (!allRoutes.some((r) => r.operationId === op)) problems.push(`WRITE_CASES.${op} names no route`);
    }
    expect(problems).toEqual([]);
  });
});

describe('visibility by token kind', () => {
  it('lets the platform see every tenant, a reseller itself and its customers, a customer only itself', async () => {
    const expected: Record<string, string[]> = {
      platform: Object.values(T),
      reseller: [T.reseller, T.customerA, T.customerB],
      'customer A': [T.customerA],
      'customer B': [T.customerB],
      'reseller 2': [T.reseller2, T.customerC, T.customerD],
      'customer C': [T.customerC],
      'reseller acting as customer A': [T.customerA],
      'platform acting as customer C': [T.customerC],
    };
    for (const a of actors) {
      const res = await a.api.get('/tenants?limit=500');
      const ids = expectStatus(res, 200, a.name).data.map((t: { id: string }) => t.id);
      expect(ids.sort(), a.name).toEqual([...expected[a.name]!].sort());
      for (const id of Object.values(T)) {
        const one = await a.api.get(`/tenants/${id}`);
        expect(one.status, `${a.name} GET /tenants/${id}`).toBe(expected[a.name]!.includes(id) ? 200 : 404);
      }
    }
  });

  it('answers GET /me and GET /stats for the acting tenant and its subtree only', async () => {
    const counts: Record<string, { resellers: number; customers: number }> = {
      platform: { resellers: 2, customers: 5 },
      reseller: { resellers: 0, customers: 2 },
      'customer A': { resellers: 0, customers: 0 },
      'customer B': { resellers: 0, customers: 0 },
      'reseller 2': { resellers: 0, customers: 2 },
      'customer C': { resellers: 0, customers: 0 },
      'reseller acting as customer A': { resellers: 0, customers: 0 },
      'platform acting as customer C': { resellers: 0, customers: 0 },
    };
    const world = await loadWorld();
    for (const a of actors) {
      const me = await a.api.get('/me');
      expect(expectStatus(me, 200, a.name).id, a.name).toBe(a.root);
      const stats = expectStatus(await a.api.get('/stats'), 200, a.name);
      expect(stats.tenant_id, a.name).toBe(a.root);
      expect(stats.tenants, a.name).toMatchObject(counts[a.name]!);
      const ownClients = world.objects.filter((o) => o.table === 'api_clients' && inSubtree(world, o.owner, a.root));
      expect(stats.api_tokens.api_clients, a.name).toBe(ownClients.length);
    }
  });

  it('never lets a token act for a tenant outside its subtree', async () => {
    const cases: [token: string, target: string, who: string][] = [
      [lab.tokens.reseller, T.customerC, "reseller → reseller 2's customer"],
      [lab.tokens.reseller, T.customerP, "reseller → the platform's direct customer"],
      [lab.tokens.reseller, T.reseller2, 'reseller → reseller 2'],
      [lab.tokens.reseller, T.platform, 'reseller → platform'],
      [lab.tokens.reseller, 'billing:10003', "reseller → billing client of reseller 2's customer"],
      [lab.tokens.customers[0], T.customerB, 'customer A → customer B'],
      [lab.tokens.customers[0], T.customerA, 'customer A → itself'],
    ];
    const before = await snapshot();
    for (const [token, target, who] of cases) {
      const res = await lab.as(token).get('/tenants', { headers: { 'X-Act-As-Customer': target } });
      expect(res.status, who).toBe(403);
      expect(res.body.code, who).toBe('act_as_not_allowed');
    }
    expect(changedTables(before, await snapshot())).toEqual([]);
  });
});

// One test per operation: foreign objects in every path parameter (and in body fields naming
// objects) are denied exactly like missing ones, and nothing changes.
describe.each(allRoutes.map((r) => [label(r), r] as const))('%s', (_, route) => {
  const names = paramNames(route);

  if (names.length > 0 || isPlatformOnly(route) || (WRITE_CASES[route.operationId]?.refs?.length ?? 0) > 0) {
    it('denies every other tenant’s objects as if they did not exist, and changes nothing', async () => {
      for (const name of names) {
        if (!PARAM_KINDS[name]) throw new Error(`${label(route)}: path parameter {${name}} is unknown to the isolation test; add it to PARAM_KINDS`);
      }
      const writeCase = isWrite(route) ? WRITE_CASES[route.operationId] : {};
      if (!writeCase) throw new Error(`${label(route)}: no entry in WRITE_CASES; add a minimal valid body`);
      const world = await loadWorld();
      const failures: string[] = [];
      let probes = 0;
      let baseline = await snapshot();

      const probe = async (a: Actor, params: Record<string, string>, body: unknown, what: string, expected: BodyRef['denied']) => {
        probes++;
        const res = await a.api.request(route.method.toUpperCase(), pathOf(route, params), { body });
        const tag = `${a.name}: ${route.method.toUpperCase()} ${pathOf(route, params)} (${what})`;
        if (res.status !== expected.status || res.body?.code !== expected.code) {
          failures.push(`${tag} answered ${res.status} ${res.body?.code ?? res.text.slice(0, 80)}, expected ${expected.status} ${expected.code}`);
        } else if (expected.pointer && !res.body.errors?.some((e: { pointer: string }) => e.pointer === expected.pointer)) {
          failures.push(`${tag} did not point at ${expected.pointer}`);
        }
        const now = await snapshot();
        const changed = changedTables(baseline, now);
        if (changed.length) failures.push(`${tag} CHANGED ${changed.join(', ')}`);
        baseline = now;
        return res;
      };
      const sameProblem = (a: ApiResponse, b: ApiResponse) =>
        a.status === b.status && a.body?.code === b.body?.code && a.body?.title === b.body?.title && a.body?.detail === b.body?.detail;

      for (const a of actors) {
        const mine = (table: ObjectTable) => world.objects.filter((o) => o.table === table && inSubtree(world, o.owner, a.root));
        const foreign = (table: ObjectTable) =>
          world.objects.filter((o) => o.table === table && (isPlatformOnly(route) || !inSubtree(world, o.owner, a.root)));
        const isPlatformItself = a === platformActor;
        const denied = isPlatformOnly(route) ? { status: 403, code: 'forbidden' } : { status: 404, code: 'not_found' };
        // Every other parameter names the actor's own object, so only the probed one is foreign.
        const ownParams: Record<string, string> = {};
        for (const n of names) ownParams[n] = mine(PARAM_KINDS[n]!.table)[0]?.id ?? PARAM_KINDS[n]!.missing;
        const body = () => writeCase.body?.();

        if (isPlatformItself) continue; // nothing lies outside the platform's subtree
        if (isPlatformOnly(route) && names.length === 0) await probe(a, {}, body(), 'platform-only', denied);

        for (const n of names) {
          const kind = PARAM_KINDS[n]!;
          const targets = foreign(kind.table);
          if (targets.length === 0) failures.push(`${a.name}: no foreign ${kind.table} to probe {${n}} with`);
          for (const o of targets) {
            const res = await probe(a, { ...ownParams, [n]: o.id }, body(), `{${n}} owned by ${who(o.owner)}`, denied);
            if (o === targets[0]) {
              const missing = await probe(a, { ...ownParams, [n]: kind.missing }, body(), `{${n}} missing`, denied);
              if (!sameProblem(res, missing)) failures.push(`${a.name}: a foreign {${n}} answers differently from a missing one`);
            }
          }
        }
        for (const ref of writeCase.refs ?? []) {
          for (const o of foreign(ref.table)) {
            await probe(a, ownParams, { ...body(), [ref.field]: o.id }, `${ref.field} owned by ${who(o.owner)}`, ref.denied);
          }
        }
      }
      expect(failures).toEqual([]);
      expect(probes).toBeGreaterThan(0);
    });
  }

  if (route.method === 'get' && names.length > 0) {
    it('lets the platform read every object of every tenant', async () => {
      const world = await loadWorld();
      const failures: string[] = [];
      const tables = names.map((n) => PARAM_KINDS[n]!.table);
      for (const [i, n] of names.entries()) {
        for (const o of world.objects.filter((x) => x.table === tables[i])) {
          const params = Object.fromEntries(names.map((m, j) => [m, j === i ? o.id : world.objects.find((x) => x.table === tables[j])!.id]));
          const res = await platformActor.api.get(pathOf(route, params));
          if (res.status !== 200) failures.push(`platform: GET ${pathOf(route, params)} answered ${res.status}`);
        }
      }
      expect(failures).toEqual([]);
    });
  }

  if (isListRoute(route)) {
    it('lists for every token exactly what the platform lists of that token’s subtree', async () => {
      const world = await loadWorld();
      const failures: string[] = [];
      const paged = route.query instanceof z.ZodObject && 'limit' in route.query.shape;
      const listAll = async (api: ApiClient, path: string): Promise<{ status: number; items: Record<string, unknown>[] }> => {
        const items: Record<string, unknown>[] = [];
        let cursor: string | null = null;
        do {
          const query = new URLSearchParams();
          if (paged) query.set('limit', '500');
          if (cursor) query.set('cursor', cursor);
          const url = query.size ? `${path}?${query}` : path;
          const res = await api.get(url);
          if (res.status !== 200) return { status: res.status, items };
          items.push(...res.body.data);
          cursor = res.body.pagination?.next_cursor ?? null;
        } while (cursor);
        return { status: 200, items };
      };
      const owner = (item: Record<string, unknown>) =>
        world.ownerOf.get(String(item.id)) ?? (typeof item.tenant_id === 'string' ? item.tenant_id : undefined);

      let itemsSeen = 0;
      for (const a of actors) {
        // Each parameter in turn runs over the actor's own objects; the others take the first one.
        const own = (n: string) => world.objects.filter((o) => o.table === PARAM_KINDS[n]!.table && inSubtree(world, o.owner, a.root));
        const combos: Record<string, string>[] = names.length === 0 ? [{}] : [];
        for (const n of names) {
          for (const o of own(n)) combos.push(Object.fromEntries(names.map((m) => [m, m === n ? o.id : own(m)[0]!.id])));
        }
        for (const params of combos) {
          const path = pathOf(route, params);
          const mine = await listAll(a.api, path);
          const all = await listAll(platformActor.api, path);
          if (mine.status !== 200 || all.status !== 200) {
            failures.push(`${a.name}: GET ${path} answered ${mine.status} (platform: ${all.status})`);
            continue;
          }
          itemsSeen += mine.items.length;
          for (const item of [...mine.items, ...all.items]) {
            if (owner(item) === undefined) failures.push(`GET ${path}: item ${JSON.stringify(item).slice(0, 120)} is of a kind the isolation test cannot place`);
          }
          for (const item of mine.items) {
            const o = owner(item);
            if (o && !inSubtree(world, o, a.root)) failures.push(`${a.name}: GET ${path} LEAKS ${String(item.id)} owned by ${who(o)}`);
            if (typeof item.tenant_id === 'string' && !inSubtree(world, item.tenant_id, a.root)) {
              failures.push(`${a.name}: GET ${path} LEAKS ${String(item.id)} of tenant ${who(item.tenant_id)}`);
            }
          }
          const expected = all.items.filter((i) => inSubtree(world, owner(i) ?? '', a.root)).map((i) => String(i.id));
          const got = mine.items.map((i) => String(i.id));
          const missing = expected.filter((id) => !got.includes(id));
          if (missing.length) failures.push(`${a.name}: GET ${path} misses its own ${missing.join(', ')}`);
        }
      }
      expect(failures).toEqual([]);
      expect(itemsSeen, 'the fixtures must give the tokens something of their own to list').toBeGreaterThan(0);
    });
  }

  if (route.method === 'get' && names.length === 0 && !isListRoute(route)) {
    it('answers every token', async () => {
      for (const a of actors) expect((await a.api.get(pathOf(route, {}))).status, a.name).toBe(200);
    });
  }
});

// Positive controls, last because they change things: the bodies above are valid and the objects
// reachable, so the denials were about ownership and nothing else. The victim is customer D.
describe('positive controls', () => {
  it.each(allRoutes.filter((r) => isWrite(r) && (paramNames(r).length > 0 || WRITE_CASES[r.operationId]?.refs)).map((r) => [label(r), r] as const))(
    'the platform may do %s to customer D with the same body',
    async (_, route) => {
      const world = await loadWorld();
      const victim = (table: ObjectTable) => {
        const found = world.objects.find((o) => o.table === table && o.owner === T.customerD);
        if (!found) throw new Error(`customer D owns no ${table}; add one to the fixtures`);
        return found.id;
      };
      const kindOf = (n: string) => {
        if (!PARAM_KINDS[n]) throw new Error(`${label(route)}: path parameter {${n}} is unknown to the isolation test; add it to PARAM_KINDS`);
        return PARAM_KINDS[n];
      };
      const params = Object.fromEntries(paramNames(route).map((n) => [n, victim(kindOf(n).table)]));
      const writeCase = WRITE_CASES[route.operationId];
      if (!writeCase) throw new Error(`${label(route)}: no entry in WRITE_CASES; add a minimal valid body`);
      const body = writeCase.body?.();
      for (const ref of writeCase.refs ?? []) body![ref.field] = ref.control?.() ?? victim(ref.table);
      const res = await platformActor.api.request(route.method.toUpperCase(), pathOf(route, params), { body });
      expect(res.status, res.text).toBeGreaterThanOrEqual(200);
      expect(res.status, res.text).toBeLessThan(300);
    },
  );
});
