import { z } from 'zod';
import type { Tenant } from '../../../services/storedShapes.js';
import { FEATURES } from '../../../domain/tenancy.js';
import { iso, timestamp } from '../common.js';

const limitsSchema = z.object({
  api_rate_limit_per_minute: z.number().int().describe('Requests per minute per API client of this tenant, and per customer when acted for.'),
  max_zones: z.number().int().describe('Zone quota (quota_exceeded beyond it).'),
});

export const brandingSchema = z
  .object({
    display_name: z.string().max(100).optional(),
    logo_url: z
      .url({ protocol: /^https$/ })
      .max(2000)
      .optional(),
    primary_color: z
      .string()
      .regex(/^#[0-9a-fA-F]{6}$/)
      .optional(),
    support_url: z
      .url({ protocol: /^https?$/ })
      .max(2000)
      .optional(),
    support_email: z.email().optional(),
  })
  .describe('White-label settings for panels.');

export const tenantSchema = z.object({
  id: z.string(),
  type: z.enum(['platform', 'reseller', 'customer']),
  name: z.string(),
  parent_id: z.string().nullable(),
  status: z.enum(['active', 'suspended']).describe("This tenant's own state; a suspended ancestor also blocks it (see GET /me)."),
  suspended_at: timestamp.nullable(),
  suspension_reason: z.string().nullable(),
  billing_client_id: z.string().nullable(),
  support_email: z.string().nullable(),
  limits: limitsSchema,
  features: z.array(z.enum(FEATURES)),
  branding: brandingSchema,
  created_at: timestamp,
  updated_at: timestamp,
});

export const presentTenant = (t: Tenant) => ({
  id: t.id,
  type: t.type,
  name: t.name,
  parent_id: t.parentId,
  status: t.suspended ? 'suspended' : 'active',
  suspended_at: iso(t.suspendedAt),
  suspension_reason: t.suspensionReason,
  billing_client_id: t.billingClientId,
  support_email: t.supportEmail,
  limits: { api_rate_limit_per_minute: t.limits.apiRateLimitPerMinute, max_zones: t.limits.maxZones },
  features: [...t.features].sort(),
  branding: t.branding,
  created_at: iso(t.createdAt),
  updated_at: iso(t.updatedAt),
});
