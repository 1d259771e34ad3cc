import { z } from 'zod';
import { FEATURES, isEffectivelySuspended } from '../../../domain/tenancy.js';
import { credentialPolicySchema } from '../../../domain/credentialPolicy.js';
import { SCOPES } from '../../../domain/scopes.js';
import { defineRoute } from '../../routing/route.js';
import { iso, timestamp } from '../common.js';
import { presentTenant, tenantSchema } from '../tenants/presenter.js';

const meSchema = tenantSchema.extend({
  status: z.enum(['active', 'suspended']).describe('Effective state: suspended when this tenant or an ancestor is.'),
  features: z.array(z.enum(FEATURES)).describe('Features the tenant may use: granted to it and to every ancestor.'),
  usage: z.record(z.string(), z.unknown()).describe('Current consumption of the limits and quotas.'),
  token: z.object({
    id: z.string(),
    name: z.string(),
    prefix: z.string(),
    deployment: z.enum(['sandbox', 'production']),
    scopes: z.array(z.enum(SCOPES)),
    expires_at: timestamp.nullable(),
    tenant_id: z.string().describe("The token owner's tenant (differs from `id` when acting for a customer)."),
    api_client: z.object({ id: z.string(), name: z.string() }),
    user: z.object({ id: z.string(), email: z.string(), permissions: z.array(z.string()) }).nullable(),
    policy: credentialPolicySchema.nullable().describe('The credential policy confining the token (docs/credentials.md); null: its scopes alone.'),
    acting_for_customer: z.boolean(),
  }),
});

export const meRoutes = [
  defineRoute({
    method: 'get',
    path: '/me',
    operationId: 'getMe',
    summary: 'The acting tenant, its limits, usage, branding and features, and the calling token',
    description: 'Available while suspended, so a panel can show why nothing else works.',
    tag: 'Tenant',
    scopes: ['tenant:read'],
    allowSuspended: true,
    responses: { 200: { description: 'The acting tenant', schema: meSchema, headers: ['ETag'] } },
    handler: async ({ actor, context, services }) => {
      const { acting, actingChain, token } = actor;
      const usage = Object.assign({}, ...(await Promise.all(services.usage.map((u) => u(context, acting)))));
      return {
        status: 200,
        etag: true,
        body: {
          ...presentTenant(acting),
          status: isEffectivelySuspended(actingChain) ? 'suspended' : 'active',
          features: FEATURES.filter((f) => actingChain.every((t) => t.features.includes(f))),
          usage,
          token: {
            id: token.id,
            name: token.name,
            prefix: token.displayPrefix,
            deployment: token.deployment,
            scopes: token.scopes,
            expires_at: iso(token.expiresAt),
            tenant_id: token.tenant.id,
            api_client: { id: token.apiClientId, name: token.apiClientName },
            user: token.user,
            policy: token.policy,
            acting_for_customer: actor.onBehalfOf,
          },
        },
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/stats',
    operationId: 'getStats',
    summary: 'Aggregated counts for the acting subtree',
    description: 'Computed at most once a minute per acting tenant; `generated_at` says when.',
    tag: 'Tenant',
    scopes: ['tenant:read'],
    responses: {
      200: {
        description: 'Counts',
        schema: z
          .object({
            generated_at: timestamp,
            scope: z.enum(['platform', 'reseller', 'customer']).describe('Type of the acting tenant; `platform` adds platform-only sections.'),
            tenant_id: z.string(),
            tenants: z.object({ resellers: z.number().int(), customers: z.number().int(), suspended: z.number().int() }),
            api_tokens: z.object({ active: z.number().int(), revoked: z.number().int(), api_clients: z.number().int() }),
            ip: z
              .object({
                ipv4: z.object({
                  assignments: z.number().int(),
                  prefixes: z.number().int(),
                  addresses: z.number().int(),
                  ptrs: z.number().int().describe('PTRs set (defaults are rendered, not counted)'),
                }),
                ipv6: z.object({
                  assignments: z.number().int(),
                  prefixes: z.number().int(),
                  ptrs: z.number().int(),
                  networks: z.number().int().optional().describe('Platform only: the provider’s IPv6 address spaces'),
                  handed_out: z
                    .object({ provider: z.number().int(), reseller: z.number().int() })
                    .optional()
                    .describe('Platform only: IPv6 assignments by who made them'),
                }),
              })
              .describe('The IP space of the subtree (docs/rdns.md "Stats")'),
            backend: z
              .object({
                zone_quota: z
                  .object({ zones: z.number().int(), capacity: z.number().int(), available: z.number().int(), read_at: timestamp })
                  .nullable()
                  .describe('The last reading, taken every 15 minutes by the worker; null before the first'),
              })
              .optional()
              .describe('Platform only'),
            webhooks: z.object({ active: z.number().int(), disabled: z.number().int() }).describe('Webhooks of the subtree by state (docs/webhooks.md)'),
          })
          .catchall(z.unknown()),
      },
    },
    handler: async ({ actor, context, services }) => ({ status: 200, body: await services.stats.forTenant(context, actor.acting) }),
  }),
];
