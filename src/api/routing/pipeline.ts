// Every API operation runs the same pipeline:
// authenticate → client rate limit (identifyClient, for every path of the API, before the body
// is read) → scopes → act-as → customer rate limit → suspension and features → validate →
// (writes: transaction + idempotency) → handler → (writes: `Prefer: wait`, after commit) →
// ETag/304 → response.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import type { Context, Next } from 'koa';
import { z } from 'zod';
import { canonicalJson } from '../../domain/canonicalJson.js';
import { DomainError } from '../../domain/errors.js';
import { missingScopes } from '../../domain/scopes.js';
import { hasFeature, isEffectivelySuspended } from '../../domain/tenancy.js';
import type { Metrics } from '../../observability/metrics.js';
import type { TokenRecord } from '../../services/storedShapes.js';
import type { Actor } from '../../services/actor.js';
import { authenticate } from '../../services/authenticate.js';
import { assertCredentialAllows, auditCredentialRefusal } from '../../services/credentialPolicy.js';
import type { Services } from '../../services/index.js';
import { type FinalResponse, REPLAYED, runWrite } from '../../services/idempotentWrite.js';
import { consumeAddressLimit, consumeCustomerLimit, type RateLimitReading } from '../../services/rateLimiter.js';
import { markStage } from '../../services/requestDeadline.js';
import { resolveActingTenant } from '../../services/resolveActingTenant.js';
import { writeContextIn } from '../../services/writeContext.js';
import { noneMatch } from '../../domain/model/etag.js';
import { etagOf } from '../etag.js';
import { negotiateLanguage } from '../language.js';
import { answerOnceLive } from './liveWait.js';
import type { HandlerResult, RequestMeta, RouteSpec } from './route.js';
import { assertNestingDepth, parseOrThrow } from './validate.js';

const WRITE_METHODS = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);
const IDEMPOTENT_METHODS = new Set(['POST', 'PATCH']);
const MAX_IDEMPOTENCY_KEY = 255;
// Unknown query parameters are rejected (docs/api-conventions.md), also where none are defined.
const NO_QUERY = z.strictObject({});

function setRateLimitHeaders(ctx: Context, reading: RateLimitReading) {
  ctx.set('RateLimit-Limit', String(reading.limit));
  ctx.set('RateLimit-Remaining', String(reading.remaining));
  ctx.set('RateLimit-Reset', String(reading.resetSeconds));
}

function rateLimited(reading: RateLimitReading) {
  return new DomainError('rate_limited', { retry_after: reading.resetSeconds }, [], { 'Retry-After': String(reading.resetSeconds) });
}

/** When acting for a customer both buckets count; the headers show the tighter one. */
const tighter = (a: RateLimitReading, b: RateLimitReading) => (b.remaining < a.remaining || !b.allowed ? b : a);

function finalize(result: HandlerResult): FinalResponse {
  const headers = { ...(result.headers ?? {}) };
  if (typeof result.etag === 'string') headers.ETag = result.etag;
  else if (result.etag && result.body !== undefined) headers.ETag = etagOf(result.body);
  const isJson = result.contentType === undefined;
  return {
    status: result.status,
    headers,
    body: result.body === undefined ? null : isJson ? JSON.stringify(result.body) : String(result.body),
    contentType: result.contentType ?? 'application/json; charset=utf-8',
  };
}

function fingerprint(ctx: Context): string {
  const query = canonicalJson(Object.fromEntries(new URLSearchParams(ctx.querystring)));
  const body = canonicalJson((ctx.request as { body?: unknown }).body ?? null);
  return createHash('sha256').update(`${ctx.method} ${ctx.path}\n${query}\n${body}`).digest('hex');
}

function idempotencyKeyOf(ctx: Context): string | null {
  if (!IDEMPOTENT_METHODS.has(ctx.method)) return null;
  const key = ctx.get('Idempotency-Key');
  if (!key) return null;
  if (key.length > MAX_IDEMPOTENCY_KEY || !/^[\x20-\x7e]+$/.test(key)) {
    throw new DomainError('validation_failed', {}, [
      { in: 'header', pointer: '/Idempotency-Key', code: 'invalid_format', detail: 'Use 1 to 255 printable ASCII characters (spaces allowed).' },
    ]);
  }
  return key;
}

function requestMeta(ctx: Context): RequestMeta {
  return {
    id: ctx.state.requestId as string,
    language: negotiateLanguage(ctx.get('Accept-Language') || undefined),
    ifMatch: ctx.get('If-Match') || null,
    ifNoneMatch: ctx.get('If-None-Match') || null,
    url: new URL(ctx.originalUrl, `${ctx.protocol}://${ctx.host || 'localhost'}`),
  };
}

