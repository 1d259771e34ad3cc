// The OpenAPI 3.1 document, generated from the same route declarations and zod schemas that
// validate requests, so the description cannot drift from the behaviour.
import { z } from 'zod';
import type { Config } from '../../config/index.js';
import { errorCatalogue, type ErrorCode } from '../../domain/errors.js';
import { RECORD_TYPE_RULES, RECORD_TYPES } from '../../domain/records/types.js';
import { problemSchema } from '../resources/common.js';
import { eventSchemas } from '../resources/webhooks/eventSchemas.js';
import type { RouteSpec } from '../routing/route.js';

type Json = Record<string, unknown>;

const toSchema = (schema: z.ZodType, io: 'input' | 'output'): Json => {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Json;
  return rest;
};

const HEADER_DOCS: Record<string, Json> = {
  ETag: { description: 'Strong validator of the representation; send as If-Match or If-None-Match.', schema: { type: 'string' } },
  Location: { description: 'URL of the created resource.', schema: { type: 'string' } },
  'Idempotent-Replayed': {
    description:
      '`true` when this is the stored response (or problem) of an earlier request with the same Idempotency-Key; `false` otherwise, also without a key.',
    schema: { type: 'string', enum: ['true', 'false'] },
  },
  Link: { description: 'RFC 8288 link to the next page (`rel="next"`).', schema: { type: 'string' } },
  'Preference-Applied': {
    description:
      '`wait=N` (RFC 7240) when the request’s `Prefer: wait=N` was honoured: the answer waited until the change set was `live` (or `failed`), or N seconds (at most 60), and shows the state it had then.',
    schema: { type: 'string', examples: ['wait=10'] },
  },
};

/** A parameter a client may leave out: the request headers, and the query of /nic/update. */
const optional = (where: 'header' | 'query', name: string, schema: Json, description?: string): Json => ({
  name,
  in: where,
  required: false,
  ...(description ? { description } : {}),
  schema,
});
const STRING = { type: 'string' };

/** `Prefer: wait` on the writes that declare liveWait (docs/api-conventions.md "Waiting until live"). */
const PREFER_WAIT = optional(
  'header',
  'Prefer',
  { type: 'string', examples: ['wait=10'] },
  '`wait=N` (RFC 7240, N whole seconds, at most 60 are applied): answer once the write’s change set is `live` or `failed`, or after N seconds, with the publication state as it is then; the status code stays. Other preferences and a malformed `wait` are ignored. Answered with `Preference-Applied: wait=N`.',
);

const COMMON_RESPONSE_HEADERS: Json = {
  'X-Request-Id': { description: 'Identifies the request; equal to `request_id` in problems.', schema: { type: 'string' } },
  'RateLimit-Limit': { description: 'Requests allowed in the current one-minute window.', schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Requests left in the window.', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the window resets.', schema: { type: 'integer' } },
};

/** Problems every authenticated operation may answer. */
const ALWAYS: ErrorCode[] = [
  'unauthenticated',
  'insufficient_scope',
  'credential_policy',
  'act_as_not_allowed',
  'act_as_unknown',
  'tenant_suspended',
  'rate_limited',
  'validation_failed',
];
const WRITES: ErrorCode[] = [
  'idempotency_key_reused',
  'idempotency_in_progress',
  'payload_too_large',
  'malformed_request',
  'nesting_too_deep',
  'unsupported_media_type',
];

function parametersOf(route: RouteSpec): Json[] {
  const out: Json[] = [];
  const add = (schema: z.ZodType | undefined, where: 'path' | 'query') => {
    if (!schema) return;
    const json = toSchema(schema, 'input') as { properties?: Record<string, Json>; required?: string[] };
    for (const [name, prop] of Object.entries(json.properties ?? {})) {
      const { description, ...propSchema } = prop;
      out.push({
        name,
        in: where,
        required: where === 'path' || (json.required ?? []).includes(name),
        ...(description ? { description } : {}),
        schema: propSchema,
        ...(propSchema.anyOf ? { explode: true } : {}),
      });
    }
  };
  add(route.params, 'path');
  add(route.query, 'query');
  out.push(
    optional('header', 'X-Act-As-Customer', STRING, 'Act for a customer: `ten_…` or `billing:<client_id>` (scope `act_as`).'),
    optional('header', 'Accept-Language', STRING, '`en` (default) or `de` for problem texts.'),
  );
  if (route.method === 'post' || route.method === 'patch') {
    out.push(
      optional(
        'header',
        'Idempotency-Key',
        { type: 'string', maxLength: 255 },
        'Up to 255 printable ASCII characters; the first response is replayed for 24 hours.',
      ),
    );
  }
  if (route.liveWait) out.push(PREFER_WAIT);
  if (route.method === 'get') out.push(optional('header', 'If-None-Match', STRING));
  if (route.method === 'patch' || route.method === 'delete') out.push(optional('header', 'If-Match', STRING));
  return out;
}

