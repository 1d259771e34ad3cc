import { type AuditFilter, auditPage, auditRowToDomain } from '../db/repositories/auditLog.js';
import type { ScopedDb } from '../db/tenantScope.js';

/** The acting subtree's audit log, newest first. */
export async function listAuditLog(scoped: ScopedDb, filter: AuditFilter, after: unknown[] | null, limit: number) {
  const page = await auditPage(scoped, filter, after, limit);
  return { items: page.rows.map(auditRowToDomain), next: page.next };
}
