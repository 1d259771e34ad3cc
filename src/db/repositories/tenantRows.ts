import type { TenantType } from '../../domain/tenancy.js';

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
