import { type AuditFilter, auditQuery, type AuditRow, auditRowToDomain } from '../db/repositories/auditLog.js';
import { paginate } from '../db/paginate.js';
import type { ScopedDb } from '../db/tenantScope.js';

/** The acting subtree's audit log, newest first. */
export async function listAuditLog(scoped: ScopedDb, filter: AuditFilter, after: unknown[] | null, limit: number) {
  const page = await paginate<AuditRow & Record<string, unknown>>(
    auditQuery(scoped, filter).select('*'),
    [{ column: 'seq', direction: 'desc', field: 'seq' }],
    after,
    limit,
  );
  return { items: page.rows.map(auditRowToDomain), next: page.next };
}
