import { domainToUnicode } from 'node:url';
import { z } from 'zod';
import type { Config } from '../../../config/index.js';
import type { ChangeSetPlan, PlannedRecord, Warning } from '../../../domain/changeSets/planChangeSet.js';
import { type ChangeSet, changeSetSource } from '../../../domain/model/changeSet.js';
import { DELEGATION_STATES } from '../../../domain/ip/delegation.js';
import { rowEtag } from '../../../domain/model/etag.js';
import { type DnsRecord, recordCore } from '../../../domain/model/record.js';
import type { Zone } from '../../../domain/model/zone.js';
import { CHANGESET_STATES } from '../../../domain/publication.js';
import { iso, timestamp } from '../common.js';

const stateSchema = z.enum(CHANGESET_STATES);

export const warningsSchema = z
  .array(z.object({ index: z.number().int().optional(), code: z.string(), detail: z.string() }))
  .describe('rrset_ttl_aligned (other records of the RRset took the TTL), name_repeats_zone (docs/records.md).');

export const zoneSchema = z.object({
  id: z.string(),
  name: z.string().describe('A-label form, lower case, no trailing dot.'),
  unicode_name: z.string().describe('U-label form for display.'),
  kind: z.enum(['forward', 'reverse']),
  status: z.enum(['activating', 'active', 'deleting']),
  tenant_id: z.string(),
  default_ttl: z.number().int(),
  soa_email: z.string(),
  serial: z.number().int(),
  dnssec: z.object({ state: z.string(), mode: z.string().nullable() }),
  publication: z.object({
    state: stateSchema.nullable().describe('State of the newest change set (docs/zones.md).'),
    changeset_id: z.string().nullable(),
    updated_at: timestamp.nullable(),
    waiting_on: z
      .array(
        z.object({
          address: z.string().describe('host:port ([host]:port for IPv6) of a secondary of a secondary set carrying the zone.'),
          serial: z.number().int().nullable().describe('The serial it last answered; null when it answered none (down, refused, not serving the zone yet).'),
          since: timestamp.describe('When it was first seen behind on this zone.'),
        }),
      )
      .describe(
        'The secondaries of the secondary sets carrying the zone that do not serve its published serial yet, as the publication verifier last saw them; the newest change set stays `pushed` until this is empty (docs/catalog-zones.md). Empty when none lags.',
      ),
  }),
  delegation: z.object({
    nameservers: z.array(z.string()).describe('The NS set to configure at the registrar (or, for a reverse zone, at the parent reverse zone).'),
    status: z
      .enum(DELEGATION_STATES)
      .describe(
        'A prefix’s reverse zone: what its last delegation check saw (docs/rdns.md "Delegation checks"); other zones: unchecked. Unknown values may appear.',
      ),
    seen: z.array(z.string()).describe('The NS names the parent delegates to, as last seen (empty when missing or unchecked).'),
    checked_at: timestamp.nullable(),
  }),
  created_at: timestamp,
  updated_at: timestamp,
});

export function presentZone(zone: Zone, config: Config) {
  return {
    id: zone.id,
    name: zone.name,
    unicode_name: domainToUnicode(zone.name) || zone.name,
    kind: zone.kind,
    status: zone.status,
    tenant_id: zone.tenantId,
    default_ttl: zone.defaultTtl,
    soa_email: zone.soaEmail,
    serial: zone.serial,
    dnssec: zone.dnssec,
    publication: {
      state: zone.publication.state,
      changeset_id: zone.publication.changesetId,
      updated_at: iso(zone.publication.updatedAt),
      waiting_on: zone.publication.waitingOn.map((w) => ({ address: w.address, serial: w.serial, since: iso(w.since) })),
    },
    delegation: {
      nameservers: config.zones.nameservers,
      status: zone.delegation?.state ?? ('unchecked' as const),
      seen: zone.delegation?.seen ?? [],
      checked_at: zone.delegation?.checked_at ?? null,
    },
    created_at: iso(zone.createdAt),
    updated_at: iso(zone.updatedAt),
  };
}

export const recordSchema = z.object({
  id: z.string(),
  name: z.string().describe('Zone-relative owner; `@` is the apex.'),
  type: z.string(),
  ttl: z.number().int().nullable().describe('`null`: the zone default_ttl applies.'),
  data: z.record(z.string(), z.unknown()),
  content: z.string().describe('RDATA in presentation format (what `q` searches).'),
  comment: z.string().nullable(),
  system: z.boolean(),
  managed_by: z
    .string()
    .nullable()
    .describe(
      'The id of the object that keeps this record (a dynamic DNS host `dyn_…`, an address space); null for your own records. Writes to a kept record through the record API: `409 record_managed`.',
    ),
  publication: z
    .object({ state: stateSchema, changeset_id: z.string() })
    .describe(
      'The record’s last change set and its state; that change set may be past its retention (a `live` one is kept 90 days), and the state then is `live`.',
    ),
  created_at: timestamp,
  updated_at: timestamp,
});

