// The `templates` statements (src/services/templates.ts): one function per question.
import type { Transaction } from '../context.js';
import { noteLock } from '../lockOrder.js';
import type { ScopedDb } from '../tenantScope.js';
import type { TemplateRow } from './templateRows.js';

/** The templates of these ancestors (the acting tenant's chain), by name. */
export const ancestryTemplateRows = async (scoped: ScopedDb, ancestry: string[]): Promise<TemplateRow[]> =>
  (await scoped.fromAncestry('templates', ancestry).orderBy(['name', 'id'])) as TemplateRow[];

/** A template of these ancestors. */
export const ancestryTemplateRow = async (scoped: ScopedDb, ancestry: string[], id: string): Promise<TemplateRow | undefined> =>
  (await scoped.fromAncestry('templates', ancestry).where('id', id).first()) as TemplateRow | undefined;

/** A template of the scope's subtree. */
export const subtreeTemplateRow = async (scoped: ScopedDb, id: string): Promise<TemplateRow | undefined> =>
  (await scoped.from('templates').where('id', id).first()) as TemplateRow | undefined;

/** Whether the tenant has a template of that name. */
export const templateNameTaken = async (scoped: ScopedDb, tenantId: string, name: string): Promise<boolean> =>
  Boolean(await scoped.from('templates').where({ tenant_id: tenantId, name }).first('id'));

export const insertTemplate = async (scoped: ScopedDb, row: Record<string, unknown>): Promise<TemplateRow> =>
  ((await scoped.insert('templates', row)) as TemplateRow[])[0]!;

/** The tenant's own template, locked FOR UPDATE (noted in the lock order). */
export async function lockedOwnTemplate(trx: Transaction, scoped: ScopedDb, tenantId: string, id: string): Promise<TemplateRow | undefined> {
  noteLock(trx, 'templates');
  return (await scoped.from('templates').where({ id, tenant_id: tenantId }).forUpdate().first()) as TemplateRow | undefined;
}

export const updateTemplateRow = async (scoped: ScopedDb, id: string, columns: Record<string, unknown>): Promise<TemplateRow> =>
  ((await scoped.from('templates').where('id', id).update(columns).returning('*')) as TemplateRow[])[0]!;

export const deleteTemplateRow = (scoped: ScopedDb, id: string) => scoped.from('templates').where('id', id).delete();