/**
 * JSON bodies, and for routes that take an upload also multipart/form-data, whose file field is
 * read into the body under the route's field name (so validation and the idempotency
 * fingerprint see the file's content).
 */
async function readBody(ctx: Context, route: RouteSpec): Promise<void> {
  if (!route.body) return;
  const hasBody = Number(ctx.get('Content-Length') || 0) > 0 || ctx.get('Transfer-Encoding') !== '';
  if (!hasBody || ctx.is('application/json', '+json')) return;
  if (route.upload && ctx.is('multipart/form-data')) {
    const request = ctx.request as unknown as { body?: Record<string, unknown>; files?: Record<string, unknown> };
    const file = request.files?.[route.upload.fileField];
    const one = (Array.isArray(file) ? file[0] : file) as { filepath: string } | undefined;
    const fields = { ...(request.body ?? {}) };
    if (one) {
      fields[route.upload.bodyField] = await fs.readFile(one.filepath, 'utf8');
      await fs.rm(one.filepath, { force: true });
    }
    request.body = fields;
    return;
  }
  const stray = (ctx.request as unknown as { files?: Record<string, { filepath: string } | { filepath: string }[]> }).files ?? {};
  await Promise.all(
    Object.values(stray)
      .flat()
      .map((f) => fs.rm(f.filepath, { force: true })),
  );
  throw new DomainError('unsupported_media_type', { expected: route.upload ? 'application/json, multipart/form-data' : 'application/json' });
}

/** The outcome of identifyClient, for the route that runs after it. */
interface Identified {
  token: TokenRecord | null;
  /** Why there is no token: answered by a matched route; an unknown path stays 404 or 405. */
  failure: DomainError | null;
  reading: RateLimitReading;
}

/** Effects of a read (or of a write's prepare step) run at once: there is no commit to wait for. */
const afterRead = (effect: () => void) => effect();

/**
 * Authenticates every request below the API's base path and counts it — against its API client,
 * or without a valid token against its source address — before its body is read and before the
 * router knows the path: so every answer of the API carries RateLimit-* (400, 404, 405, 413 and
 * 401 included), and a client over its limit gets 429 whatever it asks.
 */
export function identifyClient(services: Services, metrics: Metrics, basePath: string) {
  return async (ctx: Context, next: Next) => {
    // Routes match exactly, but `/API/V1/…` is still meant for the API: it is counted and gets
    // its 404 with the headers every API answer carries, and no spelling escapes the limit.
    // (A CONNECT's target, `host:port`, has no path at all.)
    const path = ((ctx.path as string | null) ?? '').toLowerCase();
    if (path !== basePath && !path.startsWith(`${basePath}/`)) return next();
    let identified: Identified;
    try {
      const { token, clientLimit } = await authenticate(services, ctx.get('Authorization') || undefined);
      identified = { token, failure: null, reading: clientLimit };
      ctx.state.token = token;
    } catch (err) {
      if (!(err instanceof DomainError && err.code === 'unauthenticated')) throw err;
      identified = { token: null, failure: err, reading: await consumeAddressLimit(services.rateLimiter, ctx.ip, services.clock.now()) };
    }
    ctx.state.identified = identified;
    markStage('identified');
    setRateLimitHeaders(ctx, identified.reading);
    if (!identified.reading.allowed) {
      metrics.rateLimited.inc({ bucket: identified.token ? 'client' : 'address' });
      throw rateLimited(identified.reading);
    }
    await next();
  };
}

/**
 * A route's operation. A refusal by the credential's policy (403 credential_policy) is audited
 * here, once for every kind of request, on a connection of its own: the refused write rolled
 * back with everything it did. A replayed refusal was audited when it was first given.
 */
export function routeMiddleware(route: RouteSpec, services: Services, metrics: Metrics) {
  const serve = serveRoute(route, services, metrics);
  return async (ctx: Context) => {
    try {
      await serve(ctx);
    } catch (err) {
      const actor = ctx.state.actor as Actor | undefined;
      if (actor && err instanceof DomainError && err.code === 'credential_policy' && err.headers[REPLAYED] !== 'true') {
        // On the pool: the refused write's transaction rolled back.
        await auditCredentialRefusal(services.db, actor, err, services.clock.now(), { request: `${ctx.method} ${ctx.path}` });
      }
      throw err;
    }
  };
}

