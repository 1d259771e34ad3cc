// Templates: the built-ins, and those platform and reseller tenants define for their subtree.
import type { DbContext } from '../db/context.js';
import type { Config } from '../config/index.js';
import { recordToDomain } from '../db/repositories/recordRows.js';
import type { DnsRecord } from '../domain/model/record.js';
import type { Zone } from '../domain/model/zone.js';
import type { ChangeItem } from '../domain/changeSets/planChangeSet.js';
import { DomainError, type FieldError, notFound, validationFailed } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import { normalizeOwner } from '../domain/names.js';
import { parseRecordInput } from '../domain/records/parseRecordInput.js';
import { isRecordType, ruleOf } from '../domain/records/types.js';
import { BUILTIN_TEMPLATES } from '../domain/templates/builtin.js';
import {
  type RenderedRecord,
  renderTemplate,
  type Template,
  type TemplateRecord,
  type TemplateVariable,
  undeclaredPlaceholders,
} from '../domain/templates/template.js';
import type { Actor } from './actor.js';
import { applyChangeSet } from './changeSets.js';
import { recordRowsAtNames } from '../db/repositories/zoneQueries.js';
import type { WriteContext } from './writeContext.js';
import { writeZone } from './zoneWrite.js';
import { recordAudit } from '../db/repositories/auditLog.js';
import { type StoredTemplate, type TemplateRow, templateToDomain } from '../db/repositories/templateRows.js';
import {
  ancestryTemplateRow,
  ancestryTemplateRows,
  deleteTemplateRow,
  insertTemplate,
  lockedOwnTemplate,
  subtreeTemplateRow,
  templateNameTaken,
  updateTemplateRow,
} from '../db/repositories/templateStore.js';

export type { StoredTemplate } from '../db/repositories/templateRows.js';

const builtins: StoredTemplate[] = BUILTIN_TEMPLATES.map((t) => ({ ...t, createdAt: null, updatedAt: null }));

const ancestry = (actor: Actor) => actor.actingChain.map((t) => t.id);

/** Built-ins first, then the templates of the acting tenant's ancestors and its own. */
export async function listTemplates(ctx: DbContext, actor: Actor): Promise<StoredTemplate[]> {
  const rows = await ancestryTemplateRows(ctx.scoped, ancestry(actor));
  return [...builtins, ...rows.map(templateToDomain)];
}

/**
 * A template the acting tenant may apply (built-in, its ancestors' or its own). With
 * `readSubtree`, also one defined below it: the subtree is readable, as everywhere else.
 */
export async function getTemplate(ctx: DbContext, actor: Actor, id: string, options: { readSubtree?: boolean } = {}): Promise<StoredTemplate> {
  const builtin = builtins.find((t) => t.id === id);
  if (builtin) return builtin;
  const row = (await ancestryTemplateRow(ctx.scoped, ancestry(actor), id)) ?? (options.readSubtree ? await subtreeTemplateRow(ctx.scoped, id) : undefined);
  if (!row) throw notFound('template');
  return templateToDomain(row);
}

/** Sample values per kind: a definition must render into valid records before it is stored. */
const SAMPLE: Record<TemplateVariable['kind'], string> = { string: 'sample', ipv4: '192.0.2.1', ipv6: '2001:db8::1', hostname: 'host.example.net' };

