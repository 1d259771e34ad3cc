// Lab-only endpoints under /lab: inspect and change the sandbox's simulations. Not mounted in
// production, where /api/v1/lab/* answers 404.
import { z } from 'zod';
import { DomainError } from '../../../domain/errors.js';
import { LabBillingDirectory } from '../../../lab/labBillingDirectory.js';
import { latestScheduledReset, resetLab } from '../../../lab/nightlyReset.js';
import { type LabRegistration, LabRegistrar } from '../../../lab/registrar.js';
import { readLabTrustAnchors } from '../../../lab/labTrustAnchors.js';
import { setLabPrefixDelegation } from '../../../lab/labPrefixDelegations.js';
import { listLabMail } from '../../../lab/labWebhooks.js';
import { blockInPath } from '../../../services/rdns/addressInput.js';
import { hostnameField } from '../../../domain/records/fields.js';
import type { DbContext } from '../../../db/context.js';
import type { Services } from '../../../services/index.js';
import type { Actor } from '../../../services/actor.js';
import { getZone } from '../../../services/zoneReads.js';
import { failWebhookNow } from '../../../webhooks/webhookAdmin.js';
import { defineRoute, writeContext } from '../../routing/route.js';
import { timestamp } from '../common.js';
import { presentWebhook, webhookIdParam, webhookSchema } from '../webhooks/routes.js';

const TAG = 'Lab (sandbox only)';

const billingClientSchema = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string().nullable(),
  status: z.enum(['active', 'closed']),
});

const registrationSchema = z.object({
  zone: z.string().describe('The lab zone (A-label form).'),
  registered_here: z
    .boolean()
    .describe('true: registered through the provider (DNSSEC automatic, the service sets the DS); false: at a foreign registrar (assisted).'),
  delegation: z.array(z.string()).nullable().describe("NS names at the parent; null: the service's nameservers."),
  ds: z.array(z.string()).describe('DS records at the parent, RDATA in presentation form.'),
});

const zoneParam = z.strictObject({ zone: z.string().max(300).describe('The lab zone, by name.') });

const presentRegistration = (r: LabRegistration) => ({ zone: r.zone, registered_here: r.registeredHere, delegation: r.delegation, ds: r.ds });

