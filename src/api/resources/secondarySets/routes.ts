// Secondary sets (docs/catalog-zones.md): fleets of standard secondaries (Knot, PowerDNS, BIND)
// that follow a catalog zone (RFC 9432) listing the owner's zones. Scopes secondaries:read and
// secondaries:write.
import { z } from 'zod';
import { rowEtag } from '../../../domain/model/etag.js';
import { DEFAULT_SECONDARY_PORT, GROUP_BY, MAX_SECONDARIES, type SetSelection, ZONE_GROUPS } from '../../../domain/secondarySets.js';
import type { SecondarySet } from '../../../services/secondarySets.js';
import { createSecondarySet, deleteSecondarySet, getSecondarySet, listSecondarySets, updateSecondarySet } from '../../../services/secondarySets.js';
import { listEnvelope, pagedList } from '../../pagination.js';
import { defineRoute, noContent, writeContext } from '../../routing/route.js';
import { iso, pageQuery, tenantIdParam, timestamp } from '../common.js';

const TAG = 'Secondary sets';
const LIST = 'secondary-sets';

const secondarySchema = z.object({
  address: z.string().describe('A literal IPv4 or IPv6 address (canonical form).'),
  port: z.number().int(),
});

const secondaryInput = z.strictObject({
  address: z.string().min(1).max(64).describe('A literal IPv4 or IPv6 address; no host names.'),
  port: z.number().int().min(1).max(65535).optional().describe(`Default ${DEFAULT_SECONDARY_PORT}.`),
});
const secondariesInput = z
  .array(secondaryInput)
  .min(1)
  .max(MAX_SECONDARIES)
  .describe('The addresses sent NOTIFY for the catalog and its members, allowed to transfer them, and asked before a version is `live`.');
const tsigKeyInput = z
  .string()
  .regex(/^tsk_[a-z2-7]+$/, 'must be a TSIG key id (tsk_…)')
  .nullable()
  .describe('A TSIG key of the acting tenant’s subtree the secondaries transfer with; null: none.');
const ZONES_DOC =
  '`all` (default): every forward and reverse zone of the owner’s subtree. `{"tenant": "ten_…"}`: those of that tenant’s subtree (a tenant of the owner’s subtree); `{"group": "signed" | "unsigned"}`: those served signed, or unsigned (a zone moves between such sets as its DNSSEC state crosses); both: both conditions.';
const zonesInput = z
  .union([
    z.literal('all'),
    z
      .strictObject({ tenant: tenantIdParam.optional(), group: z.enum(ZONE_GROUPS).optional() })
      .refine((o) => o.tenant !== undefined || o.group !== undefined, 'names a tenant, a group or both; `all` for every zone'),
  ])
  .describe(ZONES_DOC);
const zonesSchema = z.union([z.literal('all'), z.object({ tenant: z.string().optional(), group: z.enum(ZONE_GROUPS).optional() })]).describe(ZONES_DOC);

/** `all`, or the selection's named parts. */
const presentZones = (s: SetSelection) =>
  s.tenantId === null && s.group === null ? ('all' as const) : { ...(s.tenantId ? { tenant: s.tenantId } : {}), ...(s.group ? { group: s.group } : {}) };

const groupByInput = z.enum(GROUP_BY).describe('`dnssec`: each member gets the catalog property `group` `signed` or `unsigned`; `none`: no group.');

const secondarySetSchema = z.object({
  id: z.string(),
  tenant_id: z.string().describe('The owner: the acting tenant at creation.'),
  name: z.string(),
  catalog_zone: z.string().describe('The catalog zone’s name (RFC 9432); the secondaries transfer it from the service’s nameservers.'),
  secondaries: z.array(secondarySchema),
  zones: zonesSchema,
  group_by: z.enum(GROUP_BY),
  tsig_key: z.string().nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});

const present = (s: SecondarySet) => ({
  id: s.id,
  tenant_id: s.tenantId,
  name: s.name,
  catalog_zone: s.catalogZone,
  secondaries: s.secondaries,
  zones: presentZones(s.zones),
  group_by: s.groupBy,
  tsig_key: s.tsigKeyId,
  created_at: iso(s.createdAt)!,
  updated_at: iso(s.updatedAt)!,
});

