// The only module that reads process.env. Everything else receives a Config.
import path from 'node:path';
import { z } from 'zod';
import type { Deployment } from '../domain/deployment.js';
import { parseAddress, parseBlock } from '../domain/ip/address.js';
import { canonicalName } from '../domain/names.js';
import { isTsigAlgorithm, TSIG_ALGORITHMS, type TsigAlgorithm } from '../../nameserver/wire/tsig.js';

export type { Deployment };
export type Role = 'api' | 'nameserver' | 'worker';

export interface Config {
  deployment: Deployment;
  roles: Role[];
  /**
   * With the api role and another in one process, the others run in a thread of their own
   * (docs/operations.md "Processes and roles"), so the nameserver's loads and the builds never
   * hold the thread that answers requests. Off: every role on the main thread (tests with an
   * injected clock).
   */
  threadedRoles: boolean;
  /** The variables this Config was read from: the roles' thread reads its own from them. */
  source: Readonly<Record<string, string | undefined>>;
  http: {
    host: string;
    port: number;
    /** Longest a request may take to arrive whole (headers and body); slower clients are cut off. */
    requestTimeoutMs: number;
    /** An API request unanswered this long is logged as "slow request" with where it waits (src/observability/slowRequestWatch.ts). */
    slowRequestLogMs: number;
  };
  dns: {
    /** Addresses the nameserver listens on (UDP and TCP), IPv4 and/or IPv6. */
    hosts: string[];
    port: number;
    /** Processes answering UDP on the same port (the main one included). */
    udpProcesses: number;
    /** auto: the batched addon when it is built, else node:dgram; batched: the addon or no start (docs/nameserver.md). */
    udpTransport: 'auto' | 'batched' | 'dgram';
    /** The batched UDP addon; null: where `npm install` builds it. */
    udpAddonPath: string | null;
    maxTcpConnections: number;
    maxTcpConnectionsPerClient: number;
    tcpIdleMs: number;
    tcpIoTimeoutMs: number;
    /** Clients allowed AXFR/IXFR (CIDR). */
    transferAllow: string[];
    /** The deployment's TSIG keys (algorithm absent: HMAC-SHA256); when any is set, transfers must be signed with one. */
    tsigKeys: { name: string; secret: Buffer; algorithm?: TsigAlgorithm }[];
    /** Standard secondaries: sent NOTIFY on every new serial, and asked before a version is live. */
    secondaries: HostPort[];
    /**
     * Other nameserver processes of the service (ROLES=nameserver elsewhere) a version must be
     * seen on before it is `live`, besides this process's own nameserver and the secondaries.
     * Absent in a process without its own nameserver: DNS_HOST:DNS_PORT.
     */
    verifyServers: HostPort[] | null;
    /**
     * How long an RFC 2136 UPDATE's answer waits, after the commit, for the change to be served
     * by every nameserver (`live`); 0 answers at the commit (docs/dynamic-update.md).
     */
    updateWaitMs: number;
    /**
     * Response rate limiting of UDP answers (docs/nameserver.md "Response rate limiting"): NSD's
     * defaults; false when DNS_RRL_RATE is 0.
     */
    rateLimit: { rate: number; slip: number; ipv4PrefixLength: number; ipv6PrefixLength: number; tableSize: number; exempt: string[] } | false;
  };
  dataDir: string;
  /**
   * The key that seals secrets at rest (DNSSEC private keys, TSIG and webhook secrets; AES-256-GCM),
   * 32 bytes. Production refuses to start without it; the lab makes one under DATA_DIR (null here:
   * the service reads or creates DATA_DIR/dnssec-kek at start).
   */
  keyEncryptionKey: Buffer | null;
  /** Absent: the service starts an embedded PostgreSQL under dataDir. */
  databaseUrl: string | null;
  embeddedPostgresPort: number;
  /** Bounds on waiting for PostgreSQL: an unresponsive server answers 503, not a hung request. */
  database: DatabaseTimeouts;
  logLevel: string;
  /** UTC wall-clock time "HH:MM" of the nightly lab reset. */
  labResetTime: { hour: number; minute: number };
  /** The lab seeds its reverse DNS (docs/lab.md "Reverse DNS seed"); LAB_RDNS_SEED=off leaves it out (tests of other parts). */
  labReverseDnsSeed: boolean;
  billing: { url: string | null; token: string | null };
  /** Largest JSON request body, in bytes. */
  maxJsonBodyBytes: number;
  dnssec: DnssecConfig;
  webhooks: WebhookConfig;
  mail: MailConfig;
  zones: {
    /**
     * The service's authoritative nameservers: the apex NS set of every zone, SOA MNAME first.
     * Rendered by every publication build, never stored: a worker started with another list
     * builds every zone again (docs/publication.md).
     */
    nameservers: string[];
    /** The provider's own domains: never created through the API, never listed. */
    protectedNames: string[];
    /** Suffixes accepted as registrable beyond the ICANN public suffix list (lab: test, example). */
    extraPublicSuffixes: string[];
    defaultSoaEmail: string;
    /** Zones the backend can serve in all; creation beyond it is backend_capacity_exhausted. */
    backendCapacity: number;
  };
  dyndns: DyndnsConfig;
}

