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
type ObjectTable = keyof typeof TENANT_OWNED | 'lab_billing_clients' | 'ptr_addresses' | 'webhook_deliveries';

/**
 * Path parameter name → the table of the objects it names, and a value of the same form that
 * names no object (a foreign object must be indistinguishable from it). `parent` names the path
 * parameter of the object this one lives in ({record} lives in {zone}): a path naming both is
 * only a coherent request when the child belongs to the parent, so the sweep probes coherent
 * foreign pairs and mixed ones (own parent, foreign child and the reverse).
 */
const PARAM_KINDS: Record<
  string,
  {
    table: ObjectTable;
    missing: string;
    parent?: string;
    spellings?: (ref: string) => string[];
    /**
     * Definitions that flow DOWN the tree (a reseller's templates serve its customers): a tenant
     * may read and use its ancestors' objects, so those are not foreign to it when read or named
     * in a body. Changing them is another matter (see WriteCase.ownerOnly).
     */
    flowsDown?: true;
    /** What a foreign (or missing) object answers, when not 404 not_found (an address outside the tenant's space: 403 not_owner). */
    denied?: { status: number; code: string };
    /** The problem's detail names the value (the address), so a foreign and a missing one differ there only. */
    detailNamesValue?: true;
  }
> = {
  tenant: { table: 'tenants', missing: `ten_${'a'.repeat(26)}` },
  client: { table: 'api_clients', missing: `cli_${'a'.repeat(26)}` },
  token: { table: 'api_tokens', missing: `tok_${'a'.repeat(26)}` },
  user: { table: 'users', missing: `usr_${'a'.repeat(26)}` },
  client_id: { table: 'lab_billing_clients', missing: '99999' },
  // Zones are named by NAME in paths (spec "Zone addressing"); the world maps names to owners.
  // Other spellings of the same name (case, trailing dot) name the same zone: probed as well.
  zone: { table: 'zones', missing: `nx-${'a'.repeat(20)}.test`, spellings: (name) => [name.toUpperCase(), `${name}.`] },
  record: { table: 'records', missing: `rec_${'a'.repeat(26)}`, parent: 'zone' },
  changeset: { table: 'change_sets', missing: `chg_${'a'.repeat(26)}`, parent: 'zone' },
  template: { table: 'templates', missing: `tpl_${'a'.repeat(26)}`, flowsDown: true },
  // Prefixes are named by their block in URL form (docs/rdns.md); `%2F` for `-` names the same one.
  prefix: { table: 'prefixes', missing: '203.0.113.0-24', spellings: (ref) => [ref.replace('-', '/')] },
  assignment: { table: 'ip_assignments', missing: `ipa_${'a'.repeat(26)}` },
  // An address names the PTR of an IP assignment (docs/rdns.md): outside the tenant's assignments
  // and prefixes it is 403 not_owner, foreign and unassigned alike.
  ip: { table: 'ptr_addresses', missing: '203.0.113.254', denied: { status: 403, code: 'not_owner' }, detailNamesValue: true },
  host: { table: 'dyndns_hosts', missing: `dyn_${'a'.repeat(26)}` },
  webhook: { table: 'webhooks', missing: `whk_${'a'.repeat(26)}` },
  key: { table: 'tsig_keys', missing: `tsk_${'a'.repeat(26)}` },
  set: { table: 'secondary_sets', missing: `sst_${'a'.repeat(26)}` },
  delivery: { table: 'webhook_deliveries', missing: `dlv_${'a'.repeat(26)}`, parent: 'webhook' },
};

/** Tables whose objects a tenant may use from its ancestors (PARAM_KINDS.flowsDown). */
const flowsDown = (table: ObjectTable) => Object.values(PARAM_KINDS).some((k) => k.table === table && k.flowsDown);

let serial = 0;
const unique = () => `${Date.now().toString(36)}-${++serial}`;
let blocks = 0;
/** A fresh IPv4 /24 for a prefix, in its URL form's CIDR. */
const nextBlock = () => `172.16.${++blocks}.0/24`;
/**
 * Writes naming no object that create for a tenant below the acting one (named in the body), as
 * creating a tenant does: a prefix and its reverse zones are the customer's.
 */
const CREATES_BELOW = new Set(['attachPrefix', 'createDyndnsHost']);

interface ControlContext {
  world: World;
  /** The path parameters of the positive control (customer D's objects). */
  params: Record<string, string>;
}

interface BodyRef {
  /** What the body names (a top-level field, or a description when `place` is given). */
  field: string;
  table: ObjectTable;
  /** Puts an object's reference (its id; a zone's name) into a fresh body (default: as the top-level `field`). */
  place?: (body: Record<string, unknown>, id: string) => Record<string, unknown>;
  /** What naming a foreign (or missing) object there answers. */
  denied: { status: number; code: string; pointer?: string };
  /** The object the positive control names there (default: customer D's first). */
  control?: (c: ControlContext) => string;
}

interface WriteCase {
  /** A minimal valid body (a new one per call, so unique fields stay unique). */
  body?: () => Record<string, unknown>;
  /** Query parameters the request needs to be otherwise valid (from the path parameters). */
  query?: (params: Record<string, string>) => Record<string, string>;
  refs?: BodyRef[];
  /** Path parameters the positive control pins (default: customer D's first objects). */
  controlParams?: () => Record<string, string>;
  /** Makes the positive control's target ready (run just before it). */
  prepareControl?: (c: ControlContext) => Promise<void>;
  /**
   * Only the tenant owning the path's objects may do this: every other tenant's object, its
   * ancestors' and its subtree's included, is denied like a missing one (the platform is probed
   * too). The positive control is then the owner's own request (`controlActor`, `controlOwner`).
   */
  ownerOnly?: true;
  /** Who makes the positive control (default: the platform). */
  controlActor?: () => Actor;
  /** The tenant whose objects the positive control names (default: customer D). */
  controlOwner?: () => string;
  /** Writes only what no API object shows (a PTR in a provider reverse zone): the sweep and the control cover it. */
  writesHidden?: true;
}

/** The updateTenant control takes customer D's features away; the PTR controls act as D and need rdns back. */
const grantRdnsToD = async () => {
  await db.query(`UPDATE tenants SET features = array_append(array_remove(features, 'rdns'), 'rdns') WHERE id = $1`, [T.customerD]);
};

