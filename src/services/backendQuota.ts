// The backend's zone quota as stats show it (spec "Stats object": "a backend zone-quota reading
// (last reading, refreshed every 15 minutes, never a live call)"): the worker takes a reading on
// a schedule and stores it; /stats reads the stored one.
import type { Pool, Runner } from '../db/context.js';
import { countRows } from '../db/count.js';
import type { Clock } from '../domain/clock.js';
import type { StatsContributor } from './stats.js';

export const BACKEND_QUOTA_INTERVAL_MS = 15 * 60_000;
const KEY = 'zone_quota';

export interface ZoneQuotaReading {
  zones: number;
  capacity: number;
  available: number;
}

/** The zones the backend serves: the lab's parents are not counted (zone creation's capacity check and the reading share this). */
export const countBackendZones = (db: Runner): Promise<number> => countRows(db('zones').whereNot('kind', 'lab_parent'));

/** Takes and stores a reading: the zones the backend serves (the lab's parents not counted, as in creation's capacity check) against its capacity. */
export async function readBackendQuota(db: Pool, clock: Clock, capacity: number): Promise<ZoneQuotaReading> {
  const zones = await countBackendZones(db);
  const value: ZoneQuotaReading = { zones, capacity, available: Math.max(0, capacity - zones) };
  await db('backend_readings')
    .insert({ key: KEY, value: JSON.stringify(value), read_at: clock.now() })
    .onConflict('key')
    .merge();
  return value;
}

/** The platform's stats carry the last reading (null before the first); other scopes do not. */
export const backendStats = (db: Pool): StatsContributor => ({
  name: 'backend',
  platformOnly: true,
  async collect() {
    const row = (await db('backend_readings').where({ key: KEY }).first('value', 'read_at')) as { value: ZoneQuotaReading; read_at: Date } | undefined;
    return { zone_quota: row ? { ...row.value, read_at: row.read_at.toISOString() } : null };
  },
});
