import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/** One registry per service instance, so several instances in one test process do not collide. */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by route template, method and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from request to response, by route template and method.',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: 'api_rate_limited_total',
    help: 'Requests refused with 429, by bucket kind (client or customer).',
    labelNames: ['bucket'] as const,
    registers: [registry],
  });
  return { registry, httpRequests, httpDuration, rateLimited };
}

export type Metrics = ReturnType<typeof createMetrics>;
