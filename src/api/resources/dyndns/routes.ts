import { z } from 'zod';
import type { DyndnsHost } from '../../../services/storedShapes.js';
import { DEFAULT_DYNDNS_TTL, createHost, deleteHost, getHost, listHosts, rotatePassword } from '../../../services/dyndns/hosts.js';
import { TTL_BOUNDS } from '../../../domain/records/ttl.js';
import { listEnvelope, pagedList } from '../../pagination.js';
import { defineRoute, noContent, writeContext } from '../../routing/route.js';
import { iso, pageQuery, timestamp } from '../common.js';

const TAG = 'Dynamic DNS';

const hostSchema = z.object({
  id: z.string(),
  zone: z.string(),
  name: z.string().describe('Owner relative to the zone (`@` the apex)'),
  hostname: z.string().describe('The fully-qualified name a router sends as `hostname`'),
  username: z.string().describe('The /nic/update username: the host’s id'),
  ttl: z.number().int().describe(`TTL of the host’s A and AAAA records (default ${DEFAULT_DYNDNS_TTL})`),
  ipv4: z.string().nullable().describe('The address of the host’s A record; null when it has none'),
  ipv6: z.string().nullable().describe('The address of the host’s AAAA record; null when it has none'),
  last_update: z
    .object({ at: timestamp, ip: z.string().nullable(), client: z.string().nullable().describe('The router’s User-Agent') })
    .nullable()
    .describe('The last /nic/update that changed an address (a `nochg` is not recorded)'),
  created_at: timestamp,
  updated_at: timestamp,
});

const present = (h: DyndnsHost) => ({
  id: h.id,
  zone: h.zoneName,
  name: h.name,
  hostname: h.fqdn,
  username: h.id,
  ttl: h.ttl,
  ipv4: h.ipv4,
  ipv6: h.ipv6,
  last_update: h.lastUpdate ? { at: h.lastUpdate.at.toISOString(), ip: h.lastUpdate.ip, client: h.lastUpdate.client } : null,
  created_at: iso(h.createdAt)!,
  updated_at: iso(h.updatedAt)!,
});

const withPassword = hostSchema.extend({
  password: z.string().describe('Shown this once; stored only as a hash. Use it with `username` for /nic/update.'),
});

const hostParam = z.strictObject({ host: z.string().regex(/^dyn_[a-z2-7]+$/, 'must be a DynDNS host id (dyn_…)') });
const addressText = z.string().min(1).max(100);

export const dyndnsRoutes = [
  defineRoute({
    method: 'get',
    path: '/dyndns/hosts',
    operationId: 'listDyndnsHosts',
    summary: 'DynDNS hosts of the acting tenant and its subtree',
    tag: TAG,
    scopes: ['dyndns:read'],
    feature: 'dyndns',
    query: z.strictObject({ zone: z.string().min(1).max(255).optional().describe('Only the hosts of this zone'), ...pageQuery }),
    responses: { 200: { description: 'A page of hosts, by id', schema: listEnvelope(hostSchema) } },
    handler: (input) =>
      pagedList(input, `dyndns_hosts:${input.query.zone ?? ''}`, (after, limit) => listHosts(input.context, { zone: input.query.zone }, after, limit), present),
  }),
  defineRoute({
    method: 'post',
    path: '/dyndns/hosts',
    operationId: 'createDyndnsHost',
    summary: 'Create a DynDNS host',
    description:
      'A name in one of the tenant’s forward zones that a router keeps at its address through `GET /nic/update` (docs/dyndns.md). The answer carries the password once. ' +
      'The name must hold no A, AAAA or CNAME records and no other host (409 `conflict`). Addresses given here are written at once, as one change set.',
    tag: TAG,
    scopes: ['dyndns:write'],
    feature: 'dyndns',
    body: z.strictObject({
      zone: z.string().min(1).max(255),
      name: z.string().min(1).max(253).describe('Relative to the zone (`home`), `@` for the apex, or absolute with a final dot'),
      ttl: z.number().int().min(TTL_BOUNDS.min).max(TTL_BOUNDS.max).optional().describe(`Default ${DEFAULT_DYNDNS_TTL}`),
      ipv4: addressText.nullable().optional(),
      ipv6: addressText.nullable().optional(),
    }),
    errors: ['not_found', 'conflict'],
    responses: { 201: { description: 'Created; `password` is shown this once', schema: withPassword, headers: ['Location', 'Idempotent-Replayed'] } },
    handler: async (input) => {
      const { host, password } = await createHost(writeContext(input), input.services.config, input.body);
      return { status: 201, body: { ...present(host), password }, headers: { Location: `/api/v1/dyndns/hosts/${host.id}` } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/dyndns/hosts/{host}',
    operationId: 'getDyndnsHost',
    summary: 'A DynDNS host',
    tag: TAG,
    scopes: ['dyndns:read'],
    feature: 'dyndns',
    params: hostParam,
    responses: { 200: { description: 'The host', schema: hostSchema } },
    handler: async (input) => ({ status: 200, body: present(await getHost(input.context, input.params.host)) }),
  }),
  defineRoute({
    method: 'delete',
    path: '/dyndns/hosts/{host}',
    operationId: 'deleteDyndnsHost',
    summary: 'Delete a DynDNS host and its address records',
    description: 'Its A and AAAA records are removed in one change set; its credentials stop working at once.',
    tag: TAG,
    scopes: ['dyndns:write'],
    feature: 'dyndns',
    params: hostParam,
    responses: { 204: { description: 'Deleted' } },
    handler: async (input) => noContent(deleteHost(writeContext(input), input.services.config, input.params.host)),
  }),
  defineRoute({
    method: 'post',
    path: '/dyndns/hosts/{host}/rotate',
    operationId: 'rotateDyndnsHostPassword',
    summary: 'Give a DynDNS host a new password',
    description: 'The new password is shown this once; the old one stops working at once.',
    tag: TAG,
    scopes: ['dyndns:write'],
    feature: 'dyndns',
    params: hostParam,
    responses: { 200: { description: 'The host with its new password', schema: withPassword, headers: ['Idempotent-Replayed'] } },
    handler: async (input) => {
      const { host, password } = await rotatePassword(writeContext(input), input.params.host);
      return { status: 200, body: { ...present(host), password } };
    },
  }),
];
