import Router, { type RouterMiddleware } from '@koa/router';
import Koa, { type Context, type Next } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import { extendDatabaseDeadline, type InFlightRequests, markStage, withDatabaseDeadline } from '../services/requestDeadline.js';
import { DomainError } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { retryableReason } from '../services/idempotentWrite.js';
import type { Services } from '../services/index.js';
import { DOCS_ASSET_BASE, docsInitScript, loadDocsAssets, renderDocsPage } from './docs/docsPage.js';
import { buildOpenApiDocument } from './docs/openapi.js';
import { writeProblem } from './problem.js';
import { allRoutes } from './resources/index.js';
import { NIC_UPDATE_PATH, nicUpdateHandler } from './resources/dyndns/nicUpdate.js';
import { identifyClient, routeMiddleware } from './routing/pipeline.js';

const API_BASE = '/api/v1';

export interface ReadinessCheck {
  name: string;
  /** Resolves true when the component can serve. */
  check(): Promise<boolean>;
}

export interface AppOptions {
  services: Services;
  logger: Logger;
  metrics: Metrics;
  readiness: ReadinessCheck[];
  /**
   * The periodic jobs of this process by name and state (`ok`, `failing`, `stalled`;
   * docs/operations.md "Background jobs"). One not `ok` makes /healthz `degraded`, still 200.
   */
  jobs?: () => Promise<Record<string, string>>;
  /** Checks that, failing, make /healthz `degraded` (still 200): the service serves, something lags. */
  degradedChecks?: ReadinessCheck[];
  /** Where each request in flight is, for the slow-request watch (src/db/slowRequestWatch.ts). */
  inFlight?: InFlightRequests;
}

/** Maps errors thrown by Koa's parsers and router to the catalogue. */
function toDomainError(err: unknown, maxJsonBodyBytes: number): DomainError | null {
  if (err instanceof DomainError) return err;
  const e = err as { status?: number; type?: string; message?: string; code?: string; headers?: Record<string, string> };
  if (e?.type === 'entity.too.large' || e?.status === 413) return new DomainError('payload_too_large', { limit: maxJsonBodyBytes });
  // formidable: a file over its limit (1009/1016) or a malformed multipart body.
  const httpCode = (err as { httpCode?: number })?.httpCode;
  if (httpCode === 413) return new DomainError('payload_too_large', { limit: 1024 * 1024 });
  if (httpCode === 400) return new DomainError('malformed_request', { reason: 'multipart_unreadable' });
  // A body whose Content-Encoding (gzip, deflate, br) does not match its bytes: the client's fault.
  if (typeof e?.code === 'string' && /^(Z_[A-Z_]+|ERR__ERROR_\w+|ERR_BROTLI_\w+)$/.test(e.code)) {
    return new DomainError('malformed_request', { reason: 'body_not_decompressible' });
  }
  if (e?.type === 'entity.parse.failed' || (e?.status === 400 && /json|parse/i.test(e.message ?? ''))) {
    return new DomainError('malformed_request', { reason: 'body_not_json' });
  }
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported' || e?.status === 415) {
    return new DomainError('unsupported_media_type', { expected: 'application/json; charset=utf-8' });
  }
  if (e?.status === 400) return new DomainError('malformed_request', { reason: 'body_unreadable' });
  // Still a deadlock victim after the pipeline's retries (src/db/transaction.ts): nothing was
  // stored and the next try will most likely pass.
  if (retryableReason(err) !== null) {
    return new DomainError('service_unavailable', { reason: 'write_contention' }, [], { 'Retry-After': '1' });
  }
  if (isDatabaseUnavailable(err)) {
    return new DomainError('service_unavailable', { reason: 'database_unreachable' }, [], { 'Retry-After': '5' });
  }
  return null;
}

/**
 * PostgreSQL gone or silent (connection refused, cut or timed out, shutting down, not accepting connections): the
 * client may retry, and it is our state, not their request, so 503 rather than 500.
 */
