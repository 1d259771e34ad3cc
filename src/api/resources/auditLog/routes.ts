import { z } from 'zod';
import { listAuditLog } from '../../../services/auditLog.js';
import { listEnvelope, listResult, pageRequest } from '../../pagination.js';
import { defineRoute } from '../../routing/route.js';
import { repeatable } from '../../routing/validate.js';
import { iso, pageQuery, timestamp } from '../common.js';

const entrySchema = z.object({
  id: z.string(),
  occurred_at: timestamp,
  action: z.string().describe('e.g. tenant.created, tenant.billing_linked, token.created, token.revoked'),
  target: z.object({ type: z.string(), id: z.string() }),
  tenant_id: z.string().describe('The acting tenant of the request that did it.'),
  actor: z.object({
    api_client_id: z.string().nullable(),
    token_id: z.string().nullable(),
    user_id: z.string().nullable(),
    tenant_id: z.string().nullable().describe("The API client's own tenant."),
  }),
  on_behalf_of_tenant_id: z.string().nullable().describe('The customer acted for with X-Act-As-Customer.'),
  request_id: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
});

const dateTime = z.iso.datetime({ offset: true }).transform((s) => new Date(s));

export const auditLogRoutes = [
  defineRoute({
    method: 'get',
    path: '/audit-log',
    operationId: 'listAuditLog',
    summary: 'Audit log of the acting subtree, newest first',
    description: 'Entries are kept 400 days.',
    tag: 'Audit log',
    scopes: ['audit:read'],
    query: z.strictObject({
      since: dateTime.optional().describe('Entries at or after this instant.'),
      until: dateTime.optional().describe('Entries before this instant.'),
      actor: z.string().max(100).optional().describe('An API client, token or user id.'),
      action: repeatable(z.string().max(100)).optional().describe('Repeatable.'),
      target: z.string().max(200).optional().describe('Id of the object acted on.'),
      ...pageQuery,
    }),
    responses: { 200: { description: 'A page of entries', schema: listEnvelope(entrySchema) } },
    handler: async (input) => {
      const { after, limit } = pageRequest(input, 'audit-log');
      const page = await listAuditLog(input.context, input.query, after, limit);
      const data = page.items.map((e) => ({
        id: e.id,
        occurred_at: iso(e.occurredAt),
        action: e.action,
        target: e.target,
        tenant_id: e.tenantId,
        actor: { api_client_id: e.actor.apiClientId, token_id: e.actor.tokenId, user_id: e.actor.userId, tenant_id: e.actor.tenantId },
        on_behalf_of_tenant_id: e.onBehalfOfTenantId,
        request_id: e.requestId,
        details: e.details,
      }));
      return listResult(input, 'audit-log', data, page.next);
    },
  }),
];
