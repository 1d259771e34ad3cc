import { z } from 'zod';
import { DNSSEC_STATES } from '../../../domain/dnssec/states.js';
import { DomainError } from '../../../domain/errors.js';
import { CHANGESET_STATES } from '../../../domain/publication.js';
import { hasFeature } from '../../../domain/tenancy.js';
import { enableDnssec } from '../../../services/dnssec.js';
import { templateChangeItems } from '../../../services/templates.js';
import { getZone } from '../../../services/zoneReads.js';
import { createZone, deleteZone, listZones, updateZone } from '../../../services/zones.js';
import { assertMayWriteDnssec } from '../dnssec/routes.js';
import { templateIdParam } from '../templates/routes.js';
import { listEnvelope, listResult, pageRequest } from '../../pagination.js';
import { defineRoute, writeContext } from '../../routing/route.js';
import { booleanParam, repeatable } from '../../routing/validate.js';
import { pageQuery, tenantIdParam } from '../common.js';
import { presentZone, storedEtag, zoneCreatedSchema, zoneSchema } from './presenter.js';
import { zoneLiveWait } from './liveWaits.js';
import { recordInputSchema, ttlSchema, zoneParam } from './schemas.js';

const TAG = 'Zones';
const params = z.strictObject({ zone: zoneParam });

/** The zone list searches the A-label and the U-label form: lower case, NFC (as UTS 46 maps). */
const searchTerm = (q: string): string => q.normalize('NFC').toLowerCase();

