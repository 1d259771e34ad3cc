import { z } from 'zod';
import type { IpAssignment } from '../../../services/storedShapes.js';
import { formatBlock } from '../../../domain/ip/address.js';
import { createAssignment, deleteAssignment, listAssignments } from '../../../services/rdns/assignments.js';
import { blockInput } from '../../../services/rdns/addressInput.js';
import {
  createIpSpace,
  deleteIpSpace,
  getIpSpace,
  type IpSpaceView,
  listIpSpaces,
  listIpSpaceZones,
  assertPlatform,
  type SpaceZone,
  updateIpSpace,
} from '../../../services/rdns/ipSpaces.js';
import { getPtr, listPtrs, type PtrView, type PtrWritten, writePtrs } from '../../../services/rdns/ptr.js';
import { listEnvelope, listResult, pagedList, pageRequest, wholeList } from '../../pagination.js';
import { defineRoute, noContent, writeContext } from '../../routing/route.js';
import { iso, pageQuery, tenantIdParam, timestamp } from '../common.js';
import { warningsSchema } from '../zones/presenter.js';
import { assertMayWriteDnssec, dnssecSchema, presentDnssec } from '../dnssec/routes.js';
import { booleanParam } from '../../routing/validate.js';

const TAG = 'Reverse DNS';

const ptrSchema = z.object({
  ip: z.string().describe('IPv4 dotted quad or IPv6 in RFC 5952 form'),
  target: z
    .string()
    .nullable()
    .describe('The host name served: the one set, else the default; null when neither. Lower case, no trailing dot (as the record API shows the PTR)'),
  source: z.enum(['set', 'default']).nullable().describe('set: written through /ptr; default: from the address space’s pattern; null: no PTR'),
  default_target: z.string().nullable().describe('What the address space’s pattern gives (provider addresses; IPv6 only when assigned alone)'),
  zone: z.string().describe('The reverse zone holding the PTR'),
  assignment_id: z.string().nullable(),
  prefix_id: z.string().nullable(),
});

const presentPtr = (p: PtrView) => ({
  ip: p.ip,
  target: p.target,
  source: p.source,
  default_target: p.defaultTarget,
  zone: p.zone,
  assignment_id: p.assignmentId,
  prefix_id: p.prefixId,
});

const ptrWrittenSchema = ptrSchema.extend({
  changeset_id: z.string(),
  warnings: warningsSchema.describe('ptr_not_forward_confirmed: no A/AAAA record of the target in the service’s zones points back (docs/rdns.md)'),
});

const presentWritten = (w: PtrWritten) => ({ ...presentPtr(w.items[0]!), changeset_id: w.changeSetIds[0]!, warnings: w.warnings });

const ipSpaceSchema = z.object({
  id: z.string(),
  cidr: z.string(),
  ptr_pattern: z.string().describe('e.g. static.{dashed}.hosting.example. — {dashed}, {ip} (IPv4), {reversed}'),
  dnssec: z.boolean().describe('The space’s reverse zones are signed; each zone’s DNSSEC state: GET /ip-spaces/{space}/zones'),
  forward_zone: z
    .string()
    .nullable()
    .describe(
      'The provider’s zone in which the service keeps an A/AAAA record (managed_by: the space’s id) for every default name: each IPv4 address of the space, each IPv6 address assigned alone (/128)',
    ),
  forward_records: z
    .object({
      state: z
        .enum(['complete', 'pending', 'failed'])
        .describe(
          'complete: the forward zone holds every default name and nothing else of the space; pending: the worker is writing the rest, a chunk (one change set) at a time; failed: the last chunk was refused (error), retried with back-off',
        ),
      total: z.number().int().describe('Default names the space keeps in its forward zone (0 without one)'),
      written: z.number().int().describe('Of those, how many are stored'),
      stale: z.number().int().describe('Records of the space still to be removed: old names after a new pattern, a zone it left, a removed space'),
      error: z
        .object({ code: z.string(), detail: z.string(), at: timestamp })
        .nullable()
        .describe('Why the last chunk was refused (e.g. record_managed: the platform has records of its own at a default name); null otherwise'),
    })
    .describe('How far the forward records are: the request writes the first chunk, the worker the rest (docs/rdns.md "Forward records of default PTRs")'),
  created_at: timestamp,
});
const presentSpace = (s: IpSpaceView) => ({
  id: s.id,
  cidr: formatBlock(s.block),
  ptr_pattern: s.ptrPattern,
  dnssec: s.dnssec,
  forward_zone: s.forwardZone?.name ?? null,
  forward_records: s.forwardRecords,
  created_at: s.createdAt.toISOString(),
});
const patternField = z.string().min(3).max(253);
const forwardZoneField = z
  .string()
  .min(1)
  .max(253)
  .nullable()
  .describe(
    'A forward zone of the platform tenant holding every name of the pattern, with room for its records (422 otherwise); null: none (its forward records are removed). Sent again, a pending or failed job of that zone is retried now',
  );

