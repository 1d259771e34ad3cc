// TSIG keys of a tenant (docs/credentials.md): for RFC 2136 dynamic updates and signed queries by
// ACME clients and scripts (certbot, lego, nsupdate). The secret is shown on creation and rotation
// only. Scopes tsig:read and tsig:write; creating, rotating and widening a key also need
// records:write, since the key writes records (no escalation by minting a key).
import { z } from 'zod';
import { credentialPolicyInput, credentialPolicySchema } from '../../../domain/credentialPolicy.js';
import { DEFAULT_TSIG_ALGORITHM, MAX_TSIG_KEYS_PER_TENANT, TSIG_ALGORITHMS } from '../../../domain/tsigKeys.js';
import {
  createTsigKey,
  deleteTsigKey,
  getTsigKey,
  listTsigKeys,
  rotateTsigKey,
  type TsigKey,
  type TsigKeyDeps,
  updateTsigKeyPolicy,
} from '../../../services/tsigKeys.js';
import type { Services } from '../../../services/index.js';
import { listEnvelope, pagedList } from '../../pagination.js';
import { defineRoute, noContent, writeContext } from '../../routing/route.js';
import { iso, pageQuery, timestamp } from '../common.js';

const TAG = 'TSIG keys';
const LIST = 'tsig-keys';

const tsigKeySchema = z.object({
  id: z.string(),
  tenant_id: z.string().describe('The owner: the acting tenant at creation.'),
  name: z.string().describe('The key’s DNS name (lower case, no trailing dot), as clients name it; unique in the service.'),
  algorithm: z.enum(TSIG_ALGORITHMS),
  policy: credentialPolicySchema.nullable().describe('What the key may write (docs/credentials.md); null: every record of its tenant’s zones.'),
  created_at: timestamp,
  updated_at: timestamp,
  rotated_at: timestamp.nullable().describe('When the secret was last replaced.'),
});

const withSecret = tsigKeySchema.extend({
  secret: z.string().describe('The shared secret, base64, as BIND, Knot, nsupdate, certbot and lego take it. Shown only in this response.'),
});

const present = (k: TsigKey) => ({
  id: k.id,
  tenant_id: k.tenantId,
  name: k.name,
  algorithm: k.algorithm,
  policy: k.policy,
  created_at: iso(k.createdAt)!,
  updated_at: iso(k.updatedAt)!,
  rotated_at: iso(k.rotatedAt),
});

const params = z.strictObject({ key: z.string().regex(/^tsk_[a-z2-7]+$/, 'must be a TSIG key id (tsk_…)') });
const deps = (services: Services): TsigKeyDeps => ({ kek: services.dnssec.kek, config: services.config });
const location = (id: string) => `/api/v1/tsig-keys/${id}`;

export const tsigKeyRoutes = [
  defineRoute({
    method: 'post',
    path: '/tsig-keys',
    operationId: 'createTsigKey',
    summary: 'Create a TSIG key',
    description: `The key belongs to the acting tenant (with X-Act-As-Customer: that customer). Its secret is generated here with the algorithm’s hash length (RFC 8945 §6) and shown only in this response. \`name\` must be unique in the service (409 \`conflict\`); at most ${MAX_TSIG_KEYS_PER_TENANT} keys per tenant (409 \`quota_exceeded\`). A calling token with a credential policy creates only keys within it.`,
    tag: TAG,
    scopes: ['tsig:write', 'records:write'],
    body: z.strictObject({
      name: z.string().min(1).max(255).describe('A DNS name, e.g. `certbot.example.test`; stored lower case without the trailing dot.'),
      algorithm: z.enum(TSIG_ALGORITHMS).optional().describe(`Default ${DEFAULT_TSIG_ALGORITHM}.`),
      policy: credentialPolicyInput.nullable().optional(),
    }),
    errors: ['conflict', 'quota_exceeded'],
    responses: { 201: { description: 'Created; `secret` is shown only now', schema: withSecret, headers: ['Location', 'Idempotent-Replayed'] } },
    handler: async (input) => {
      const { key, secret } = await createTsigKey(writeContext(input), deps(input.services), input.body);
      return { status: 201, body: { ...present(key), secret }, headers: { Location: location(key.id) } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/tsig-keys',
    operationId: 'listTsigKeys',
    summary: 'TSIG keys of the acting tenant and its subtree (never the secrets)',
    tag: TAG,
    scopes: ['tsig:read'],
    query: z.strictObject({ ...pageQuery }),
    responses: { 200: { description: 'A page of keys, by id', schema: listEnvelope(tsigKeySchema) } },
    handler: (input) => pagedList(input, LIST, (after, limit) => listTsigKeys(input.context, after, limit), present),
  }),
  defineRoute({
    method: 'get',
    path: '/tsig-keys/{key}',
    operationId: 'getTsigKey',
    summary: 'Get a TSIG key (never the secret)',
    tag: TAG,
    scopes: ['tsig:read'],
    params,
    responses: { 200: { description: 'The key', schema: tsigKeySchema, headers: ['ETag'] } },
    handler: async (input) => ({ status: 200, body: present(await getTsigKey(input.context, input.params.key)), etag: true }),
  }),
  defineRoute({
    method: 'patch',
    path: '/tsig-keys/{key}',
    operationId: 'updateTsigKey',
    summary: 'Replace a TSIG key’s policy',
    description: '`policy: null` removes it. The nameservers apply the change when they reload their keys (at once, on commit).',
    tag: TAG,
    scopes: ['tsig:write', 'records:write'],
    params,
    body: z.strictObject({ policy: credentialPolicyInput.nullable() }),
    responses: { 200: { description: 'The key', schema: tsigKeySchema } },
    handler: async (input) => ({ status: 200, body: present(await updateTsigKeyPolicy(writeContext(input), input.params.key, input.body.policy)), etag: true }),
  }),
  defineRoute({
    method: 'post',
    path: '/tsig-keys/{key}/rotate',
    operationId: 'rotateTsigKey',
    summary: 'Replace a TSIG key’s secret',
    description:
      'The new secret is shown only in this response; the old one stops working as soon as the nameservers reload their keys (at once, on commit). Name and algorithm stay.',
    tag: TAG,
    scopes: ['tsig:write', 'records:write'],
    params,
    responses: { 200: { description: 'The key with its new secret', schema: withSecret } },
    handler: async (input) => {
      const { key, secret } = await rotateTsigKey(writeContext(input), deps(input.services), input.params.key);
      return { status: 200, body: { ...present(key), secret } };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/tsig-keys/{key}',
    operationId: 'deleteTsigKey',
    summary: 'Delete a TSIG key',
    description: 'Messages signed with it are refused (BADKEY) from the nameservers’ next reload (at once, on commit). Its name is free again.',
    tag: TAG,
    scopes: ['tsig:write'],
    params,
    responses: { 204: { description: 'Deleted' } },
    handler: async (input) => noContent(deleteTsigKey(writeContext(input), input.params.key)),
  }),
];
