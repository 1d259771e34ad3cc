// The backend's zone quota as stats show it (spec "Stats object": "a backend zone-quota reading
// (last reading, refreshed every 15 minutes, never a live call)"): the worker takes a reading on
// a schedule and stores it; /stats reads the stored one.
import type { Pool } from '../db/context.js';
import { backendReading, countBackendZones, storeBackendReading } from '../db/repositories/backendReadings.js';
import type { Clock } from '../domain/clock.js';
import type { StatsContributor } from './stats.js';

export const BACKEND_QUOTA_INTERVAL_MS = 15 * 60_000;
const KEY = 'zone_quota';

export interface ZoneQuotaReading {
  zones: number;
  capacity: number;
  available: number;
}

/** Takes and stores a reading: the zones the backend serves (the lab's parents not counted, as in creation's capacity check) against its capacity. */
export async function readBackendQuota(db: Pool, clock: Clock, capacity: number): Promise<ZoneQuotaReading> {
  const zones = await countBackendZones(db);
  const value: ZoneQuotaReading = { zones, capacity, available: Math.max(0, capacity - zones) };
  await storeBackendReading(db, KEY, value, clock.now());
  return value;
}

/** The platform's stats carry the last reading (null before the first); other scopes do not. */
export const backendStats = (db: Pool): StatsContributor => ({
  name: 'backend',
  platformOnly: true,
  async collect() {
    const row = await backendReading<ZoneQuotaReading>(db, KEY);
    return { zone_quota: row ? { ...row.value, read_at: row.read_at.toISOString() } : null };
  },
});
