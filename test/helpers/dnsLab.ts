// Shared set-up of the zone, record and change-set tests: the real service with generous rate
// limits (these files make hundreds of requests per minute of the frozen test clock), a direct
// connection to the test's own database for what a user cannot see through the API, and small
// walkers over lists.
import pg from 'pg';
import { expect } from 'vitest';
import type { ApiClient, ApiResponse } from './apiClient.js';
import { startTestService, type TestService, type TestServiceOptions } from './testService.js';

export interface DnsLab extends TestService {
  /** The test database, for checks the API cannot make (and for states only later issues set). */
  sql: pg.Pool;
  customerA: ApiClient;
  customerB: ApiClient;
  reseller: ApiClient;
  platform: ApiClient;
  close(): Promise<void>;
}

export async function startDnsLab(options: TestServiceOptions = {}): Promise<DnsLab> {
  // Only the API role: no nightly lab reset runs while tests move the clock.
  const lab = await startTestService({ ...options, env: { ROLES: 'api', ...options.env } });
  const platform = lab.as(lab.tokens.platform);
  const reseller = lab.as(lab.tokens.reseller);
  const limits = { limits: { api_rate_limit_per_minute: 100_000 } };
  expect((await platform.patch(`/tenants/${lab.tokens.tenants.reseller}`, limits)).status).toBe(200);
  for (const customer of lab.tokens.tenants.customers) {
    expect((await reseller.patch(`/tenants/${customer}`, limits)).status).toBe(200);
  }
  const sql = new pg.Pool({ connectionString: lab.databaseUrl, max: 2 });
  // An idle connection ended by the server (the test database dropped WITH (FORCE) while a second
  // lab on it still held one) is the pool's to replace, not an uncaught error that fails the run
  // (pg.Pool emits it on the pool; seen once in CI, 57P01 in systemRecords.test.ts).
  sql.on('error', () => {});
  return {
    ...lab,
    sql,
    customerA: lab.as(lab.tokens.customers[0]),
    customerB: lab.as(lab.tokens.customers[1]),
    reseller,
    platform,
    close: async () => {
      await sql.end();
      await lab.stop();
    },
  };
}

/** A new customer below the lab reseller, reached by the reseller acting for it. */
export async function newCustomer(lab: DnsLab, name: string, limits: Record<string, number> = {}): Promise<{ id: string; api: ApiClient }> {
  const res = await lab.reseller.post('/tenants', { type: 'customer', name, limits: { api_rate_limit_per_minute: 100_000, ...limits } });
  expect(res.status, res.text).toBe(201);
  return { id: res.body.id, api: lab.reseller.with({ 'X-Act-As-Customer': res.body.id }) };
}

/** Creates a zone and returns its body (fails the test on anything but 201). */
export async function createZone(api: ApiClient, name: string, extra: Record<string, unknown> = {}): Promise<any> {
  const res = await api.post('/zones', { name, ...extra });
  expect(res.status, res.text).toBe(201);
  return withoutWarnings(res.body);
}

/** Creates a record and returns it as a read returns it (fails the test on anything but 201). */
export async function createRecord(api: ApiClient, zone: string, record: Record<string, unknown>): Promise<any> {
  const res = await api.post(`/zones/${zone}/records`, record);
  expect(res.status, res.text).toBe(201);
  return withoutWarnings(res.body);
}

/**
 * A written zone or record as a read returns it: a write's body is the resource plus the
 * write's `warnings` (docs/records.md).
 */
export function withoutWarnings(body: any): any {
  expect(Array.isArray(body.warnings), 'a write answers with warnings').toBe(true);
  const { warnings: _, ...resource } = body;
  return resource;
}

const withParam = (path: string, name: string, value: string) => {
  const url = new URL(path, 'http://x');
  url.searchParams.set(name, value);
  return `${url.pathname}${url.search}`;
};

/** Every page of a list, following pagination.next_cursor. */
export async function walk(api: ApiClient, path: string): Promise<ApiResponse[]> {
  const pages: ApiResponse[] = [];
  let next: string | null = path;
  while (next) {
    const page = await api.get(next);
    expect(page.status, page.text).toBe(200);
    pages.push(page);
    expect(pages.length).toBeLessThan(200);
    next = page.body.pagination.next_cursor ? withParam(path, 'cursor', page.body.pagination.next_cursor) : null;
  }
  return pages;
}

/** Every item of a list, all pages. */
export async function listAll(api: ApiClient, path: string): Promise<any[]> {
  return (await walk(api, path)).flatMap((p) => p.body.data);
}

/** The URL of rel="next" in a Link header. */
export const nextLink = (res: ApiResponse) => /<([^>]+)>;\s*rel="next"/.exec(res.headers.get('link') ?? '')?.[1] ?? null;

/** A 422 validation_failed problem; its `errors`. */
export function validationErrors(res: ApiResponse): any[] {
  expect(res.status, res.text).toBe(422);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  expect(res.body.code).toBe('validation_failed');
  expect(Array.isArray(res.body.errors)).toBe(true);
  return res.body.errors;
}

/** Byte order, as the database (C collation) and a DNS operator would sort ASCII names. */
export const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
