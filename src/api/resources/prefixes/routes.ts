import { z } from 'zod';
import { DomainError } from '../../../domain/errors.js';
import { formatBlock } from '../../../domain/ip/address.js';
import { DELEGATION_STATES } from '../../../domain/ip/delegation.js';
import {
  attachPrefix,
  checkPrefixDelegation,
  detachPrefix,
  getPrefix,
  listPrefixes,
  observePrefixDelegation,
  type Prefix,
} from '../../../services/rdns/prefixes.js';
import { listEnvelope, pagedList } from '../../pagination.js';
import { defineRoute, noContent, writeContext } from '../../routing/route.js';
import { pageQuery, tenantIdParam, timestamp } from '../common.js';

const TAG = 'Reverse DNS';

const delegationSchema = z
  .object({
    state: z
      .enum(DELEGATION_STATES)
      .describe(
        'ok: the parent delegates the zone to exactly the service’s nameservers; missing: no delegation; wrong: delegated elsewhere; unchecked: never checked, or the parent could not be asked',
      ),
    seen: z.array(z.string()).describe('The NS names the parent delegates to, as last seen'),
    checked_at: timestamp.nullable(),
  })
  .describe('What the last delegation check saw at the parent reverse zone');

const prefixSchema = z.object({
  id: z.string(),
  prefix: z.string().describe('The block in CIDR form (IPv6 in RFC 5952 form)'),
  family: z.union([z.literal(4), z.literal(6)]),
  tenant_id: z.string().describe('The customer owning the prefix and its reverse zones'),
  created_at: timestamp,
  zones: z
    .array(
      z.object({
        name: z.string().describe('The reverse zone (a zone of kind `reverse` in /zones)'),
        kind: z
          .enum(['octet', 'classless', 'nibble'])
          .describe('How it is cut: an IPv4 octet boundary, an RFC 2317 classless zone (`<first>-<length>` below the /24), an IPv6 nibble boundary'),
        delegation: delegationSchema,
      }),
    )
    .describe('The prefix’s reverse zones, created and deleted with it'),
});

const present = (p: Prefix): z.infer<typeof prefixSchema> => ({
  id: p.id,
  prefix: formatBlock(p.block),
  family: p.block.family,
  tenant_id: p.tenantId,
  created_at: p.createdAt.toISOString(),
  zones: p.zones,
});

const prefixParam = z.string().min(1).max(100).describe('The prefix in its URL form: `-` for `/` (`192.0.2.0-24`, `2001:db8::-48`); `%2F` is accepted too');
const params = z.strictObject({ prefix: prefixParam });

export const prefixRoutes = [
  defineRoute({
    method: 'get',
    path: '/prefixes',
    operationId: 'listPrefixes',
    summary: 'Customer-owned prefixes of the acting subtree',
    description: 'The acting tenant’s prefixes and those of the tenants below it, IPv4 before IPv6, by address.',
    tag: TAG,
    scopes: ['rdns:read'],
    feature: 'rdns',
    query: z.strictObject({
      family: z.enum(['4', '6']).optional(),
      tenant_id: tenantIdParam.optional().describe('Reseller and platform tokens without X-Act-As-Customer: one tenant of the subtree.'),
      ...pageQuery,
    }),
    responses: { 200: { description: 'A page of prefixes', schema: listEnvelope(prefixSchema), headers: ['Link'] } },
    handler: async (input) => {
      const { query, actor } = input;
      if (query.tenant_id && (actor.acting.type === 'customer' || actor.onBehalfOf)) {
        throw new DomainError('validation_failed', {}, [
          { in: 'query', pointer: '/tenant_id', code: 'not_allowed', detail: 'tenant_id is for reseller and platform tokens without X-Act-As-Customer.' },
        ]);
      }
      const filter = { family: query.family ? (Number(query.family) as 4 | 6) : undefined, tenantId: query.tenant_id };
      return pagedList(input, 'prefixes', (after, limit) => listPrefixes(input.context, filter, after, limit), present);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/prefixes',
    operationId: 'attachPrefix',
    summary: 'Attach a customer-owned prefix (provider staff, the customer’s reseller)',
    description:
      'Platform tokens, or a reseller for one of its customers (a customer token: 403). The prefix’s reverse zones are created at once, owned by the customer (kind `reverse`: IPv4 on octet boundaries, RFC 2317 classless below a /24, IPv6 on nibbles; at most 256 zones). A prefix overlapping another prefix, an address space or an assignment: 409 `prefix_overlap`; a reverse zone of an earlier attachment still being deleted: 409 `conflict`.',
    tag: TAG,
    scopes: ['rdns:write'],
    feature: 'rdns',
    body: z.strictObject({
      cidr: z.string().min(1).max(100).describe('The block, its first address / length: `192.0.2.0/24`, `2001:db8:a::/48`'),
      tenant_id: tenantIdParam.describe('The customer that owns it'),
    }),
    errors: ['forbidden', 'prefix_overlap', 'conflict', 'zone_exists', 'zone_overlap', 'backend_capacity_exhausted'],
    responses: { 201: { description: 'The prefix with its reverse zones', schema: prefixSchema, headers: ['Location'] } },
    handler: async (input) => {
      const p = await attachPrefix(writeContext(input), input.services.config, input.body);
      return { status: 201, body: present(p), headers: { Location: `/api/v1/prefixes/${formatBlock(p.block).replace('/', '-')}` } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/prefixes/{prefix}',
    operationId: 'getPrefix',
    summary: 'A prefix with its reverse zones and their delegation',
    tag: TAG,
    scopes: ['rdns:read'],
    feature: 'rdns',
    params,
    responses: { 200: { description: 'The prefix', schema: prefixSchema } },
    handler: async (input) => ({ status: 200, body: present(await getPrefix(input.context, input.params.prefix)) }),
  }),
  defineRoute({
    method: 'delete',
    path: '/prefixes/{prefix}',
    operationId: 'detachPrefix',
    summary: 'Detach a prefix (provider staff, the customer’s reseller)',
    description: 'Its reverse zones are deleted like any zone (withdrawn from the nameservers, their last export kept 30 days). A customer token: 403.',
    tag: TAG,
    scopes: ['rdns:write'],
    feature: 'rdns',
    params,
    errors: ['forbidden', 'dnssec_ds_present'],
    responses: { 204: { description: 'Detached' } },
    handler: async (input) => noContent(detachPrefix(writeContext(input), input.services.config, input.services.dnssec, input.params.prefix)),
  }),
  defineRoute({
    method: 'post',
    path: '/prefixes/{prefix}/delegation-check',
    operationId: 'checkPrefixDelegation',
    summary: 'Check the delegation of the prefix’s reverse zones now',
    description:
      'Asks the parent of every reverse zone of the prefix where it delegates it and stores what it saw (`delegation` of each zone). One check per prefix per minute (429 `rate_limited` with `Retry-After`).',
    tag: TAG,
    scopes: ['rdns:write'],
    feature: 'rdns',
    params,
    responses: { 200: { description: 'The prefix after the check', schema: prefixSchema } },
    prepare: (input) => observePrefixDelegation(input.context, input.services.rdns, input.params.prefix, input.services.clock.now()),
    handler: async (input) => ({
      status: 200,
      body: present(
        await checkPrefixDelegation(
          writeContext(input),
          input.services.config,
          input.services.rdns,
          input.services.rateLimiter,
          input.params.prefix,
          (input.prepared ?? null) as Awaited<ReturnType<typeof observePrefixDelegation>>,
        ),
      ),
    }),
  }),
];
