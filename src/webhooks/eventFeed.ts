// GET /events (docs/webhooks.md "Polling events"): the events a subtree's webhooks receive, to
// poll instead of (or to catch up beside) a webhook: the subtree's tenants' events and those
// naming one of them as the acting tenant — the set ScopedDb.from('events') has, read here per
// tenant of the scope (src/db/repositories/eventFeedRows.ts) so that each part can come from its index.
//
// Order and completeness: an event is listed once every transaction that began before its own
// has ended (its `tx` is below the reading snapshot's xmin), in (tx, seq) order. An event
// committed late therefore never appears behind one a poller has already passed; the price is
// that an event shows only once the longest write running beside it has ended (milliseconds).
import type { DbContext } from '../db/context.js';
import { type EventPosition as Position, pageSubtreeEvents, subtreeEventPosition } from '../db/repositories/eventFeedRows.js';
import { validationFailed } from '../domain/errors.js';
import { ACTING_TENANT_EVENT_KINDS } from '../domain/model/events.js';
import { PING_KIND, presentEvent, SUBSCRIBABLE_KINDS } from './deliveryPolicy.js';

export interface EventFilter {
  /** Event kinds (any of them); all the subscribable ones when absent. */
  types?: string[];
  /** Only events after this one (its id), as a poller continues from the last event it handled. */
  afterEvent?: string;
}

/** A page of the acting subtree's events, oldest first, each in the shape a delivery's body has. */
export async function listEvents(ctx: DbContext, filter: EventFilter, after: unknown[] | null, limit: number) {
  const from = latest(after as Position | null, filter.afterEvent === undefined ? null : await positionOf(ctx, filter.afterEvent));
  const kinds = filter.types?.length ? filter.types : [...SUBSCRIBABLE_KINDS];
  const page = await pageSubtreeEvents(ctx.scoped, kinds, [...ACTING_TENANT_EVENT_KINDS], from, limit);
  return {
    events: page.rows.map((r) => presentEvent({ id: r.id, kind: r.kind, tenantId: r.tenant_id, occurredAt: r.occurred_at, payload: r.payload })),
    next: page.next,
  };
}

/** Where the event with this id stands; 422 when the subtree has none such (any more). */
async function positionOf(ctx: DbContext, eventId: string): Promise<Position> {
  const position = await subtreeEventPosition(ctx.scoped, eventId, PING_KIND);
  if (!position) {
    throw validationFailed([
      {
        in: 'query',
        pointer: '/after',
        code: 'unknown_event',
        detail: 'No event of the acting subtree has this id: events are kept 30 days. Start again without `after` (and catch up from the oldest kept).',
      },
    ]);
  }
  return position;
}

/** The later of two positions (a cursor taken after `after=` lies beyond it, but both may be sent). */
function latest(a: Position | null, b: Position | null): Position | null {
  if (!a || !b) return a ?? b;
  const [ta, sa] = a.map(BigInt) as [bigint, bigint];
  const [tb, sb] = b.map(BigInt) as [bigint, bigint];
  return ta > tb || (ta === tb && sa > sb) ? a : b;
}
