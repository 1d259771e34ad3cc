import { z } from 'zod';
import type { StoredTemplate } from '../../../services/templates.js';
import { applyTemplate, createTemplate, deleteTemplate, getTemplate, listTemplates, updateTemplate } from '../../../services/templates.js';
import { listEnvelope, wholeList } from '../../pagination.js';
import { defineRoute, noContent, writeContext } from '../../routing/route.js';
import { iso, timestamp } from '../common.js';
import { changeSetLiveWait } from '../zones/liveWaits.js';
import { changeSetCreated, changeSetWrittenSchema, dryRunSchema, presentDryRun } from '../zones/presenter.js';
import { ttlSchema, zoneParam } from '../zones/schemas.js';

const TAG = 'Templates';

export const templateIdParam = z.string().regex(/^(tpl_[a-z2-7]+|[a-z0-9][a-z0-9-]{0,62})$/, 'must be a template id');

const variableSchema = z.strictObject({
  name: z.string().regex(/^[a-z][a-z0-9_]{0,39}$/, 'lower-case letters, digits and _, starting with a letter'),
  description: z.string().max(300).optional(),
  kind: z.enum(['string', 'ipv4', 'ipv6', 'hostname']),
  required: z.boolean().default(false),
  default: z.string().max(1024).optional(),
});

const templateRecordSchema = z.strictObject({
  type: z.string().max(10),
  name: z.string().max(300).describe('Owner; may use {{variables}}, {{zone}}, {{zone_dashed}}.'),
  ttl: ttlSchema.nullable().optional(),
  data: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      'The type’s data (docs/records.md); every string in it, at any depth (an HTTPS record’s `params`), may use {{variables}}. Exactly one of `data` and `content`.',
    ),
  content: z
    .string()
    .max(65_536)
    .optional()
    .describe(
      'Instead of `data`: presentation text as a record’s `content` (docs/records.md), may use {{variables}}; relative names are relative to the zone the template is applied to.',
    ),
});

const templateSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  builtin: z.boolean(),
  tenant_id: z.string().nullable().describe('The defining tenant; null for built-ins.'),
  variables: z.array(variableSchema),
  records: z.array(templateRecordSchema),
  created_at: timestamp.nullable(),
  updated_at: timestamp.nullable(),
});

const present = (t: StoredTemplate) => ({
  id: t.id,
  name: t.name,
  description: t.description,
  builtin: t.tenantId === null,
  tenant_id: t.tenantId,
  variables: t.variables,
  records: t.records,
  created_at: iso(t.createdAt),
  updated_at: iso(t.updatedAt),
});

const params = z.strictObject({ template: templateIdParam });
const definition = {
  name: z.string().trim().min(1).max(100),
  description: z.string().max(1000).optional(),
  variables: z.array(variableSchema).max(30),
  records: z.array(templateRecordSchema).min(1).max(100),
};

const applyTemplateBody = z.strictObject({
  template_id: templateIdParam,
  variables: z.record(z.string(), z.string().max(1024)).default({}),
  on_conflict: z.enum(['skip', 'replace']).default('skip'),
  dry_run: z.boolean().default(false),
});

export const templateRoutes = [
  defineRoute({
    method: 'get',
    path: '/templates',
    operationId: 'listTemplates',
    summary: 'Templates available to the acting tenant',
    description: 'The built-ins, then those defined by the acting tenant and its ancestors (a reseller’s templates reach its customers).',
    tag: TAG,
    scopes: ['zones:read'],
    responses: { 200: { description: 'All available templates (one page)', schema: listEnvelope(templateSchema) } },
    handler: async (input) => {
      const all = await listTemplates(input.context, input.actor);
      return wholeList(all.map(present));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/templates/{template}',
    operationId: 'getTemplate',
    summary: 'Get a template',
    description: 'Built-ins, the acting tenant’s own and its ancestors’ templates, and (read-only) those defined in its subtree.',
    tag: TAG,
    scopes: ['zones:read'],
    params,
    responses: { 200: { description: 'The template', schema: templateSchema, headers: ['ETag'] } },
    handler: async (input) => ({
      status: 200,
      body: present(await getTemplate(input.context, input.actor, input.params.template, { readSubtree: true })),
      etag: true,
    }),
  }),
  defineRoute({
    method: 'post',
    path: '/templates',
    operationId: 'createTemplate',
    feature: 'templates',
    summary: 'Define a template for the subtree (platform and reseller tenants)',
    description: 'Every record must render to a valid record with sample values of the variables’ kinds; customers get 403 forbidden.',
    tag: TAG,
    scopes: ['zones:write'],
    body: z.strictObject(definition),
    errors: ['forbidden', 'conflict'],
    responses: { 201: { description: 'Created', schema: templateSchema, headers: ['Location', 'Idempotent-Replayed'] } },
    handler: async (input) => {
      const t = await createTemplate(writeContext(input), input.body);
      return { status: 201, body: present(t), etag: true, headers: { Location: `/api/v1/templates/${t.id}` } };
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/templates/{template}',
    operationId: 'updateTemplate',
    feature: 'templates',
    summary: 'Change a template the acting tenant defined',
    tag: TAG,
    scopes: ['zones:write'],
    params,
    body: z.strictObject({
      name: definition.name.optional(),
      description: definition.description,
      variables: definition.variables.optional(),
      records: definition.records.optional(),
    }),
    errors: ['forbidden'],
    responses: { 200: { description: 'The template', schema: templateSchema } },
    handler: async (input) => ({ status: 200, body: present(await updateTemplate(writeContext(input), input.params.template, input.body)), etag: true }),
  }),
  defineRoute({
    method: 'delete',
    path: '/templates/{template}',
    operationId: 'deleteTemplate',
    feature: 'templates',
    summary: 'Delete a template the acting tenant defined',
    tag: TAG,
    scopes: ['zones:write'],
    params,
    errors: ['forbidden'],
    responses: { 204: { description: 'Deleted' } },
    handler: async (input) => noContent(deleteTemplate(writeContext(input), input.params.template)),
  }),
  defineRoute({
    method: 'post',
    path: '/zones/{zone}/apply-template',
    operationId: 'applyTemplate',
    feature: 'templates',
    summary: 'Apply a template to a zone as one change set',
    description:
      '`on_conflict: skip` (default) leaves existing RRsets of the same name and type alone; `replace` replaces them. A CNAME conflict is 422 unless `replace`, which removes the conflicting records. Dry run: 200 with the diff.',
    tag: TAG,
    scopes: ['zones:write', 'records:write'],
    params: z.strictObject({ zone: zoneParam }),
    body: applyTemplateBody,
    errors: ['record_managed', 'conflict'],
    responses: {
      200: { description: 'Dry run: the diff; nothing stored', schema: dryRunSchema },
      201: { description: 'Applied', schema: changeSetWrittenSchema, headers: ['Location', 'Idempotent-Replayed', 'Preference-Applied'] },
    },
    liveWait: changeSetLiveWait,
    handler: async (input) => {
      const { zone, changeSet, plan } = await applyTemplate(writeContext(input), input.services.config, input.params.zone, input.body);
      if (!changeSet) return { status: 200, body: presentDryRun(plan) };
      return changeSetCreated(zone, changeSet, plan);
    },
  }),
];
