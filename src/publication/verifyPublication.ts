// `pushed → live`: a version is live when every authoritative server answers the zone's SOA with
// its serial (or a later one): the service's own nameservers, DNS_SECONDARIES, and the secondaries
// of every secondary set carrying the zone as a member (a catalog zone: none), whose lag is recorded
// (secondaryLag.ts). A secondary that is down leaves the version `pushed` until it catches up. A withdrawn zone is gone when none of the service's own
// nameservers serves it any more; the zone row goes then, with a zone.changed (deleted) event.
import type { HostPort } from '../config/index.js';
import type { Pool } from '../db/context.js';
import { recordEvents } from '../db/repositories/events.js';
import {
  deleteWithdrawnZone,
  markChangeSetsLive,
  markVerificationTimeoutRows,
  readZoneToVerify,
  type VerifyZoneRow,
} from '../db/repositories/publicationRows.js';
import type { Clock } from '../domain/clock.js';
import type { SoaProbe, SoaProbeResult } from './soaProbe.js';
import { type FleetServer, fleetServing } from '../db/repositories/secondaryFleet.js';
import { serves } from './secondaryLag.js';
import { type LagRow, replaceZoneLag } from '../db/repositories/secondaryLagRows.js';
import { transactionWithRetry } from '../db/transaction.js';

/** Spec: still `pushed` after 60 minutes → error.code verification_timeout (state unchanged). */
const VERIFICATION_TIMEOUT_MS = 60 * 60_000;

export interface VerifyDeps {
  db: Pool;
  clock: Clock;
  probe: SoaProbe;
  /** The service's own nameservers (embedded, ROLES=nameserver processes). */
  nameservers: () => HostPort[];
  secondaries: HostPort[];
}

export type VerifyOutcome =
  | { kind: 'idle' }
  | { kind: 'live'; changeSets: number }
  | { kind: 'deleted' }
  | { kind: 'waiting'; lagging: { server: HostPort; seen: SoaProbeResult }[] };

export async function verifyZone(deps: VerifyDeps, zoneId: string): Promise<VerifyOutcome> {
  const zone = await readZoneToVerify(deps.db, zoneId);
  if (!zone) return { kind: 'idle' };
  if (zone.status === 'deleting') {
    if (zone.published_serial !== null || zone.published_seq < zone.changeset_seq) return { kind: 'idle' };
    // Secondaries drop a zone when their operator removes it from their configuration; the
    // deletion waits for the service's own nameservers only (docs/publication.md).
    const servers = deps.nameservers();
    const seen = await Promise.all(servers.map((s) => deps.probe(s, zone.name)));
    const lagging = seen.map((r, i) => ({ server: servers[i]!, seen: r })).filter((x) => x.seen.kind !== 'not_served');
    if (lagging.length) return { kind: 'waiting', lagging };
    if (!(await removeZone(deps, zone))) return { kind: 'idle' };
    return { kind: 'deleted' };
  }
  if (zone.published_serial === null) return { kind: 'idle' };
  if (!zone.waiting && zone.status !== 'activating') return { kind: 'idle' };

  const serial = Number(zone.published_serial);
  const fleet = await fleetServing(deps.db, zone.id);
  const servers = [...deps.nameservers(), ...deps.secondaries, ...fleet];
  const seen = await Promise.all(servers.map((s) => deps.probe(s, zone.name)));
  const now = deps.clock.now();
  const firstFleet = servers.length - fleet.length;
  // The one record of the fleet's lag (the zone's publication object, /metrics, /healthz): written when it changed.
  if (fleet.length > 0 || zone.lagged) await replaceZoneLag(deps.db, zone.id, behind(fleet, seen.slice(firstFleet), serial), now);
  const lagging = seen.map((r, i) => ({ server: servers[i]!, seen: r })).filter((x) => !serves(x.seen, serial));
  if (lagging.length) return { kind: 'waiting', lagging };
  return { kind: 'live', changeSets: await markChangeSetsLive(deps.db, zone, serial, deps.clock.now()) };
}

/** The set secondaries that do not serve `serial`, with what they answered. */
function behind(fleet: readonly FleetServer[], seen: readonly SoaProbeResult[], serial: number): LagRow[] {
  return fleet.flatMap((server, i) => {
    const answer = seen[i]!;
    if (serves(answer, serial)) return [];
    return [{ setId: server.setId, host: server.host, port: server.port, serial: answer.kind === 'serial' ? answer.serial : null }];
  });
}

async function removeZone(deps: VerifyDeps, zone: VerifyZoneRow): Promise<boolean> {
  const now = deps.clock.now();
  return transactionWithRetry(deps.db, async (trx) => {
    if (!(await deleteWithdrawnZone(trx, zone.id))) return false;
    await recordEvents(trx, [{ tenantId: zone.tenant_id, kind: 'zone.changed', zoneId: zone.id, payload: { zone: zone.name, change: 'deleted' } }], now);
    return true;
  });
}

/** Change sets `pushed` for 60 minutes get error.code verification_timeout and stay `pushed`. */
export async function markVerificationTimeouts(db: Pool, now: Date): Promise<number> {
  return markVerificationTimeoutRows(db, new Date(now.getTime() - VERIFICATION_TIMEOUT_MS), now);
}
