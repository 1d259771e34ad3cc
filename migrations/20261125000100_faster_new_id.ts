import type { Knex } from 'knex';

// new_id(prefix) (20261124000100_row_versions_event_outbox) made each id from a 26-row
// generate_series, a sort and string_agg: 28 µs an id, and markLive calls it once for every change
// set a verified version makes live, inside the statement that holds their rows. The same bits,
// read as 26 five-bit groups written out in one expression, take about 8 µs (measured on 10,000
// ids; bench/RESULTS.md). Same format and same output for the same random bytes (checked against
// the old body on 20,000 pairs of UUIDs): prefix, '_', 16 random bytes in lower-case base32
// without padding, as src/domain/ids.ts newId writes them.
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const groups = Array.from({ length: 26 }, (_, i) => `substr(alphabet, substring(bits FROM ${i * 5 + 1} FOR 5)::int + 1, 1)`).join(' || ');

export async function up(knex: Knex): Promise<void> {
  // 16 random bytes from two version-4 UUIDs (pg_strong_random): every byte of the first except
  // the version (6) and variant (8) bytes, then two bytes of the second; two zero bits pad 128 to 130.
  await knex.raw(`
    CREATE OR REPLACE FUNCTION new_id(prefix text) RETURNS text LANGUAGE plpgsql VOLATILE AS $$
    DECLARE
      u1 bytea := uuid_send(gen_random_uuid());
      u2 bytea := uuid_send(gen_random_uuid());
      alphabet constant text := '${ALPHABET}';
      bits bit(130) := ('x' || encode(substring(u1 FROM 1 FOR 6) || substring(u1 FROM 8 FOR 1) || substring(u1 FROM 10 FOR 7)
                                      || substring(u2 FROM 1 FOR 2), 'hex'))::bit(128) || B'00';
    BEGIN
      RETURN prefix || '_' || ${groups};
    END
    $$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE OR REPLACE FUNCTION new_id(prefix text) RETURNS text LANGUAGE sql VOLATILE AS $$
      SELECT prefix || '_' || string_agg(substr('${ALPHABET}', substring(b.bits FROM i * 5 + 1 FOR 5)::int + 1, 1), '' ORDER BY i)
      FROM (
        SELECT (('x' || encode(substring(uuid_send(u1) FROM 1 FOR 6) || substring(uuid_send(u1) FROM 8 FOR 1)
                  || substring(uuid_send(u1) FROM 10 FOR 7) || substring(uuid_send(u2) FROM 1 FOR 2), 'hex'))::bit(128) || B'00') AS bits
        FROM (SELECT gen_random_uuid() AS u1, gen_random_uuid() AS u2) AS u
      ) AS b, generate_series(0, 25) AS i
    $$`);
}