function operationOf(route: RouteSpec): Json {
  const responses: Json = {};
  for (const [status, spec] of Object.entries(route.responses)) {
    responses[status] = {
      description: spec.description,
      headers: {
        ...COMMON_RESPONSE_HEADERS,
        ...Object.fromEntries((spec.headers ?? []).map((h) => [h, HEADER_DOCS[h] ?? { schema: { type: 'string' } }])),
      },
      ...(spec.schema ? { content: { [spec.contentType ?? 'application/json']: { schema: toSchema(spec.schema, 'output') } } } : {}),
    };
  }
  const codes = new Set<ErrorCode>([...ALWAYS, ...(route.method === 'get' ? [] : WRITES), ...(route.errors ?? [])]);
  if (route.params) codes.add('not_found');
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = errorCatalogue[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status)] = {
      description: `Problem: ${list.map((c) => `\`${c}\``).join(', ')}`,
      // Problems are counted like any answer; with an Idempotency-Key most are stored and replayed.
      headers: {
        ...COMMON_RESPONSE_HEADERS,
        ...(route.method === 'post' || route.method === 'patch' ? { 'Idempotent-Replayed': HEADER_DOCS['Idempotent-Replayed'] } : {}),
      },
      content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
    };
  }
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.tag],
    'x-required-scopes': route.scopes,
    ...(route.feature ? { 'x-feature': route.feature } : {}),
    security: [{ bearer: route.scopes }],
    parameters: parametersOf(route),
    ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: toSchema(route.body, 'input') } } } } : {}),
    responses,
  };
}

/**
 * GET /nic/update lives outside the base path (spec "Dynamic DNS"): its own server, Basic auth
 * (or credentials in the query) and plain-text answers (docs/dyndns.md).
 */
const NIC_UPDATE: Json = {
  servers: [{ url: '/', description: 'The service root: /nic/update is outside /api/v1' }],
  get: {
    operationId: 'nicUpdate',
    summary: 'dyndns2 update of a DynDNS host (routers: Fritz!Box, OpenWrt, pfSense, ddclient, inadyn)',
    description:
      'The credentials are the host’s `username` and `password` (HTTP Basic, or `username`/`password` in the query). ' +
      'Without `myip`/`myipv6` the client’s own address is used (behind a trusted proxy: X-Forwarded-For, `DYNDNS_TRUSTED_PROXIES`). ' +
      'A family not given is left as it is. One plain-text line per host name: `good <ip>` (changed: one change set, published like any), ' +
      '`nochg <ip>` (already so; nothing written), `badauth` (HTTP 401), `nohost` (not this host’s name), `notfqdn`, `abuse` (rate limit, or the tenant is suspended), ' +
      '`dnserr` (the zone refused the records, or the client’s own address cannot be published; HTTP 400 when `myip`/`myipv6` cannot be read or is an address no one can reach: ' +
      'unspecified, broadcast, reserved, loopback, link-local, multicast, with a zone index, and documentation ranges in production), `911` (the service failed; try again later). ' +
      'Failed logins are limited per client address, each counted before its password is checked. See docs/dyndns.md.',
    tags: ['Dynamic DNS'],
    security: [{ dyndnsBasic: [] }, {}],
    parameters: [
      optional('query', 'hostname', STRING, 'Comma-separated host names; default: the credentials’ host'),
      optional(
        'query',
        'myip',
        STRING,
        'IPv4 or IPv6 address, or one of each comma-separated; one others can reach (docs/dyndns.md "Addresses a router may publish")',
      ),
      optional('query', 'myipv6', STRING, 'IPv6 address'),
      optional('query', 'offline', { type: 'string', enum: ['YES', 'NO'] }, '`YES`: withdraw the host’s addresses until the next update'),
      optional('query', 'username', STRING, 'Instead of Basic auth'),
      optional('query', 'password', STRING, 'Instead of Basic auth'),
    ],
    responses: {
      200: { description: 'One answer line per host name', content: { 'text/plain': { schema: { type: 'string', examples: ['good 192.0.2.1\n'] } } } },
      400: { description: '`dnserr`: an address that cannot be read or published', content: { 'text/plain': { schema: { type: 'string' } } } },
      401: { description: '`badauth`', content: { 'text/plain': { schema: { type: 'string' } } } },
    },
  },
};

export function buildOpenApiDocument(routes: RouteSpec[], config: Config): Json {
  const paths: Record<string, Json> = { '/nic/update': NIC_UPDATE };
  for (const route of routes) {
    paths[route.path] = { ...(paths[route.path] ?? {}), [route.method]: operationOf(route) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Managed DNS API',
      version: '1.0.0',
      description:
        'Zones, records, change sets, DNSSEC, reverse DNS and dynamic DNS for a hosting provider, its resellers and their customers. ' +
        `This is the ${config.deployment} deployment. Every call needs \`Authorization: Bearer <token>\` (use **Authorize**, then **Try it out**). ` +
        'The overview of the interface (authentication, acting for a customer, errors, pagination, idempotency, ETags, rate limits) is `docs/api.md` in the repository; ' +
        'the problem codes are listed at the end of /docs.',
    },
    servers: [{ url: '/api/v1' }],
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: '`svc_live_…` (production) or `svc_test_…` (sandbox) token.' },
        dyndnsBasic: { type: 'http', scheme: 'basic', description: 'A DynDNS host’s username and password (GET /nic/update only).' },
      },
      schemas: { Problem: toSchema(problemSchema, 'output'), ...recordDataSchemas() },
    },
    paths,
    webhooks: webhookEvents(),
  };
}

