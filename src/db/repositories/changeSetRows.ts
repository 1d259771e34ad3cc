// The `change_sets` table: its row type and the one mapper between row and domain ChangeSet.
import type { ChangeSet } from '../../domain/model/changeSet.js';
import type { ChangeSetState } from '../../domain/publication.js';

export interface ChangeSetRow {
  id: string;
  zone_id: string;
  tenant_id: string;
  seq: number;
  state: ChangeSetState;
  error: { code: string; detail?: string } | null;
  kind: ChangeSet['kind'];
  comment: string | null;
  item_count: number;
  summary: Record<string, number>;
  results: unknown[];
  api_client_id: string | null;
  request_id: string | null;
  touched_names: string[] | null;
  /** A provider reverse zone's change set written for a customer: that customer (domain/model/events.ts actingCustomerOf). */
  acting_tenant_id: string | null;
  /** The published version (SOA serial) that carried it. */
  serial: number | string | null;
  pushed_at: Date | null;
  live_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export const changeSetToDomain = (r: ChangeSetRow, zoneName: string): ChangeSet => ({
  id: r.id,
  zoneId: r.zone_id,
  zoneName,
  seq: r.seq,
  state: r.state,
  error: r.error,
  kind: r.kind,
  comment: r.comment,
  itemCount: r.item_count,
  summary: r.summary,
  results: r.results,
  touchedNames: r.touched_names,
  serial: r.serial === null ? null : Number(r.serial),
  apiClientId: r.api_client_id,
  requestId: r.request_id,
  pushedAt: r.pushed_at,
  liveAt: r.live_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** The row of a new change set, as the insert sends it (jsonb columns as JSON text). */
export const changeSetToRow = (c: ChangeSet, tenantId: string, actingTenantId: string | null) => ({
  id: c.id,
  zone_id: c.zoneId,
  tenant_id: tenantId,
  acting_tenant_id: actingTenantId,
  seq: c.seq,
  state: c.state,
  error: c.error === null ? null : JSON.stringify(c.error),
  kind: c.kind,
  comment: c.comment,
  item_count: c.itemCount,
  summary: JSON.stringify(c.summary),
  results: JSON.stringify(c.results),
  touched_names: c.touchedNames,
  serial: c.serial,
  pushed_at: c.pushedAt,
  live_at: c.liveAt,
  api_client_id: c.apiClientId,
  request_id: c.requestId,
  created_at: c.createdAt,
  updated_at: c.updatedAt,
});
