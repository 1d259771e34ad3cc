import type { TenantType } from '../../domain/tenancy.js';
import type { Runner, Transaction } from '../context.js';
import { likeEscape } from '../like.js';
import { noteLock } from '../lockOrder.js';
import { paginate } from '../paginate.js';
import type { ScopedDb } from '../tenantScope.js';

export interface TenantRow {
  id: string;
  parent_id: string | null;
  type: TenantType;
  name: string;
  path: string[];
  api_rate_limit_per_minute: number;
  max_zones: number;
  branding: Record<string, unknown>;
  features: string[];
  support_email: string | null;
  billing_client_id: string | null;
  suspended_at: Date | null;
  suspension_reason: string | null;
  lab_seed: boolean;
  version: number;
  created_at: Date;
  updated_at: Date;
}

export interface Tenant {
  id: string;
  parentId: string | null;
  type: TenantType;
  name: string;
  path: string[];
  limits: { apiRateLimitPerMinute: number; maxZones: number };
  branding: Record<string, unknown>;
  features: string[];
  supportEmail: string | null;
  billingClientId: string | null;
  suspendedAt: Date | null;
  suspensionReason: string | null;
  suspended: boolean;
  labSeed: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export const tenantToDomain = (r: TenantRow): Tenant => ({
  id: r.id,
  parentId: r.parent_id,
  type: r.type,
  name: r.name,
  path: r.path,
  limits: { apiRateLimitPerMinute: r.api_rate_limit_per_minute, maxZones: r.max_zones },
  branding: r.branding,
  features: r.features,
  supportEmail: r.support_email,
  billingClientId: r.billing_client_id,
  suspendedAt: r.suspended_at,
  suspensionReason: r.suspension_reason,
  suspended: r.suspended_at !== null,
  labSeed: r.lab_seed,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export interface TenantDefaults {
  apiRateLimitPerMinute: number;
  maxZones: number;
  features: string[];
}

/** Defaults by type (docs/tenants.md). */
export const TENANT_DEFAULTS: Record<TenantType, TenantDefaults> = {
  platform: { apiRateLimitPerMinute: 6000, maxZones: 1_000_000, features: ['dnssec', 'rdns', 'dyndns', 'webhooks', 'templates', 'zone_import'] },
  reseller: { apiRateLimitPerMinute: 1200, maxZones: 10_000, features: ['dnssec', 'rdns', 'dyndns', 'webhooks', 'templates', 'zone_import'] },
  customer: { apiRateLimitPerMinute: 300, maxZones: 100, features: ['dnssec', 'rdns', 'dyndns', 'webhooks', 'templates', 'zone_import'] },
};

/** `lock`: the row locked for the rest of that transaction (FOR NO KEY UPDATE: src/db/lockOrder.ts). */
export async function findTenant(scoped: ScopedDb, id: string, lock: Transaction | null = null): Promise<Tenant | null> {
  const q = scoped.from('tenants').where('id', id).first();
  if (lock) {
    noteLock(lock, 'tenants');
    q.forNoKeyUpdate();
  }
  const row = (await q) as TenantRow | undefined;
  return row ? tenantToDomain(row) : null;
}

export interface TenantListFilter {
  type?: TenantType[];
  parentId?: string;
  q?: string;
}

export async function pageTenants(scoped: ScopedDb, filter: TenantListFilter, after: unknown[] | null, limit: number) {
  const q = scoped.from('tenants').select('*');
  if (filter.type?.length) q.whereIn('type', filter.type);
  if (filter.parentId) q.where('parent_id', filter.parentId);
  if (filter.q) q.whereILike('name', `%${likeEscape(filter.q)}%`);
  const page = await paginate<TenantRow & Record<string, unknown>>(q, [{ column: 'id', direction: 'asc', field: 'id' }], after, limit);
  return { items: page.rows.map(tenantToDomain), next: page.next };
}

/** Whether a tenant (other than `except`) is linked to the billing client; unscoped, as the link is unique in the deployment. */
export async function billingClientLinked(db: Runner, billingClientId: string, except?: string): Promise<boolean> {
  const q = db('tenants').where('billing_client_id', billingClientId);
  if (except) q.whereNot('id', except);
  return (await q.first('id')) !== undefined;
}

/** A new tenant's row, the columns a caller sets (the rest take their defaults). */
export type NewTenantRow = Omit<TenantRow, 'branding' | 'support_email' | 'billing_client_id' | 'suspended_at' | 'suspension_reason' | 'lab_seed' | 'version'> &
  Partial<Pick<TenantRow, 'branding' | 'support_email' | 'billing_client_id'>>;

const tenantColumns = (row: NewTenantRow) => ({ ...row, ...(row.branding !== undefined ? { branding: JSON.stringify(row.branding) } : {}) });

/** Inserts a tenant below one of the subtree (ScopedDb.insert checks the parent). */
export async function insertTenant(scoped: ScopedDb, row: NewTenantRow): Promise<Tenant> {
  const [inserted] = (await scoped.insert('tenants', tenantColumns(row))) as TenantRow[];
  return tenantToDomain(inserted!);
}

/** The platform tenant, the root of the deployment: no scope above it yet. */
export async function insertPlatformTenant(trx: Transaction, row: NewTenantRow): Promise<void> {
  await trx('tenants').insert(tenantColumns(row));
}

export const platformTenantExists = async (db: Runner): Promise<boolean> => (await db('tenants').where({ type: 'platform' }).first('id')) !== undefined;

/** Changes columns of a tenant of the subtree, a new version of it. */
export async function updateTenantRow(
  scoped: ScopedDb,
  trx: Transaction,
  id: string,
  changes: Partial<Record<keyof TenantRow, unknown>>,
  now: Date,
): Promise<Tenant> {
  const columns = { ...changes, ...(changes.branding !== undefined ? { branding: JSON.stringify(changes.branding) } : {}) };
  const [row] = (await scoped
    .from('tenants')
    .where('id', id)
    .update({ ...columns, version: trx.raw('version + 1'), updated_at: now })
    .returning('*')) as TenantRow[];
  return tenantToDomain(row!);
}

/** Locks the tenant's row (FOR NO KEY UPDATE) so that writes counting its children queue. */
export async function lockTenantRow(trx: Transaction, id: string): Promise<void> {
  noteLock(trx, 'tenants');
  await trx('tenants').where('id', id).forNoKeyUpdate().first('id');
}
