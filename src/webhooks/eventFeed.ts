// GET /events (docs/webhooks.md "Polling events"): the events a subtree's webhooks receive, to
// poll instead of (or to catch up beside) a webhook: the subtree's tenants' events and those
// naming one of them as the acting tenant — the set ScopedDb.from('events') has, read here per
// tenant of the scope (below) so that each part can come from its index.
//
// Order and completeness: an event is listed once every transaction that began before its own
// has ended (its `tx` is below the reading snapshot's xmin), in (tx, seq) order. An event
// committed late therefore never appears behind one a poller has already passed; the price is
// that an event shows only once the longest write running beside it has ended (milliseconds).
//
// The page is read per tenant of the subtree, each from its index in that order and cut at the
// page size, then merged: a month of a busy tenant's events is never scanned or sorted whole.
import type { Knex } from 'knex';
import { paginate, type SortKey } from '../db/paginate.js';
import type { ScopedDb } from '../db/tenantScope.js';
import { validationFailed } from '../domain/errors.js';
import { ACTING_TENANT_EVENT_KINDS } from '../domain/model/events.js';
import { PING_KIND, presentEvent, SUBSCRIBABLE_KINDS } from './deliveryPolicy.js';

/** Column names of the merged page (the union's output), for the order and the cursor. */
const ORDER: SortKey[] = [
  { column: 'tx', direction: 'asc', field: 'tx' },
  { column: 'seq', direction: 'asc', field: 'seq' },
];

type EventRow = { id: string; kind: string; tenant_id: string; occurred_at: Date; payload: Record<string, unknown>; tx: string; seq: string };

/** A place in the list: strictly after this (tx, seq). */
type Position = [tx: string, seq: string];

export interface EventFilter {
  /** Event kinds (any of them); all the subscribable ones when absent. */
  types?: string[];
  /** Only events after this one (its id), as a poller continues from the last event it handled. */
  afterEvent?: string;
}

/** A page of the acting subtree's events, oldest first, each in the shape a delivery's body has. */
export async function listEvents(scoped: ScopedDb, filter: EventFilter, after: unknown[] | null, limit: number) {
  const from = latest(after as Position | null, filter.afterEvent === undefined ? null : await positionOf(scoped, filter.afterEvent));
  const kinds = filter.types?.length ? filter.types : [...SUBSCRIBABLE_KINDS];
  // Each tenant's own events, and those of writes made for it in another's zone (not twice: an
  // event whose own tenant is in the subtree comes through the first).
  const own = perTenant(scoped, 'e.tenant_id = t.id', [], kinds, from, limit);
  const actedFor = perTenant(
    scoped,
    `(e.payload->>'acting_tenant_id') = t.id AND e.kind = ANY (?::text[]) AND e.tenant_id NOT IN ?`,
    [[...ACTING_TENANT_EVENT_KINDS], scoped.subtreeIds()],
    kinds,
    from,
    limit,
  );
  const page = await paginate<EventRow>(own.unionAll(actedFor, true), ORDER, null, limit);
  return {
    events: page.rows.map((r) => presentEvent({ id: r.id, kind: r.kind, tenantId: r.tenant_id, occurredAt: r.occurred_at, payload: r.payload })),
    next: page.next,
  };
}

/** For every tenant of the subtree, its first `limit + 1` events after `from` that `match` it. */
function perTenant(scoped: ScopedDb, match: string, matchBindings: Knex.RawBinding[], kinds: string[], from: Position | null, limit: number) {
  return scoped
    .from('tenants', 't')
    .joinRaw(
      `CROSS JOIN LATERAL (
         SELECT e.id, e.kind, e.tenant_id, e.occurred_at, e.payload, e.tx, e.seq FROM events e
         WHERE ${match} AND e.kind = ANY (?::text[])
           AND e.tx < pg_snapshot_xmin(pg_current_snapshot())
           ${from ? 'AND (e.tx, e.seq) > (?::xid8, ?::bigint)' : ''}
           -- As the dispatcher: the lab's parent zones are its machinery, no API object.
           AND NOT EXISTS (SELECT 1 FROM zones z WHERE z.id = e.zone_id AND z.kind = 'lab_parent')
         ORDER BY e.tx, e.seq LIMIT ?
       ) e`,
      // A sub-query binding is compiled inline; knex's type for joinRaw's bindings lacks it.
      [...matchBindings, kinds, ...(from ?? []), limit + 1] as Knex.Value[],
    )
    .select('e.*');
}

/** Where the event with this id stands; 422 when the subtree has none such (any more). */
async function positionOf(scoped: ScopedDb, eventId: string): Promise<Position> {
  const row = (await scoped.from('events', 'e').where('e.id', eventId).whereNot('e.kind', PING_KIND).first('e.tx', 'e.seq')) as { tx: string; seq: string } | undefined;
  if (!row) {
    throw validationFailed([
      {
        in: 'query',
        pointer: '/after',
        code: 'unknown_event',
        detail: 'No event of the acting subtree has this id: events are kept 30 days. Start again without `after` (and catch up from the oldest kept).',
      },
    ]);
  }
  return [String(row.tx), String(row.seq)];
}

/** The later of two positions (a cursor taken after `after=` lies beyond it, but both may be sent). */
function latest(a: Position | null, b: Position | null): Position | null {
  if (!a || !b) return a ?? b;
  const [ta, sa] = a.map(BigInt) as [bigint, bigint];
  const [tb, sb] = b.map(BigInt) as [bigint, bigint];
  return ta > tb || (ta === tb && sa > sb) ? a : b;
}