export const presentRecord = (r: DnsRecord) =>
  Object.assign(recordCore(r), {
    system: r.system,
    managed_by: r.managedBy ?? null,
    publication: { state: r.publication.state, changeset_id: r.publication.changesetId },
    created_at: iso(r.createdAt),
    updated_at: iso(r.updatedAt),
  });

const plannedSchema = z.object({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  ttl: z.number().int().nullable(),
  data: z.record(z.string(), z.unknown()),
  content: z.string(),
  comment: z.string().nullable(),
});
/** A record of a dry run's plan: not stored, so no publication, times or keeper. */
const presentPlanned = (r: PlannedRecord) => recordCore(r);

export const changeSetSchema = z.object({
  id: z.string(),
  zone: z.string(),
  state: stateSchema,
  error: z
    .object({ code: z.string(), detail: z.string().optional() })
    .nullable()
    .describe(
      '`build_failed` (state `failed`: the version could not be built; `detail` names the record) or `verification_timeout` (still `pushed` 60 minutes after the push).',
    ),
  serial: z.number().int().nullable().describe('SOA serial of the published version that carries this change set; null while `pending` or `failed`.'),
  pushed_at: timestamp.nullable(),
  live_at: timestamp.nullable().describe('When every authoritative nameserver was seen serving it.'),
  kind: z.string().describe('zone_create, zone_settings, zone_delete, records, import, template, dnssec'),
  comment: z.string().nullable(),
  items: z.number().int(),
  summary: z.record(z.string(), z.number().int()).describe('created, updated, deleted'),
  results: z.array(z.unknown()).optional().describe('Per-item results; omitted in lists.'),
  source: z
    .enum(['api', 'dyndns', 'rfc2136', 'service'])
    .describe(
      'Who wrote it: the API, a DynDNS router (`GET /nic/update`), an RFC 2136 UPDATE signed with a TSIG key (docs/dynamic-update.md), or the service itself (DNSSEC, the lab registry, forward records of address spaces).',
    ),
  source_id: z
    .string()
    .nullable()
    .describe("The API client (`cli_…`), DynDNS host (`dyn_…`) or TSIG key (`tsk_…`) that wrote it; null for the service's own writes."),
  created_at: timestamp,
  updated_at: timestamp,
});

const presentSource = (writerId: string | null) => {
  const { source, sourceId } = changeSetSource(writerId);
  return { source, source_id: sourceId };
};

export const presentChangeSet = (c: ChangeSet, withResults = true) => ({
  id: c.id,
  zone: c.zoneName,
  state: c.state,
  error: c.error,
  serial: c.serial,
  pushed_at: c.pushedAt ? iso(c.pushedAt) : null,
  live_at: c.liveAt ? iso(c.liveAt) : null,
  kind: c.kind,
  comment: c.comment,
  items: c.itemCount,
  summary: c.summary,
  ...(withResults ? { results: c.results } : {}),
  ...presentSource(c.apiClientId),
  created_at: iso(c.createdAt),
  updated_at: iso(c.updatedAt),
});

export const dryRunSchema = z.object({
  dry_run: z.literal(true),
  summary: z.object({ created: z.number().int(), updated: z.number().int(), deleted: z.number().int() }),
  diff: z.object({
    created: z.array(plannedSchema),
    updated: z.array(z.object({ before: plannedSchema, after: plannedSchema })),
    deleted: z.array(plannedSchema),
  }),
  results: z.array(z.unknown()),
  warnings: warningsSchema,
});

export const presentDryRun = (plan: ChangeSetPlan) => ({
  dry_run: true as const,
  summary: { created: plan.created.length, updated: plan.updated.length, deleted: plan.deleted.length },
  diff: {
    created: plan.created.map(presentPlanned),
    updated: plan.updated.map((u) => ({ before: presentPlanned(u.before), after: presentPlanned(u.after) })),
    deleted: plan.deleted.map(presentPlanned),
  },
  results: plan.results,
  warnings: plan.warnings,
});

/** The answer to a write that produced a change set: 201, the change set and its warnings. */
export const changeSetCreated = (zone: Zone, changeSet: ChangeSet, plan: ChangeSetPlan) => ({
  status: 201,
  body: { ...presentChangeSet(changeSet), warnings: plan.warnings },
  headers: { Location: `/api/v1/zones/${zone.name}/changesets/${changeSet.id}` },
});

/** The ETag of a zone or record: its stored version, not its body (publication progress moves that). */
export const storedEtag = (row: Zone | DnsRecord) => rowEtag(row.id, row.version);

/** A record as a write returns it: with the write's warnings, like a change set's. */
export const recordWrittenSchema = recordSchema.extend({ warnings: warningsSchema });
export const presentWrittenRecord = (r: DnsRecord, warnings: Warning[]) => ({ ...presentRecord(r), warnings });

/** A zone as its creation returns it: with the warnings of its initial records and template. */
export const zoneCreatedSchema = zoneSchema.extend({ warnings: warningsSchema });

/** A change set a write stored, with the write's warnings. */
export const changeSetWrittenSchema = changeSetSchema.extend({ warnings: warningsSchema });
