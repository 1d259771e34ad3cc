// GET /events (docs/webhooks.md "Polling events"): the events a subtree's webhooks receive, to
// poll instead of (or to catch up beside) a webhook. Read through the tenant scope, so the set is
// the one a subtree webhook of the acting tenant would be sent (ScopedDb.from('events')).
//
// Order and completeness: an event is listed once every transaction that began before its own
// has ended (its `tx` is below the reading snapshot's xmin), in (tx, seq) order. An event
// committed late therefore never appears behind one a poller has already passed; the price is
// that an event shows only once the longest write running beside it has ended (milliseconds).
import { paginate, type SortKey } from '../db/paginate.js';
import type { ScopedDb } from '../db/tenantScope.js';
import { validationFailed } from '../domain/errors.js';
import { PING_KIND, presentEvent, SUBSCRIBABLE_KINDS } from './deliveryPolicy.js';

const ORDER: SortKey[] = [
  { column: 'e.tx', direction: 'asc', field: 'tx' },
  { column: 'e.seq', direction: 'asc', field: 'seq' },
];

type EventRow = { id: string; kind: string; tenant_id: string; occurred_at: Date; payload: Record<string, unknown>; tx: string; seq: string };

export interface EventFilter {
  /** Event kinds (any of them); all the subscribable ones when absent. */
  types?: string[];
  /** Only events after this one (its id), as a poller continues from the last event it handled. */
  afterEvent?: string;
}

/** A page of the acting subtree's events, oldest first, each in the shape a delivery's body has. */
export async function listEvents(scoped: ScopedDb, filter: EventFilter, after: unknown[] | null, limit: number) {
  const q = scoped
    .from('events', 'e')
    .select('e.id', 'e.kind', 'e.tenant_id', 'e.occurred_at', 'e.payload', 'e.tx', 'e.seq')
    .whereIn('e.kind', filter.types?.length ? filter.types : SUBSCRIBABLE_KINDS)
    .whereRaw('e.tx < pg_snapshot_xmin(pg_current_snapshot())')
    // As the dispatcher: the lab's parent zones are its machinery, no API object.
    .whereNotExists((sub) => sub.select(1).from('zones as z').whereRaw('z.id = e.zone_id').where('z.kind', 'lab_parent'));
  if (filter.afterEvent !== undefined) {
    const from = (await scoped.from('events', 'e').where('e.id', filter.afterEvent).whereNot('e.kind', PING_KIND).first('e.tx', 'e.seq')) as { tx: string; seq: string } | undefined;
    if (!from) {
      throw validationFailed([
        {
          in: 'query',
          pointer: '/after',
          code: 'unknown_event',
          detail: 'No event of the acting subtree has this id: events are kept 30 days. Start again without `after` (and catch up from the oldest kept).',
        },
      ]);
    }
    q.whereRaw('(e.tx, e.seq) > (?::xid8, ?::bigint)', [from.tx, from.seq]);
  }
  const page = await paginate<EventRow>(q, ORDER, after, limit);
  return {
    events: page.rows.map((r) => presentEvent({ id: r.id, kind: r.kind, tenantId: r.tenant_id, occurredAt: r.occurred_at, payload: r.payload })),
    next: page.next,
  };
}