const recordBody = () => ({ type: 'TXT', name: `probe-${unique()}`, ttl: 600, data: { text: 'isolation probe' }, comment: 'isolation probe' });
const nonSystemRecords = (world: World, zone: string) => world.objects.filter((o) => o.table === 'records' && o.parent === zone && !o.system);
/** A record-naming change set item appended to a fresh body: at index 1, after the body's create. */
const appendChange = (item: (id: string) => Record<string, unknown>) => (body: Record<string, unknown>, id: string) => ({
  ...body,
  changes: [...(body.changes as unknown[]), item(id)],
});

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
  updateLabRegistration: { body: () => ({ registered_here: false, delegation: ['ns1.elsewhere.example'] }) },
  putLabForeignDs: {
    body: () => ({ ds: ['12345 13 2 3e4f3bd6ed2a0a1b3f1e8b0b0f2dc0a1c7e0e3c6b4b8d9e2f7a1c5d3e9b2f4a6'] }),
    // A DS is the customer's to set only at a foreign registrar: the control's zone is made one.
    prepareControl: async ({ params }) => {
      await db.query(
        `INSERT INTO lab_registrations (zone_name, registered_here) VALUES ($1, false)
                      ON CONFLICT (zone_name) DO UPDATE SET registered_here = false`,
        [params.zone],
      );
    },
  },
  createZone: { body: () => ({ name: `intruder-${unique()}.test` }) },
  // For customer A (the positive control: customer D); a customer token may not attach (403).
  attachPrefix: {
    body: () => ({ cidr: nextBlock(), tenant_id: T.customerA }),
    refs: [{ field: 'tenant_id', table: 'tenants', denied: { status: 404, code: 'not_found' }, control: () => T.customerD }],
  },
  detachPrefix: { controlParams: () => ({ prefix: sparePrefixOfD }) },
  checkPrefixDelegation: {},
  putLabPrefixDelegation: { body: () => ({ state: 'wrong' }) },
  enableDnssec: { body: () => ({}) },
  disableDnssec: {},
  checkDnssec: {},
  requestDnssecRollover: {
    body: () => ({ key: 'zsk' }),
    // A rollover needs DNSSEC active: the control's zone is enabled by the platform (as the
    // control itself asks), then moved to active directly (the worker does not run here).
    prepareControl: async ({ params }) => {
      // The disable control before this one may have left the zone on its way out.
      await db.query(`DELETE FROM dnssec_keys WHERE zone_id = (SELECT id FROM zones WHERE name = $1)`, [params.zone]);
      await db.query(`UPDATE zones SET dnssec_state = 'off', dnssec_mode = NULL WHERE name = $1`, [params.zone]);
      const res = await lab.as(lab.tokens.platform).post(`/zones/${params.zone}/dnssec/enable`, {});
      if (res.status !== 202 && res.status !== 200) throw new Error(`enable for the control: ${res.status} ${res.text}`);
      await db.query(`UPDATE zones SET dnssec_state = 'active' WHERE name = $1`, [params.zone]);
    },
  },
  updateZone: { body: () => ({ default_ttl: 7200 }) },
  deleteZone: {
    // The confirmation names the zone of the path, so the request is valid but for ownership.
    query: (params) => ({ confirm: params.zone! }),
    // The victim's main zone is needed by the controls after this one: delete its spare zone.
    controlParams: () => ({ zone: spareZoneOfD }),
  },
  createRecord: { body: recordBody },
  updateRecord: { body: () => ({ ttl: 900, comment: `Hijacked ${unique()}` }) },
  deleteRecord: {},
  createChangeSet: {
    body: () => ({ changes: [{ op: 'create', record: recordBody() }], comment: 'isolation probe' }),
    // A change set on one's own zone naming someone else's record by id: like a missing record.
    refs: [
      {
        field: 'changes[1] update of a record',
        table: 'records',
        place: appendChange((id) => ({ op: 'update', id, record: { ttl: 1200 } })),
        denied: { status: 422, code: 'validation_failed', pointer: '/changes/1/id' },
        control: ({ world, params }) => nonSystemRecords(world, params.zone!)[0]!.ref,
      },
      {
        field: 'changes[2] delete of a record',
        table: 'records',
        place: appendChange((id) => ({ op: 'delete', id })),
        denied: { status: 422, code: 'validation_failed', pointer: '/changes/1/id' },
        control: ({ world, params }) => nonSystemRecords(world, params.zone!).at(-1)!.ref,
      },
    ],
  },
  importZone: {
    // A merge adding one record: valid for the owner, so a denial can only be about ownership.
    body: () => ({ zonefile: `import-${unique().replace(/[^a-z0-9-]/gi, '')} 600 IN A 192.0.2.77\n`, mode: 'merge' }),
  },
  // Templates are defined by the platform and resellers (customers: 403 forbidden, nothing stored).
  createTemplate: {
    body: () => ({ name: `Intruder ${unique()}`, variables: [], records: [{ type: 'TXT', name: 'probe', data: { text: 'isolation probe' } }] }),
  },
  // Changed and deleted by the owning tenant only: its customers and the platform above get 404.
  updateTemplate: {
    body: () => ({ description: `Hijacked ${unique()}` }),
    ownerOnly: true,
    controlActor: () => actorNamed('reseller 2'),
    controlOwner: () => T.reseller2,
    controlParams: () => ({ template: templateOf.reseller2 }),
  },
  deleteTemplate: {
    ownerOnly: true,
    controlActor: () => actorNamed('reseller 2'),
    controlOwner: () => T.reseller2,
    // The main template is needed by the update control: delete the spare one.
    controlParams: () => ({ template: spareTemplateOfReseller2 }),
  },
  applyTemplate: {
    // Web hosting on one's own zone: valid for the owner (www A is skipped, @ A created).
    body: () => ({ template_id: 'web-hosting', variables: { ipv4: '192.0.2.99' } }),
    // One's own zone with another subtree's template: like a missing template.
    refs: [
      {
        field: 'template_id',
        table: 'templates',
        // Any template of the fixtures takes no variables (its only one has a default).
        place: (body, id) => ({ ...body, template_id: id, variables: {} }),
        denied: { status: 422, code: 'validation_failed', pointer: '/template_id' },
        // The platform applies its own template to customer D's zone.
        control: () => templateOf.platform,
      },
    ],
  },
  createIpAssignment: {
    // A fresh single IPv6 address of the fixture space for the acting tenant's customer A: only
    // the platform may assign it (the reseller's own assignment does not hold it).
    body: () => ({ cidr: `2001:db8:ab00:ff::${(++assignedProbe).toString(16)}/128`, tenant_id: T.customerA, server_name: 'probe.example' }),
    refs: [{ field: 'tenant_id', table: 'tenants', denied: { status: 404, code: 'not_found' }, control: () => T.customerD }],
  },
  deleteIpAssignment: {
    // The victim's first assignment is needed by the PTR controls: delete its spare one.
    controlParams: () => ({ assignment: spareAssignmentOfD }),
  },
  setPtr: { body: () => ({ target: `probe-${unique()}.example.` }), controlActor: () => resellerForD, prepareControl: () => grantRdnsToD() },
  resetPtr: { controlActor: () => resellerForD, prepareControl: () => grantRdnsToD() },
  bulkPtr: {
    body: () => ({ items: [{ ip: addressOfD, target: `probe-${unique()}.example.` }] }),
    refs: [
      {
        field: 'items[0].ip',
        table: 'ptr_addresses',
        place: (_, ip) => ({ items: [{ ip, target: `probe-${unique()}.example.` }] }),
        denied: { status: 403, code: 'not_owner' },
      },
    ],
    controlActor: () => resellerForD,
    prepareControl: () => grantRdnsToD(),
    // Its writes land in the provider's reverse zones (no API objects): no "creates" check.
    writesHidden: true,
  },
  // A host in a zone named in the body is its zone's tenant's (a customer's, below the acting tenant).
  createDyndnsHost: {
    body: () => ({ zone: zoneOf.customerA, name: `probe-${unique()}` }),
    refs: [{ field: 'zone', table: 'zones', denied: { status: 404, code: 'not_found' }, control: () => zoneOf.customerD! }],
  },
  // The victim's first host is needed by the rotation control: delete its spare one.
  deleteDyndnsHost: { controlParams: () => ({ host: spareHostOfD }) },
  rotateDyndnsHostPassword: {},
  createWebhook: { body: () => ({ url: `https://hooks.example/${unique()}`, events: ['zone.changed'] }) },
  updateWebhook: { body: () => ({ description: `Hijacked ${unique()}`, url: 'https://intruder.example/hook' }) },
  // The victim's main webhook is needed by the controls after this one: delete its spare one.
  deleteWebhook: { controlParams: () => ({ webhook: spareWebhookOfD }) },
  rotateWebhookSecret: {},
  createTsigKey: { body: () => ({ name: `probe-${unique()}.keys.example` }) },
  updateTsigKey: { body: () => ({ policy: { types: ['TXT'] } }) },
  rotateTsigKey: {},
  // The victim's first key is needed by the controls after this one: delete its spare one.
  deleteTsigKey: { controlParams: () => ({ key: spareKeyOfD }) },
  // A set naming another subtree's TSIG key: like a missing key.
  createSecondarySet: {
    body: () => ({ name: `probe-${unique()}`, secondaries: [{ address: '192.0.2.53' }] }),
    refs: [{ field: 'tsig_key', table: 'tsig_keys', denied: { status: 422, code: 'validation_failed', pointer: '/tsig_key' } }],
  },
  updateSecondarySet: {
    body: () => ({ secondaries: [{ address: '192.0.2.54', port: 5353 }] }),
    refs: [{ field: 'tsig_key', table: 'tsig_keys', denied: { status: 422, code: 'validation_failed', pointer: '/tsig_key' } }],
  },
  // The victim's first set is needed by the update control: delete its spare one.
  deleteSecondarySet: { controlParams: () => ({ set: spareSetOfD }) },
  enableWebhook: {
    // Enabling changes a disabled webhook only: the control's is made so.
    prepareControl: async ({ params }) => {
      await db.query(`UPDATE webhooks SET state = 'disabled', disabled_at = now(), disabled_reason = 'failing_deliveries' WHERE id = $1`, [params.webhook]);
    },
  },
  // Pausing changes an active webhook only; the controls after it need it active again.
  disableWebhook: {},
  pingWebhook: {},
  // Refused while the webhook is disabled (409): the control's is made active (the pause's control paused it).
  redeliverWebhookDelivery: { prepareControl: ({ params }) => activate(params.webhook!) },
  failLabWebhook: { prepareControl: ({ params }) => activate(params.webhook!) },
  retryChangeSet: {
    // Retry is only allowed from `failed` (409 otherwise): the control's change set is made so.
    prepareControl: async ({ params }) => {
      const res = await db.query(`UPDATE change_sets SET state = 'failed', error = '{"code":"backend_rejected"}' WHERE id = $1`, [params.changeset]);
      expect(res.rowCount).toBe(1);
    },
  },
};

