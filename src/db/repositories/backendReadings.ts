// The `backend_readings` table (the last reading of each backend figure) and the zone count it reads.
import type { Pool, Runner } from '../context.js';
import { countRows } from '../count.js';

/** The zones the backend serves: the lab's parents are not counted (zone creation's capacity check and the reading share this). */
export const countBackendZones = (db: Runner): Promise<number> => countRows(db('zones').whereNotIn('kind', ['lab_parent', 'catalog']));

/** Stores the reading under its key, replacing the last. */
export const storeBackendReading = async (db: Pool, key: string, value: unknown, at: Date): Promise<void> => {
  await db('backend_readings')
    .insert({ key, value: JSON.stringify(value), read_at: at })
    .onConflict('key')
    .merge();
};

/** The last reading under the key, if any. */
export const backendReading = async <T>(db: Pool, key: string): Promise<{ value: T; read_at: Date } | undefined> =>
  (await db('backend_readings').where({ key }).first('value', 'read_at')) as { value: T; read_at: Date } | undefined;