// In a write, the registrar's own transactions are savepoints of the request's.
const registrar = (services: Services, context: DbContext) => new LabRegistrar(context.db, services.config, services.clock);

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
          simulations: ['billing', 'registry', 'reverse_registry'],
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
    handler: async ({ actor, context, services }) => ({
      status: 200,
      body: { data: await new LabBillingDirectory(context.db).listVisibleTo(context.scoped, actor.acting.type) },
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
    handler: async ({ actor, services, params, body, context }) => {
      assertPlatform(actor);
      return { status: 200, body: await new LabBillingDirectory(context.db).upsert({ id: params.client_id, ...body }) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/lab/mails',
    operationId: 'listLabMails',
    summary: 'Mail the service sent to support contacts of the acting subtree (newest first)',
    description: 'The sandbox sends no mail: what production hands to SMTP (a webhook disabled after 3 days of failures) is kept here.',
    tag: TAG,
    scopes: ['tenant:read'],
    labOnly: true,
    query: z.strictObject({ limit: z.coerce.number().int().min(1).max(500).default(50) }),
    responses: {
      200: {
        description: 'The mails',
        schema: z.object({
          data: z.array(z.object({ id: z.string(), tenant_id: z.string(), to: z.string(), subject: z.string(), body: z.string(), created_at: timestamp })),
        }),
      },
    },
    handler: async ({ context, query }) => ({
      status: 200,
      body: {
        data: (await listLabMail(context.db, context.scoped, query.limit)).map((m) => ({
          id: m.id,
          tenant_id: m.tenantId,
          to: m.to,
          subject: m.subject,
          body: m.body,
          created_at: m.createdAt.toISOString(),
        })),
      },
    }),
  }),
  defineRoute({
    method: 'post',
    path: '/lab/webhooks/{webhook}/fail',
    operationId: 'failLabWebhook',
    summary: 'Play three days of failed deliveries: the webhook is disabled as the service would (lab platform token)',
    description:
      'Dates the webhook’s failing streak (`failing_since`) back three days, then the delivery worker’s own step disables it: `state: disabled`, `disabled_reason: failing_deliveries`, and the mail to the support contact (GET /lab/mails), so a panel can show that state without waiting. Lab platform token, any tenant’s webhook. `409 conflict` on a disabled webhook.',
    tag: TAG,
    scopes: [],
    labOnly: true,
    params: z.strictObject({ webhook: webhookIdParam }),
    errors: ['forbidden', 'conflict'],
    responses: { 200: { description: 'The webhook, disabled', schema: webhookSchema } },
    handler: async (input) => {
      assertPlatform(input.actor);
      return { status: 200, body: presentWebhook(await failWebhookNow(writeContext(input), input.params.webhook)) };
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
    handler: async ({ actor, services, context, afterCommit }) => {
      assertPlatform(actor);
      // In the request's transaction (a savepoint), not a second connection beside it; cached
      // tokens go once it committed.
      await resetLab(context.db, services.clock.now(), services.labResetSteps, () => afterCommit(() => services.tokens.invalidate()));
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/lab/registrations/{zone}',
    operationId: 'getLabRegistration',
    summary: "A lab zone's entry in the simulated registry",
    description:
      'Whether the domain is registered through the provider, where the lab parent delegates it, and the DS records there. Any lab token, for zones it can see.',
    tag: TAG,
    scopes: ['zones:read'],
    labOnly: true,
    params: zoneParam,
    responses: { 200: { description: 'The registration', schema: registrationSchema } },
    handler: async ({ context, services, params }) => {
      const zone = await getZone(context, services.config, params.zone);
      return { status: 200, body: presentRegistration(await registrar(services, context).registration(zone.name)) };
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/lab/registrations/{zone}',
    operationId: 'updateLabRegistration',
    summary: 'Register a lab zone here or at a foreign registrar; point its delegation elsewhere or back (lab platform token)',
    description:
      "`registered_here: false` plays a domain registered at a foreign registrar (DNSSEC assisted); `delegation` lists the NS names the lab parent delegates to, `null` the service's own. The lab parent's change set is stored before the answer; publication follows.",
    tag: TAG,
    scopes: [],
    labOnly: true,
    params: zoneParam,
    body: z.strictObject({
      registered_here: z.boolean().optional(),
      delegation: z.array(hostnameField('delegation')).min(1).max(13).nullable().optional(),
    }),
    errors: ['forbidden'],
    responses: { 200: { description: 'The registration', schema: registrationSchema } },
    handler: async ({ actor, context, services, params, body }) => {
      assertPlatform(actor);
      const zone = await getZone(context, services.config, params.zone);
      const registration = await registrar(services, context).changeRegistration(zone.name, {
        registeredHere: body.registered_here,
        delegation: body.delegation && [...new Set(body.delegation)],
      });
      return { status: 200, body: presentRegistration(registration) };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/lab/registrations/{zone}/ds',
    operationId: 'putLabForeignDs',
    summary: 'Play the customer setting DS records at a foreign registrar (lab platform token)',
    description:
      'Exactly these DS records at the lab parent, right or wrong (`[]` removes them). Only for a zone marked foreign-registered: a zone registered here gets its DS from the service (409 conflict).',
    tag: TAG,
    scopes: [],
    labOnly: true,
    params: zoneParam,
    body: z.strictObject({ ds: z.array(z.string().max(1000).describe('"<key tag> <algorithm> <digest type> <digest hex>"')).max(16) }),
    errors: ['forbidden', 'conflict'],
    responses: { 200: { description: 'The registration', schema: registrationSchema } },
    handler: async ({ actor, context, services, params, body }) => {
      assertPlatform(actor);
      const zone = await getZone(context, services.config, params.zone);
      return { status: 200, body: presentRegistration(await registrar(services, context).setForeignDs(zone.name, body.ds)) };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/lab/prefix-delegations/{prefix}',
    operationId: 'putLabPrefixDelegation',
    summary: 'Make the registry’s delegation of a prefix’s reverse zones correct, missing or wrong (lab platform token)',
    description:
      "The lab's in-addr.arpa and ip6.arpa play the regional registry (and, for RFC 2317 classless zones, the holder of the /24 with its CNAMEs). `correct`: delegated to the service's nameservers (the default); `missing`: no delegation (nor CNAMEs); `wrong`: delegated to ns1/ns2.elsewhere.example. The lab parent's change set is stored before the answer; publication follows.",
    tag: TAG,
    scopes: [],
    labOnly: true,
    params: z.strictObject({ prefix: z.string().min(1).max(100).describe('The prefix in its URL form (`192.0.2.0-24`)') }),
    body: z.strictObject({ state: z.enum(['correct', 'missing', 'wrong']) }),
    errors: ['forbidden'],
    responses: { 200: { description: 'The delegation now', schema: z.object({ prefix: z.string(), state: z.enum(['correct', 'missing', 'wrong']) }) } },
    handler: async ({ actor, services, params, body, context }) => {
      assertPlatform(actor);
      // On the request's connection (a savepoint): never a second pool connection while holding one.
      const set = await setLabPrefixDelegation(context.db, services.config, services.clock, blockInPath(params.prefix, '/prefix'), body.state);
      return { status: 200, body: { prefix: set.cidr, state: set.state } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/lab/trust-anchors',
    operationId: 'getLabTrustAnchors',
    summary: "The lab's DNSSEC trust anchor",
    description:
      "The DS of the lab root's KSK, for validators that send every query to the lab's nameserver: `trust_anchors_conf` is a BIND `trust-anchors` clause (`delv -a FILE @127.0.0.1 -p 5300 …`), `root_key` DS lines for unbound's `trust-anchor-file` (with a `forward-zone` for \".\" to the lab). The same texts are in DATA_DIR/lab-trust-anchors.conf and DATA_DIR/lab-root.key. Until the lab root is signed (a few seconds after the first start, with the worker role running) `ready` is false and both are null.",
    tag: TAG,
    scopes: [],
    labOnly: true,
    responses: {
      200: {
        description: 'The trust anchor',
        schema: z.object({ ready: z.boolean(), trust_anchors_conf: z.string().nullable(), root_key: z.string().nullable() }),
      },
    },
    handler: async ({ services }) => {
      const anchors = await readLabTrustAnchors(services.config.dataDir);
      return { status: 200, body: { ready: anchors !== null, trust_anchors_conf: anchors?.conf ?? null, root_key: anchors?.rootKey ?? null } };
    },
  }),
];