async function activate(webhookId: string) {
  await db.query(`UPDATE webhooks SET state = 'active', disabled_at = NULL, disabled_reason = NULL, failing_since = NULL WHERE id = $1`, [webhookId]);
}

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

/** The path plus the query parameters the route's write case needs. */
function urlOf(route: RouteSpec, params: Record<string, string>): string {
  const query = isWrite(route) ? WRITE_CASES[route.operationId]?.query?.(params) : undefined;
  return query ? `${pathOf(route, params)}?${new URLSearchParams(query)}` : pathOf(route, params);
}

/**
 * Lists whose exact content the test computes from the database: every object of the table in
 * the token's subtree, and when the table's kind lives in a parent named in the path, only the
 * children of that parent.
 */
const LIST_CONTENTS: Record<string, ObjectTable> = {
  listZones: 'zones',
  listRecords: 'records',
  listChangeSets: 'change_sets',
  listIps: 'ip_assignments',
  listDyndnsHosts: 'dyndns_hosts',
  listWebhooks: 'webhooks',
  listTsigKeys: 'tsig_keys',
  listSecondarySets: 'secondary_sets',
};

/**
 * Lists of definitions that flow down the tree: a token sees exactly the service's built-ins and
 * the objects owned by its acting tenant and that tenant's ancestors — its subtree's are not
 * listed, and nothing of any other subtree.
 */
/** Lists of a block named in the required query `within` (GET /ptr?within=): swept per assignment. */
const WITHIN_LISTS: Record<string, true> = { listPtrs: true };

const ANCESTRY_LISTS: Record<string, { table: ObjectTable; builtins: string[] }> = {
  listTemplates: { table: 'templates', builtins: ['web-hosting', 'mail', 'microsoft-365', 'google-workspace'] },
};

// ---------------------------------------------------------------------------------------------
// The world as the database has it: who owns what. Ownership is decided here from parent_id
// chains, independently of the service's own `path` column; records and change sets belong to
// whoever owns their zone.

interface WorldObject {
  table: ObjectTable;
  /** The row's id. */
  id: string;
  /** What names the object in a path: the id, or the name for zones. */
  ref: string;
  owner: string;
  /** The `ref` of the object this one lives in (a record's or change set's zone name). */
  parent?: string;
  /** A system record (SOA, apex NS): read-only for everyone. */
  system?: boolean;
}

interface World {
  parentOf: Map<string, string | null>;
  objects: WorldObject[];
  /** Owner by id and by ref. */
  ownerOf: Map<string, string>;
}

let lab: TestService;
let db: pg.Client;

/** Tables whose objects are read with their own query (columns id, ref, owner, parent, system). */
const OBJECT_QUERIES: Partial<Record<ObjectTable, string>> = {
  // Usable objects first: zones with records of their own, stored (not system) records, failed
  // (retryable) change sets. The test's clock stands still, so created_at does not order.
  // The lab's parent zones (kind lab_parent) and catalog zones are no API objects: hidden from every token.
  // So are the provider's reverse zones (kind provider_reverse), written through /ptr only.
  zones: `SELECT id, name AS ref, tenant_id AS owner FROM zones z WHERE kind NOT IN ('lab_parent', 'provider_reverse', 'catalog')
          ORDER BY (SELECT count(*) FROM records r WHERE r.zone_id = z.id) DESC, name`,
  records: `SELECT r.id, r.id AS ref, z.tenant_id AS owner, z.name AS parent
            FROM records r JOIN zones z ON z.id = r.zone_id WHERE z.kind NOT IN ('lab_parent', 'provider_reverse', 'catalog') ORDER BY r.created_at, r.id`,
  prefixes: `SELECT id, replace(cidr::text, '/', '-') AS ref, tenant_id AS owner FROM prefixes ORDER BY cidr`,
  change_sets: `SELECT c.id, c.id AS ref, z.tenant_id AS owner, z.name AS parent
                FROM change_sets c JOIN zones z ON z.id = c.zone_id WHERE z.kind NOT IN ('lab_parent', 'provider_reverse', 'catalog') ORDER BY c.state <> 'failed', c.zone_id, c.seq`,
  ip_assignments: `SELECT id, id AS ref, tenant_id AS owner FROM ip_assignments ORDER BY cidr, id`,
  // An event is also of the customer a write into the provider's zones was made for (its webhooks
  // receive it): that customer lies below the zone's owner, so the event is placed with it.
  events: `SELECT id, id AS ref, coalesce(payload->>'acting_tenant_id', tenant_id) AS owner FROM events`,
};