function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  // 57014: statement_timeout, 55P03: lock_timeout (src/db/knex.ts) — the database did not answer in time.
  if (
    typeof e?.code === 'string' &&
    (/^(08|57P)/.test(e.code) || e.code === '55000' || e.code === '57014' || e.code === '55P03' || /^(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT)$/.test(e.code))
  )
    return true;
  return /Connection terminated|Knex: Timeout acquiring a connection/.test(e?.message ?? '');
}

export function createApp({ services, logger, metrics, readiness, jobs = async () => ({}), degradedChecks = [], inFlight }: AppOptions): Koa {
  const app = new Koa();
  app.proxy = false;
  const { config } = services;

  // Request id and the access log line: outermost, so every response carries both.
  app.use(async (ctx: Context, next: Next) => {
    const started = process.hrtime.bigint();
    ctx.state.requestId = newId('req', 12);
    ctx.set('X-Request-Id', ctx.state.requestId);
    try {
      if (inFlight) await inFlight.run({ id: ctx.state.requestId, method: ctx.method, path: ctx.path }, next);
      else await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      // A route's pattern, never the path a client made up: a 405 or 429 on `/api/v1/zones/<anything>`
      // must not add a series to /metrics per request.
      const route = (ctx.state.route as string | undefined) ?? (ctx as { _matchedRoute?: string })._matchedRoute ?? 'unmatched';
      metrics.httpRequests.inc({ method: ctx.method, route, status: String(ctx.status) });
      metrics.httpDuration.observe({ method: ctx.method, route }, seconds);
      logger.info(
        {
          request_id: ctx.state.requestId,
          method: ctx.method,
          path: ctx.path,
          route,
          status: ctx.status,
          duration_ms: Math.round(seconds * 1e6) / 1e3,
          api_client_id: ctx.state.token?.apiClientId ?? null,
          token_id: ctx.state.token?.id ?? null,
          acting_tenant_id: ctx.state.actor?.acting.id ?? null,
          on_behalf_of: ctx.state.actor?.onBehalfOf ?? false,
        },
        'request',
      );
    }
  });

  // Every failure becomes a problem document; only the unexpected ones are logged as errors.
  app.use(async (ctx: Context, next: Next) => {
    try {
      await next();
      if (ctx.body === undefined || ctx.body === null) {
        if (ctx.status === 404) throw new DomainError('not_found', { resource: 'resource' });
        if (ctx.status === 405) throw new DomainError('method_not_allowed', { allowed: ctx.response.get('Allow') });
        // The router answers 501 to a method it does not know (TRACE, PROPFIND, CONNECT, …). To
        // the client that is a method this path does not take, or an unknown path: 501 is kept
        // for the DNSSEC operations an operator switched off (docs/api-conventions.md).
        if (ctx.status === 501) {
          if (ctx.response.get('Allow')) throw new DomainError('method_not_allowed', { allowed: ctx.response.get('Allow') });
          ctx.remove('Allow');
          throw new DomainError('not_found', { resource: 'resource' });
        }
      }
    } catch (err) {
      const known = toDomainError(err, config.maxJsonBodyBytes);
      if (known) return writeProblem(ctx, known);
      logger.error({ request_id: ctx.state.requestId, err }, 'unexpected error');
      writeProblem(ctx, new DomainError('internal_error'));
    }
  });

  app.use(async (ctx: Context, next: Next) => {
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cache-Control', 'private, no-cache');
    await next();
  });

  const routes = allRoutes.filter((r) => !r.labOnly || config.deployment === 'sandbox');
  const openApi = buildOpenApiDocument(routes, config);
  const openApiUrl = `${API_BASE}/openapi.json`;
  const docsPage = renderDocsPage(openApi, openApiUrl);
  const docsAssets = loadDocsAssets();
  const docsScript = docsInitScript(openApiUrl);

  // Paths are matched exactly (docs/api-conventions.md "Routing"): case-sensitively, and a
  // trailing slash is another path. A second spelling of a route would be a second cache key,
  // ETag scope and idempotency fingerprint for one resource.
  const exact = { sensitive: true, strict: true };
  const router = new Router(exact);
  router.get('/healthz', async (ctx) => {
    // All at once: each check is bounded on its own, and /healthz answers within the longest bound.
    const run = (checks: ReadinessCheck[]) => Promise.all(checks.map(async (r) => [r.name, await r.check().catch(() => false)] as const));
    // A stalled or failing job leaves the service ready (requests are answered; the job's work
    // waits): 200, so no load balancer takes the process out, with the job named for the monitor.
    const [results, jobStates, softResults] = await Promise.all([run(readiness), jobs().catch((): Record<string, string> => ({})), run(degradedChecks)]);
    const ok = results.every(([, up]) => up);
    const degraded = [
      ...Object.entries(jobStates)
        .filter(([, state]) => state !== 'ok')
        .map(([name]) => name),
      ...softResults.filter(([, fine]) => !fine).map(([name]) => name),
    ];
    ctx.status = ok ? 200 : 503;
    ctx.body = {
      status: !ok ? 'unavailable' : degraded.length ? 'degraded' : 'ok',
      checks: Object.fromEntries([...results.map(([n, up]) => [n, up ? 'ok' : 'down']), ...softResults.map(([n, fine]) => [n, fine ? 'ok' : 'degraded'])]),
      jobs: jobStates,
      ...(degraded.length ? { degraded } : {}),
    };
  });
  router.get('/metrics', async (ctx) => {
    ctx.type = metrics.registry.contentType;
    ctx.body = await metrics.registry.metrics();
  });
  // Swagger UI's own files and our start script only; it fetches the document and tries calls on
  // this origin, and injects inline styles.
  const docsPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
  router.get('/docs', (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Content-Security-Policy', docsPolicy);
    ctx.body = docsPage;
  });
  router.get(`${DOCS_ASSET_BASE}/docs-init.js`, (ctx) => {
    ctx.type = 'application/javascript; charset=utf-8';
    ctx.body = docsScript;
  });
  router.get(`${DOCS_ASSET_BASE}/:file`, (ctx) => {
    const asset = docsAssets.get(ctx.params.file!);
    if (!asset) return;
    ctx.type = asset.type;
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = asset.body;
  });
  router.get(openApiUrl, (ctx) => {
    ctx.body = openApi;
  });
  // dyndns2 routers (docs/dyndns.md): their own authentication and plain-text answers.
  router.get(NIC_UPDATE_PATH, nicUpdateHandler(services, logger, metrics));

  const api = new Router({ ...exact, prefix: API_BASE });
  api.use((ctx, next) => {
    ctx.state.bodyReadStarted = performance.now();
    return next();
  });
  api.use(
    koaBody({
      json: true,
      jsonLimit: config.maxJsonBodyBytes,
      jsonStrict: true,
      urlencoded: false,
      text: false,
      // Uploads (zone files): one file per request, size checked by the route's limit.
      multipart: true,
      formidable: { maxFiles: 1, maxFileSize: 1024 * 1024, maxFields: 20, maxFieldsSize: 64 * 1024, allowEmptyFiles: true, minFileSize: 0 },
      parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
    }) as unknown as RouterMiddleware,
  );
  // The time the body took to arrive is the client's (HTTP_REQUEST_TIMEOUT_MS bounds it), not the
  // request's database time: the bound set at arrival moves on by as much.
  api.use((ctx, next) => {
    markStage('body_read');
    extendDatabaseDeadline(performance.now() - (ctx.state.bodyReadStarted as number));
    return next();
  });
  for (const route of routes) {
    const koaPath = route.path.replace(/\{(\w+)\}/g, ':$1');
    api.register(koaPath, [route.method.toUpperCase()], routeMiddleware(route, services, metrics) as unknown as RouterMiddleware, {
      name: route.operationId,
    });
  }

  // All of a request's database work — authentication before its body, pool waits, statements, a
  // retried transaction, /nic/update's too — ends within DB_REQUEST_TIMEOUT_MS of its arrival
  // (plus the time its body took), then 503 (docs/operations.md; a COMMIT is never cut).
  app.use((_ctx, next) => withDatabaseDeadline(config.database.requestTimeoutMs, next));
  app.use(router.routes());
  app.use(router.allowedMethods());
  // Before the API router reads bodies and matches paths: every API answer is counted.
  app.use(identifyClient(services, metrics, API_BASE));
  app.use(api.routes());
  app.use(api.allowedMethods());
  return app;
}
