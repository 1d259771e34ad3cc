// How far the secondaries of the secondary sets are behind (docs/catalog-zones.md "`live`
// includes the fleet"): the verifier tells this, for every zone it waits on, what each set's
// secondary answered; /metrics shows per set and address the largest lag in serials and the
// longest time a zone has waited on it, and /healthz is degraded while one waits too long.
import { serialGreater } from '../../nameserver/wire/serial.js';
import type { SoaProbeResult } from './soaProbe.js';
import { secondaryAddress } from '../domain/secondarySets.js';

/** A secondary of a set, as the verifier asked it. */
export interface FleetServer {
  setId: string;
  setName: string;
  host: string;
  port: number;
}

export interface LagReading {
  setId: string;
  setName: string;
  /** host:port ([host]:port for IPv6). */
  address: string;
  /** Serials behind the published one, at most over its zones; -1 when it answered no serial (down, REFUSED, not serving the zone yet); 0 when it lags on nothing. */
  serials: number;
  /** Since when its oldest lag lasts, in seconds; 0 when it lags on nothing. */
  seconds: number;
}

/** A secondary lagging longer than this makes /healthz degraded. */
export const LAG_DEGRADED_MS = 5 * 60_000;

interface Behind {
  serials: number;
  since: number;
}

export const addressOf = (s: FleetServer) => secondaryAddress({ address: s.host, port: s.port });

export class SecondaryLag {
  /** Per secondary (set id, address): its set's name and the zones it is behind on. */
  private readonly secondaries = new Map<string, { setId: string; setName: string; address: string; zones: Map<string, Behind> }>();

  /** What `server` answered for zone `zoneId` published at `published`. */
  observe(server: FleetServer, zoneId: string, published: number, seen: SoaProbeResult, now: Date): void {
    const address = addressOf(server);
    const key = `${server.setId} ${address}`;
    let entry = this.secondaries.get(key);
    if (!entry) this.secondaries.set(key, (entry = { setId: server.setId, setName: server.setName, address, zones: new Map() }));
    entry.setName = server.setName;
    if (seen.kind === 'serial' && (seen.serial === published || serialGreater(seen.serial, published))) {
      entry.zones.delete(zoneId);
      return;
    }
    const serials = seen.kind === 'serial' ? (published - seen.serial + 2 ** 32) % 2 ** 32 : -1;
    entry.zones.set(zoneId, { serials, since: entry.zones.get(zoneId)?.since ?? now.getTime() });
  }

  /**
   * Zone `zoneId` is carried by `current` alone now: a secondary taken out of its set (or a set
   * deleted) no longer lags on it, and one that lags on nothing and is in no set is dropped.
   */
  keepOnly(zoneId: string, current: readonly FleetServer[]): void {
    const keep = new Set(current.map((s) => `${s.setId} ${addressOf(s)}`));
    for (const [key, entry] of this.secondaries) {
      if (keep.has(key)) continue;
      entry.zones.delete(zoneId);
      if (entry.zones.size === 0) this.secondaries.delete(key);
    }
  }

  /** Zone `zoneId` is gone (deleted) or waits on no one: it lags nowhere. */
  forgetZone(zoneId: string): void {
    for (const entry of this.secondaries.values()) entry.zones.delete(zoneId);
  }

  /** Per secondary seen: the largest lag and the oldest. */
  readings(now: Date): LagReading[] {
    return [...this.secondaries.values()].map((e) => {
      let serials = 0;
      let since = now.getTime();
      for (const b of e.zones.values()) {
        serials = serials === -1 || b.serials === -1 ? -1 : Math.max(serials, b.serials);
        since = Math.min(since, b.since);
      }
      return { setId: e.setId, setName: e.setName, address: e.address, serials, seconds: Math.max(0, (now.getTime() - since) / 1000) };
    });
  }

  /** The secondaries lagging for longer than LAG_DEGRADED_MS. */
  static lagging(readings: readonly LagReading[]): LagReading[] {
    return readings.filter((r) => r.seconds * 1000 > LAG_DEGRADED_MS);
  }
}
