// Secondary sets written straight into the database, for the tests of the serving side (NOTIFY,
// `live`, lag) that must not wait for the API: a catalog zone row (a copy of an existing zone's
// row, unpublished, of kind 'catalog') and the set naming it.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';

export interface SecondarySetRow {
  tenantId: string;
  name: string;
  secondaries: { address: string; port: number }[];
  tsigKeyId?: string | null;
  /** An existing zone whose row the catalog zone's row is copied from (its columns, not its records). */
  likeZoneId: string;
}

/** Inserts the set and its catalog zone (`<name>.catalog.invalid`); returns the set's id and the catalog's name. */
export async function insertSecondarySet(sql: pg.Pool, row: SecondarySetRow): Promise<{ id: string; catalogZone: string; catalogZoneId: string }> {
  const id = `sst_${randomUUID().replaceAll('-', '').slice(0, 20)}`;
  const catalogZoneId = `zon_${randomUUID().replaceAll('-', '').slice(0, 20)}`;
  const catalogZone = `${row.name}.catalog.invalid`;
  // One transaction, then the notification the API's write sends: a nameserver reading its access
  // lists between the two inserts would otherwise see the catalog zone without its set's secondaries.
  const client = await sql.connect();
  try {
    await client.query('BEGIN');
    await insertRows(client, row, id, catalogZoneId, catalogZone);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
  await sql.query(`SELECT pg_notify('secondary_sets_changed', $1)`, [id]);
  return { id, catalogZone, catalogZoneId };
}

async function insertRows(sql: pg.PoolClient, row: SecondarySetRow, id: string, catalogZoneId: string, catalogZone: string): Promise<void> {
  await sql.query(
    `INSERT INTO zones
     SELECT (jsonb_populate_record(NULL::zones, to_jsonb(z) || jsonb_build_object(
       'id', $1::text, 'name', $2::text, 'kind', 'catalog', 'tenant_id', $3::text, 'published_serial', NULL, 'status', 'active'))).*
     FROM zones z WHERE z.id = $4`,
    [catalogZoneId, catalogZone, row.tenantId, row.likeZoneId],
  );
  await sql.query(
    `INSERT INTO secondary_sets (id, tenant_id, name, catalog_zone_id, secondaries, tsig_key_id, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6, now(), now())`,
    [id, row.tenantId, row.name, catalogZoneId, JSON.stringify(row.secondaries), row.tsigKeyId ?? null],
  );
}
