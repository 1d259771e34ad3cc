import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** One registry per service instance, so several instances in one test process do not collide. */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) => new Counter({ name, help, labelNames, registers: [registry] });
  const httpRequests = counter('http_requests_total', 'HTTP requests answered, by route template, method and status.', ['method', 'route', 'status']);
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from request to response, by route template and method.',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const rateLimited = counter('api_rate_limited_total', 'Requests refused with 429, by bucket kind (client or customer).', ['bucket']);
  const dyndnsAnswers = counter(
    'dyndns_answers_total',
    'Answer lines of /nic/update, by dyndns2 code (good, nochg, badauth, nohost, notfqdn, abuse, dnserr, 911): one per host name asked.',
    ['code'],
  );
  const transactionRetries = counter(
    'db_transaction_retries_total',
    'Request transactions run again from the start because PostgreSQL aborted them (deadlock_detected, serialization_failure).',
    ['reason'],
  );
  const slowRequests = counter(
    'http_slow_requests_total',
    'API requests still unanswered after SLOW_REQUEST_LOG_MS, by the step they were at (each logged as "slow request").',
    ['stage'],
  );
  return { registry, httpRequests, httpDuration, rateLimited, dyndnsAnswers, transactionRetries, slowRequests };
}

/**
 * What /metrics shows of the nameserver. The service fills it (src/service.ts) from the nameserver's
 * counters, so that this module depends on no nameserver code. Counts since start, summed over the
 * processes answering (the main process and its DNS_UDP_PROCESSES helpers, docs/nameserver.md).
 */
export interface NameserverCounters {
  queries: { udp: number; tcp: number };
  /** By rcode name. */
  responses: Readonly<Record<string, number>>;
  cache: { hits: number; misses: number; entries: number };
  errors: number;
  /** UDP responses the rate limit dropped, and those it sent truncated instead. */
  rateLimit: { dropped: number; slipped: number };
  /** Messages received by each process: "main", "helper-1", … */
  queriesByProcess: Readonly<Record<string, number>>;
  zonesLoaded: number;
  /** The UDP transport chosen at start: "batched" (recvmmsg/sendmmsg) or "dgram". */
  udpTransport: string;
  /** UDP answers the kernel did not take (all processes). */
  udpUnsent: number;
}

/** Reads the counters; may ask other processes, so it is asynchronous. */
export type NameserverCountersProvider = () => Promise<NameserverCounters>;

/** The nameserver's own counters, read when /metrics is scraped (the caller shares one read among the gauges of a scrape). */
export function registerNameserverMetrics(registry: Registry, read: NameserverCountersProvider): void {
  const gauge = (
    name: string,
    help: string,
    labelNames: string[],
    fill: (c: NameserverCounters, set: (labels: Record<string, string>, v: number) => void) => void,
  ) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        const counters = await read();
        this.reset();
        fill(counters, (labels, v) => this.set(labels, v));
      },
    });
  gauge('dns_queries_received', 'DNS messages received since start, by transport (all processes).', ['transport'], (c, set) => {
    set({ transport: 'udp' }, c.queries.udp);
    set({ transport: 'tcp' }, c.queries.tcp);
  });
  gauge('dns_queries_received_by_process', 'DNS messages received since start, by answering process (main, helper-N).', ['process'], (c, set) => {
    for (const [process, n] of Object.entries(c.queriesByProcess)) set({ process }, n);
  });
  gauge('dns_responses_sent', 'DNS responses sent since start, by rcode (all processes).', ['rcode'], (c, set) => {
    for (const [rcode, n] of Object.entries(c.responses)) set({ rcode }, n);
  });
  gauge('dns_response_cache', 'Response cache hits and misses since start, and entries now (all processes).', ['kind'], (c, set) => {
    set({ kind: 'hits' }, c.cache.hits);
    set({ kind: 'misses' }, c.cache.misses);
    set({ kind: 'entries' }, c.cache.entries);
  });
  gauge('dns_handler_errors', 'Messages answered SERVFAIL because handling failed, since start (all processes).', [], (c, set) => set({}, c.errors));
  gauge(
    'dns_rate_limited',
    'UDP responses over the response rate limit since start, by what was sent instead: nothing (dropped) or a truncated reply (slipped) (all processes).',
    ['action'],
    (c, set) => {
      set({ action: 'dropped' }, c.rateLimit.dropped);
      set({ action: 'slipped' }, c.rateLimit.slipped);
    },
  );
  gauge('dns_zones_loaded', 'Zones the nameserver serves.', [], (c, set) => set({}, c.zonesLoaded));
  gauge('dns_udp_transport_info', 'The UDP transport chosen at start (batched: recvmmsg/sendmmsg; dgram: node:dgram), always 1.', ['transport'], (c, set) =>
    set({ transport: c.udpTransport }, 1),
  );
  gauge('dns_udp_answers_unsent', 'UDP answers the kernel did not take (a full send buffer), since start (all processes).', [], (c, set) =>
    set({}, c.udpUnsent),
  );
}

export type Metrics = ReturnType<typeof createMetrics>;