const params = z.strictObject({ set: z.string().regex(/^sst_[a-z2-7]+$/, 'must be a secondary set id (sst_…)') });
const location = (id: string) => `/api/v1/secondary-sets/${id}`;
/** The set as every route answers it: its representation and its row's ETag. */
const answer = (status: 200 | 201, set: SecondarySet) => ({ status, body: present(set), etag: rowEtag(set.id, set.version) });

export const secondarySetRoutes = [
  defineRoute({
    method: 'post',
    path: '/secondary-sets',
    operationId: 'createSecondarySet',
    summary: 'Create a secondary set and its catalog zone',
    description:
      'The set belongs to the acting tenant; its catalog zone (RFC 9432 version 2) lists the forward and reverse zones of that tenant’s subtree the set selects (`zones`) and is published like a zone (SOA serial, NOTIFY, IXFR). `name` is unique per tenant (409 `conflict`); `catalog_zone` defaults to `<name>.catalog.invalid` and must not be a zone’s name (409 `zone_exists`).',
    tag: TAG,
    scopes: ['secondaries:write'],
    body: z.strictObject({
      name: z.string().min(1).max(63).describe('One DNS label (a-z, 0-9, inner hyphens); names the default catalog zone.'),
      secondaries: secondariesInput,
      zones: zonesInput.optional(),
      group_by: groupByInput.optional().describe('Default `none`.'),
      tsig_key: tsigKeyInput.optional(),
      catalog_zone: z.string().min(1).max(255).optional().describe('Default `<name>.catalog.invalid` (RFC 6761: never delegated, never a customer’s zone).'),
    }),
    errors: ['conflict', 'zone_exists', 'zone_overlap'],
    responses: { 201: { description: 'Created', schema: secondarySetSchema, headers: ['Location', 'ETag', 'Idempotent-Replayed'] } },
    handler: async (input) => {
      const set = await createSecondarySet(writeContext(input), input.services.config, input.body);
      return { ...answer(201, set), headers: { Location: location(set.id) } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/secondary-sets',
    operationId: 'listSecondarySets',
    summary: 'Secondary sets of the acting tenant and its subtree',
    tag: TAG,
    scopes: ['secondaries:read'],
    query: z.strictObject({ ...pageQuery }),
    responses: { 200: { description: 'A page of sets, by id', schema: listEnvelope(secondarySetSchema) } },
    handler: (input) => pagedList(input, LIST, (after, limit) => listSecondarySets(input.context, after, limit), present),
  }),
  defineRoute({
    method: 'get',
    path: '/secondary-sets/{set}',
    operationId: 'getSecondarySet',
    summary: 'Get a secondary set',
    tag: TAG,
    scopes: ['secondaries:read'],
    params,
    responses: { 200: { description: 'The set', schema: secondarySetSchema, headers: ['ETag'] } },
    handler: async (input) => answer(200, await getSecondarySet(input.context, input.params.set)),
  }),
  defineRoute({
    method: 'patch',
    path: '/secondary-sets/{set}',
    operationId: 'updateSecondarySet',
    summary: 'Change a secondary set',
    description:
      '`secondaries` replaces the list; a new `group_by` or `zones` rebuilds the catalog; `tsig_key: null` removes the key. `If-Match` with the set’s ETag makes the change conditional (412 otherwise). Name and catalog zone stay.',
    tag: TAG,
    scopes: ['secondaries:write'],
    params,
    body: z.strictObject({
      secondaries: secondariesInput.optional(),
      zones: zonesInput.optional(),
      group_by: groupByInput.optional(),
      tsig_key: tsigKeyInput.optional(),
    }),
    errors: ['precondition_failed'],
    responses: { 200: { description: 'The set', schema: secondarySetSchema, headers: ['ETag'] } },
    handler: async (input) =>
      answer(200, await updateSecondarySet(writeContext(input), input.services.config, input.params.set, input.body, input.request.ifMatch)),
  }),
  defineRoute({
    method: 'delete',
    path: '/secondary-sets/{set}',
    operationId: 'deleteSecondarySet',
    summary: 'Delete a secondary set',
    description: 'The set goes at once and its catalog zone is withdrawn from the nameservers like a deleted zone; the member zones stay served.',
    tag: TAG,
    scopes: ['secondaries:write'],
    params,
    errors: ['precondition_failed'],
    responses: { 204: { description: 'Deleted' } },
    handler: async (input) => noContent(deleteSecondarySet(writeContext(input), input.services.config, input.params.set, input.request.ifMatch)),
  }),
];
