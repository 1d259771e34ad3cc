import type { DbContext } from '../db/context.js';
import { type AuditFilter, auditPage, auditRowToDomain } from '../db/repositories/auditLog.js';

/** The acting subtree's audit log, newest first. */
export async function listAuditLog(ctx: DbContext, filter: AuditFilter, after: unknown[] | null, limit: number) {
  const page = await auditPage(ctx.scoped, filter, after, limit);
  return { items: page.rows.map(auditRowToDomain), next: page.next };
}
