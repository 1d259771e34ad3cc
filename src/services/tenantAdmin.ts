// Provider staff and resellers administer the tenants below them (docs/tenants.md).
import { recordAudit } from '../db/repositories/auditLog.js';
import type { DbContext, Transaction, TransactionContext } from '../db/context.js';
import {
  billingClientLinked,
  findTenant,
  insertTenant,
  pageTenants,
  type Tenant,
  type TenantListFilter,
  type TenantRow,
  TENANT_DEFAULTS,
  updateTenantRow,
} from '../db/repositories/tenantRows.js';
import { DomainError, notFound, validationFailed } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import { CHILD_TYPES, type TenantType } from '../domain/tenancy.js';
import type { Actor } from './actor.js';
import type { WriteContext } from './writeContext.js';

export interface TenantSettings {
  name?: string;
  limits?: { api_rate_limit_per_minute?: number; max_zones?: number };
  features?: string[];
  branding?: Record<string, unknown>;
  support_email?: string | null;
  billing_client_id?: string | null;
}

const found = (tenant: Tenant | null): Tenant => {
  if (!tenant) throw notFound('tenant');
  return tenant;
};

export const getTenant = async (ctx: DbContext, id: string): Promise<Tenant> => found(await findTenant(ctx.scoped, id));

/** The tenant, its row locked for the rest of the transaction (FOR NO KEY UPDATE: src/db/lockOrder.ts). */
const lockedTenant = async (ctx: TransactionContext, id: string): Promise<Tenant> => found(await findTenant(ctx.scoped, id, ctx.db));

export type { TenantListFilter };

export const listTenants = (ctx: DbContext, filter: TenantListFilter, after: unknown[] | null, limit: number) => pageTenants(ctx.scoped, filter, after, limit);

/** Administration acts strictly below the acting tenant: nobody raises their own limits. */
function assertBelowActing(actor: Actor, tenant: Tenant) {
  if (tenant.id === actor.acting.id) {
    throw new DomainError('forbidden', { reason: 'own_settings' });
  }
}

/** An administration step's audit entry, about the tenant `id` (kept under the acting tenant). */
const auditTenant = (ctx: WriteContext, now: Date, action: `tenant.${string}`, id: string, details: Record<string, unknown>) =>
  recordAudit(ctx.db, ctx.actor, now, { action, targetType: 'tenant', targetId: id, details });

async function assertBillingClientFree(trx: Transaction, billingClientId: string | null | undefined, except?: string) {
  if (!billingClientId) return;
  if (await billingClientLinked(trx, billingClientId, except)) {
    throw validationFailed([{ pointer: '/billing_client_id', code: 'already_linked', detail: 'Another tenant is linked to this billing client.' }]);
  }
}

export async function createTenant(ctx: WriteContext, input: TenantSettings & { type: TenantType; name: string; parent_id?: string }): Promise<Tenant> {
  const parent = await getTenant(ctx, input.parent_id ?? ctx.actor.acting.id);
  if (!CHILD_TYPES[parent.type].includes(input.type)) {
    throw validationFailed([
      {
        pointer: '/type',
        code: 'not_allowed_here',
        detail: `A ${parent.type} tenant can have ${CHILD_TYPES[parent.type].join(' or ') || 'no'} child tenants.`,
      },
    ]);
  }
  await assertBillingClientFree(ctx.db, input.billing_client_id);
  const defaults = TENANT_DEFAULTS[input.type];
  const id = newId('ten');
  const now = ctx.clock.now();
  const tenant = await insertTenant(ctx.scoped, {
    id,
    parent_id: parent.id,
    type: input.type,
    name: input.name,
    path: [...parent.path, id],
    api_rate_limit_per_minute: input.limits?.api_rate_limit_per_minute ?? defaults.apiRateLimitPerMinute,
    max_zones: input.limits?.max_zones ?? defaults.maxZones,
    features: input.features ?? defaults.features,
    branding: input.branding ?? {},
    support_email: input.support_email ?? null,
    billing_client_id: input.billing_client_id ?? null,
    created_at: now,
    updated_at: now,
  });
  await auditTenant(ctx, now, 'tenant.created', id, { type: input.type, parent_id: parent.id, name: input.name });
  if (input.billing_client_id) await auditTenant(ctx, now, 'tenant.billing_linked', id, { billing_client_id: input.billing_client_id });
  return tenant;
}

export async function updateTenant(ctx: WriteContext, id: string, patch: TenantSettings, precondition: (current: Tenant) => void): Promise<Tenant> {
  const current = await lockedTenant(ctx, id);
  assertBelowActing(ctx.actor, current);
  precondition(current);
  await assertBillingClientFree(ctx.db, patch.billing_client_id, id);
  const changes: Partial<Record<keyof TenantRow, unknown>> = {};
  if (patch.name !== undefined) changes.name = patch.name;
  if (patch.limits?.api_rate_limit_per_minute !== undefined) changes.api_rate_limit_per_minute = patch.limits.api_rate_limit_per_minute;
  if (patch.limits?.max_zones !== undefined) changes.max_zones = patch.limits.max_zones;
  if (patch.features !== undefined) changes.features = patch.features;
  if (patch.branding !== undefined) changes.branding = patch.branding;
  if (patch.support_email !== undefined) changes.support_email = patch.support_email;
  if (patch.billing_client_id !== undefined) changes.billing_client_id = patch.billing_client_id;
  if (Object.keys(changes).length === 0) return current;
  ctx.identityChanged();
  const now = ctx.clock.now();
  const updated = await updateTenantRow(ctx.scoped, ctx.db, id, changes, now);
  await auditTenant(ctx, now, 'tenant.updated', id, { changed: Object.keys(patch) });
  if (patch.billing_client_id && patch.billing_client_id !== current.billingClientId) {
    await auditTenant(ctx, now, 'tenant.billing_linked', id, { billing_client_id: patch.billing_client_id });
  }
  return updated;
}

export async function setSuspension(ctx: WriteContext, id: string, suspend: boolean, reason: string | null): Promise<Tenant> {
  const current = await lockedTenant(ctx, id);
  assertBelowActing(ctx.actor, current);
  if (current.suspended === suspend) return current;
  ctx.identityChanged();
  const now = ctx.clock.now();
  const updated = await updateTenantRow(ctx.scoped, ctx.db, id, { suspended_at: suspend ? now : null, suspension_reason: suspend ? reason : null }, now);
  await auditTenant(ctx, now, suspend ? 'tenant.suspended' : 'tenant.unsuspended', id, reason ? { reason } : {});
  return updated;
}
