import type { ChangeSetKind } from '../publication.js';

// Event kinds of the spec's "Events" section, and `webhook.ping` (a webhook's test event, sent to
// that webhook alone). The events table is the outbox webhooks deliver from (docs/zones.md
// "Events", docs/webhooks.md): every state change writes its event in its own transaction.
export const EVENT_KINDS = ['zone.changed', 'record.published', 'record.failed', 'dnssec.state_changed', 'quota.warning', 'webhook.ping'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** The kinds that name, in `acting_tenant_id`, the customer a write into another's zone was made for. */
export const ACTING_TENANT_EVENT_KINDS = ['zone.changed', 'record.published', 'record.failed'] as const satisfies readonly EventKind[];

/** `change` of a zone.changed event. The spec names `deleted`; the others are ours (docs/zones.md). */
export type ZoneChange = 'created' | 'settings' | 'records' | 'deletion_requested' | 'deleted' | 'dnssec';

export interface DomainEvent {
  tenantId: string;
  kind: EventKind;
  zoneId: string | null;
  payload: Record<string, unknown>;
}

/** What each kind of change set tells subscribers: a zone.changed with this `change`. */
const ZONE_CHANGE_OF: Record<ChangeSetKind, ZoneChange> = {
  zone_create: 'created',
  zone_settings: 'settings',
  zone_delete: 'deletion_requested',
  records: 'records',
  import: 'records',
  template: 'records',
  // Keys in or out, signing on or off: what is served changes, the zone's records do not.
  dnssec: 'dnssec',
};

/**
 * The zone.changed event of a stored change set. A write into a provider reverse zone made for a
 * customer (its PTRs, docs/rdns.md "Events of PTR writes") belongs to the zone's tenant, the
 * platform, and names the customer in `acting_tenant_id`: what a customer's webhook
 * is found by. Other zones' events name no acting tenant.
 */
export function zoneChangedEvent(
  zone: { id: string; tenantId: string; name: string; kind?: string },
  changeSet: { id: string; kind: ChangeSetKind; summary: Record<string, number> },
  /** actingCustomerOf the write: kept on the change set too. */
  actingCustomer: string | null,
): DomainEvent {
  return {
    tenantId: zone.tenantId,
    kind: 'zone.changed',
    zoneId: zone.id,
    payload: {
      zone: zone.name,
      change: ZONE_CHANGE_OF[changeSet.kind],
      changeset_id: changeSet.id,
      kind: changeSet.kind,
      summary: changeSet.summary,
      ...(actingCustomer !== null ? { acting_tenant_id: actingCustomer } : {}),
    },
  };
}

/**
 * The customer a write into a provider reverse zone was made for (null for every other write): it
 * is kept on the change set, and its zone.changed, record.published and record.failed name it.
 */
export function actingCustomerOf(zone: { tenantId: string; kind?: string }, actingTenantId: string | undefined): string | null {
  return zone.kind === 'provider_reverse' && actingTenantId !== undefined && actingTenantId !== zone.tenantId ? actingTenantId : null;
}

/** Percentages of max_zones whose crossing fires quota.warning (docs/webhooks.md). */
const QUOTA_WARNING_THRESHOLDS = [80, 100] as const;

/**
 * The highest threshold a count crosses going from `before` to `after` zones (before below it,
 * after at or above it), or null. Integer arithmetic: 80 % of 5 is crossed at the 4th zone.
 */
export function quotaThresholdCrossed(before: number, after: number, limit: number): number | null {
  let crossed: number | null = null;
  for (const percent of QUOTA_WARNING_THRESHOLDS) if (before * 100 < percent * limit && after * 100 >= percent * limit) crossed = percent;
  return crossed;
}
