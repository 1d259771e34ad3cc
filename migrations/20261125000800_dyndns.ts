import type { Knex } from 'knex';

// Dynamic DNS hosts (docs/dyndns.md): one name in a zone that a router keeps pointed at its
// address through GET /nic/update. The host's A and AAAA are ordinary records of the zone; this
// row holds what the protocol needs beside them: the credential (a slow hash, never the password)
// and the last update. A host goes with its zone (ON DELETE CASCADE; zone deletion also removes
// it at once, docs/dyndns.md) and with its tenant.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('dyndns_hosts', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.text('zone_id').notNullable().references('zones.id').onDelete('CASCADE');
    // Owner name relative to the zone, as records store it ('@' for the apex).
    t.text('name').notNullable();
    t.integer('ttl').notNullable();
    t.text('password_hash').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.timestamp('last_update_at', { useTz: true });
    t.text('last_update_ip');
    t.text('last_update_client');
    t.unique(['zone_id', 'name']);
    t.index(['tenant_id', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('dyndns_hosts');
}
