// The only module that reads process.env. Everything else receives a Config.
import path from 'node:path';
import { z } from 'zod';
import type { Deployment } from '../domain/deployment.js';

export type { Deployment };
export type Role = 'api' | 'nameserver' | 'worker';

export interface Config {
  deployment: Deployment;
  roles: Role[];
  http: { host: string; port: number };
  dns: { host: string; port: number };
  dataDir: string;
  /** Absent: the service starts an embedded PostgreSQL under dataDir. */
  databaseUrl: string | null;
  embeddedPostgresPort: number;
  logLevel: string;
  /** UTC wall-clock time "HH:MM" of the nightly lab reset. */
  labResetTime: { hour: number; minute: number };
  billing: { url: string | null; token: string | null };
  /** Largest JSON request body, in bytes. */
  maxJsonBodyBytes: number;
  zones: {
    /** The service's authoritative nameservers: the apex NS set of every zone, SOA MNAME first. */
    nameservers: string[];
    /** The provider's own domains: never created through the API, never listed. */
    protectedNames: string[];
    /** Suffixes accepted as registrable beyond the ICANN public suffix list (lab: test, example). */
    extraPublicSuffixes: string[];
    defaultSoaEmail: string;
    /** Zones the backend can serve in all; creation beyond it is backend_capacity_exhausted. */
    backendCapacity: number;
  };
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
  .transform((s) => s.split(',').map((r) => r.trim()).filter(Boolean))
  .pipe(z.array(z.enum(['api', 'nameserver', 'worker'])).min(1));

const hostnameRe = /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;
const nameList = z
  .string()
  .transform((s) => s.split(',').map((n) => n.trim().toLowerCase().replace(/\.$/, '')).filter(Boolean))
  .pipe(z.array(z.string().regex(hostnameRe, 'must be a comma-separated list of domain names')));

// One entry per variable: its parser and default. Order is the order of the README table.
const variables = {
  DEPLOYMENT: z.enum(['sandbox', 'production']).default('sandbox'),
  ROLES: roleList.default(['api', 'nameserver', 'worker']),
  HTTP_HOST: z.string().min(1).default('127.0.0.1'),
  HTTP_PORT: port.default(8080),
  DNS_HOST: z.string().min(1).default('127.0.0.1'),
  DNS_PORT: port.default(5300),
  DATA_DIR: z.string().min(1).default('./.data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  EMBEDDED_PG_PORT: port.default(54329),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LAB_RESET_TIME: hhmm.default('03:00'),
  BILLING_API_URL: z.url({ protocol: /^https?$/ }).optional(),
  BILLING_API_TOKEN: z.string().min(1).optional(),
  MAX_JSON_BODY_BYTES: z.coerce.number().int().min(1024).default(2 * 1024 * 1024),
  NAMESERVERS: nameList.default(['ns1.lab-dns.test', 'ns2.lab-dns.test']),
  PROTECTED_ZONES: nameList.optional(),
  EXTRA_PUBLIC_SUFFIXES: nameList.optional(),
  DEFAULT_SOA_EMAIL: z.email().default('hostmaster@lab-dns.test'),
  BACKEND_ZONE_CAPACITY: z.coerce.number().int().min(1).default(100_000),
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
  if (p.BILLING_API_TOKEN && !p.BILLING_API_URL) {
    throw new ConfigError('BILLING_API_URL', 'is required when BILLING_API_TOKEN is set');
  }
  const [hour, minute] = p.LAB_RESET_TIME.split(':').map(Number) as [number, number];
  return {
    deployment: p.DEPLOYMENT,
    roles: [...new Set(p.ROLES)] as Role[],
    http: { host: p.HTTP_HOST, port: p.HTTP_PORT },
    dns: { host: p.DNS_HOST, port: p.DNS_PORT },
    dataDir: path.resolve(p.DATA_DIR),
    databaseUrl: p.DATABASE_URL ?? null,
    embeddedPostgresPort: p.EMBEDDED_PG_PORT,
    logLevel: p.LOG_LEVEL,
    labResetTime: { hour, minute },
    billing: { url: p.BILLING_API_URL ?? null, token: p.BILLING_API_TOKEN ?? null },
    maxJsonBodyBytes: p.MAX_JSON_BODY_BYTES,
    zones: {
      nameservers: p.NAMESERVERS,
      protectedNames: p.PROTECTED_ZONES ?? (p.DEPLOYMENT === 'sandbox' ? ['lab-dns.test', 'lab-hosting.test'] : []),
      extraPublicSuffixes: p.EXTRA_PUBLIC_SUFFIXES ?? (p.DEPLOYMENT === 'sandbox' ? ['test', 'example'] : []),
      defaultSoaEmail: p.DEFAULT_SOA_EMAIL,
      backendCapacity: p.BACKEND_ZONE_CAPACITY,
    },
  };
}

/** The variables this service reads, for the README and the start-up message. */
export const configVariables = Object.keys(variables);