/** GET /nic/update (docs/dyndns.md). */
export interface DyndnsConfig {
  /**
   * Proxies (CIDR) whose X-Forwarded-For names the client: its address is the update's address
   * when the router gives none, and the one failed authentications count against. Empty: the
   * header is never read.
   */
  trustedProxies: string[];
  /** Requests one host may make per minute before it is answered `abuse`. */
  hostUpdatesPerMinute: number;
  /** Failed authentications one client address may make per minute before it is answered `abuse`. */
  authFailuresPerMinute: number;
}

export interface DnssecConfig {
  /** DNSSEC_SIGNING=off: enable, disable and check answer 501 (operators who sign elsewhere). */
  available: boolean;
  /** Algorithm of new keys: 13 (ECDSAP256SHA256, default) or 15 (ED25519). */
  algorithm: 13 | 15;
  /** Days a ZSK signs before the automatic pre-publish rollover replaces it. */
  zskLifetimeDays: number;
  /**
   * The waits of the state machine (DNSKEY and DS TTLs to wait out, seconds). The lab's are short so
   * that enabling and disabling take under two minutes; production waits the real TTLs.
   */
  dnskeyTtl: number;
  dsTtl: number;
  /** How often the worker looks at zones in transition, ms. */
  checkIntervalMs: number;
  /**
   * A zone signed whole from at least `fromRecords` records (stored and served) is signed in a
   * thread of its own (docs/dnssec.md "The signing thread"); `heapMb` bounds that thread's heap
   * (null: Node's default); `rowsPerStatement`, not read from the environment (tests lower it),
   * bounds the records of each statement that writes the version the thread made.
   */
  signingThread: { fromRecords: number; heapMb: number | null; rowsPerStatement?: number };
  /**
   * The trust anchor the chain check validates from, as DS RDATA presentations for the root
   * ("<tag> <alg> <digest type> <hex>"); null in the lab (the lab root's own key, made at start).
   */
  trustAnchors: string[] | null;
  /**
   * A recursive resolver the worker asks for DS records at the parent and for the chain (with CD
   * set: it validates the answers itself). The lab asks its own nameserver instead; production
   * without one cannot observe the parent side.
   */
  resolver: HostPort | null;
  /** An outside validating resolver the chain check must also satisfy (AD on the zone's SOA); null: in-process only. */
  validator: HostPort | null;
}

export interface WebhookConfig {
  /** http:// receivers are accepted (the lab; production only with WEBHOOK_ALLOW_HTTP=on). */
  allowHttp: boolean;
  /**
   * Deliveries may reach loopback, link-local, private and the service's own addresses (the lab's
   * receivers run on the loopback). Production refuses them, checked on the resolved address.
   */
  allowPrivateAddresses: boolean;
  /** Attempts in flight at once in one worker process, and per webhook (a slow receiver's share). */
  concurrency: number;
  perWebhookConcurrency: number;
  /** How often a worker looks for new events and due attempts, ms. */
  pollIntervalMs: number;
}

export interface MailConfig {
  /** smtp://[user:password@]host[:port] (STARTTLS when offered) or smtps://… (TLS from the start); null: the lab's outbox only. */
  smtpUrl: URL | null;
  from: string;
}

export interface DatabaseTimeouts {
  /** Opening a connection (TCP and authentication). */
  connectTimeoutMs: number;
  /** Waiting for a pooled connection. */
  acquireTimeoutMs: number;
  /** One statement: PostgreSQL cancels it after this; the client gives up a second later. */
  statementTimeoutMs: number;
  /** All of one API request's database work, pool waits included (a COMMIT excepted): 503 after. */
  requestTimeoutMs: number;
}