function checkDefinition(def: Pick<Template, 'variables' | 'records'>): void {
  const errors: FieldError[] = [];
  const names = new Set<string>();
  def.variables.forEach((v, i) => {
    if (names.has(v.name)) errors.push({ pointer: `/variables/${i}/name`, index: i, code: 'duplicate', detail: `Variable "${v.name}" is declared twice.` });
    names.add(v.name);
  });
  for (const name of undeclaredPlaceholders(def)) {
    errors.push({ pointer: '/records', code: 'undeclared_variable', detail: `{{${name}}} is used but not declared in variables.` });
  }
  if (errors.length) throw validationFailed(errors);
  const sample = Object.fromEntries(def.variables.map((v) => [v.name, v.default || SAMPLE[v.kind]]));
  const rendered = renderTemplate({ id: 'check', name: 'check', description: '', tenantId: null, ...def }, sample, 'example.com');
  rendered.forEach((r, i) => {
    const type = r.type.toUpperCase();
    if (!isRecordType(type)) {
      errors.push({ pointer: `/records/${i}/type`, index: i, code: 'unsupported_type', detail: `${r.type} is not a supported type.` });
      return;
    }
    try {
      const owner = normalizeOwner(r.name, 'example.com');
      const problem = ruleOf(type).ownerProblem(owner);
      if (problem) errors.push({ pointer: `/records/${i}/name`, index: i, code: 'owner_not_allowed', detail: problem });
    } catch (e) {
      errors.push({ pointer: `/records/${i}/name`, index: i, code: 'invalid_name', detail: (e as Error).message });
    }
    const parsed = parseRecordInput(type, r, 'example.com');
    if (!parsed.ok) for (const p of parsed.errors) errors.push({ pointer: `/records/${i}${p.pointer}`, index: i, code: p.code, detail: p.detail });
  });
  if (errors.length) throw validationFailed(errors);
}

function assertMayDefine(actor: Actor) {
  if (actor.acting.type === 'customer') {
    throw new DomainError('forbidden', { reason: 'templates_defined_by_resellers' });
  }
}

export interface TemplateInput {
  name: string;
  description?: string;
  variables: TemplateVariable[];
  records: TemplateRecord[];
}

export async function createTemplate(ctx: WriteContext, input: TemplateInput): Promise<StoredTemplate> {
  assertMayDefine(ctx.actor);
  checkDefinition(input);
  const now = ctx.clock.now();
  if (await templateNameTaken(ctx.scoped, ctx.actor.acting.id, input.name))
    throw new DomainError('conflict', { reason: 'template_name_taken', name: input.name });
  const row = await insertTemplate(ctx.scoped, {
    id: newId('tpl'),
    tenant_id: ctx.actor.acting.id,
    name: input.name,
    description: input.description ?? '',
    variables: JSON.stringify(input.variables),
    records: JSON.stringify(input.records),
    created_at: now,
    updated_at: now,
  });
  await recordAudit(ctx.db, ctx.actor, now, { action: 'template.created', targetType: 'template', targetId: row.id, details: { name: input.name } });
  return templateToDomain(row);
}

/** Only the owning tenant changes or deletes a template; others see it read-only (404 here). */
async function ownTemplate(ctx: WriteContext, id: string): Promise<TemplateRow> {
  const row = await lockedOwnTemplate(ctx.db, ctx.scoped, ctx.actor.acting.id, id);
  if (!row) throw notFound('template');
  return row;
}

export async function updateTemplate(ctx: WriteContext, id: string, patch: Partial<TemplateInput>): Promise<StoredTemplate> {
  // Ownership first: anyone but the owner (a customer included) gets 404, as for a missing one.
  const current = await ownTemplate(ctx, id);
  assertMayDefine(ctx.actor);
  const next = { variables: patch.variables ?? current.variables, records: patch.records ?? current.records };
  checkDefinition(next);
  const now = ctx.clock.now();
  const row = await updateTemplateRow(ctx.scoped, id, {
    name: patch.name ?? current.name,
    description: patch.description ?? current.description,
    variables: JSON.stringify(next.variables),
    records: JSON.stringify(next.records),
    updated_at: now,
  });
  await recordAudit(ctx.db, ctx.actor, now, { action: 'template.updated', targetType: 'template', targetId: id });
  return templateToDomain(row);
}

export async function deleteTemplate(ctx: WriteContext, id: string): Promise<void> {
  await ownTemplate(ctx, id);
  assertMayDefine(ctx.actor);
  await deleteTemplateRow(ctx.scoped, id);
  await recordAudit(ctx.db, ctx.actor, ctx.clock.now(), { action: 'template.deleted', targetType: 'template', targetId: id });
}

const rrsetKey = (name: string, type: string) => `${name}\u0000${type}`;

/**
 * The change items that apply rendered records to a zone (spec "Template rules"): `skip` leaves
 * existing RRsets of the same name and type alone; `replace` replaces them. A CNAME conflict is a
 * validation error unless `replace`, which then removes the conflicting records.
 */
