// `pushed → live`: a version is live when every authoritative server answers the zone's SOA with
// its serial (or a later one). A withdrawn zone is gone when none of the service's own
// nameservers serves it any more; the zone row goes then, with a zone.changed (deleted) event.
import type { Knex } from 'knex';
import type { HostPort } from '../config/index.js';
import { recordEvents } from '../db/repositories/events.js';
import type { Clock } from '../domain/clock.js';
import { serialGreater } from '../domain/soa.js';
import type { SoaProbe, SoaProbeResult } from './soaProbe.js';

/** Spec: still `pushed` after 60 minutes → error.code verification_timeout (state unchanged). */
export const VERIFICATION_TIMEOUT_MS = 60 * 60_000;

export interface VerifyDeps {
  db: Knex;
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

interface ZoneState {
  id: string;
  name: string;
  tenant_id: string;
  status: string;
  published_serial: number | null;
  published_seq: number;
  changeset_seq: number;
}

const serves = (seen: SoaProbeResult, serial: number) => seen.kind === 'serial' && (seen.serial === serial || serialGreater(seen.serial, serial));

export async function verifyZone(deps: VerifyDeps, zoneId: string): Promise<VerifyOutcome> {
  const zone = (await deps.db('zones').where('id', zoneId).first()) as ZoneState | undefined;
  if (!zone) return { kind: 'idle' };
  if (zone.status === 'deleting') {
    if (zone.published_serial !== null || zone.published_seq < zone.changeset_seq) return { kind: 'idle' };
    // Secondaries drop a zone when their operator removes it from their configuration; the
    // deletion waits for the service's own nameservers only (docs/publication.md).
    const servers = deps.nameservers();
    const seen = await Promise.all(servers.map((s) => deps.probe(s, zone.name)));
    const lagging = seen.map((r, i) => ({ server: servers[i]!, seen: r })).filter((x) => x.seen.kind !== 'not_served');
    if (lagging.length) return { kind: 'waiting', lagging };
    return (await removeZone(deps, zone)) ? { kind: 'deleted' } : { kind: 'idle' };
  }
  if (zone.published_serial === null) return { kind: 'idle' };
  const waiting = await deps.db('change_sets').where({ zone_id: zone.id, state: 'pushed' }).first('id');
  if (!waiting && zone.status !== 'activating') return { kind: 'idle' };

  const serial = Number(zone.published_serial);
  const servers = [...deps.nameservers(), ...deps.secondaries];
  const seen = await Promise.all(servers.map((s) => deps.probe(s, zone.name)));
  const lagging = seen.map((r, i) => ({ server: servers[i]!, seen: r })).filter((x) => !serves(x.seen, serial));
  if (lagging.length) return { kind: 'waiting', lagging };
  return { kind: 'live', changeSets: await markLive(deps, zone, serial) };
}

async function markLive(deps: VerifyDeps, zone: ZoneState, serial: number): Promise<number> {
  const now = deps.clock.now();
  return deps.db.transaction(async (trx) => {
    // Only change sets the verified version carries: a newer version may be pushed by now.
    const live = (await trx('change_sets')
      .where({ zone_id: zone.id, state: 'pushed' })
      .andWhere('seq', '<=', zone.published_seq)
      .update({ state: 'live', live_at: now, updated_at: now })
      .returning(['id', 'tenant_id', 'serial'])) as { id: string; tenant_id: string; serial: number }[];
    await trx('zones').where({ id: zone.id, status: 'activating' }).update({ status: 'active', activated_at: now });
    await recordEvents(
      trx,
      live.map((c) => ({ tenantId: c.tenant_id, kind: 'record.published', zoneId: zone.id, payload: { zone: zone.name, changeset_id: c.id, serial: Number(c.serial ?? serial) } })),
      now,
    );
    return live.length;
  });
}

async function removeZone(deps: VerifyDeps, zone: ZoneState): Promise<boolean> {
  const now = deps.clock.now();
  return deps.db.transaction(async (trx) => {
    const locked = await trx('zones').where({ id: zone.id, status: 'deleting' }).whereNull('published_serial').forUpdate().first('id');
    if (!locked) return false;
    await trx('zones').where('id', zone.id).delete();
    await recordEvents(trx, [{ tenantId: zone.tenant_id, kind: 'zone.changed', zoneId: zone.id, payload: { zone: zone.name, change: 'deleted' } }], now);
    return true;
  });
}

/** Change sets `pushed` for 60 minutes get error.code verification_timeout and stay `pushed`. */
export async function markVerificationTimeouts(db: Knex, now: Date): Promise<number> {
  return db('change_sets')
    .where('state', 'pushed')
    .whereNull('error')
    .andWhere('pushed_at', '<=', new Date(now.getTime() - VERIFICATION_TIMEOUT_MS))
    .update({
      error: JSON.stringify({ code: 'verification_timeout', detail: 'The new data was not seen on every authoritative nameserver within 60 minutes.' }),
      updated_at: now,
    });
}
