import type { Knex } from 'knex';

// A customer's webhook receives the events of its own PTR writes into the provider's reverse
// zones (docs/webhooks.md "Ownership"): the zone.changed event names it in acting_tenant_id, and
// the dispatcher finds the same tenant for that change set's record.published / record.failed by
// this index (only events with an acting tenant are in it: a small index).
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE INDEX events_acting_tenant_changeset ON events ((payload->>'changeset_id'))
    WHERE kind = 'zone.changed' AND (payload->>'acting_tenant_id') IS NOT NULL`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS events_acting_tenant_changeset');
}