const spaceZoneSchema = z.object({
  name: z.string(),
  block: z.string().describe('The block the zone covers (an IPv4 /24, an RFC 2317 block, an IPv6 nibble block)'),
  status: z.enum(['activating', 'active', 'deleting']),
  dnssec: dnssecSchema.describe(
    'As GET /zones/{zone}/dnssec shows it for a customer’s zone: `ds` is what to place at the parent (the RIR’s reverse delegation) in assisted mode',
  ),
});
const presentSpaceZone = (z: SpaceZone) => ({ name: z.name, block: z.block, status: z.status, dnssec: presentDnssec(z.dnssec) });

const spaceParams = z.strictObject({ space: z.string().regex(/^spc_[a-z2-7]+$/, 'must be an address space id (spc_…)') });

const assignmentSchema = z.object({
  id: z.string(),
  cidr: z.string().describe('The block assigned (a single address as /32 or /128)'),
  family: z.union([z.literal(4), z.literal(6)]),
  tenant_id: z.string(),
  server_name: z.string().nullable().describe('Lower case, no trailing dot'),
  space_id: z.string(),
  parent_id: z.string().nullable().describe('The reseller’s assignment this one was handed on from'),
  assigned_by: z.string().describe('The tenant that made the assignment'),
  created_at: timestamp,
});
const presentAssignment = (a: IpAssignment) => ({
  id: a.id,
  cidr: formatBlock(a.block),
  family: a.block.family,
  tenant_id: a.tenantId,
  server_name: a.serverName,
  space_id: a.spaceId,
  parent_id: a.parentId,
  assigned_by: a.assignedBy,
  created_at: iso(a.createdAt)!,
});

