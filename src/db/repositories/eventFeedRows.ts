// The reads of GET /events (src/webhooks/eventFeed.ts has the order and completeness rules): the
// page is read per tenant of the subtree, each from its index in (tx, seq) order and cut at the
// page size, then merged, so a month of a busy tenant's events is never scanned or sorted whole.
import type { Knex } from 'knex';
import { paginate, type SortKey } from '../paginate.js';
import type { ScopedDb } from '../tenantScope.js';

/** Column names of the merged page (the union's output), for the order and the cursor. */
const ORDER: SortKey[] = [
  { column: 'tx', direction: 'asc', field: 'tx' },
  { column: 'seq', direction: 'asc', field: 'seq' },
];

export type EventRow = { id: string; kind: string; tenant_id: string; occurred_at: Date; payload: Record<string, unknown>; tx: string; seq: string };

/** A place in the list: strictly after this (tx, seq). */
export type EventPosition = [tx: string, seq: string];

/**
 * A page of the subtree's events of `kinds` after `from`: each tenant's own, and those of writes
 * made for it in another's zone (`actingKinds`; not twice: an event whose own tenant is in the
 * subtree comes through the first).
 */
export function pageSubtreeEvents(scoped: ScopedDb, kinds: string[], actingKinds: string[], from: EventPosition | null, limit: number) {
  const own = perTenant(scoped, 'e.tenant_id = t.id', [], kinds, from, limit);
  const actedFor = perTenant(
    scoped,
    `(e.payload->>'acting_tenant_id') = t.id AND e.kind = ANY (?::text[]) AND e.tenant_id NOT IN ?`,
    [actingKinds, scoped.subtreeIds()],
    kinds,
    from,
    limit,
  );
  return paginate<EventRow>(own.unionAll(actedFor, true), ORDER, null, limit);
}

/** For every tenant of the subtree, its first `limit + 1` events after `from` that `match` it. */
function perTenant(scoped: ScopedDb, match: string, matchBindings: Knex.RawBinding[], kinds: string[], from: EventPosition | null, limit: number) {
  return scoped
    .from('tenants', 't')
    .joinRaw(
      `CROSS JOIN LATERAL (
         SELECT e.id, e.kind, e.tenant_id, e.occurred_at, e.payload, e.tx, e.seq FROM events e
         WHERE ${match} AND e.kind = ANY (?::text[])
           AND e.tx < pg_snapshot_xmin(pg_current_snapshot())
           ${from ? 'AND (e.tx, e.seq) > (?::xid8, ?::bigint)' : ''}
           -- As the dispatcher: the lab's parent zones and catalog zones are no API objects.
           AND NOT EXISTS (SELECT 1 FROM zones z WHERE z.id = e.zone_id AND z.kind IN ('lab_parent', 'catalog'))
         ORDER BY e.tx, e.seq LIMIT ?
       ) e`,
      // A sub-query binding is compiled inline; knex's type for joinRaw's bindings lacks it.
      [...matchBindings, kinds, ...(from ?? []), limit + 1] as Knex.Value[],
    )
    .select('e.*');
}

/** Where the subtree's event with this id stands (never a ping's); null when it has none such. */
export async function subtreeEventPosition(scoped: ScopedDb, eventId: string, pingKind: string): Promise<EventPosition | null> {
  const row = (await scoped.from('events', 'e').where('e.id', eventId).whereNot('e.kind', pingKind).first('e.tx', 'e.seq')) as
    | { tx: string; seq: string }
    | undefined;
  return row ? [String(row.tx), String(row.seq)] : null;
}
