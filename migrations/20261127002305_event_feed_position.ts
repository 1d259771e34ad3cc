import type { Knex } from 'knex';

// The position of an event in GET /events (docs/webhooks.md "Polling events"). `seq` is taken at
// insert, but transactions commit in another order: a poller that read up to seq 100 would never
// see a seq 99 committed a moment later. `tx` is the writing transaction's id: every transaction
// still running has one at least the snapshot's xmin, and every later one a larger one, so the
// events with tx below the reader's xmin are final (nothing can appear before them), and
// (tx, seq) orders them. Existing rows read '0' (a constant default costs no rewrite of this large
// table), new rows get their transaction's id — the same trick as events.awaiting_dispatch.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE events ADD COLUMN tx xid8 NOT NULL DEFAULT '0'`);
  await knex.raw('ALTER TABLE events ALTER COLUMN tx SET DEFAULT pg_current_xact_id()');
  // The position is part of the event: append-only like the columns it was written with.
  await knex.raw('DROP TRIGGER events_append_only ON events');
  await knex.raw(`
    CREATE TRIGGER events_append_only BEFORE UPDATE OF id, seq, tenant_id, kind, zone_id, payload, occurred_at, tx ON events
    FOR EACH ROW EXECUTE FUNCTION events_append_only()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER events_append_only ON events');
  await knex.raw(`
    CREATE TRIGGER events_append_only BEFORE UPDATE OF id, seq, tenant_id, kind, zone_id, payload, occurred_at ON events
    FOR EACH ROW EXECUTE FUNCTION events_append_only()`);
  await knex.raw('ALTER TABLE events DROP COLUMN IF EXISTS tx');
}
