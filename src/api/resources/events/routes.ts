// GET /events (docs/webhooks.md "Polling events"): the events the acting subtree's webhooks
// receive, to poll — each item the very body a delivery carries.
import { z } from 'zod';
import { SUBSCRIBABLE_KINDS } from '../../../webhooks/deliveryPolicy.js';
import { listEvents } from '../../../webhooks/eventFeed.js';
import { listEnvelope, listResult, pageRequest } from '../../pagination.js';
import { defineRoute } from '../../routing/route.js';
import { repeatable } from '../../routing/validate.js';
import { pageQuery } from '../common.js';
import { eventSchemas } from '../webhooks/eventSchemas.js';

const [first, ...rest] = SUBSCRIBABLE_KINDS.map((kind) => eventSchemas[kind]);
const eventSchema = z
  .discriminatedUnion('type', [first!, ...rest])
  .describe('The event as a webhook delivery’s body has it (the OpenAPI document’s `webhooks`).');

export const eventRoutes = [
  defineRoute({
    method: 'get',
    path: '/events',
    operationId: 'listEvents',
    summary: 'Events of the acting subtree, oldest first, to poll',
    description:
      'The events a subtree webhook of the acting tenant receives (test pings excepted), each the body a delivery carries; kept 30 days. Poll with `after` = the id of the last event handled; follow `next_cursor` while `has_more`. An event is listed once every write that began before it has ended, in that order, so one committed late never appears behind one already passed.',
    tag: 'Events',
    scopes: ['zones:read'],
    query: z.strictObject({
      after: z
        .string()
        .regex(/^evt_[a-z2-7]+$/, 'must be an event id (evt_…)')
        .optional()
        .describe(
          'Only events after this one (an event id of this list or of a delivery). `422` (`unknown_event`) once it is older than the 30 days events are kept.',
        ),
      type: repeatable(z.enum(SUBSCRIBABLE_KINDS)).optional().describe('Only events of these types (repeat, or comma-separated).'),
      ...pageQuery,
    }),
    responses: { 200: { description: 'A page of events', schema: listEnvelope(eventSchema), headers: ['Link'] } },
    handler: async (input) => {
      const { after, limit } = pageRequest(input, 'events');
      const page = await listEvents(input.context, { types: input.query.type, afterEvent: input.query.after }, after, limit);
      return listResult(input, 'events', page.events, page.next);
    },
  }),
];
