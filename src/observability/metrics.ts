import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { ServerStats } from '../../nameserver/server.js';

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

/** The nameserver's own counters, read when /metrics is scraped. */
export function registerNameserverMetrics(registry: Registry, stats: () => ServerStats, zonesLoaded: () => number): void {
  const gauge = (name: string, help: string, labelNames: string[], read: (set: (labels: Record<string, string>, v: number) => void) => void) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        this.reset();
        read((labels, v) => this.set(labels, v));
      },
    });
  gauge('dns_queries_received', 'DNS messages received since start, by transport.', ['transport'], (set) => {
    const s = stats();
    set({ transport: 'udp' }, s.queries.udp);
    set({ transport: 'tcp' }, s.queries.tcp);
  });
  gauge('dns_responses_sent', 'DNS responses sent since start, by rcode.', ['rcode'], (set) => {
    for (const [rcode, n] of Object.entries(stats().responses)) set({ rcode }, n);
  });
  gauge('dns_response_cache', 'Response cache hits and misses since start, and entries now.', ['kind'], (set) => {
    const { cache } = stats();
    set({ kind: 'hits' }, cache.hits);
    set({ kind: 'misses' }, cache.misses);
    set({ kind: 'entries' }, cache.entries);
  });
  gauge('dns_handler_errors', 'Messages answered SERVFAIL because handling failed, since start.', [], (set) => set({}, stats().errors));
  gauge('dns_zones_loaded', 'Zones the nameserver serves.', [], (set) => set({}, zonesLoaded()));
}

export type Metrics = ReturnType<typeof createMetrics>;
