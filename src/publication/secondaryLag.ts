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

/** One reading per secondary of every set: 0 and 0 for one behind on nothing. */
export function lagReadings(fleet: FleetLag, now: Date): LagReading[] {
  const behind = new Map(fleet.behind.map((b) => [`${b.setId} ${b.host} ${b.port}`, b]));
  return fleet.sets.flatMap((set) =>
    set.secondaries.map((secondary) => {
      const b = behind.get(`${set.id} ${secondary.address} ${secondary.port}`);
      return {
        setId: set.id,
        address: secondaryAddress(secondary),
        serials: !b ? 0 : b.silent ? -1 : b.serials,
        seconds: b ? Math.max(0, (now.getTime() - b.since.getTime()) / 1000) : 0,
      };
    }),
  );
}

/** The secondaries lagging for longer than LAG_DEGRADED_MS. */
export const lagging = (readings: readonly LagReading[]): LagReading[] => readings.filter((r) => r.seconds * 1000 > LAG_DEGRADED_MS);
