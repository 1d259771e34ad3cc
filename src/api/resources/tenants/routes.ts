import { z } from 'zod';
import { FEATURES } from '../../../domain/tenancy.js';
import { createTenant, getTenant, listTenants, setSuspension, updateTenant } from '../../../services/tenantAdmin.js';
import { assertIfMatch } from '../../etag.js';
import { listEnvelope, pagedList } from '../../pagination.js';
import { defineRoute, writeContext } from '../../routing/route.js';
import { repeatable } from '../../routing/validate.js';
import { pageQuery, tenantIdParam } from '../common.js';
import { brandingSchema, presentTenant, tenantSchema } from './presenter.js';

const TAG = 'Tenants';
const params = z.strictObject({ tenant: tenantIdParam });

const limitsInput = z.strictObject({
  api_rate_limit_per_minute: z.number().int().min(1).max(1_000_000).optional(),
  max_zones: z.number().int().min(0).max(10_000_000).optional(),
});

const settings = {
  limits: limitsInput.optional(),
  features: z.array(z.enum(FEATURES)).max(FEATURES.length).optional(),
  branding: brandingSchema.strict().optional(),
  support_email: z.email().max(254).nullable().optional(),
  billing_client_id: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/)
    .nullable()
    .optional(),
};

const nameSchema = z.string().trim().min(1).max(200);

export const tenantRoutes = [
  defineRoute({
    method: 'get',
    path: '/tenants',
    operationId: 'listTenants',
    summary: 'List the tenants of the acting subtree',
    description: 'The acting tenant and every tenant below it, ordered by id.',
    tag: TAG,
    scopes: ['tenants:read'],
    query: z.strictObject({
      type: repeatable(z.enum(['platform', 'reseller', 'customer'])).optional(),
      parent_id: tenantIdParam.optional(),
      q: z.string().max(255).optional().describe('Case-insensitive substring of the name.'),
      ...pageQuery,
    }),
    responses: { 200: { description: 'A page of tenants', schema: listEnvelope(tenantSchema) } },
    handler: (input) =>
      pagedList(
        input,
        'tenants',
        (after, limit) => listTenants(input.context, { type: input.query.type, parentId: input.query.parent_id, q: input.query.q }, after, limit),
        presentTenant,
      ),
  }),
  defineRoute({
    method: 'post',
    path: '/tenants',
    operationId: 'createTenant',
    summary: 'Create a reseller or customer below the acting tenant',
    description:
      'Creates a tenant directly below `parent_id` (default: the acting tenant). A platform may create resellers and customers, a reseller customers. Audit: `tenant.created` (and `tenant.billing_linked` with a billing client).',
    tag: TAG,
    scopes: ['tenants:write'],
    body: z.strictObject({
      type: z.enum(['reseller', 'customer']),
      name: nameSchema,
      parent_id: tenantIdParam.optional(),
      ...settings,
    }),
    responses: { 201: { description: 'Created', schema: tenantSchema, headers: ['Location', 'ETag', 'Idempotent-Replayed'] } },
    handler: async (input) => {
      const tenant = await createTenant(writeContext(input), input.body);
      return { status: 201, body: presentTenant(tenant), etag: true, headers: { Location: `/api/v1/tenants/${tenant.id}` } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/tenants/{tenant}',
    operationId: 'getTenant',
    summary: 'Get a tenant of the acting subtree',
    tag: TAG,
    scopes: ['tenants:read'],
    params,
    responses: { 200: { description: 'The tenant', schema: tenantSchema, headers: ['ETag'] }, 304: { description: 'Not modified' } },
    handler: async (input) => ({ status: 200, body: presentTenant(await getTenant(input.context, input.params.tenant)), etag: true }),
  }),
  defineRoute({
    method: 'patch',
    path: '/tenants/{tenant}',
    operationId: 'updateTenant',
    summary: 'Change a tenant below the acting tenant',
    description: 'Only the fields sent change. A tenant cannot change itself (403 forbidden). `If-Match` optional.',
    tag: TAG,
    scopes: ['tenants:write'],
    params,
    body: z.strictObject({ name: nameSchema.optional(), ...settings }),
    errors: ['precondition_failed', 'forbidden'],
    responses: { 200: { description: 'The changed tenant', schema: tenantSchema, headers: ['ETag'] } },
    handler: async (input) => {
      const tenant = await updateTenant(writeContext(input), input.params.tenant, input.body, (current) =>
        assertIfMatch(input.request.ifMatch, presentTenant(current)),
      );
      return { status: 200, body: presentTenant(tenant), etag: true };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/tenants/{tenant}/suspend',
    operationId: 'suspendTenant',
    summary: 'Suspend a tenant below the acting tenant',
    description: 'A suspended tenant, and every tenant below it, gets 403 tenant_suspended on every operation but GET /me.',
    tag: TAG,
    scopes: ['tenants:write'],
    params,
    body: z.strictObject({ reason: z.string().max(500).optional() }),
    responses: { 200: { description: 'The suspended tenant', schema: tenantSchema } },
    handler: async (input) => {
      const tenant = await setSuspension(writeContext(input), input.params.tenant, true, input.body.reason ?? null);
      return { status: 200, body: presentTenant(tenant), etag: true };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/tenants/{tenant}/unsuspend',
    operationId: 'unsuspendTenant',
    summary: 'Lift the suspension of a tenant below the acting tenant',
    tag: TAG,
    scopes: ['tenants:write'],
    params,
    responses: { 200: { description: 'The active tenant', schema: tenantSchema } },
    handler: async (input) => {
      const tenant = await setSuspension(writeContext(input), input.params.tenant, false, null);
      return { status: 200, body: presentTenant(tenant), etag: true };
    },
  }),
];
