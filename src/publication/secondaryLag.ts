// How far the secondaries of the secondary sets are behind (docs/catalog-zones.md "`live`
// includes the fleet"), read from one place: the `secondary_lag` rows the verifier writes (what
// each set secondary answered for every zone waiting on it). The zone's publication object,
// /metrics (the largest lag per set and address, in serials and seconds) and /healthz (degraded
// while one waits too long) all read those rows, in whichever process serves them.
import { serialGreater } from '../../nameserver/wire/serial.js';
import { secondaryAddress } from '../domain/secondarySets.js';
import type { FleetLag } from '../db/repositories/secondaryLagRows.js';
import type { SoaProbeResult } from './soaProbe.js';

export interface LagReading {
  setId: string;
  /** host:port ([host]:port for IPv6). */
  address: string;
  /** Serials behind the published one, at most over its zones; -1 when it answered no serial (down, REFUSED, not serving the zone yet); 0 when it lags on nothing. */
  serials: number;
  /** Since when its oldest lag lasts, in seconds; 0 when it lags on nothing. */
  seconds: number;
}

/** A secondary lagging longer than this makes /healthz degraded. */
export const LAG_DEGRADED_MS = 5 * 60_000;

/** Does `seen` serve `serial` (or a later one)? */
export const serves = (seen: SoaProbeResult, serial: number) => seen.kind === 'serial' && (seen.serial === serial || serialGreater(seen.serial, serial));

/** One reading per secondary of every set: the largest lag over the zones waiting on it, and the oldest wait. */
export function lagReadings(fleet: FleetLag, now: Date): LagReading[] {
  return fleet.sets.flatMap((set) =>
    set.secondaries.map((secondary) => {
      const address = secondaryAddress(secondary);
      let serials = 0;
      let since = now.getTime();
      for (const row of fleet.behind) {
        if (row.setId !== set.id || row.host !== secondary.address || row.port !== secondary.port) continue;
        const behind = row.serial === null ? -1 : (row.published - row.serial + 2 ** 32) % 2 ** 32;
        serials = serials === -1 || behind === -1 ? -1 : Math.max(serials, behind);
        since = Math.min(since, row.since.getTime());
      }
      return { setId: set.id, address, serials, seconds: Math.max(0, (now.getTime() - since) / 1000) };
    }),
  );
}

/** The secondaries lagging for longer than LAG_DEGRADED_MS. */
export const lagging = (readings: readonly LagReading[]): LagReading[] => readings.filter((r) => r.seconds * 1000 > LAG_DEGRADED_MS);
