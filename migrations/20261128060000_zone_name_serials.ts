import type { Knex } from 'knex';

// A zone created again under a name must start above the serial the deleted zone last had: a
// secondary still holding the old zone (a catalog consumer that has not applied the catalog's
// change yet, a static secondary of DNS_SECONDARIES) answers that serial, and the verifier would
// take it for the new zone's and call it `live` — while such a secondary, seeing no higher serial,
// would never transfer the new zone. Whatever path deletes a zone row (the verifier's removal of a
// withdrawn zone, a tenant's deletion, the lab's reset) and whatever path creates one (zones,
// reverse zones, catalog zones, the lab's parents), the database keeps the name's last serial
// and hands it to the next zone of that name, so no path can forget it:
// - zone_name_serials: per name, the last serial a zone of that name published (its withdrawal's,
//   the newest version), written by a BEFORE DELETE trigger on zones (the versions are still there).
// - zones.serial_floor: that serial, copied in when a zone row is inserted; the first version's
//   serial is above it (src/domain/soa.ts firstSerial).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('zone_name_serials', (t) => {
    t.text('name').primary();
    t.bigInteger('serial').notNullable();
    t.timestamp('recorded_at', { useTz: true }).notNullable();
  });
  await knex.raw('ALTER TABLE zones ADD COLUMN serial_floor bigint');
  await knex.raw(`
    CREATE FUNCTION zones_keep_last_serial() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE last bigint;
    BEGIN
      SELECT v.serial INTO last FROM zone_versions v WHERE v.zone_id = OLD.id ORDER BY v.created_at DESC, v.serial DESC LIMIT 1;
      last := coalesce(last, OLD.published_serial);
      IF last IS NOT NULL THEN
        INSERT INTO zone_name_serials (name, serial, recorded_at) VALUES (OLD.name, last, now())
        ON CONFLICT (name) DO UPDATE SET serial = EXCLUDED.serial, recorded_at = EXCLUDED.recorded_at;
      END IF;
      RETURN OLD;
    END
    $$`);
  await knex.raw('CREATE TRIGGER zones_keep_last_serial BEFORE DELETE ON zones FOR EACH ROW EXECUTE FUNCTION zones_keep_last_serial()');
  await knex.raw(`
    CREATE FUNCTION zones_serial_floor() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      NEW.serial_floor := (SELECT s.serial FROM zone_name_serials s WHERE s.name = NEW.name);
      RETURN NEW;
    END
    $$`);
  await knex.raw('CREATE TRIGGER zones_serial_floor BEFORE INSERT ON zones FOR EACH ROW EXECUTE FUNCTION zones_serial_floor()');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS zones_serial_floor ON zones');
  await knex.raw('DROP FUNCTION IF EXISTS zones_serial_floor()');
  await knex.raw('DROP TRIGGER IF EXISTS zones_keep_last_serial ON zones');
  await knex.raw('DROP FUNCTION IF EXISTS zones_keep_last_serial()');
  await knex.raw('ALTER TABLE zones DROP COLUMN IF EXISTS serial_floor');
  await knex.schema.dropTableIfExists('zone_name_serials');
}