const ipParam = z.string().min(1).max(100).describe('An IPv4 or IPv6 address in any valid textual form');
const cidrText = z.string().min(3).max(100);
export const rdnsRoutes = [
  defineRoute({
    method: 'get',
    path: '/ip-spaces',
    operationId: 'listIpSpaces',
    summary: 'The provider’s address spaces (provider staff)',
    description: 'Platform tokens only (403 otherwise).',
    tag: TAG,
    scopes: ['rdns:read'],
    errors: ['forbidden'],
    responses: { 200: { description: 'Every address space (one page)', schema: listEnvelope(ipSpaceSchema) } },
    handler: async (input) => {
      const all = await listIpSpaces(input.context, input.actor);
      return wholeList(all.map(presentSpace));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/ip-spaces',
    operationId: 'createIpSpace',
    summary: 'Add an address space (provider staff)',
    description:
      'Creates the space’s reverse zones at once (IPv4 cut on octets, RFC 2317 below a /24; IPv6 on nibbles), owned by the platform tenant, published and served like any zone and never listed in /zones. Overlapping another space or a prefix: 409 `conflict`; a reverse zone of that name exists: 409 `zone_exists`.',
    tag: TAG,
    scopes: ['rdns:write'],
    body: z.strictObject({
      cidr: cidrText,
      ptr_pattern: patternField,
      dnssec: z.boolean().optional().describe('true: the reverse zones are signed from the start (needs the scope dnssec:write as well)'),
      forward_zone: forwardZoneField.optional(),
    }),
    errors: ['forbidden', 'conflict', 'zone_exists', 'insufficient_scope', 'not_implemented', 'record_managed'],
    responses: { 201: { description: 'Created', schema: ipSpaceSchema, headers: ['Location', 'Idempotent-Replayed'] } },
    handler: async (input) => {
      if (input.body.dnssec) assertMayWriteDnssec(input.actor);
      const s = await createIpSpace(writeContext(input), input.services.config, input.body, input.services.dnssec);
      return { status: 201, body: presentSpace(s), headers: { Location: `/api/v1/ip-spaces/${s.id}` } };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/ip-spaces/{space}',
    operationId: 'deleteIpSpace',
    summary: 'Remove an address space (provider staff)',
    description:
      'Only a space without assignments (409 `conflict` otherwise); its reverse zones are withdrawn like deleted zones — signed ones once their DS left the parent (as a signed zone’s deletion: 409 `dnssec_ds_present` for a DS placed by hand and still seen, unless `force=true`).',
    tag: TAG,
    scopes: ['rdns:write'],
    params: spaceParams,
    query: z.strictObject({ force: booleanParam.optional().describe('Delete even while a DS placed by hand (assisted mode) is visible at the parent.') }),
    errors: ['forbidden', 'conflict', 'dnssec_ds_present'],
    responses: { 204: { description: 'Removed' } },
    handler: async (input) =>
      noContent(deleteIpSpace(writeContext(input), input.services.config, input.services.dnssec, input.params.space, input.query.force ?? false)),
  }),
  defineRoute({
    method: 'get',
    path: '/ip-spaces/{space}',
    operationId: 'getIpSpace',
    summary: 'One address space (provider staff)',
    description: 'Platform tokens only (403 otherwise).',
    tag: TAG,
    scopes: ['rdns:read'],
    params: spaceParams,
    errors: ['forbidden'],
    responses: { 200: { description: 'The address space', schema: ipSpaceSchema } },
    handler: async (input) => {
      assertPlatform(input.actor);
      return { status: 200, body: presentSpace(await getIpSpace(input.context, input.params.space)) };
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/ip-spaces/{space}',
    operationId: 'updateIpSpace',
    summary: 'Change an address space (provider staff)',
    description:
      '`ptr_pattern`: the defaults of every reverse zone are rendered anew with the next version, and the forward records renamed. `forward_zone`: the forward records move there. Forward records are written in change sets of at most 4,096 items: the first in the request (a name there that the platform already uses for records of its own: 409 `record_managed`), the rest by the worker (`forward_records` shows how far). `dnssec: true` enables DNSSEC on every reverse zone of the space through the DNSSEC state machine (docs/dnssec.md; mode automatic where the registry takes the DS, else assisted: the DS to hand to the RIR is in GET /ip-spaces/{space}/zones); `false` disables it on each (the DS leaves the parent first). A zone of the space still being disabled: 409 `dnssec_transition_in_progress` for `true`. Needs the scope dnssec:write as well; DNSSEC_SIGNING=off: 501.',
    tag: TAG,
    scopes: ['rdns:write'],
    params: spaceParams,
    body: z.strictObject({ dnssec: z.boolean().optional(), ptr_pattern: patternField.optional(), forward_zone: forwardZoneField.optional() }),
    errors: ['forbidden', 'insufficient_scope', 'not_implemented', 'dnssec_transition_in_progress', 'record_managed'],
    responses: { 200: { description: 'The address space as changed', schema: ipSpaceSchema } },
    handler: async (input) => {
      assertPlatform(input.actor);
      if (input.body.dnssec !== undefined) assertMayWriteDnssec(input.actor);
      return {
        status: 200,
        body: presentSpace(await updateIpSpace(writeContext(input), input.services.config, input.services.dnssec, input.params.space, input.body)),
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/ip-spaces/{space}/zones',
    operationId: 'listIpSpaceZones',
    summary: 'The reverse zones of an address space, with their DNSSEC state (provider staff)',
    description:
      'Platform tokens only (403 otherwise). By block; each zone with its DNSSEC object (state, mode, keys, the DS to place at the parent, what the parent shows, the last validation).',
    tag: TAG,
    scopes: ['rdns:read'],
    params: spaceParams,
    query: z.strictObject({ ...pageQuery }),
    errors: ['forbidden'],
    responses: { 200: { description: 'A page of the space’s reverse zones', schema: listEnvelope(spaceZoneSchema) } },
    handler: async (input) => {
      const read = (after: unknown[] | null, limit: number) =>
        listIpSpaceZones(input.context, input.services.config, input.actor, input.params.space, after, limit);
      return pagedList(input, `ip-space-zones:${input.params.space}`, read, presentSpaceZone);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/ips',
    operationId: 'listIps',
    summary: 'IP assignments of the acting tenant and its subtree',
    description: '`q` matches a substring of the block, the server name or a PTR target set inside it.',
    tag: TAG,
    scopes: ['rdns:read'],
    feature: 'rdns',
    query: z.strictObject({
      family: z
        .enum(['4', '6'])
        .transform((v) => Number(v) as 4 | 6)
        .optional(),
      q: z.string().min(1).max(255).optional(),
      within: cidrText.optional().describe('Only assignments inside this CIDR block'),
      ...pageQuery,
    }),
    responses: { 200: { description: 'A page of assignments, by block', schema: listEnvelope(assignmentSchema) } },
    handler: async (input) => {
      const { after, limit } = pageRequest(input, 'ips');
      const within = input.query.within ? blockInput(input.query.within, '/within', 'query') : undefined;
      const page = await listAssignments(input.context, { family: input.query.family, q: input.query.q, within }, after, limit);
      return listResult(input, 'ips', page.items.map(presentAssignment), page.next);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/ips',
    operationId: 'createIpAssignment',
    summary: 'Assign a block (provider staff; a reseller to its customers)',
    description:
      'Platform: a block of an address space to any tenant. Reseller: a block of one of its own assignments to one of its customers (403 otherwise). Customers: 403. Blocks of different tenants never overlap (409 `conflict`). Assigning an IPv6 address alone (/128) gives it a default PTR.',
    tag: TAG,
    scopes: ['rdns:write'],
    feature: 'rdns',
    body: z.strictObject({ cidr: cidrText, tenant_id: tenantIdParam, server_name: z.string().max(253).nullable().optional() }),
    errors: ['forbidden', 'conflict'],
    responses: { 201: { description: 'Assigned', schema: assignmentSchema, headers: ['Location', 'Idempotent-Replayed'] } },
    handler: async (input) => {
      const a = await createAssignment(writeContext(input), input.services.config, input.body);
      return { status: 201, body: presentAssignment(a), headers: { Location: `/api/v1/ips/${a.id}` } };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/ips/{assignment}',
    operationId: 'deleteIpAssignment',
    summary: 'Take an assignment back',
    description:
      'By provider staff or the reseller that handed it on (403 for others who see it). Its PTRs stay; defaults return. Parts handed on to customers must go first (409).',
    tag: TAG,
    scopes: ['rdns:write'],
    feature: 'rdns',
    params: z.strictObject({ assignment: z.string().regex(/^ipa_[a-z2-7]+$/, 'must be an IP assignment id (ipa_…)') }),
    errors: ['forbidden', 'conflict'],
    responses: { 204: { description: 'Unassigned' } },
    handler: async (input) => noContent(deleteAssignment(writeContext(input), input.services.config, input.params.assignment)),
  }),
  defineRoute({
    method: 'get',
    path: '/ptr',
    operationId: 'listPtrs',
    summary: 'PTRs of a block',
    description:
      '`within` must lie inside one assignment or prefix of the acting tenant (403 `not_owner`). IPv4: at most a /22 (422 otherwise), every address listed (`target: null` where unset). IPv6: only addresses with a PTR, set or default. By address.',
    tag: TAG,
    scopes: ['rdns:read'],
    feature: 'rdns',
    query: z.strictObject({ within: cidrText, ...pageQuery }),
    errors: ['not_owner'],
    responses: { 200: { description: 'A page of PTRs', schema: listEnvelope(ptrSchema) } },
    handler: async (input) => {
      const within = blockInput(input.query.within, '/within', 'query');
      return pagedList(input, `ptr:${formatBlock(within)}`, (after, limit) => listPtrs(input.context, input.actor, within, after, limit), presentPtr);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/ptr/{ip}',
    operationId: 'getPtr',
    summary: 'The PTR of an address',
    description: 'Outside the acting tenant’s assignments and prefixes: 403 `not_owner`. IPv4-mapped IPv6: 422 (`ipv4_mapped_address`).',
    tag: TAG,
    scopes: ['rdns:read'],
    feature: 'rdns',
    params: z.strictObject({ ip: ipParam }),
    errors: ['not_owner'],
    responses: { 200: { description: 'The PTR', schema: ptrSchema } },
    handler: async (input) => ({ status: 200, body: presentPtr(await getPtr(input.context, input.actor, input.params.ip)) }),
  }),
  defineRoute({
    method: 'put',
    path: '/ptr/{ip}',
    operationId: 'setPtr',
    summary: 'Set the PTR of an address',
    description:
      'A change set of the address’s reverse zone (replacing the PTR RRset at the address), published like any record write; its id in `changeset_id`. The target must be a host name (422). A target without an A/AAAA record pointing back in the service’s zones is stored with the warning `ptr_not_forward_confirmed`.',
    tag: TAG,
    scopes: ['rdns:write'],
    feature: 'rdns',
    params: z.strictObject({ ip: ipParam }),
    body: z.strictObject({ target: z.string().min(1).max(255) }),
    errors: ['not_owner', 'conflict'],
    responses: { 200: { description: 'The PTR as it will be served', schema: ptrWrittenSchema } },
    handler: async (input) => {
      const written = await writePtrs(writeContext(input), input.services.config, [{ ip: input.params.ip, target: input.body.target }], () => '', false);
      return { status: 200, body: presentWritten(written) };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/ptr/{ip}',
    operationId: 'resetPtr',
    summary: 'Reset the PTR of an address to its default',
    description: 'Removes the PTR set (a change set); the default, where the address has one, is served again from the next version.',
    tag: TAG,
    scopes: ['rdns:write'],
    feature: 'rdns',
    params: z.strictObject({ ip: ipParam }),
    errors: ['not_owner', 'conflict'],
    responses: { 200: { description: 'The PTR as it will be served', schema: ptrWrittenSchema } },
    handler: async (input) => {
      const written = await writePtrs(writeContext(input), input.services.config, [{ ip: input.params.ip, target: null }], () => '', false);
      return { status: 200, body: presentWritten(written) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/ptr/bulk',
    operationId: 'bulkPtr',
    summary: 'Set or reset up to 1000 PTRs at once',
    description:
      'One atomic write: one change set per reverse zone touched, all stored or none (any invalid item: 422 naming every bad item; any address not the tenant’s: 403 `not_owner`). `target: null` resets.',
    tag: TAG,
    scopes: ['rdns:write'],
    feature: 'rdns',
    body: z.strictObject({
      items: z
        .array(z.strictObject({ ip: ipParam, target: z.string().min(1).max(255).nullable() }))
        .min(1)
        .max(1000),
    }),
    errors: ['not_owner', 'conflict'],
    responses: {
      200: {
        description: 'The PTRs as they will be served',
        schema: z.object({ data: z.array(ptrSchema), changeset_id: z.string(), changeset_ids: z.array(z.string()), warnings: warningsSchema }),
      },
    },
    handler: async (input) => {
      const w = await writePtrs(writeContext(input), input.services.config, input.body.items, (i) => `/items/${i}`, true);
      return { status: 200, body: { data: w.items.map(presentPtr), changeset_id: w.changeSetIds[0]!, changeset_ids: w.changeSetIds, warnings: w.warnings } };
    },
  }),
];