async function loadWorld(): Promise<World> {
  const tenants = (await db.query<{ id: string; parent_id: string | null }>('SELECT id, parent_id FROM tenants')).rows;
  const platformId = tenants.find((t) => t.parent_id === null)!.id;
  const objects: World['objects'] = tenants.map((t) => ({ table: 'tenants', id: t.id, ref: t.id, owner: t.id }));
  for (const [table, column] of Object.entries(TENANT_OWNED)) {
    if (table === 'tenants') continue;
    const sql = OBJECT_QUERIES[table as ObjectTable] ?? `SELECT id, id AS ref, ${column} AS owner FROM ${table}`;
    const rows = (await db.query<{ id: string; ref: string; owner: string; parent?: string; system?: boolean }>(sql)).rows;
    for (const r of rows) objects.push({ table: table as ObjectTable, ...r, parent: r.parent ?? undefined, system: r.system ?? undefined });
  }
  // The SOA and apex NS set are rendered, not stored: they are the zone's records as the API shows
  // them (the platform reads every zone; protected zones answer 404 and have none to show).
  const platformApi = lab.as(lab.tokens.platform);
  for (const zone of objects.filter((o) => o.table === 'zones')) {
    const res = await platformApi.get(`/zones/${zone.ref}/records?type=SOA&type=NS&limit=500`);
    if (res.status !== 200) continue;
    for (const r of res.body.data as { id: string; system: boolean }[]) {
      if (r.system) objects.push({ table: 'records', id: r.id, ref: r.id, owner: zone.owner, parent: zone.ref, system: true });
    }
  }
  // A billing client belongs to the customer linked to it; unlinked ones to the platform.
  const billing = await db.query<{ id: string; owner: string | null }>(
    'SELECT b.id, t.id AS owner FROM lab_billing_clients b LEFT JOIN tenants t ON t.billing_client_id = b.id',
  );
  for (const r of billing.rows) objects.push({ table: 'lab_billing_clients', id: r.id, ref: r.id, owner: r.owner ?? platformId });
  // A webhook's deliveries are its owner's.
  const deliveries = await db.query<{ id: string; owner: string; webhook: string }>(
    'SELECT d.id, w.tenant_id AS owner, d.webhook_id AS webhook FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id',
  );
  for (const r of deliveries.rows) objects.push({ table: 'webhook_deliveries', id: r.id, ref: r.id, owner: r.owner, parent: r.webhook });
  // The first address of each IP assignment, as /ptr/{ip} names it.
  const addresses = await db.query<{ ip: string; owner: string }>('SELECT host(cidr) AS ip, tenant_id AS owner FROM ip_assignments ORDER BY cidr, id');
  for (const r of addresses.rows) objects.push({ table: 'ptr_addresses', id: r.ip, ref: r.ip, owner: r.owner });
  return {
    parentOf: new Map(tenants.map((t) => [t.id, t.parent_id])),
    objects,
    ownerOf: new Map(objects.flatMap((o) => [[o.id, o.owner] as const, [o.ref, o.owner] as const])),
  };
}

function inSubtree(world: World, tenantId: string, root: string): boolean {
  for (let t: string | null | undefined = tenantId; t; t = world.parentOf.get(t)) if (t === root) return true;
  return false;
}

/**
 * Fills a route's path parameters from `pool` (parents first, as paths name them), each child
 * inside the parent chosen for it; `pinned` values are taken as given.
 */
function fillParams(names: string[], pool: (table: ObjectTable) => WorldObject[], pinned: Record<string, string> = {}): Record<string, string> {
  const params: Record<string, string> = {};
  for (const n of names) {
    const kind = PARAM_KINDS[n]!;
    if (pinned[n] !== undefined) {
      params[n] = pinned[n];
      continue;
    }
    let candidates = pool(kind.table);
    if (kind.parent && params[kind.parent] !== undefined) candidates = candidates.filter((o) => o.parent === params[kind.parent!]);
    params[n] = candidates[0]?.ref ?? kind.missing;
  }
  return params;
}

/**
 * The coherent path naming object `o` in parameter `n`: its parent in the parent's parameter,
 * one of its children in a child's parameter; parameters unrelated to `o` keep `others`.
 */
function familyOf(world: World, names: string[], n: string, o: WorldObject, others: Record<string, string>): Record<string, string> {
  const related = new Set([n]);
  const pinned: Record<string, string> = { [n]: o.ref };
  const parentParam = PARAM_KINDS[n]!.parent;
  if (parentParam && names.includes(parentParam) && o.parent !== undefined) {
    pinned[parentParam] = o.parent;
    related.add(parentParam);
  }
  for (const m of names) {
    const kind = PARAM_KINDS[m]!;
    if (m in pinned) continue;
    if (kind.parent && related.has(kind.parent)) related.add(m);
    else pinned[m] = others[m]!;
  }
  return fillParams(names, (table) => world.objects.filter((x) => x.table === table), pinned);
}

const SNAPSHOT_TABLES = [
  ...Object.keys(TENANT_OWNED),
  'lab_billing_clients',
  'ip_spaces',
  // An address space's forward records still to be written (by a request's write, then the worker).
  'forward_record_jobs',
  'lab_state',
  'lab_registrations',
  'lab_prefix_delegations',
  'dnssec_keys',
  'webhook_deliveries',
  'webhook_attempts',
  'mail_outbox',
  'idempotency_records',
  'service_secrets',
  // Written by the publication worker, never by a request; a denied request must not either.
  'published_records',
  'zone_versions',
  'secondary_lag',
  'catalog_listings',
  // Written by the database when a zone row is deleted (migration 20261128060000).
  'zone_name_serials',
  // The outbox (`events`, tenant-owned above) is written with every stored change and by the
  // worker, never by a denied request.
];
/** Tables a denied request may change: bookkeeping of the requests themselves. */
const SNAPSHOT_EXCLUDED: Record<string, string> = {
  rate_limit_windows: 'counts every request, denied ones included',
  backend_readings: 'written by the worker on a schedule, never by a request',
  knex_migrations: 'schema bookkeeping',
  knex_migrations_lock: 'schema bookkeeping',
};

/** Everything a request could change, as one comparable string (token use times excluded). */
async function snapshot(): Promise<Record<string, string>> {
  const columns = SNAPSHOT_TABLES.map(
    (t) => `(SELECT coalesce(jsonb_agg(to_jsonb(x) - 'last_used_at' ORDER BY (to_jsonb(x) - 'last_used_at')::text), '[]'::jsonb)::text FROM ${t} x) AS ${t}`,
  );
  return (await db.query<Record<string, string>>(`SELECT ${columns.join(', ')}`)).rows[0]!;
}

const changedTables = (before: Record<string, string>, after: Record<string, string>) => Object.keys(before).filter((t) => before[t] !== after[t]);

// ---------------------------------------------------------------------------------------------
// Fixtures: the lab's tree plus a second reseller with customers, a victim customer for the
// positive controls, and a direct customer of the platform. Every tenant gets an API client, a
// user and a token tied to that user, and a zone of its own (created with its own token) with
// records and therefore change sets, one of them failed (retryable). Customer D also has a spare
// zone, for the positive control of zone deletion.
//
//   platform ─┬─ reseller ─┬─ customer A        (lab seed)
//             │            └─ customer B        (lab seed)
//             ├─ reseller 2 ─┬─ customer C
//             │              └─ customer D      (victim of the positive controls; billing 10003)
//             └─ customer P                     (direct customer of the platform)
//
// The platform and each reseller define a template of their own (customers cannot); reseller 2
// also a spare one, for the positive control of template deletion.

interface Actor {
  name: string;
  api: ApiClient;
  /** The acting tenant: root of what this actor may see. */
  root: string;
}

type Role = 'platform' | 'reseller' | 'customerA' | 'customerB' | 'reseller2' | 'customerC' | 'customerD' | 'customerP';
const T = {} as Record<Role, string>;
/** Each tenant's fixture zone, by name. */
const zoneOf = {} as Record<Role, string>;
let spareZoneOfD: string;
let sparePrefixOfD: string;
/** Each defining tenant's fixture template, by id. */
const templateOf = {} as Record<'platform' | 'reseller' | 'reseller2', string>;
let spareTemplateOfReseller2: string;
let spareWebhookOfD: string;
let spareKeyOfD: string;
let spareSetOfD: string;
let actors: Actor[];
let platformActor: Actor;
/** Reseller 2 acting for customer D: the positive control of the PTR writes (a reseller acting for its customer). */
let resellerForD: Actor;
/** Customer D's first assigned address and its spare assignment (for the deletion control). */
let addressOfD: string;
let spareAssignmentOfD: string;
let spareHostOfD: string;
let assignedProbe = 0;

/** A fixture tenant's role for messages, e.g. "customerB". */
const who = (tenantId: string) => Object.entries(T).find(([, id]) => id === tenantId)?.[0] ?? tenantId;
const actorNamed = (name: string) =>
  actors.find((a) => a.name === name) ??
  (() => {
    throw new Error(`no actor ${name}`);
  })();
/** `ancestor` is `tenantId` itself or above it. */
const isAncestorOrSelf = (world: World, ancestor: string, tenantId: string) => inSubtree(world, tenantId, ancestor);

