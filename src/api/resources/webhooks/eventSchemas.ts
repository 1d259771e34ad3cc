// The bodies of the events webhooks receive (docs/webhooks.md "Events"), for the OpenAPI
// document's `webhooks` section. Every body has id, type, occurred_at and tenant.id; the rest is
// the outbox row's payload as its writer stored it (src/db/repositories/events.ts callers).
import { z } from 'zod';
import { DNSSEC_STATES } from '../../../domain/dnssec/states.js';
import { timestamp } from '../common.js';

const envelope = <T extends string>(type: T) => ({
  id: z.string().describe('evt_…: the event’s id, the same in every delivery of it to any webhook.'),
  type: z.literal(type),
  occurred_at: timestamp.describe('When the state change was stored; order by this (delivery is not ordered).'),
  tenant: z.object({ id: z.string().describe('The tenant the event is about (the zone’s owner, the quota’s holder).') }),
});

const zone = z.string().describe('The zone’s name (A-label form).');
const changesetId = z.string().describe('chg_…: the change set.');
const actingTenant = z
  .string()
  .optional()
  .describe('As in the change set’s zone.changed: the customer a PTR write into the provider’s reverse zones was made for.');

export const eventSchemas = {
  'zone.changed': z
    .object({
      ...envelope('zone.changed'),
      zone,
      change: z
        .enum(['created', 'settings', 'records', 'deletion_requested', 'deleted', 'dnssec'])
        .describe('`deleted` comes once the backend confirmed the deletion (the zone is gone); the others with the change set that stored the change.'),
      changeset_id: changesetId.optional().describe('Absent for `deleted`.'),
      kind: z.string().optional().describe('The change set’s kind (zone_create, zone_settings, zone_delete, records, import, template, dnssec, …).'),
      summary: z.record(z.string(), z.number()).optional().describe('Counts of the change set (created, updated, deleted).'),
      acting_tenant_id: z
        .string()
        .optional()
        .describe(
          'Only for a PTR write a customer made into the provider’s reverse zones (`/ptr`): the customer it was made for. `tenant.id` stays the zone’s owner (the platform); the customer’s webhooks (and those of the tenants above it) receive this event and the change set’s record.published / record.failed, which name the customer too (docs/webhooks.md "Ownership").',
        ),
    })
    .describe('A zone changed: created, its settings or records written, its deletion requested or done, DNSSEC keys in or out.'),
  'record.published': z
    .object({
      ...envelope('record.published'),
      zone,
      changeset_id: changesetId,
      state: z.literal('live').describe('The change set’s publication state.'),
      serial: z.number().int().describe('The SOA serial seen on every authoritative nameserver.'),
      acting_tenant_id: actingTenant,
    })
    .describe('A change set reached `live`.'),
  'record.failed': z
    .object({
      ...envelope('record.failed'),
      zone,
      changeset_id: changesetId,
      state: z.literal('failed'),
      error: z.object({ code: z.string(), detail: z.string() }),
      acting_tenant_id: actingTenant,
    })
    .describe('A change set reached `failed`; the service keeps retrying through the reconcile process.'),
  'dnssec.state_changed': z
    .object({
      ...envelope('dnssec.state_changed'),
      zone,
      from: z.enum(DNSSEC_STATES),
      to: z.enum(DNSSEC_STATES),
      mode: z.enum(['automatic', 'assisted']).nullable(),
    })
    .describe('Every DNSSEC state transition.'),
  'quota.warning': z
    .object({
      ...envelope('quota.warning'),
      quota: z.literal('max_zones'),
      threshold_percent: z.union([z.literal(80), z.literal(100)]).describe('The share of the quota the tenant’s zones reached with this zone.'),
      usage: z.number().int().describe('Zones of the tenant’s subtree, this one included.'),
      limit: z.number().int().describe('The tenant’s max_zones.'),
    })
    .describe(
      'A zone creation made the tenant’s zones (its whole subtree’s) reach 80 % or 100 % of max_zones; once per crossing: falling below and reaching it again fires again.',
    ),
  'webhook.ping': z
    .object({ ...envelope('webhook.ping'), webhook: z.object({ id: z.string() }) })
    .describe('The test event of POST /webhooks/{webhook}/ping, sent to that webhook alone.'),
} as const;