/** A gauge per value of one label, read from the counts a part of the service keeps. */
function countsByLabel(registry: Registry, name: string, help: string, label: string, counts: () => Promise<Record<string, number>>): void {
  new Gauge({
    name,
    help,
    labelNames: [label],
    registers: [registry],
    async collect() {
      for (const [value, n] of Object.entries(await counts())) this.set({ [label]: value }, n);
    },
  });
}

/** One secondary of a secondary set as the publication verifier last saw it (src/publication/secondaryLag.ts). */
export interface SecondaryLagMetric {
  setId: string;
  address: string;
  /** Serials behind the published one, -1 when it answered none. */
  serials: number;
  seconds: number;
}

/** secondary_lag_serials and secondary_lag_seconds per set and address (docs/operations.md). */
export function registerSecondaryLagMetrics(registry: Registry, read: () => Promise<SecondaryLagMetric[]>): void {
  const gauge = (name: string, help: string, value: (r: SecondaryLagMetric) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['set', 'address'],
      registers: [registry],
      async collect() {
        const readings = await read();
        this.reset();
        for (const r of readings) this.set({ set: r.setId, address: r.address }, value(r));
      },
    });
  gauge(
    'secondary_lag_serials',
    'Serials a secondary of a set is behind the published one, at most over the zones waiting on it; -1 when it answered none; 0 when none waits on it.',
    (r) => r.serials,
  );
  gauge(
    'secondary_lag_seconds',
    'How long the oldest version waiting on a secondary of a set has waited, in seconds; 0 when none waits on it.',
    (r) => r.seconds,
  );
}

/** Zone versions built by the publication worker, by how the build signed them (docs/dnssec.md). */
export function registerBuildMetrics(registry: Registry, builds: () => Promise<Record<'unsigned' | 'by_change' | 'whole', number>>): void {
  countsByLabel(
    registry,
    'zone_builds_total',
    'Zone versions built since start, by signing: unsigned, by_change (a signed zone signed by the names a change touched), whole (signed whole).',
    'signing',
    builds,
  );
}

/** Webhook attempts this process made, by outcome, and those running now (docs/webhooks.md). */
export function registerWebhookMetrics(registry: Registry, attempts: () => Promise<Record<string, number>>, running: () => Promise<number>): void {
  countsByLabel(
    registry,
    'webhook_attempts_total',
    'Webhook delivery attempts made by this process since start, by outcome (success, http_error, timeout, connection_failed, refused_address, invalid_url, internal_error).',
    'outcome',
    attempts,
  );
  new Gauge({
    name: 'webhook_attempts_in_flight',
    help: 'Webhook delivery attempts running in this process now.',
    registers: [registry],
    async collect() {
      this.set(await running());
    },
  });
}

/**
 * Passwords of /nic/update checked with scrypt by this process (docs/dyndns.md "Rate limits"): a
 * cached password costs none, and failed logins beyond the limit are not checked, so a flood of
 * guesses shows here as at most the limit per address and minute.
 */
export function registerDyndnsMetrics(registry: Registry, passwordChecks: () => number): void {
  new Gauge({
    name: 'dyndns_password_checks_total',
    help: 'Passwords of /nic/update verified with scrypt by this process since start (remembered passwords and refused attempts cost none).',
    registers: [registry],
    collect() {
      this.set(passwordChecks());
    },
  });
}

/** API answers waiting until their change sets are live (`Prefer: wait`, docs/api-conventions.md). */
export function registerLiveWaitMetrics(registry: Registry, waiting: () => number): void {
  new Gauge({
    name: 'api_live_waiters',
    help: 'API requests of this process waiting now until their change sets are live (Prefer: wait); each holds no database connection.',
    registers: [registry],
    collect() {
      this.set(waiting());
    },
  });
}

/** A periodic job as /metrics shows it (src/jobs/jobMonitor.ts fills it). */
export interface JobMetrics {
  state: string;
  /** Unix seconds; null: no successful run yet. */
  lastSuccess: number | null;
  runs: Record<string, number>;
}

/**
 * Per periodic job: when it last succeeded, its runs by outcome, and whether it is degraded — an
 * alert on `time() - job_last_success_timestamp_seconds` finds a loop that stopped (docs/operations.md).
 */
export function registerJobMetrics(registry: Registry, jobs: () => Promise<Record<string, JobMetrics>>): void {
  new Gauge({
    name: 'job_last_success_timestamp_seconds',
    help: 'When each periodic job last finished a run without error (Unix seconds); absent before its first.',
    labelNames: ['job'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const [job, j] of Object.entries(await jobs())) if (j.lastSuccess !== null) this.set({ job }, j.lastSuccess);
    },
  });
  new Gauge({
    name: 'job_runs_total',
    help: 'Runs of each periodic job since start, by outcome: success, failure, overrun (abandoned at its bound).',
    labelNames: ['job', 'outcome'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const [job, j] of Object.entries(await jobs())) for (const [outcome, n] of Object.entries(j.runs)) this.set({ job, outcome }, n);
    },
  });
  new Gauge({
    name: 'job_degraded',
    help: '1 while a periodic job is failing (3 failed runs in a row) or stalled (its last run overran its bound), else 0; as /healthz names them.',
    labelNames: ['job'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const [job, j] of Object.entries(await jobs())) this.set({ job }, j.state === 'ok' ? 0 : 1);
    },
  });
}
