import type { Knex } from 'knex';
import { paginate } from '../paginate.js';
import { newId } from '../../domain/ids.js';
import type { ScopedDb } from '../tenantScope.js';

export interface AuditEntryInput {
  action: string;
  targetType: string;
  targetId: string;
  details?: Record<string, unknown>;
  /** Tenant whose data the action concerned; defaults to the acting tenant. */
  tenantId?: string;
}

export interface AuditEntry {
  id: string;
  seq: number;
  occurredAt: Date;
  tenantId: string;
  action: string;
  target: { type: string; id: string };
  actor: { apiClientId: string | null; tokenId: string | null; userId: string | null; tenantId: string | null };
  onBehalfOfTenantId: string | null;
  requestId: string | null;
  details: Record<string, unknown>;
}

interface AuditRow {
  seq: number;
  id: string;
  occurred_at: Date;
  tenant_id: string;
  api_client_id: string | null;
  token_id: string | null;
  user_id: string | null;
  actor_tenant_id: string | null;
  on_behalf_of_tenant_id: string | null;
  action: string;
  target_type: string;
  target_id: string;
  request_id: string | null;
  details: Record<string, unknown>;
}

const toDomain = (r: AuditRow): AuditEntry => ({
  id: r.id,
  seq: r.seq,
  occurredAt: r.occurred_at,
  tenantId: r.tenant_id,
  action: r.action,
  target: { type: r.target_type, id: r.target_id },
  actor: { apiClientId: r.api_client_id, tokenId: r.token_id, userId: r.user_id, tenantId: r.actor_tenant_id },
  onBehalfOfTenantId: r.on_behalf_of_tenant_id,
  requestId: r.request_id,
  details: r.details,
});

/** The audit row of an action, for writing alone (recordAudit) or inside a larger statement. */
/** What an audit entry records of who acted: the services' Actor has this shape (and more). */
export interface AuditActor {
  requestId: string;
  token: { id: string; apiClientId: string | null; user: { id: string } | null; tenant: { id: string } };
  acting: { id: string };
  onBehalfOf: boolean;
}

export function auditRow(actor: AuditActor, now: Date, entry: AuditEntryInput) {
  return {
    id: newId('aud'),
    occurred_at: now,
    tenant_id: entry.tenantId ?? actor.acting.id,
    api_client_id: actor.token.apiClientId,
    token_id: actor.token.id,
    user_id: actor.token.user?.id ?? null,
    actor_tenant_id: actor.token.tenant.id,
    on_behalf_of_tenant_id: actor.onBehalfOf ? actor.acting.id : null,
    action: entry.action,
    target_type: entry.targetType,
    target_id: entry.targetId,
    request_id: actor.requestId,
    details: JSON.stringify(entry.details ?? {}),
  };
}

/** Writes an audit entry in the caller's transaction, so it commits with the change it records. */
export async function recordAudit(runner: Knex | Knex.Transaction, actor: AuditActor, now: Date, entry: AuditEntryInput): Promise<void> {
  await runner('audit_log').insert(auditRow(actor, now, entry));
}

export interface AuditFilter {
  since?: Date;
  until?: Date;
  actor?: string;
  action?: string[];
  target?: string;
}

function auditQuery(scoped: ScopedDb, filter: AuditFilter): Knex.QueryBuilder {
  const q = scoped.from('audit_log');
  if (filter.since) q.where('occurred_at', '>=', filter.since);
  if (filter.until) q.where('occurred_at', '<', filter.until);
  // The actor filter matches the API client, the token or the user behind an entry.
  if (filter.actor) {
    const a = filter.actor;
    q.where((w) => w.where('api_client_id', a).orWhere('token_id', a).orWhere('user_id', a));
  }
  if (filter.action?.length) q.whereIn('action', filter.action);
  if (filter.target) q.where('target_id', filter.target);
  return q;
}

export const auditRowToDomain = toDomain;
export type { AuditRow };

/** A page of the acting subtree's audit log, newest first. */
export const auditPage = (scoped: ScopedDb, filter: AuditFilter, after: unknown[] | null, limit: number) =>
  paginate<AuditRow & Record<string, unknown>>(auditQuery(scoped, filter).select('*'), [{ column: 'seq', direction: 'desc', field: 'seq' }], after, limit);