function serveRoute(route: RouteSpec, services: Services, metrics: Metrics) {
  return async (ctx: Context) => {
    ctx.state.route = route.path;
    const { clock } = services;
    const identified = ctx.state.identified as Identified | undefined;
    if (!identified) throw new Error('identifyClient must run before the routes');
    if (!identified.token) throw identified.failure!;
    const token = identified.token;
    let reading = identified.reading;

    // The credential's own policy, on every request (reads too), before anything else runs: the
    // addresses it may be used from and its expiry (docs/credentials.md).
    const own: Actor = { requestId: ctx.state.requestId, token, source: ctx.ip || null, acting: token.tenant, actingChain: token.chain, onBehalfOf: false };
    ctx.state.actor = own;
    assertCredentialAllows(own, {}, clock.now());

    const missing = missingScopes(token.scopes, route.scopes);
    if (missing.length) throw new DomainError('insufficient_scope', { scopes: missing.join(', ') });

    const actor: Actor = await resolveActingTenant(services, token, ctx.get('X-Act-As-Customer') || undefined, ctx.state.requestId, own.source);
    ctx.state.actor = actor;
    // A credential confined to some zones: every zone lookup and the zone list see only those.
    const reads = services.contextFor(actor.acting.id, token.policy?.zones ?? null);
    if (actor.onBehalfOf) {
      const customer = await consumeCustomerLimit(services.rateLimiter, actor.acting, clock.now());
      reading = tighter(reading, customer);
      setRateLimitHeaders(ctx, reading);
      if (!customer.allowed) {
        metrics.rateLimited.inc({ bucket: 'customer' });
        throw rateLimited(customer);
      }
    }

    if (!route.allowSuspended && isEffectivelySuspended(actor.actingChain)) {
      throw new DomainError('tenant_suspended', { tenant: actor.acting.id });
    }
    if (route.feature && !hasFeature(actor.actingChain, route.feature)) {
      throw new DomainError('feature_disabled', { feature: route.feature });
    }

    await readBody(ctx, route);
    // Before validation and the idempotency fingerprint walk it (also where the route takes no body).
    assertNestingDepth((ctx.request as { body?: unknown }).body);
    const request = requestMeta(ctx);
    const validated = () => ({
      params: route.params ? parseOrThrow(route.params, ctx.params, 'path') : {},
      query: parseOrThrow(route.query ?? NO_QUERY, { ...ctx.query }, 'query'),
      body: route.body
        ? parseOrThrow(route.body, (ctx.request as { body?: unknown }).body ?? {}, 'body', route.upload ? [route.upload.bodyField] : [])
        : undefined,
      actor,
      services,
      request,
    });

    let response: FinalResponse;
    if (WRITE_METHODS.has(ctx.method)) {
      const key = idempotencyKeyOf(ctx);
      const scope = key ? { apiClientId: token.apiClientId, tenantId: actor.acting.id, key } : null;
      // Invalid input is this request's answer too: with a key it is stored like any refusal.
      let input: ReturnType<typeof validated> | DomainError;
      try {
        input = validated();
      } catch (err) {
        if (!(scope && err instanceof DomainError)) throw err;
        input = err;
      }
      const prepared =
        route.prepare && !(input instanceof DomainError) ? await route.prepare({ ...input, context: reads, write: null, afterCommit: afterRead }) : undefined;
      response = await runWrite(
        reads,
        scope,
        key ? fingerprint(ctx) : '',
        clock.now(),
        async (tx, afterCommit) => {
          if (input instanceof DomainError) throw input;
          const write = writeContextIn(tx, actor, clock, () => afterCommit(() => services.tokens.invalidate()));
          return finalize(await route.handler({ ...input, context: tx, write, afterCommit, prepared }));
        },
        { onRetry: (reason) => metrics.transactionRetries.inc({ reason }) },
      );
      // Committed (or replayed): `Prefer: wait` waits outside the transaction and its retries.
      if (route.liveWait && !(input instanceof DomainError)) {
        response = await answerOnceLive(ctx, route.liveWait, response, { ...input, context: reads, write: null, afterCommit: afterRead }, finalize);
      }
    } else {
      // A read has no transaction to wait for.
      response = finalize(await route.handler({ ...validated(), context: reads, write: null, afterCommit: afterRead }));
    }
    // Spec: the responses that list Idempotent-Replayed carry it whether or not a key was sent.
    if (IDEMPOTENT_METHODS.has(ctx.method) && !(REPLAYED in response.headers) && route.responses[response.status]?.headers?.includes(REPLAYED)) {
      response.headers[REPLAYED] = 'false';
    }

    for (const [name, value] of Object.entries(response.headers)) ctx.set(name, value);
    ctx.status = response.status;
    if (ctx.method === 'GET' && response.headers.ETag && noneMatch(request.ifNoneMatch, response.headers.ETag)) {
      ctx.status = 304;
      ctx.body = null;
      return;
    }
    if (response.body !== null) {
      ctx.type = response.contentType;
      ctx.body = response.body;
    }
  };
}