export interface HostPort {
  host: string;
  port: number;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`Invalid configuration: ${variable} ${problem}`);
  }
}

const port = z.coerce.number().int().min(0).max(65535);
const hhmm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be HH:MM (UTC, 24-hour)');
const roleList = z
  .string()
  .transform((s) =>
    s
      .split(',')
      .map((r) => r.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.enum(['api', 'nameserver', 'worker'])).min(1));

const hostnameRe = /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;
const nameList = z
  .string()
  .transform((s) => s.split(',').map(canonicalName).filter(Boolean))
  .pipe(z.array(z.string().regex(hostnameRe, 'must be a comma-separated list of domain names')));

const list = z.string().transform((s) =>
  s
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean),
);
/** 32 bytes as 64 hex digits or base64. */
const keyEncryptionKey = z
  .string()
  .transform((s) => Buffer.from(s, /^[0-9a-fA-F]{64}$/.test(s) ? 'hex' : 'base64'))
  .refine((b) => b.length === 32, 'must be 32 bytes, as 64 hex digits or base64')
  .optional();
const hostPortList = list.transform((items, ctx) =>
  items.map((item) => {
    // host:port, [v6]:port; the port defaults to 53.
    const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/.exec(item);
    const p = Number(m?.[3] ?? 53);
    if (!m || p < 1 || p > 65535) ctx.addIssue({ code: 'custom', message: `"${item}" is not host:port ([v6]:port for IPv6)` });
    return { host: m?.[1] ?? m?.[2] ?? '', port: p };
  }),
);
const cidrList = list.pipe(z.array(z.string().regex(/^[0-9a-fA-F:.]+\/\d{1,3}$/, 'must be a comma-separated list of CIDR blocks (192.0.2.0/24, ::1/128)')));
// [algorithm:]name:base64-secret; without the algorithm, HMAC-SHA256 (the nameserver's default).
const tsigKeyList = list.transform((items, ctx) =>
  items.map((item) => {
    const parts = item.split(':');
    const algorithm = parts.length === 3 ? parts.shift()!.toLowerCase() : undefined;
    const [name, secret] = parts;
    const bytes = Buffer.from(secret ?? '', 'base64');
    if (!name || !secret || parts.length !== 2 || bytes.length < 16)
      ctx.addIssue({ code: 'custom', message: `"${name ?? item}:…" must be [algorithm:]name:base64-secret of at least 16 bytes` });
    if (algorithm !== undefined && !isTsigAlgorithm(algorithm))
      ctx.addIssue({ code: 'custom', message: `"${algorithm}" is not a TSIG algorithm (${TSIG_ALGORITHMS.join(', ')})` });
    const key = { name: canonicalName(name ?? ''), secret: bytes };
    return algorithm !== undefined && isTsigAlgorithm(algorithm) ? { ...key, algorithm } : key;
  }),
);

// The IANA root zone KSKs (KSK-2017 and KSK-2024) as DS: https://data.iana.org/root-anchors/.
const IANA_ROOT_ANCHORS = [
  '20326 8 2 e06d44b80b8f1d39a95c0b0d7c65d08458e880409bbc683457104237c7f8ec8d',
  '38696 8 2 683d2d0acb8c9b712a1948b27f741219298d0a450d612c483af444a4c0fb2b16',
];

