import type { Knex } from 'knex';

// The customer a change set was written for in a provider reverse zone (docs/rdns.md "Events of
// PTR writes") is kept on the change set itself, so that its record.published / record.failed
// events carry it as its zone.changed does, and webhook dispatch reads it off each event instead
// of searching the events table for the change set's zone.changed (the index that search needed
// goes). Change sets written before are filled in from their zone.changed events.
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE change_sets ADD COLUMN acting_tenant_id text');
  await knex.raw(`UPDATE change_sets c SET acting_tenant_id = e.payload->>'acting_tenant_id'
    FROM events e
    WHERE e.kind = 'zone.changed' AND (e.payload->>'acting_tenant_id') IS NOT NULL
      AND e.payload->>'changeset_id' = c.id AND e.zone_id = c.zone_id`);
  await knex.raw('DROP INDEX IF EXISTS events_acting_tenant_changeset');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`CREATE INDEX events_acting_tenant_changeset ON events ((payload->>'changeset_id'))
    WHERE kind = 'zone.changed' AND (payload->>'acting_tenant_id') IS NOT NULL`);
  await knex.raw('ALTER TABLE change_sets DROP COLUMN acting_tenant_id');
}