export const zoneRoutes = [
  defineRoute({
    method: 'get',
    path: '/zones',
    operationId: 'listZones',
    summary: 'List zones of the acting subtree',
    description: 'Ordered by name by default; `pagination.total` counts every match. Protected names are never listed.',
    tag: TAG,
    scopes: ['zones:read'],
    query: z.strictObject({
      q: z.string().max(253).optional().describe('Case-insensitive substring of the name (A-label or U-label).'),
      kind: z.enum(['forward', 'reverse']).optional(),
      dnssec_state: repeatable(z.enum(DNSSEC_STATES)).optional(),
      publication_state: repeatable(z.enum(CHANGESET_STATES)).optional().describe('State of the zone’s newest change set.'),
      tenant_id: tenantIdParam.optional().describe('Reseller and platform tokens without X-Act-As-Customer: one tenant of the subtree.'),
      sort: z.enum(['name', '-name', 'created_at', '-created_at']).default('name'),
      ...pageQuery,
    }),
    responses: {
      200: {
        description: 'A page of zones',
        schema: listEnvelope(zoneSchema).extend({
          pagination: z.object({ next_cursor: z.string().nullable(), has_more: z.boolean(), total: z.number().int() }),
        }),
        headers: ['Link'],
      },
    },
    handler: async (input) => {
      const { query, actor } = input;
      if (query.tenant_id && (actor.acting.type === 'customer' || actor.onBehalfOf)) {
        throw new DomainError('validation_failed', {}, [
          { in: 'query', pointer: '/tenant_id', code: 'not_allowed', detail: 'tenant_id is for reseller and platform tokens without X-Act-As-Customer.' },
        ]);
      }
      const list = `zones:${query.sort}`;
      const { after, limit } = pageRequest(input, list);
      const page = await listZones(
        input.context,
        input.services.config,
        {
          q: query.q ? searchTerm(query.q) : undefined,
          kind: query.kind,
          dnssecState: query.dnssec_state,
          publicationState: query.publication_state,
          tenantId: query.tenant_id,
          sort: query.sort,
        },
        after,
        limit,
      );
      return listResult(
        input,
        list,
        page.items.map((z) => presentZone(z, input.services.config)),
        page.next,
        { total: page.total },
      );
    },
  }),
  defineRoute({
    method: 'post',
    path: '/zones',
    operationId: 'createZone',
    summary: 'Create a forward zone',
    description:
      'Checks in this order: valid registrable domain or subdomain (422), reverse zone (403 reverse_zone_managed), protected name (403 zone_protected), taken (409 zone_exists) or overlapping another tenant’s zone (409 zone_overlap), quota (409 quota_exceeded), backend capacity (503 backend_capacity_exhausted). The SOA, apex NS set and initial `records` are stored in one change set; the zone starts `activating`.',
    tag: TAG,
    scopes: ['zones:write'],
    body: z.strictObject({
      name: z.string().min(1).max(300),
      default_ttl: ttlSchema.optional(),
      dnssec: z
        .boolean()
        .optional()
        .describe(
          'true: DNSSEC is enabled in the same request (as POST /zones/{zone}/dnssec/enable with its default mode; needs the scope dnssec:write and the feature dnssec).',
        ),
      template: z
        .strictObject({ template_id: templateIdParam, variables: z.record(z.string(), z.string().max(1024)).optional() })
        .optional()
        .describe('Applied in the creation change set (on_conflict skip).'),
      records: z.array(recordInputSchema).max(1000).optional(),
    }),
    errors: [
      'zone_protected',
      'reverse_zone_managed',
      'zone_exists',
      'zone_overlap',
      'quota_exceeded',
      'backend_capacity_exhausted',
      'not_implemented',
      'feature_disabled',
      'insufficient_scope',
      'dnssec_not_delegated',
    ],
    responses: {
      201: {
        description: 'Created; `warnings` of the initial records and template',
        schema: zoneCreatedSchema,
        headers: ['Location', 'ETag', 'Idempotent-Replayed', 'Preference-Applied'],
      },
    },
    liveWait: zoneLiveWait,
    handler: async (input) => {
      const { body, services } = input;
      if (body.dnssec) assertMayWriteDnssec(input.actor);
      const ctx = writeContext(input);
      const template = body.template;
      // A template at creation is gated like apply-template (feature `templates`, whole chain).
      if (template && !hasFeature(input.actor.actingChain, 'templates')) throw new DomainError('feature_disabled', { feature: 'templates' });
      const { zone, warnings } = await createZone(
        ctx,
        services.config,
        { name: body.name, default_ttl: body.default_ttl, records: body.records?.map((record) => ({ op: 'create' as const, record })) },
        template
          ? async (z) =>
              (
                await templateChangeItems(ctx, ctx.actor, z, {
                  template_id: template.template_id,
                  variables: template.variables ?? {},
                  on_conflict: 'skip',
                })
              ).items
          : undefined,
      );
      if (body.dnssec) await enableDnssec(ctx, services.dnssec, zone.name, {});
      const created = body.dnssec ? await getZone(ctx, services.config, zone.name) : zone;
      return {
        status: 201,
        body: { ...presentZone(created, services.config), warnings },
        etag: storedEtag(created),
        headers: { Location: `/api/v1/zones/${zone.name}` },
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/zones/{zone}',
    operationId: 'getZone',
    summary: 'Get a zone',
    tag: TAG,
    scopes: ['zones:read'],
    params,
    responses: { 200: { description: 'The zone', schema: zoneSchema, headers: ['ETag'] }, 304: { description: 'Not modified' } },
    handler: async (input) => {
      const zone = await getZone(input.context, input.services.config, input.params.zone);
      return { status: 200, body: presentZone(zone, input.services.config), etag: storedEtag(zone) };
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/zones/{zone}',
    operationId: 'updateZone',
    summary: 'Change zone settings',
    description: 'Only the fields sent change; published like a record change (one change set). `If-Match` optional.',
    tag: TAG,
    scopes: ['zones:write'],
    params,
    body: z.strictObject({ default_ttl: ttlSchema.optional(), soa_email: z.email().max(254).optional() }),
    errors: ['precondition_failed', 'conflict', 'dnssec_ds_present'],
    responses: { 200: { description: 'The zone', schema: zoneSchema, headers: ['ETag', 'Preference-Applied'] } },
    liveWait: zoneLiveWait,
    handler: async (input) => {
      const { services } = input;
      const updated = await updateZone(writeContext(input), services.config, input.params.zone, input.body, input.request.ifMatch);
      return { status: 200, body: presentZone(updated, services.config), etag: storedEtag(updated) };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/zones/{zone}',
    operationId: 'deleteZone',
    summary: 'Delete a zone',
    description:
      '`confirm` must equal the zone name. The zone shows `deleting` until the backend confirms, then disappears; its last export is kept 30 days. A running deletion gives 409 conflict. A reverse zone of a prefix goes only with its prefix (`DELETE /prefixes/{prefix}`): 403 `reverse_zone_managed`.',
    tag: TAG,
    scopes: ['zones:write'],
    params,
    query: z.strictObject({
      confirm: z.string().max(300).describe('The zone name.'),
      force: booleanParam.optional().describe('Delete even while a customer-managed DS is visible at the parent.'),
    }),
    errors: ['precondition_failed', 'conflict', 'reverse_zone_managed'],
    responses: { 202: { description: 'Deletion started', schema: zoneSchema } },
    handler: async (input) => {
      const { services } = input;
      const deleted = await deleteZone(
        writeContext(input),
        services.config,
        input.params.zone,
        { confirm: input.query.confirm, ifMatch: input.request.ifMatch, force: input.query.force },
        services.dnssec,
      );
      return { status: 202, body: presentZone(deleted, services.config) };
    },
  }),
];