function expectStatus(res: ApiResponse, status: number, what: string) {
  expect(res.status, `${what}: ${res.text}`).toBe(status);
  return res.body;
}

beforeAll(async () => {
  // The API alone: the publication worker would change zones and records between snapshots.
  lab = await startTestService({ clock: new ManualClock('2026-11-22T12:00:00Z'), env: { ROLES: 'api' } });
  db = new pg.Client({ connectionString: lab.databaseUrl });
  await db.connect();
  const platform = lab.as(lab.tokens.platform);
  Object.assign(T, {
    platform: lab.tokens.tenants.platform,
    reseller: lab.tokens.tenants.reseller,
    customerA: lab.tokens.tenants.customers[0],
    customerB: lab.tokens.tenants.customers[1],
  });
  // The sweep sends a few thousand requests per token within one rate-limit window (the clock
  // stands still). The platform cannot change its own limits through the API.
  await db.query('UPDATE tenants SET api_rate_limit_per_minute = 1000000 WHERE id = $1', [T.platform]);
  const roomy = { limits: { api_rate_limit_per_minute: 1_000_000 } };
  for (const id of [T.reseller, T.customerA, T.customerB]) expectStatus(await platform.patch(`/tenants/${id}`, roomy), 200, 'raise limit');
  const create = async (body: Record<string, unknown>) =>
    expectStatus(await platform.post('/tenants', { ...roomy, ...body }), 201, 'create tenant').id as string;
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

  // Every tenant's zone, created with its own token: SOA and NS, two records of its own, and a
  // change set per write (the creation's and one per record).
  const createZone = async (role: Role, name: string, records: Record<string, unknown>[]) => {
    const api = lab.as(tokenOf[role]!);
    const zone = expectStatus(await api.post('/zones', { name }), 201, `zone of ${role}`);
    expect(zone.tenant_id, `zone of ${role}`).toBe(T[role]);
    for (const record of records) expectStatus(await api.post(`/zones/${name}/records`, record), 201, `record of ${role}`);
  };
  for (const [i, role] of (Object.keys(T) as Role[]).entries()) {
    zoneOf[role] = `${role.toLowerCase()}-${unique()}.test`;
    const records: Record<string, unknown>[] = [
      { type: 'A', name: 'www', data: { address: `192.0.2.${i + 1}` } },
      { type: 'TXT', name: '@', data: { text: `owner=${role}` }, comment: `fixture of ${role}` },
    ];
    // The victim's zone loses records to the positive controls; it starts with more.
    if (role === 'customerD') {
      records.push({ type: 'MX', name: '@', data: { preference: 10, exchange: `mail.${zoneOf[role]}` } });
      records.push({ type: 'AAAA', name: 'www', data: { address: '2001:db8::d' } });
    }
    await createZone(role, zoneOf[role], records);
  }
  spareZoneOfD = `customerd-spare-${unique()}.test`;
  await createZone('customerD', spareZoneOfD, [{ type: 'A', name: 'spare', data: { address: '192.0.2.200' } }]);
  // The publication pipeline would mark some change sets failed; the fixtures do it directly, so
  // that a leaking retry would change the database. The first record change set of every zone.
  const failed = await db.query(`UPDATE change_sets SET state = 'failed', error = '{"code":"backend_rejected"}' WHERE kind = 'records' AND seq = 2`);
  expect(failed.rowCount).toBe(Object.keys(T).length + 1);

  // A prefix of every customer (attached by the platform), with its reverse zone; D a spare one.
  const attach = async (tenantId: string) => {
    const cidr = nextBlock();
    expectStatus(await platform.post('/prefixes', { cidr, tenant_id: tenantId }), 201, `prefix of ${who(tenantId)}`);
    return cidr.replace('/', '-');
  };
  for (const role of ['customerA', 'customerB', 'customerC', 'customerD', 'customerP'] as const) await attach(T[role]);
  sparePrefixOfD = await attach(T.customerD);

  // Templates, each defined with its tenant's own token.
  const defineTemplate = async (role: Role, name: string) =>
    expectStatus(
      await lab.as(tokenOf[role]!).post('/templates', {
        name,
        variables: [{ name: 'label', kind: 'string', default: role.toLowerCase() }],
        records: [{ type: 'TXT', name: 'tpl-{{label}}', data: { text: `template of ${role}` } }],
      }),
      201,
      `template of ${role}`,
    ).id as string;
  for (const role of ['platform', 'reseller', 'reseller2'] as const) templateOf[role] = await defineTemplate(role, `Fixture template of ${role}`);
  spareTemplateOfReseller2 = await defineTemplate('reseller2', 'Spare template of reseller2');

  // A webhook of every tenant (its own token), pinged once so its delivery log has an entry
  // (no worker runs here: it stays pending); customer D also a spare one, for the deletion control.
  const registerWebhook = async (role: Role) => {
    const api = lab.as(tokenOf[role]!);
    const hook = expectStatus(
      await api.post('/webhooks', { url: `https://hooks.${role.toLowerCase()}.example/in`, events: ['zone.changed'] }),
      201,
      `webhook of ${role}`,
    );
    expectStatus(await api.post(`/webhooks/${hook.id}/ping`), 202, `ping of ${role}`);
    return hook.id as string;
  };
  for (const role of Object.keys(T) as Role[]) await registerWebhook(role);
  spareWebhookOfD = await registerWebhook('customerD');
  // Mail the service queues (a webhook disabled after 3 days of failures), one about each
  // tenant, for the lab's mail listing.
  for (const [role, id] of Object.entries(T)) {
    await db.query(
      `INSERT INTO mail_outbox (id, tenant_id, to_address, subject, body, created_at, next_attempt_at) VALUES ($1, $2, $3, 'fixture', 'fixture', now(), now())`,
      [`msg_fixture${role.toLowerCase()}`, id, `support@${role.toLowerCase()}.example`],
    );
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
  resellerForD = actor('reseller 2 acting as customer D', tokenOf.reseller2!, T.customerD, T.customerD);

  // Reverse DNS: an address space, and a /29 of it assigned to every tenant but the platform
  // (customer D also a spare one, for the deletion control).
  expectStatus(await platform.post('/ip-spaces', { cidr: '203.0.113.0/24', ptr_pattern: 'static.{dashed}.hosting.example.' }), 201, 'ip space');
  expectStatus(await platform.post('/ip-spaces', { cidr: '2001:db8:ab00::/40', ptr_pattern: 'static.{dashed}.hosting.example.' }), 201, 'ip space');
  for (const [i, role] of (Object.keys(T) as Role[]).filter((r) => r !== 'platform').entries()) {
    const a = expectStatus(
      await platform.post('/ips', { cidr: `203.0.113.${i * 8}/29`, tenant_id: T[role], server_name: `server.${role.toLowerCase()}.example` }),
      201,
      `assignment of ${role}`,
    );
    if (role === 'customerD') addressOfD = a.cidr.replace(/\/\d+$/, '');
  }
  spareAssignmentOfD = expectStatus(await platform.post('/ips', { cidr: '203.0.113.200/29', tenant_id: T.customerD }), 201, 'spare assignment of D').id;

  // A DynDNS host in every tenant's zone, made with its own token; customer D a spare one.
  for (const role of Object.keys(T) as Role[]) {
    expectStatus(await lab.as(tokenOf[role]!).post('/dyndns/hosts', { zone: zoneOf[role], name: 'dyn' }), 201, `DynDNS host of ${role}`);
  }
  spareHostOfD = expectStatus(await lab.as(tokenOf.customerD!).post('/dyndns/hosts', { zone: zoneOf.customerD, name: 'dyn-spare' }), 201, 'spare host of D').id;

  // A TSIG key of every tenant (its own token); customer D a spare one, for the deletion control.
  const createKey = async (role: Role, label: string) =>
    expectStatus(await lab.as(tokenOf[role]!).post('/tsig-keys', { name: `${label}.${role.toLowerCase()}.keys.example` }), 201, `TSIG key of ${role}`)
      .id as string;
  for (const role of Object.keys(T) as Role[]) await createKey(role, `fixture-${unique()}`);
  spareKeyOfD = await createKey('customerD', `spare-${unique()}`);

  // A secondary set of every tenant (its own token), with its catalog zone; customer D a spare one.
  const createSet = async (role: Role, label: string) =>
    expectStatus(
      await lab.as(tokenOf[role]!).post('/secondary-sets', { name: label, secondaries: [{ address: '192.0.2.53' }] }),
      201,
      `secondary set of ${role}`,
    ).id as string;
  for (const role of Object.keys(T) as Role[]) await createSet(role, `fixture-${role.toLowerCase()}`);
  spareSetOfD = await createSet('customerD', 'spare-customerd');

  // Each actor writes something of its own, so its audit log and lists are not empty.
  for (const a of actors) expectStatus(await a.api.post(`/tenants/${a.root}/api-clients`, { name: `Own client of ${a.name}` }), 201, a.name);
});

afterAll(async () => {
  await db?.end();
  await lab?.stop();
});

// ---------------------------------------------------------------------------------------------

/**
 * Provider-staff routes (platform tokens only, answered 403 forbidden to everyone else) are not
 * swept object by object here: test/integration/deletedZones.test.ts proves their ownership
 * rules, and the test below proves every other token is refused.
 */
const STAFF_ONLY: Record<string, string> = {
  listDeletedZones: 'deletedZones.test.ts',
  exportDeletedZone: 'deletedZones.test.ts',
  restoreDeletedZone: 'deletedZones.test.ts',
  listIpSpaces: 'rdns.test.ts',
  createIpSpace: 'rdns.test.ts',
  deleteIpSpace: 'rdns.test.ts',
  getIpSpace: 'providerReverseDnssec.test.ts',
  updateIpSpace: 'providerReverseDnssec.test.ts',
  listIpSpaceZones: 'providerReverseDnssec.test.ts',
};
/** A valid request to a staff route, so that the refusal is about the token and nothing else. */
const STAFF_PARAMS: Record<string, string> = { deleted_zone: `zon_${'a'.repeat(26)}`, space: `spc_${'a'.repeat(26)}` };
const STAFF_BODIES: Record<string, Record<string, unknown>> = {
  createIpSpace: { cidr: '198.51.100.0/24', ptr_pattern: 'static.{dashed}.hosting.example.' },
  updateIpSpace: { dnssec: true },
};
const sweptRoutes = allRoutes.filter((r) => !STAFF_ONLY[r.operationId]);

describe('provider-staff routes', () => {
  it.each(allRoutes.filter((r) => STAFF_ONLY[r.operationId]).map((r) => [label(r), r] as const))(
    '%s refuses every token but the platform’s',
    async (_, route) => {
      const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => STAFF_PARAMS[name]!);
      for (const a of actors.filter((x) => !x.name.startsWith('platform'))) {
        const res = await a.api.request(route.method.toUpperCase(), path, route.method === 'get' ? {} : { body: STAFF_BODIES[route.operationId] ?? {} });
        expect(res.status, `${a.name}: ${res.text}`).toBe(403);
        expect(res.body.code).toBe('forbidden');
      }
    },
  );
});

