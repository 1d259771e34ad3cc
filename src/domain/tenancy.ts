// Tenancy policy: who may see and act for whom. Pure: callers load the tenants, these rules decide.
import { DomainError } from './errors.js';

export type TenantType = 'platform' | 'reseller' | 'customer';

/** Which child types each tenant type may have (a platform may also have direct customers). */
export const CHILD_TYPES: Record<TenantType, TenantType[]> = {
  platform: ['reseller', 'customer'],
  reseller: ['customer'],
  customer: [],
};

export interface TenantNode {
  id: string;
  type: TenantType;
  /** Ids from the root down to and including this tenant. */
  path: string[];
  suspended: boolean;
}

const isInSubtree = (candidate: Pick<TenantNode, 'path'>, rootId: string) => candidate.path.includes(rootId);

export type ActAsTarget = { kind: 'tenant'; id: string } | { kind: 'billing'; clientId: string };

const TENANT_ID = /^ten_[a-z2-7]{1,64}$/;
const BILLING_ID = /^billing:([A-Za-z0-9][A-Za-z0-9._-]{0,63})$/;

/** Parses `X-Act-As-Customer`: a tenant id or `billing:<client_id>`. */
export function parseActAsHeader(value: string): ActAsTarget {
  const trimmed = value.trim();
  if (TENANT_ID.test(trimmed)) return { kind: 'tenant', id: trimmed };
  const billing = BILLING_ID.exec(trimmed);
  if (billing) return { kind: 'billing', clientId: billing[1]! };
  throw new DomainError('validation_failed', {}, [
    {
      in: 'header',
      pointer: '/X-Act-As-Customer',
      code: 'invalid_format',
      detail: 'Expected a tenant id (ten_…) or billing:<client_id>.',
    },
  ]);
}

/**
 * Spec "Acting for a customer": the target must be a customer inside the token's subtree.
 * A reseller naming a platform's direct customer or another reseller's customer falls outside.
 */
export function assertMayActFor(token: TenantNode, target: TenantNode, label: string): void {
  if (token.type === 'customer' || target.type !== 'customer' || !isInSubtree(target, token.id)) {
    throw new DomainError('act_as_not_allowed', { target: label });
  }
}

export interface AutoLinkContext {
  deployment: 'sandbox' | 'production';
  tokenTenantType: TenantType;
  /** Permissions of the user the token is tied to; null for a token without a user. */
  userPermissions: string[] | null;
}

/**
 * Whether an unlinked billing client may be linked on first use. Only a live platform token does
 * it; a token tied to a user also needs `tenants.billing_link`. Reseller and sandbox tokens
 * never auto-link (the caller answers 404 act_as_unknown).
 */
export function autoLinkDecision(ctx: AutoLinkContext): 'link' | 'unknown' | 'not_allowed' {
  if (ctx.deployment !== 'production' || ctx.tokenTenantType !== 'platform') return 'unknown';
  if (ctx.userPermissions && !ctx.userPermissions.includes(USER_PERMISSIONS.billingLink)) {
    return 'not_allowed';
  }
  return 'link';
}

export const USER_PERMISSIONS = { billingLink: 'tenants.billing_link' } as const;

/** Features a tenant may be granted; endpoints of later capabilities check theirs. */
export const FEATURES = ['dnssec', 'rdns', 'dyndns', 'webhooks', 'templates', 'zone_import'] as const;
export type Feature = (typeof FEATURES)[number];

/** A tenant may use a feature only if it and every ancestor have it. */
export const hasFeature = (chain: { features: string[] }[], feature: Feature) => chain.every((t) => t.features.includes(feature));

/** Suspension is inherited: a suspended reseller suspends its customers. */
export const isEffectivelySuspended = (chain: { suspended: boolean }[]) => chain.some((t) => t.suspended);