/**
 * `RecordData<TYPE>`: the `data` object of each record type, from the type's policy row (the schema
 * that validates it), so a type added to the table is described without touching this file.
 */
function recordDataSchemas(): Record<string, Json> {
  return Object.fromEntries(
    RECORD_TYPES.map((type) => [
      `RecordData${type}`,
      { ...toSchema(RECORD_TYPE_RULES[type]!.data, 'input'), description: `\`data\` of a ${type} record (docs/records.md).` },
    ]),
  );
}

/** What a receiver gets (OpenAPI 3.1 `webhooks`): one signed POST per event and webhook. */
function webhookEvents(): Record<string, Json> {
  const headers = [
    {
      name: 'Service-Signature',
      in: 'header',
      required: true,
      description:
        '`t=<unix seconds>,v1=<hex>`: v1 = hex(HMAC-SHA256(secret, "<t>.<raw body>")). During the 24 hours after a rotation a second `v1=` (the old secret) follows; accept any. Compare in constant time; reject a `t` more than 5 minutes off.',
      schema: { type: 'string' },
    },
    {
      name: 'Service-Delivery',
      in: 'header',
      required: true,
      description: 'The delivery (this event to this webhook): the same on every retry. De-duplicate by it or by the event `id`.',
      schema: { type: 'string' },
    },
    { name: 'Service-Event', in: 'header', required: true, description: 'The event `type`.', schema: { type: 'string' } },
  ];
  return Object.fromEntries(
    Object.entries(eventSchemas).map(([kind, schema]) => [
      kind,
      {
        post: {
          summary: kind,
          description: `${schema.description ?? ''} Success is any 2xx within 10 seconds; otherwise retries after 1 min, 5 min, 30 min, 2 h, 6 h, 12 h and 24 h (8 attempts). Redirects are not followed.`,
          parameters: headers,
          requestBody: { required: true, content: { 'application/json': { schema: toSchema(schema, 'output') } } },
          responses: { '200': { description: 'Received (any 2xx).' } },
        },
      },
    ]),
  );
}