describe('the isolation test knows every route', () => {
  it('has a fixture kind for every path parameter and a body entry for every write', () => {
    const problems: string[] = [];
    for (const route of sweptRoutes) {
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
    for (const op of [...Object.keys(LIST_CONTENTS), ...Object.keys(ANCESTRY_LISTS)]) {
      const route = allRoutes.find((r) => r.operationId === op);
      if (!route || !isListRoute(route)) problems.push(`LIST_CONTENTS.${op} names no list route`);
    }
    expect(problems).toEqual([]);
  });

  it('snapshots every table a request could change', async () => {
    const tables = (await db.query<{ tablename: string }>(`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`)).rows.map((r) => r.tablename);
    const unaccounted = tables.filter((t) => !SNAPSHOT_TABLES.includes(t) && !(t in SNAPSHOT_EXCLUDED));
    expect(unaccounted).toEqual([]);
    expect(SNAPSHOT_TABLES).toEqual(expect.arrayContaining(['zones', 'records', 'change_sets', 'deleted_zone_exports', 'templates']));
  });

  it('gives every tenant a zone with records and change sets, all of the zone’s tenant', async () => {
    const world = await loadWorld();
    for (const [role, tenantId] of Object.entries(T) as [Role, string][]) {
      const zones = world.objects.filter((o) => o.table === 'zones' && o.owner === tenantId);
      expect(
        zones.map((z) => z.ref),
        role,
      ).toContain(zoneOf[role]);
      expect(nonSystemRecords(world, zoneOf[role]).length, role).toBeGreaterThanOrEqual(2);
      const changeSets = world.objects.filter((o) => o.table === 'change_sets' && o.parent === zoneOf[role]);
      expect(changeSets.length, role).toBeGreaterThanOrEqual(3);
    }
    // The service scopes records and change sets by their own tenant_id: it must be the zone's.
    const stray = await db.query(`
      SELECT 'record' AS kind, r.id FROM records r JOIN zones z ON z.id = r.zone_id WHERE r.tenant_id <> z.tenant_id
      UNION ALL SELECT 'change set', c.id FROM change_sets c JOIN zones z ON z.id = c.zone_id WHERE c.tenant_id <> z.tenant_id`);
    expect(stray.rows).toEqual([]);
  });

  it('gives the platform and every reseller a template of its own, and no customer one', async () => {
    const world = await loadWorld();
    const owners = world.objects.filter((o) => o.table === 'templates').map((o) => who(o.owner));
    expect(new Set(owners)).toEqual(new Set(['platform', 'reseller', 'reseller2']));
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
      const own = (table: ObjectTable) => world.objects.filter((o) => o.table === table && inSubtree(world, o.owner, a.root));
      expect(stats.api_tokens.api_clients, a.name).toBe(own('api_clients').length);
      expect(stats.zones.total, a.name).toBe(own('zones').length);
      expect(stats.records.total, a.name).toBe(own('records').length);
      expect(stats.dyndns.hosts, a.name).toBe(own('dyndns_hosts').length);
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
// objects) are denied exactly like missing ones, and nothing changes. With a parent and a child
// in the path ({zone}/{record}), each foreign object is probed twice: with the actor's own
// other parameters (a mixed path) and with its own family (the foreign zone and its record).
const SWEEP_TIMEOUT_MS = 300_000;

describe.each(sweptRoutes.map((r) => [label(r), r] as const))('%s', (_, route) => {
  const names = paramNames(route);

  if (names.length > 0 || isPlatformOnly(route) || (WRITE_CASES[route.operationId]?.refs?.length ?? 0) > 0) {
    it(
      'denies every other tenant’s objects as if they did not exist, and changes nothing',
      async () => {
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
          const url = urlOf(route, params);
          const res = await a.api.request(route.method.toUpperCase(), url, { body });
          const tag = `${a.name}: ${route.method.toUpperCase()} ${url} (${what})`;
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
        const describeParams = (params: Record<string, string>) =>
          names
            .map((m) => {
              const owner = world.ownerOf.get(params[m]!) ?? world.ownerOf.get(params[m]!.toLowerCase().replace(/\.$/, ''));
              return `{${m}} of ${owner ? who(owner) : 'nobody'}`;
            })
            .join(', ');

        for (const a of actors) {
          const mine = (table: ObjectTable) => world.objects.filter((o) => o.table === table && inSubtree(world, o.owner, a.root));
          // Foreign: outside the actor's subtree; for owner-only writes, anyone else's (above or
          // below); for definitions that flow down, read or named in a body, not its ancestors'.
          const foreign = (table: ObjectTable, usedInBody = false) =>
            world.objects.filter(
              (o) =>
                o.table === table &&
                (isPlatformOnly(route) ||
                  (writeCase.ownerOnly && !usedInBody
                    ? o.owner !== a.root
                    : !inSubtree(world, o.owner, a.root) &&
                      !(flowsDown(table) && (!isWrite(route) || usedInBody) && isAncestorOrSelf(world, o.owner, a.root)))),
            );
          const isPlatformItself = a === platformActor && !writeCase.ownerOnly;
          const denied = isPlatformOnly(route) ? { status: 403, code: 'forbidden' } : { status: 404, code: 'not_found' };
          // Every other parameter names the actor's own object (a child inside the own parent),
          // so only the probed one is foreign.
          const ownParams = fillParams(names, mine);
          const body = () => writeCase.body?.();
          const probed = new Set<string>();

          if (isPlatformItself) continue; // nothing lies outside the platform's subtree

          // What flows down is readable from below: an ancestor's object answers 200 (and is not
          // probed as foreign above).
          if (route.method === 'get') {
            for (const n of names.filter((m) => PARAM_KINDS[m]!.flowsDown)) {
              for (const o of world.objects.filter((x) => x.table === PARAM_KINDS[n]!.table && isAncestorOrSelf(world, x.owner, a.root))) {
                const url = pathOf(route, { ...ownParams, [n]: o.ref });
                const res = await a.api.get(url);
                probes++;
                if (res.status !== 200) failures.push(`${a.name}: GET ${url} (an ancestor's ${n}, ${who(o.owner)}) answered ${res.status}`);
              }
            }
          }
          if (isPlatformOnly(route) && names.length === 0) await probe(a, {}, body(), 'platform-only', denied);

          for (const n of names) {
            const kind = PARAM_KINDS[n]!;
            const deniedHere = kind.denied ?? denied;
            const targets = foreign(kind.table);
            if (targets.length === 0) failures.push(`${a.name}: no foreign ${kind.table} to probe {${n}} with`);
            for (const o of targets) {
              const mixed = { ...ownParams, [n]: o.ref };
              const family = familyOf(world, names, n, o, ownParams);
              const respelled = (kind.spellings?.(o.ref) ?? []).flatMap((spelling) => [
                { ...mixed, [n]: spelling },
                { ...family, [n]: spelling },
              ]);
              for (const params of [mixed, family, ...respelled]) {
                const key = JSON.stringify(params);
                if (probed.has(key)) continue;
                probed.add(key);
                const res = await probe(a, params, body(), `${describeParams(params)}`, deniedHere);
                if (o === targets[0] && params === mixed) {
                  const missing = await probe(a, { ...ownParams, [n]: kind.missing }, body(), `{${n}} missing`, deniedHere);
                  const same = kind.detailNamesValue
                    ? res.status === missing.status && res.body?.code === missing.body?.code && res.body?.title === missing.body?.title
                    : sameProblem(res, missing);
                  if (!same) failures.push(`${a.name}: a foreign {${n}} answers differently from a missing one`);
                }
              }
            }
          }
          // A parent and its child, both foreign: the realistic attack must have been probed.
          const foreignOnly = (key: string) => names.every((m) => !inSubtree(world, world.ownerOf.get(JSON.parse(key)[m]) ?? a.root, a.root));
          if (names.length > 1 && ![...probed].some(foreignOnly)) failures.push(`${a.name}: no path with only foreign objects was probed`);
          for (const ref of writeCase.refs ?? []) {
            const place = ref.place ?? ((b: Record<string, unknown>, id: string) => ({ ...b, [ref.field]: id }));
            const targets = foreign(ref.table, true);
            if (targets.length === 0) failures.push(`${a.name}: no foreign ${ref.table} to name in ${ref.field}`);
            for (const o of targets) {
              const res = await probe(a, ownParams, place(body() ?? {}, o.ref), `${ref.field} owned by ${who(o.owner)}`, ref.denied);
              if (o === targets[0]) {
                const kind = Object.values(PARAM_KINDS).find((k) => k.table === ref.table);
                if (kind) {
                  const missing = await probe(a, ownParams, place(body() ?? {}, kind.missing), `${ref.field} missing`, ref.denied);
                  if (res.status !== missing.status || res.body?.code !== missing.body?.code || res.body?.title !== missing.body?.title) {
                    failures.push(`${a.name}: a foreign ${ref.field} answers differently from a missing one`);
                  }
                }
              }
            }
          }
        }
        expect(failures).toEqual([]);
        expect(probes).toBeGreaterThan(0);
      },
      SWEEP_TIMEOUT_MS,
    );
  }

  // A write naming no object creates for the acting tenant (a tenant: below it), never for
  // anyone else; refusing it changes nothing.
  if (isWrite(route) && names.length === 0 && !isPlatformOnly(route) && !WRITE_CASES[route.operationId]?.writesHidden) {
    it('creates only for the acting tenant', async () => {
      const writeCase = WRITE_CASES[route.operationId];
      if (!writeCase) throw new Error(`${label(route)}: no entry in WRITE_CASES; add a minimal valid body`);
      const failures: string[] = [];
      let succeeded = 0;
      for (const a of actors) {
        const before = await loadWorld();
        const known = new Set(before.objects.map((o) => `${o.table}:${o.id}`));
        const snap = await snapshot();
        const res = await a.api.request(route.method.toUpperCase(), urlOf(route, {}), { body: writeCase.body?.() });
        const after = await loadWorld();
        const added = after.objects.filter((o) => !known.has(`${o.table}:${o.id}`));
        const tag = `${a.name}: ${label(route)}`;
        if (res.status >= 200 && res.status < 300) {
          succeeded++;
          if (!added.some((o) => o.table !== 'audit_log')) failures.push(`${tag} answered ${res.status} but created nothing`);
          for (const o of added) {
            // A tenant is created below the acting one; a prefix or an IP assignment for a tenant of the subtree.
            const fits =
              o.table === 'tenants'
                ? o.owner !== a.root && inSubtree(after, o.owner, a.root)
                : CREATES_BELOW.has(route.operationId) || o.table === 'ip_assignments' || o.table === 'ptr_addresses'
                  ? inSubtree(after, o.owner, a.root)
                  : o.owner === a.root;
            if (!fits) failures.push(`${tag} created ${o.table} ${o.id} owned by ${who(o.owner)}`);
          }
        } else if (changedTables(snap, await snapshot()).length) {
          failures.push(`${tag} answered ${res.status} yet CHANGED ${changedTables(snap, await snapshot()).join(', ')}`);
        }
      }
      expect(failures).toEqual([]);
      expect(succeeded, 'some token must be allowed the write').toBeGreaterThan(0);
    });
  }

  if (route.method === 'get' && names.length > 0) {
    it(
      'lets the platform read every object of every tenant',
      async () => {
        const world = await loadWorld();
        const failures: string[] = [];
        const any = fillParams(names, (table) => world.objects.filter((x) => x.table === table));
        for (const n of names) {
          for (const o of world.objects.filter((x) => x.table === PARAM_KINDS[n]!.table)) {
            const path = pathOf(route, familyOf(world, names, n, o, any));
            const res = await platformActor.api.get(path);
            if (res.status !== 200) failures.push(`platform: GET ${path} answered ${res.status}`);
          }
        }
        expect(failures).toEqual([]);
      },
      SWEEP_TIMEOUT_MS,
    );
  }

  const ancestryList = ANCESTRY_LISTS[route.operationId];
  if (isListRoute(route) && ancestryList) {
    it('lists for every token exactly the built-ins and what its acting tenant and that tenant’s ancestors own', async () => {
      if (names.length) throw new Error(`${label(route)}: ANCESTRY_LISTS takes lists without path parameters`);
      const world = await loadWorld();
      const failures: string[] = [];
      let inherited = 0;
      for (const a of actors) {
        const res = await a.api.get(pathOf(route, {}));
        if (res.status !== 200) {
          failures.push(`${a.name}: GET ${route.path} answered ${res.status}`);
          continue;
        }
        expect(res.body.pagination?.next_cursor ?? null, `${a.name}: one page`).toBeNull();
        const items = res.body.data as { id: string; tenant_id: string | null }[];
        const got = items.map((i) => i.id);
        const ancestry = world.objects.filter((o) => o.table === ancestryList.table && isAncestorOrSelf(world, o.owner, a.root));
        inherited += ancestry.filter((o) => o.owner !== a.root).length;
        const expected = [...ancestryList.builtins, ...ancestry.map((o) => o.id)];
        const extra = got.filter((id) => !expected.includes(id));
        const absent = expected.filter((id) => !got.includes(id));
        for (const id of extra) {
          const owner = world.ownerOf.get(id);
          failures.push(`${a.name}: GET ${route.path} LEAKS ${id} of ${owner ? who(owner) : 'nobody known'}`);
        }
        if (absent.length) failures.push(`${a.name}: GET ${route.path} omits ${absent.join(', ')}`);
        if (new Set(got).size !== got.length) failures.push(`${a.name}: GET ${route.path} lists an item twice`);
        // The owner each item claims is the database's, and lies on the actor's ancestry.
        for (const i of items) {
          const owner = world.ownerOf.get(i.id) ?? null;
          if (i.tenant_id !== owner) failures.push(`${a.name}: ${i.id} claims tenant ${i.tenant_id}, owned by ${owner}`);
        }
      }
      expect(failures).toEqual([]);
      expect(inherited, 'the fixtures must give customers something inherited to list').toBeGreaterThan(0);
    });
  }

  if (route.operationId in WITHIN_LISTS) {
    it('lists inside every own assignment, and answers not_owner for every other tenant’s', async () => {
      const world = await loadWorld();
      const blocks = (
        await db.query<{ id: string; cidr: string; owner: string }>('SELECT id, cidr::text AS cidr, tenant_id AS owner FROM ip_assignments ORDER BY cidr')
      ).rows;
      const failures: string[] = [];
      let itemsSeen = 0;
      const baseline = await snapshot();
      for (const a of [...actors, resellerForD]) {
        for (const b of blocks) {
          const path = `${route.path}?${new URLSearchParams({ within: b.cidr, limit: '500' })}`;
          const res = await a.api.get(path);
          if (inSubtree(world, b.owner, a.root)) {
            if (res.status !== 200) failures.push(`${a.name}: GET ${path} (its own) answered ${res.status}`);
            itemsSeen += res.body.data?.length ?? 0;
            for (const item of res.body.data ?? []) {
              const owner = world.ownerOf.get(item.assignment_id);
              if (!owner || !inSubtree(world, owner, a.root)) failures.push(`${a.name}: GET ${path} LEAKS ${item.ip} of ${owner ? who(owner) : 'nobody'}`);
            }
          } else if (a !== platformActor && (res.status !== 403 || res.body?.code !== 'not_owner')) {
            failures.push(`${a.name}: GET ${path} (${who(b.owner)}'s) answered ${res.status} ${res.body?.code}, expected 403 not_owner`);
          }
        }
      }
      expect(changedTables(baseline, await snapshot())).toEqual([]);
      expect(failures).toEqual([]);
      expect(itemsSeen).toBeGreaterThan(0);
    });
  }

  if (isListRoute(route) && !ancestryList && !(route.operationId in WITHIN_LISTS)) {
    it(
      'lists for every token exactly what the platform lists of that token’s subtree',
      async () => {
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
        const contents = LIST_CONTENTS[route.operationId];
        const contentKind = contents && Object.values(PARAM_KINDS).find((k) => k.table === contents);

        let itemsSeen = 0;
        for (const a of actors) {
          // Each parameter in turn runs over the actor's own objects; the others take the first
          // one (a child inside the chosen parent).
          const own = (table: ObjectTable) => world.objects.filter((o) => o.table === table && inSubtree(world, o.owner, a.root));
          const first = fillParams(names, own);
          const combos: Record<string, string>[] = names.length === 0 ? [{}] : [];
          for (const n of names) {
            for (const o of own(PARAM_KINDS[n]!.table)) combos.push(familyOf(world, names, n, o, first));
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
              if (owner(item) === undefined)
                failures.push(`GET ${path}: item ${JSON.stringify(item).slice(0, 120)} is of a kind the isolation test cannot place`);
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
            if (contents) {
              // Exactly the database's objects of the subtree (and of the path's parent).
              const parent = contentKind?.parent;
              const exact = world.objects
                .filter((o) => o.table === contents && inSubtree(world, o.owner, a.root))
                .filter((o) => !parent || params[parent] === undefined || o.parent === params[parent])
                .map((o) => o.id);
              const extra = got.filter((id) => !exact.includes(id));
              const absent = exact.filter((id) => !got.includes(id));
              if (extra.length)
                failures.push(`${a.name}: GET ${path} lists ${extra.join(', ')}, not ${contents} of its subtree${parent ? ` in that ${parent}` : ''}`);
              if (absent.length) failures.push(`${a.name}: GET ${path} omits ${absent.join(', ')}`);
              if (new Set(got).size !== got.length) failures.push(`${a.name}: GET ${path} lists an item twice`);
            }
          }
        }
        expect(failures).toEqual([]);
        expect(itemsSeen, 'the fixtures must give the tokens something of their own to list').toBeGreaterThan(0);
      },
      SWEEP_TIMEOUT_MS,
    );
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
  it.each(sweptRoutes.filter((r) => isWrite(r) && (paramNames(r).length > 0 || WRITE_CASES[r.operationId]?.refs)).map((r) => [label(r), r] as const))(
    'the platform may do %s to customer D with the same body (for owner-only objects: their owner)',
    async (_, route) => {
      const world = await loadWorld();
      const names = paramNames(route);
      for (const n of names) {
        if (!PARAM_KINDS[n]) throw new Error(`${label(route)}: path parameter {${n}} is unknown to the isolation test; add it to PARAM_KINDS`);
      }
      const writeCase = WRITE_CASES[route.operationId];
      if (!writeCase) throw new Error(`${label(route)}: no entry in WRITE_CASES; add a minimal valid body`);
      const victim = writeCase.controlOwner?.() ?? T.customerD;
      const ofD = (table: ObjectTable) => world.objects.filter((o) => o.table === table && o.owner === victim);
      const params = fillParams(names, ofD, { zone: zoneOf.customerD, ...writeCase.controlParams?.() });
      for (const n of names) {
        if (world.ownerOf.get(params[n]!) !== victim) throw new Error(`${who(victim)} owns no ${PARAM_KINDS[n]!.table} for {${n}}; add one to the fixtures`);
      }
      await writeCase.prepareControl?.({ world, params });
      let body = writeCase.body?.();
      for (const ref of writeCase.refs ?? []) {
        const id = ref.control?.({ world, params }) ?? ofD(ref.table)[0]?.id;
        if (!id) throw new Error(`customer D owns no ${ref.table}; add one to the fixtures`);
        body = ref.place ? ref.place(body ?? {}, id) : { ...body, [ref.field]: id };
      }
      const res = await (writeCase.controlActor?.() ?? platformActor).api.request(route.method.toUpperCase(), urlOf(route, params), { body });
      expect(res.status, res.text).toBeGreaterThanOrEqual(200);
      expect(res.status, res.text).toBeLessThan(300);
    },
  );
});
