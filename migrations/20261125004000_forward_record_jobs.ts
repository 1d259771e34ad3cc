import type { Knex } from 'knex';

// Forward records of default PTRs written in chunks (docs/rdns.md "Forward records of default
// PTRs"): one row per (address space, zone) whose records are still to be brought to what the
// space should keep there. The worker takes a row FOR UPDATE SKIP LOCKED, writes one chunk as a
// change set of the zone and stores what remains; the row goes once nothing does. No foreign key
// to the space: a space's removal leaves its row, whose worker then removes the space's records.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('forward_record_jobs', (t) => {
    t.text('space_id').notNullable();
    t.text('zone_id').notNullable().references('zones.id').onDelete('CASCADE');
    // What the last chunk left: the names the space should keep there, those of them not stored
    // yet, and the records the space keeps there that it should not (old names, an old zone).
    t.integer('total').notNullable().defaultTo(0);
    t.integer('missing').notNullable().defaultTo(0);
    t.integer('stale').notNullable().defaultTo(0);
    t.integer('attempts').notNullable().defaultTo(0);
    t.jsonb('last_error').nullable();
    t.timestamp('run_after', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.primary(['space_id', 'zone_id']);
    t.index(['run_after']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('forward_record_jobs');
}
