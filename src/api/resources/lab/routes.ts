// Lab-only endpoints under /lab: inspect and change the sandbox's simulations. Not mounted in
// production, where /api/v1/lab/* answers 404.
import { z } from 'zod';
import { DomainError } from '../../../domain/errors.js';
import { LabBillingDirectory } from '../../../lab/labBillingDirectory.js';
import { latestScheduledReset, resetLab } from '../../../lab/nightlyReset.js';
import type { Actor } from '../../../services/actor.js';
import { defineRoute } from '../../routing/route.js';
import { timestamp } from '../common.js';

const TAG = 'Lab (sandbox only)';

const billingClientSchema = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string().nullable(),
  status: z.enum(['active', 'closed']),
});

function assertPlatform(actor: Actor) {
  if (actor.token.tenant.type !== 'platform' || actor.onBehalfOf) {
    throw new DomainError('forbidden', { reason: 'lab_platform_token_only' });
  }
}

export const labRoutes = [
  defineRoute({
    method: 'get',
    path: '/lab',
    operationId: 'getLab',
    summary: 'What the lab simulates, and when it resets',
    tag: TAG,
    scopes: [],
    labOnly: true,
    responses: {
      200: {
        description: 'Lab status',
        schema: z.object({ reset_time_utc: z.string(), last_scheduled_reset: timestamp, simulations: z.array(z.string()) }),
      },
    },
    handler: async ({ services }) => {
      const { hour, minute } = services.config.labResetTime;
      return {
        status: 200,
        body: {
          reset_time_utc: `${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}`,
          last_scheduled_reset: latestScheduledReset(services.clock.now(), services.config.labResetTime).toISOString(),
          simulations: ['billing'],
        },
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/lab/billing-clients',
    operationId: 'listLabBillingClients',
    summary: "The simulated billing system's clients",
    description: 'The lab platform token sees every client; other tokens only those linked to tenants of their subtree.',
    tag: TAG,
    scopes: [],
    labOnly: true,
    responses: { 200: { description: 'The visible simulated billing clients', schema: z.object({ data: z.array(billingClientSchema) }) } },
    handler: async ({ actor, scoped, services }) => ({
      status: 200,
      body: { data: await new LabBillingDirectory(services.db).listVisibleTo(scoped, actor.acting.type) },
    }),
  }),
  defineRoute({
    method: 'put',
    path: '/lab/billing-clients/{client_id}',
    operationId: 'putLabBillingClient',
    summary: 'Add or change a simulated billing client (lab platform token)',
    tag: TAG,
    scopes: [],
    labOnly: true,
    params: z.strictObject({ client_id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/) }),
    body: z.strictObject({ name: z.string().min(1).max(200), email: z.email().nullable().default(null), status: z.enum(['active', 'closed']) }),
    errors: ['forbidden'],
    responses: { 200: { description: 'The billing client', schema: billingClientSchema } },
    handler: async ({ actor, services, params, body }) => {
      assertPlatform(actor);
      return { status: 200, body: await new LabBillingDirectory(services.db).upsert({ id: params.client_id, ...body }) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/lab/reset',
    operationId: 'resetLab',
    summary: 'Reset the lab data to the seed now (tokens survive)',
    tag: TAG,
    scopes: [],
    labOnly: true,
    errors: ['forbidden'],
    responses: { 204: { description: 'Reset' } },
    handler: async ({ actor, services }) => {
      assertPlatform(actor);
      await resetLab(services.db, services.clock.now(), services.labResetSteps, () => services.tokens.invalidate());
      return { status: 204 };
    },
  }),
];