// One entry per variable: its parser and default. Order is the order of the README table.
const variables = {
  DEPLOYMENT: z.enum(['sandbox', 'production']).default('sandbox'),
  ROLES: roleList.default(['api', 'nameserver', 'worker']),
  THREADED_ROLES: z.enum(['on', 'off']).default('on'),
  HTTP_HOST: z.string().min(1).default('127.0.0.1'),
  HTTP_PORT: port.default(8080),
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).default(30_000),
  DNS_HOST: list.pipe(z.array(z.string()).min(1)).default(['127.0.0.1']),
  DNS_PORT: port.default(5300),
  DNS_UDP_PROCESSES: z.coerce.number().int().min(1).max(64).default(1),
  DNS_UDP_TRANSPORT: z.enum(['auto', 'batched', 'dgram']).default('auto'),
  DNS_UDP_ADDON: z.string().min(1).optional(),
  DNS_MAX_TCP_CONNECTIONS: z.coerce.number().int().min(1).default(256),
  DNS_MAX_TCP_CONNECTIONS_PER_CLIENT: z.coerce.number().int().min(1).default(32),
  DNS_TCP_IDLE_MS: z.coerce.number().int().min(100).default(10_000),
  DNS_TCP_IO_TIMEOUT_MS: z.coerce.number().int().min(100).default(2000),
  DNS_TRANSFER_ALLOW: cidrList.default(['127.0.0.1/32', '::1/128']),
  DNS_TSIG_KEYS: tsigKeyList.optional(),
  DNS_SECONDARIES: hostPortList.optional(),
  DNS_VERIFY_SERVERS: hostPortList.optional(),
  DNS_UPDATE_WAIT_MS: z.coerce.number().int().min(0).max(60_000).default(10_000),
  // NSD's rrl-* defaults (nsd.conf(5)): 200 responses/s per /24 or /64 and answer, every 2nd limited one truncated.
  DNS_RRL_RATE: z.coerce.number().int().min(0).max(1_000_000).default(200),
  DNS_RRL_SLIP: z.coerce.number().int().min(0).max(255).default(2),
  DNS_RRL_IPV4_PREFIX: z.coerce.number().int().min(0).max(32).default(24),
  DNS_RRL_IPV6_PREFIX: z.coerce.number().int().min(0).max(128).default(64),
  DNS_RRL_TABLE_SIZE: z.coerce.number().int().min(1).max(100_000_000).default(1_000_000),
  DNS_RRL_EXEMPT: cidrList.optional(),
  DATA_DIR: z.string().min(1).default('./.data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  EMBEDDED_PG_PORT: port.default(54329),
  DB_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).default(3000),
  DB_ACQUIRE_TIMEOUT_MS: z.coerce.number().int().min(100).default(5000),
  DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).default(5000),
  DB_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).default(15_000),
  SLOW_REQUEST_LOG_MS: z.coerce.number().int().min(100).default(10_000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LAB_RESET_TIME: hhmm.default('03:00'),
  LAB_RDNS_SEED: z.enum(['on', 'off']).default('on'),
  BILLING_API_URL: z.url({ protocol: /^https?$/ }).optional(),
  BILLING_API_TOKEN: z.string().min(1).optional(),
  MAX_JSON_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(2 * 1024 * 1024),
  NAMESERVERS: nameList.default(['ns1.lab-dns.test', 'ns2.lab-dns.test']),
  PROTECTED_ZONES: nameList.optional(),
  EXTRA_PUBLIC_SUFFIXES: nameList.optional(),
  DEFAULT_SOA_EMAIL: z.email().default('hostmaster@lab-dns.test'),
  BACKEND_ZONE_CAPACITY: z.coerce.number().int().min(1).default(100_000),
  DNSSEC_SIGNING: z.enum(['on', 'off']).default('on'),
  SECRET_KEY_ENCRYPTION_KEY: keyEncryptionKey,
  /** The former name of SECRET_KEY_ENCRYPTION_KEY, still read so that existing deployments start unchanged. */
  DNSSEC_KEY_ENCRYPTION_KEY: keyEncryptionKey,
  DNSSEC_ALGORITHM: z.enum(['13', '15']).transform(Number).default(13),
  DNSSEC_ZSK_LIFETIME_DAYS: z.coerce.number().int().min(1).default(90),
  DNSSEC_TRUST_ANCHORS: list.optional(),
  DNSSEC_CHECK_INTERVAL_MS: z.coerce.number().int().min(50).optional(),
  DNSSEC_RESOLVER: hostPortList.optional(),
  DNSSEC_VALIDATOR: hostPortList.optional(),
  DNSSEC_SIGNING_THREAD_FROM: z.coerce.number().int().min(0).default(5000),
  DNSSEC_SIGNING_THREAD_HEAP_MB: z.coerce.number().int().min(1).optional(),
  DYNDNS_TRUSTED_PROXIES: list
    .pipe(z.array(z.string().regex(/^[0-9a-fA-F:.]+(\/\d{1,3})?$/, 'must be a comma-separated list of addresses or CIDR blocks')))
    .optional(),
  DYNDNS_HOST_UPDATES_PER_MINUTE: z.coerce.number().int().min(1).default(20),
  DYNDNS_AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().min(1).default(20),
  WEBHOOK_ALLOW_HTTP: z.enum(['on', 'off']).optional(),
  WEBHOOK_ALLOW_PRIVATE_ADDRESSES: z.enum(['on', 'off']).optional(),
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1024).default(64),
  WEBHOOK_PER_WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  WEBHOOK_POLL_INTERVAL_MS: z.coerce.number().int().min(20).default(500),
  SMTP_URL: z.url({ protocol: /^smtps?$/ }).optional(),
  MAIL_FROM: z.email().default('noreply@lab-dns.test'),
} as const;

