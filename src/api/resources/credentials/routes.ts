import { z } from 'zod';
import { credentialPolicyInput } from '../../../domain/credentialPolicy.js';
import { SCOPES } from '../../../domain/scopes.js';
import { USER_PERMISSIONS } from '../../../domain/tenancy.js';
import {
  createApiClient,
  createToken,
  createUser,
  getApiClient,
  getToken,
  listApiClients,
  listTokens,
  listUsers,
  revokeToken,
} from '../../../services/apiCredentials.js';
import { listEnvelope, pagedList } from '../../pagination.js';
import { defineRoute, writeContext } from '../../routing/route.js';
import { pageQuery, tenantIdParam } from '../common.js';
import { apiClientSchema, presentApiClient, presentToken, presentUser, tokenSchema, userSchema } from './presenter.js';

const TAG = 'API clients and tokens';
const tenantParams = z.strictObject({ tenant: tenantIdParam });
const clientParams = z.strictObject({ client: z.string().regex(/^cli_[a-z2-7]+$/, 'must be an API client id (cli_…)') });
const tokenParams = z.strictObject({ token: z.string().regex(/^tok_[a-z2-7]+$/, 'must be a token id (tok_…)') });
const pageOnly = z.strictObject(pageQuery);

export const credentialRoutes = [
  defineRoute({
    method: 'get',
    path: '/tenants/{tenant}/api-clients',
    operationId: 'listApiClients',
    summary: "List a tenant's API clients",
    tag: TAG,
    scopes: ['tenants:read'],
    params: tenantParams,
    query: pageOnly,
    responses: { 200: { description: 'A page of API clients', schema: listEnvelope(apiClientSchema) } },
    handler: (input) =>
      pagedList(
        input,
        `api-clients:${input.params.tenant}`,
        (after, limit) => listApiClients(input.context, input.params.tenant, after, limit),
        presentApiClient,
      ),
  }),
  defineRoute({
    method: 'post',
    path: '/tenants/{tenant}/api-clients',
    operationId: 'createApiClient',
    summary: 'Create an API client for a tenant of the subtree',
    tag: TAG,
    scopes: ['tenants:write'],
    params: tenantParams,
    body: z.strictObject({ name: z.string().trim().min(1).max(200) }),
    responses: { 201: { description: 'Created', schema: apiClientSchema, headers: ['Location', 'Idempotent-Replayed'] } },
    handler: async (input) => {
      const client = await createApiClient(writeContext(input), input.params.tenant, input.body.name);
      return { status: 201, body: presentApiClient(client), etag: true, headers: { Location: `/api/v1/api-clients/${client.id}` } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api-clients/{client}',
    operationId: 'getApiClient',
    summary: 'Get an API client',
    tag: TAG,
    scopes: ['tenants:read'],
    params: clientParams,
    responses: { 200: { description: 'The API client', schema: apiClientSchema, headers: ['ETag'] } },
    handler: async (input) => ({ status: 200, body: presentApiClient(await getApiClient(input.context, input.params.client)), etag: true }),
  }),
  defineRoute({
    method: 'get',
    path: '/api-clients/{client}/tokens',
    operationId: 'listTokens',
    summary: "List an API client's tokens (never the secrets)",
    tag: TAG,
    scopes: ['tenants:read'],
    params: clientParams,
    query: pageOnly,
    responses: { 200: { description: 'A page of tokens', schema: listEnvelope(tokenSchema) } },
    handler: (input) => {
      const now = input.services.clock.now();
      return pagedList(
        input,
        `tokens:${input.params.client}`,
        (after, limit) => listTokens(input.context, input.params.client, after, limit),
        (t) => presentToken(t, now),
      );
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api-clients/{client}/tokens',
    operationId: 'createToken',
    summary: 'Issue a token',
    description:
      'Returns the secret once, in `token`; only its hash is stored. The token carries the prefix of this deployment. It may hold only scopes the calling token holds. `user_id` ties it to a user of the same tenant, whose permissions then apply (e.g. `tenants.billing_link` for the act-as auto-link). `policy` confines it further to zones, owner names, record types, client addresses and a time (docs/credentials.md); a calling token with a policy issues only tokens within it (403 `credential_policy`).',
    tag: TAG,
    scopes: ['tenants:write'],
    params: clientParams,
    body: z.strictObject({
      name: z.string().trim().min(1).max(200),
      scopes: z.array(z.enum(SCOPES)).min(1).max(SCOPES.length),
      expires_at: z.iso
        .datetime()
        .transform((s) => new Date(s))
        .nullable()
        .optional(),
      user_id: z
        .string()
        .regex(/^usr_[a-z2-7]+$/)
        .nullable()
        .optional(),
      policy: credentialPolicyInput.nullable().optional(),
    }),
    responses: {
      201: {
        description: 'Issued; `token` is shown only now',
        schema: tokenSchema.extend({ token: z.string() }),
        headers: ['Location', 'Idempotent-Replayed'],
      },
    },
    handler: async (input) => {
      const { token, secret } = await createToken(writeContext(input), input.services.config.deployment, input.params.client, input.body);
      return {
        status: 201,
        body: { ...presentToken(token, input.services.clock.now()), token: secret },
        headers: { Location: `/api/v1/tokens/${token.id}` },
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/tokens/{token}',
    operationId: 'getToken',
    summary: 'Get a token (never the secret)',
    tag: TAG,
    scopes: ['tenants:read'],
    params: tokenParams,
    responses: { 200: { description: 'The token', schema: tokenSchema, headers: ['ETag'] } },
    handler: async (input) => ({
      status: 200,
      body: presentToken(await getToken(input.context, input.params.token), input.services.clock.now()),
      etag: true,
    }),
  }),
  defineRoute({
    method: 'delete',
    path: '/tokens/{token}',
    operationId: 'revokeToken',
    summary: 'Revoke a token',
    description: 'The token answers 401 from now on. Revoking a revoked token changes nothing.',
    tag: TAG,
    scopes: ['tenants:write'],
    params: tokenParams,
    responses: { 200: { description: 'The revoked token', schema: tokenSchema } },
    handler: async (input) => ({
      status: 200,
      body: presentToken(await revokeToken(writeContext(input), input.params.token), input.services.clock.now()),
    }),
  }),
  defineRoute({
    method: 'get',
    path: '/tenants/{tenant}/users',
    operationId: 'listUsers',
    summary: "List a tenant's users",
    tag: TAG,
    scopes: ['tenants:read'],
    params: tenantParams,
    query: pageOnly,
    responses: { 200: { description: 'A page of users', schema: listEnvelope(userSchema) } },
    handler: (input) =>
      pagedList(input, `users:${input.params.tenant}`, (after, limit) => listUsers(input.context, input.params.tenant, after, limit), presentUser),
  }),
  defineRoute({
    method: 'post',
    path: '/tenants/{tenant}/users',
    operationId: 'createUser',
    summary: 'Create a user that tokens can be tied to',
    tag: TAG,
    scopes: ['tenants:write'],
    params: tenantParams,
    body: z.strictObject({
      email: z.email().max(254),
      permissions: z.array(z.enum(Object.values(USER_PERMISSIONS) as [string, ...string[]])).default([]),
    }),
    errors: ['conflict'],
    responses: { 201: { description: 'Created', schema: userSchema, headers: ['Idempotent-Replayed'] } },
    handler: async (input) => ({
      status: 201,
      body: presentUser(await createUser(writeContext(input), input.params.tenant, input.body.email, input.body.permissions)),
    }),
  }),
];
