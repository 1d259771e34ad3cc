import type { Knex } from 'knex';

// The write seam's row versions and the event outbox (docs/architecture.md "One write path").
//
// `version` on zones and records counts the writes of the row: every write through the seam sets
// `version = version + 1` in the statement that writes the row, and the ETag is a function of
// (id, version). Publication progress (pending → pushed → live, activating → active, the SOA
// serial) does not move it, so a precondition taken from a response stays valid until someone
// writes the data.
//
// `events` becomes an append-only outbox: `seq` orders it; the columns an event was written with
// cannot be updated (delivery bookkeeping columns added later may be). `new_id(prefix)` makes ids
// in the format of src/domain/ids.ts newId (prefix, '_', 16 random bytes in lower-case base32
// without padding) for rows written by SQL alone (record.published in markLive).
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE zones ADD COLUMN version bigint NOT NULL DEFAULT 1`);
  await knex.raw(`ALTER TABLE records ADD COLUMN version bigint NOT NULL DEFAULT 1`);

  // 16 random bytes from two version-4 UUIDs (pg_strong_random): every byte of the first except
  // the version (6) and variant (8) bytes, then two bytes of the second.
  await knex.raw(`
    CREATE FUNCTION new_id(prefix text) RETURNS text LANGUAGE sql VOLATILE AS $$
      SELECT prefix || '_' || string_agg(substr('abcdefghijklmnopqrstuvwxyz234567', substring(b.bits FROM i * 5 + 1 FOR 5)::int + 1, 1), '' ORDER BY i)
      FROM (
        SELECT (('x' || encode(substring(uuid_send(u1) FROM 1 FOR 6) || substring(uuid_send(u1) FROM 8 FOR 1)
                  || substring(uuid_send(u1) FROM 10 FOR 7) || substring(uuid_send(u2) FROM 1 FOR 2), 'hex'))::bit(128) || B'00') AS bits
        FROM (SELECT gen_random_uuid() AS u1, gen_random_uuid() AS u2) AS u
      ) AS b, generate_series(0, 25) AS i
    $$`);

  await knex.raw(`ALTER TABLE events ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY`);
  await knex.raw(`CREATE UNIQUE INDEX events_seq ON events (seq)`);
  await knex.raw(`
    CREATE FUNCTION events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'events are append-only' USING ERRCODE = 'restrict_violation';
    END
    $$`);
  await knex.raw(`
    CREATE TRIGGER events_append_only BEFORE UPDATE OF id, seq, tenant_id, kind, zone_id, payload, occurred_at ON events
    FOR EACH ROW EXECUTE FUNCTION events_append_only()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS events_append_only ON events');
  await knex.raw('DROP FUNCTION IF EXISTS events_append_only()');
  await knex.raw('DROP INDEX IF EXISTS events_seq');
  await knex.raw('ALTER TABLE events DROP COLUMN IF EXISTS seq');
  await knex.raw('DROP FUNCTION IF EXISTS new_id(text)');
  await knex.raw('ALTER TABLE records DROP COLUMN IF EXISTS version');
  await knex.raw('ALTER TABLE zones DROP COLUMN IF EXISTS version');
}