type Parsed = { [K in keyof typeof variables]: z.output<(typeof variables)[K]> };

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = {} as Record<string, unknown>;
  for (const [name, schema] of Object.entries(variables)) {
    const raw = env[name];
    const result = (schema as z.ZodType).safeParse(raw === '' ? undefined : raw);
    if (!result.success) {
      const issue = result.error.issues[0];
      throw new ConfigError(name, `(${JSON.stringify(raw)}): ${issue?.message ?? 'is invalid'}`);
    }
    parsed[name] = result.data;
  }
  const p = parsed as Parsed;
  if (p.DEPLOYMENT === 'production' && !p.DATABASE_URL) {
    throw new ConfigError('DATABASE_URL', 'is required when DEPLOYMENT=production');
  }
  const kek = p.SECRET_KEY_ENCRYPTION_KEY ?? p.DNSSEC_KEY_ENCRYPTION_KEY ?? null;
  if (p.DEPLOYMENT === 'production' && !kek) {
    throw new ConfigError(
      'SECRET_KEY_ENCRYPTION_KEY',
      'is required when DEPLOYMENT=production (it encrypts DNSSEC private keys, TSIG and webhook secrets at rest; DNSSEC_KEY_ENCRYPTION_KEY, its former name, is read too)',
    );
  }
  if (p.SECRET_KEY_ENCRYPTION_KEY && p.DNSSEC_KEY_ENCRYPTION_KEY && !p.SECRET_KEY_ENCRYPTION_KEY.equals(p.DNSSEC_KEY_ENCRYPTION_KEY)) {
    throw new ConfigError('SECRET_KEY_ENCRYPTION_KEY', 'differs from DNSSEC_KEY_ENCRYPTION_KEY, its former name: set one of them');
  }
  if (p.BILLING_API_TOKEN && !p.BILLING_API_URL) {
    throw new ConfigError('BILLING_API_URL', 'is required when BILLING_API_TOKEN is set');
  }
  for (const proxy of p.DYNDNS_TRUSTED_PROXIES ?? []) {
    try {
      if (proxy.includes('/')) parseBlock(proxy);
      else parseAddress(proxy);
    } catch (e) {
      throw new ConfigError('DYNDNS_TRUSTED_PROXIES', `("${proxy}"): ${(e as Error).message}`);
    }
  }
  const [hour, minute] = p.LAB_RESET_TIME.split(':').map(Number) as [number, number];
  return {
    deployment: p.DEPLOYMENT,
    roles: [...new Set(p.ROLES)] as Role[],
    threadedRoles: p.THREADED_ROLES === 'on',
    source: Object.fromEntries(Object.keys(variables).map((name) => [name, env[name]])),
    http: { host: p.HTTP_HOST, port: p.HTTP_PORT, requestTimeoutMs: p.HTTP_REQUEST_TIMEOUT_MS, slowRequestLogMs: p.SLOW_REQUEST_LOG_MS },
    dns: {
      hosts: p.DNS_HOST,
      port: p.DNS_PORT,
      udpProcesses: p.DNS_UDP_PROCESSES,
      udpTransport: p.DNS_UDP_TRANSPORT,
      udpAddonPath: p.DNS_UDP_ADDON ? path.resolve(p.DNS_UDP_ADDON) : null,
      maxTcpConnections: p.DNS_MAX_TCP_CONNECTIONS,
      // RFC 7766 §6.2.3: one client's share stays well below the whole (never above it).
      maxTcpConnectionsPerClient: Math.min(p.DNS_MAX_TCP_CONNECTIONS_PER_CLIENT, p.DNS_MAX_TCP_CONNECTIONS),
      tcpIdleMs: p.DNS_TCP_IDLE_MS,
      tcpIoTimeoutMs: p.DNS_TCP_IO_TIMEOUT_MS,
      transferAllow: p.DNS_TRANSFER_ALLOW,
      tsigKeys: p.DNS_TSIG_KEYS ?? [],
      secondaries: p.DNS_SECONDARIES ?? [],
      verifyServers: p.DNS_VERIFY_SERVERS ?? null,
      updateWaitMs: p.DNS_UPDATE_WAIT_MS,
      rateLimit:
        p.DNS_RRL_RATE === 0
          ? false
          : {
              rate: p.DNS_RRL_RATE,
              slip: p.DNS_RRL_SLIP,
              ipv4PrefixLength: p.DNS_RRL_IPV4_PREFIX,
              ipv6PrefixLength: p.DNS_RRL_IPV6_PREFIX,
              tableSize: p.DNS_RRL_TABLE_SIZE,
              exempt: p.DNS_RRL_EXEMPT ?? [],
            },
    },
    dataDir: path.resolve(p.DATA_DIR),
    keyEncryptionKey: kek,
    databaseUrl: p.DATABASE_URL ?? null,
    embeddedPostgresPort: p.EMBEDDED_PG_PORT,
    database: {
      connectTimeoutMs: p.DB_CONNECT_TIMEOUT_MS,
      acquireTimeoutMs: p.DB_ACQUIRE_TIMEOUT_MS,
      statementTimeoutMs: p.DB_STATEMENT_TIMEOUT_MS,
      requestTimeoutMs: p.DB_REQUEST_TIMEOUT_MS,
    },
    logLevel: p.LOG_LEVEL,
    labResetTime: { hour, minute },
    labReverseDnsSeed: p.LAB_RDNS_SEED === 'on',
    billing: { url: p.BILLING_API_URL ?? null, token: p.BILLING_API_TOKEN ?? null },
    maxJsonBodyBytes: p.MAX_JSON_BODY_BYTES,
    dnssec: {
      available: p.DNSSEC_SIGNING === 'on',
      algorithm: p.DNSSEC_ALGORITHM as 13 | 15,
      zskLifetimeDays: p.DNSSEC_ZSK_LIFETIME_DAYS,
      // RFC 6781 §4.1.4: the DNSKEY RRset's TTL bounds how long a resolver may hold the old keys.
      dnskeyTtl: p.DEPLOYMENT === 'sandbox' ? 10 : 3600,
      dsTtl: p.DEPLOYMENT === 'sandbox' ? 10 : 86400,
      checkIntervalMs: p.DNSSEC_CHECK_INTERVAL_MS ?? (p.DEPLOYMENT === 'sandbox' ? 1000 : 60_000),
      trustAnchors: p.DNSSEC_TRUST_ANCHORS ?? (p.DEPLOYMENT === 'sandbox' ? null : IANA_ROOT_ANCHORS),
      resolver: p.DNSSEC_RESOLVER?.[0] ?? null,
      validator: p.DNSSEC_VALIDATOR?.[0] ?? null,
      signingThread: { fromRecords: p.DNSSEC_SIGNING_THREAD_FROM, heapMb: p.DNSSEC_SIGNING_THREAD_HEAP_MB ?? null },
    },
    webhooks: {
      allowHttp: (p.WEBHOOK_ALLOW_HTTP ?? (p.DEPLOYMENT === 'sandbox' ? 'on' : 'off')) === 'on',
      allowPrivateAddresses: (p.WEBHOOK_ALLOW_PRIVATE_ADDRESSES ?? (p.DEPLOYMENT === 'sandbox' ? 'on' : 'off')) === 'on',
      concurrency: p.WEBHOOK_CONCURRENCY,
      perWebhookConcurrency: Math.min(p.WEBHOOK_PER_WEBHOOK_CONCURRENCY, p.WEBHOOK_CONCURRENCY),
      pollIntervalMs: p.WEBHOOK_POLL_INTERVAL_MS,
    },
    mail: { smtpUrl: p.SMTP_URL ? new URL(p.SMTP_URL) : null, from: p.MAIL_FROM },
    zones: {
      nameservers: p.NAMESERVERS,
      protectedNames: p.PROTECTED_ZONES ?? (p.DEPLOYMENT === 'sandbox' ? ['lab-dns.test', 'lab-hosting.test'] : []),
      extraPublicSuffixes: p.EXTRA_PUBLIC_SUFFIXES ?? (p.DEPLOYMENT === 'sandbox' ? ['test', 'example'] : []),
      defaultSoaEmail: p.DEFAULT_SOA_EMAIL,
      backendCapacity: p.BACKEND_ZONE_CAPACITY,
    },
    dyndns: {
      trustedProxies: p.DYNDNS_TRUSTED_PROXIES ?? [],
      hostUpdatesPerMinute: p.DYNDNS_HOST_UPDATES_PER_MINUTE,
      authFailuresPerMinute: p.DYNDNS_AUTH_FAILURES_PER_MINUTE,
    },
  };
}