function templateItems(rendered: RenderedRecord[], existing: DnsRecord[], zone: Zone, onConflict: 'skip' | 'replace'): ChangeItem[] {
  // Each record's data, or its content (a string), which the change set reads against the zone.
  const groups = new Map<string, { name: string; type: string; ttl?: number | null; datas: (Record<string, unknown> | string)[] }>();
  for (const r of rendered) {
    const name = normalizeOwner(r.name, zone.name);
    const type = r.type.toUpperCase();
    const g = groups.get(rrsetKey(name, type)) ?? { name, type, datas: [], ...(r.ttl !== undefined ? { ttl: r.ttl } : {}) };
    g.datas.push(r.content ?? r.data ?? {});
    groups.set(rrsetKey(name, type), g);
  }
  const items: ChangeItem[] = [];
  const errors: FieldError[] = [];
  const deleted = new Set<string>();
  for (const g of groups.values()) {
    const atName = existing.filter((r) => r.name === g.name && !r.system);
    const same = atName.filter((r) => r.type === g.type);
    const conflicting = atName.filter((r) => (g.type === 'CNAME' ? r.type !== 'CNAME' : r.type === 'CNAME'));
    if (onConflict === 'skip') {
      if (same.length) continue;
      if (conflicting.length) {
        errors.push({
          pointer: '/on_conflict',
          code: 'cname_conflict',
          detail: `${g.name}: the template's ${g.type} conflicts with the ${conflicting[0]!.type} there; apply with on_conflict "replace" to replace it.`,
        });
        continue;
      }
      for (const data of g.datas) {
        const rdata = typeof data === 'string' ? { content: data } : { data };
        items.push({ op: 'create', record: { type: g.type, name: g.name, ...rdata, ...(g.ttl !== undefined ? { ttl: g.ttl } : {}) } });
      }
    } else {
      for (const r of conflicting) {
        if (deleted.has(r.id)) continue;
        deleted.add(r.id);
        items.push({ op: 'delete', id: r.id });
      }
      items.push({ op: 'replace_rrset', name: g.name, type: g.type, records: g.datas, ...(g.ttl !== undefined ? { ttl: g.ttl } : {}) });
    }
  }
  if (errors.length) throw validationFailed(errors);
  return items;
}

export interface ApplyTemplateRequest {
  template_id: string;
  variables: Record<string, string>;
  on_conflict: 'skip' | 'replace';
  dry_run: boolean;
}

/** The change items of a template for a zone, against the records now at the names it uses. */
export async function templateChangeItems(
  ctx: DbContext,
  actor: Actor,
  zone: Zone,
  request: Pick<ApplyTemplateRequest, 'template_id' | 'variables' | 'on_conflict'>,
): Promise<{ template: StoredTemplate; items: ChangeItem[] }> {
  const template = await getTemplate(ctx, actor, request.template_id).catch((e) => {
    if (e instanceof DomainError && e.code === 'not_found') {
      throw validationFailed([{ pointer: '/template_id', code: 'unknown_template', detail: `No template ${request.template_id} is available here.` }]);
    }
    throw e;
  });
  const rendered = renderTemplate(template, request.variables, zone.name);
  const names = [...new Set(rendered.map((r) => normalizeOwner(r.name, zone.name)))];
  const existing = names.length ? (await recordRowsAtNames(ctx.scoped, zone.id, names)).map(recordToDomain) : [];
  return { template, items: templateItems(rendered, existing, zone, request.on_conflict) };
}

/** POST /zones/{zone}/apply-template: one change set through the write seam. */
export const applyTemplate = (ctx: WriteContext, config: Config, zoneRef: string, request: ApplyTemplateRequest) =>
  writeZone(ctx, config, zoneRef, {}, async (zone) => {
    const { template, items } = await templateChangeItems(ctx, ctx.actor, zone, request);
    // The items are the template's, not the request's: their problems point at the template.
    const applied = await applyChangeSet(
      ctx,
      zone,
      { changes: items, dry_run: request.dry_run, comment: `template ${template.id}` },
      {
        kind: 'template',
        locate: () => ({ pointer: '/template_id' }),
      },
    );
    return { zone, ...applied };
  });
