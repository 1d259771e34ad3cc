// The DNSSEC endpoints' side of the feature (docs/dnssec.md): read a zone's DNSSEC object, start
// enabling or disabling, run a check now. Every state change is a write to the zone through the
// one write seam (writeZone), stored with its dnssec.state_changed event in the same transaction;
// when what is served changes (keys in, signing off) it is also a change set of kind `dnssec`
// that the publication build signs (or stops signing) and publishes like any other.
import type { Config } from '../config/index.js';
import type { Transaction, DbContext } from '../db/context.js';
import { insertKey, type KeyRole, keysOfZones, type StoredKey, zoneKeys } from '../db/repositories/dnssecKeys.js';
import { dsOfKey, sealedZoneKey } from '../../nameserver/dnssec/keys.js';
import { sealSecret } from '../db/sealedSecrets.js';
import type { Registrar } from '../domain/dnssec/registrar.js';
import { recordKskRollover, recordTransition, zoneDnssecRows, zoneDnssecStatus } from '../db/repositories/dnssecTransitions.js';
import {
  type DenialMethod,
  type KskRolloverPhase,
  DISABLING,
  type DnssecMode,
  type DnssecState,
  nextAction,
  type NextAction,
  type Observations,
} from '../domain/dnssec/states.js';
import { DomainError } from '../domain/errors.js';
import type { Zone } from '../domain/model/zone.js';
import { requestRebuild } from './requestRebuild.js';
import type { RateLimiter } from './rateLimiter.js';
import type { WriteContext } from './writeContext.js';
import { getZone, type ZoneReach } from './zoneReads.js';
import { writeZone } from './zoneWrite.js';

/** What the feature needs from outside the database: the registrar, and a look at the delegation. */
export interface DnssecDeps {
  config: Config;
  /** The key that encrypts private keys at rest (src/db/sealedSecrets.ts). */
  kek: Buffer;
  registrar: Registrar<Transaction>;
  /** Looks now (POST …/check): observes and stores, advancing the state where the table says so (its own transaction). */
  checkNow(zoneId: string): Promise<void>;
}

/** What the last check saw (zones.dnssec_status), and a KSK rollover under way. */
export interface DnssecStatus {
  ksk_rollover?: { phase: KskRolloverPhase } | null;
  ds_at_parent?: { state: NonNullable<Observations['dsAtParent']>; records: string[] } | null;
  validation?: { result: 'valid' | 'invalid' | 'unchecked'; reason: string | null; checked_at: string } | null;
  keys_served?: boolean | null;
  checked_at?: string | null;
}

export interface DnssecView {
  zone: Zone;
  state: DnssecState;
  mode: DnssecMode | null;
  denial: DenialMethod;
  stateChangedAt: Date | null;
  keys: StoredKey[];
  /** DS RDATA to place at the parent: one per KSK (SHA-256). */
  ds: Buffer[];
  status: DnssecStatus;
  /** The last chain check — or, while the parent's DS matches no key, that failure at once. */
  validation: { result: 'valid' | 'invalid' | 'unchecked'; reason: string | null; checkedAt: string | null };
  nextAction: NextAction;
}

interface DnssecRow {
  dnssec_state: DnssecState;
  dnssec_mode: DnssecMode | null;
  dnssec_denial: DenialMethod;
  dnssec_state_changed_at: Date | null;
  dnssec_status: DnssecStatus;
}

/** A DS at the parent that matches no key fails validation whatever the last chain check said (spec). */
function validationOf(state: DnssecState, status: DnssecStatus): DnssecView['validation'] {
  const ds = status.ds_at_parent;
  if (ds?.state === 'mismatch' && state !== 'off') {
    return {
      result: 'invalid',
      reason: `the DS at the parent (${ds.records.join('; ')}) matches no key of the zone`,
      checkedAt: status.validation?.checked_at ?? status.checked_at ?? null,
    };
  }
  const v = status.validation;
  return v ? { result: v.result, reason: v.reason, checkedAt: v.checked_at } : { result: 'unchecked', reason: null, checkedAt: null };
}

/** The DNSSEC objects of zones already found (their reach checked by the caller), in two queries. */
export async function dnssecViews(ctx: DbContext, zones: Zone[]): Promise<DnssecView[]> {
  if (!zones.length) return [];
  const ids = zones.map((z) => z.id);
  const rows = await zoneDnssecRows<DnssecRow>(ctx.db, ids);
  const rowOf = new Map(rows.map((r) => [r.id, r]));
  const keysOf = await keysOfZones(ctx.db, ids);
  return zones.map((zone) => {
    const row = rowOf.get(zone.id)!;
    const keys = keysOf.get(zone.id)!;
    const status = row.dnssec_status ?? {};
    return {
      zone,
      state: row.dnssec_state,
      mode: row.dnssec_mode,
      denial: row.dnssec_denial,
      stateChangedAt: row.dnssec_state_changed_at,
      keys,
      ds: keys.filter((k) => k.role === 'ksk').map((k) => dsOfKey(zone.name, k)),
      status,
      validation: validationOf(row.dnssec_state, status),
      nextAction: nextAction(row.dnssec_state, row.dnssec_mode, status.ds_at_parent?.state ?? null, status.ksk_rollover?.phase ?? null),
    };
  });
}

/** The DNSSEC object of a zone already found. */
const dnssecView = async (ctx: DbContext, zone: Zone): Promise<DnssecView> => (await dnssecViews(ctx, [zone]))[0]!;

export async function getDnssec(ctx: DbContext, config: Config, zoneRef: string): Promise<DnssecView> {
  return dnssecView(ctx, await getZone(ctx, config, zoneRef));
}

/** The whole zone built again: keys in or out, signing on or off. */
const republish = (ctx: WriteContext, zone: Zone, what: string) => requestRebuild(ctx, zone, { kind: 'dnssec', step: what }, null);

function assertAvailable(config: Config): void {
  if (!config.dnssec.available) throw new DomainError('not_implemented', { reason: 'dnssec_switched_off' });
}

/** Every DNSSEC change: refused where the deployment does not sign, then a write to the zone (writeZone) in its current state. */
function writeDnssec<T>(
  ctx: WriteContext,
  deps: DnssecDeps,
  zoneRef: string,
  reach: ZoneReach,
  write: (zone: Zone, state: DnssecState) => Promise<T>,
): Promise<T> {
  assertAvailable(deps.config);
  return writeZone(ctx, deps.config, zoneRef, { reach }, (zone) => write(zone, zone.dnssec.state as DnssecState));
}

/** What enabling or disabling did: `started` false when the zone was there already (200 rather than 202). */
interface DnssecSwitch {
  started: boolean;
  view: DnssecView;
}

const switched = async (ctx: WriteContext, zone: Zone, started: boolean): Promise<DnssecSwitch> => ({ started, view: await dnssecView(ctx, zone) });

export interface EnableRequest {
  mode?: DnssecMode;
  denial?: DenialMethod;
}

/** 202 with the object when enabling starts; 200 when it is already under way or done. */
export async function enableDnssec(
  ctx: WriteContext,
  deps: DnssecDeps,
  zoneRef: string,
  request: EnableRequest,
  /** The lab signs its parent zones and staff the provider's reverse zones, which /zones never reaches. */
  reach: ZoneReach = 'tenant',
): Promise<DnssecSwitch> {
  return writeDnssec(ctx, deps, zoneRef, reach, async (zone, state) => {
    if (zone.status === 'deleting') throw new DomainError('conflict', { reason: 'zone_being_deleted', zone: zone.name });
    if (DISABLING.includes(state)) throw new DomainError('dnssec_transition_in_progress', { name: zone.name, state });
    if (state !== 'off') return switched(ctx, zone, false);

    const registered = await deps.registrar.registeredHere(zone.name, ctx.db);
    const mode: DnssecMode = request.mode ?? (registered ? 'automatic' : 'assisted');
    if (mode === 'automatic' && !registered) {
      throw new DomainError('validation_failed', {}, [
        {
          pointer: '/mode',
          code: 'ds_not_submittable',
          detail: `${zone.name} is not registered through the provider, so no DS can be submitted for it; use mode "assisted" and add the DS at your registrar.`,
        },
      ]);
    }
    if ((await deps.registrar.delegation(zone.name, ctx.db)) === 'elsewhere') {
      throw new DomainError('dnssec_not_delegated', { name: zone.name, nameservers: deps.config.zones.nameservers.join(', ') });
    }
    const now = ctx.clock.now();
    // A zone's first keys, both signing at once: nothing to roll from.
    for (const role of ['ksk', 'zsk'] as const)
      await insertKey(
        ctx.db,
        zone.id,
        sealedZoneKey(role, deps.config.dnssec.algorithm, (pkcs8) => sealSecret(pkcs8, deps.kek)),
        'active',
        now,
      );
    await recordTransition(ctx.db, zone, 'off', 'signing', mode, now, { dnssec_denial: request.denial ?? 'nsec3', dnssec_status: '{}' });
    await republish(ctx, zone, 'keys_published');
    return switched(ctx, zone, true);
  });
}

/** 202 when disabling starts; 200 when DNSSEC is off already. */
export async function disableDnssec(ctx: WriteContext, deps: DnssecDeps, zoneRef: string, reach: ZoneReach = 'tenant'): Promise<DnssecSwitch> {
  return writeDnssec(ctx, deps, zoneRef, reach, async (zone, state) => {
    if (DISABLING.includes(state)) throw new DomainError('dnssec_transition_in_progress', { name: zone.name, state });
    if (state === 'off') return switched(ctx, zone, false);
    const mode = zone.dnssec.mode as DnssecMode;
    const now = ctx.clock.now();
    // Before any DS went up the zone can go unsigned at once; otherwise the DS goes first.
    const dsMayBeUp = !(['signing', 'keys_published', 'awaiting_ds'] as DnssecState[]).includes(state) || mode === 'assisted';
    if (dsMayBeUp) {
      await recordTransition(ctx.db, zone, state, 'ds_removing', mode, now);
      // The CDS/CDNSKEY delete form (RFC 8078) goes out with the next version.
      await republish(ctx, zone, 'cds_delete');
      if (mode === 'automatic') await deps.registrar.setDs(zone.name, [], ctx.db);
    } else {
      await recordTransition(ctx.db, zone, state, 'unsigning', mode, now);
      await republish(ctx, zone, 'unsigned');
    }
    return switched(ctx, zone, true);
  });
}

/** What POST …/check did before the request's transaction: checked, or refused by the per-zone limit. */
export type DnssecCheckOutcome = { checked: true } | { retryAfter: number };

/**
 * POST …/check, first step: one per zone per minute (docs/dnssec.md; counted like the API's rate
 * limits, in minute windows shared by every API process), then the worker's own check in its own
 * transaction. It runs before the request's transaction (the route's `prepare`): inside it, the
 * limiter's block and the check's transaction would each want a second pool connection while the
 * request holds one. It never refuses (null: nothing to check; the handler answers).
 */
export async function runDnssecCheck(ctx: DbContext, deps: DnssecDeps, limiter: RateLimiter, zoneRef: string, now: Date): Promise<DnssecCheckOutcome | null> {
  if (!deps.config.dnssec.available) return null;
  const zone = await getZone(ctx, deps.config, zoneRef).catch(() => null);
  if (!zone) return null;
  const reading = await limiter.consume(`dnssec-check:${zone.id}`, 1, now);
  if (!reading.allowed) return { retryAfter: reading.resetSeconds };
  await deps.checkNow(zone.id);
  return { checked: true };
}

/** POST …/check, in the request's transaction: the answer to what runDnssecCheck did. */
export async function checkDnssec(ctx: WriteContext, deps: DnssecDeps, zoneRef: string, outcome: DnssecCheckOutcome | null): Promise<DnssecView> {
  assertAvailable(deps.config);
  const zone = await getZone(ctx, deps.config, zoneRef);
  if (outcome && 'retryAfter' in outcome) {
    throw new DomainError('rate_limited', { retry_after: outcome.retryAfter }, [], { 'Retry-After': String(outcome.retryAfter) });
  }
  return dnssecView(ctx, zone);
}

/**
 * Zone deletion with DNSSEC (spec "Zones", deletion rules 3 and 4): the DS leaves the parent
 * first — the service withdraws it where it put it (automatic); a DS the customer added (assisted)
 * and that is still seen answers 409 dnssec_ds_present unless `force`. The zone then goes to
 * `ds_removing`, and the publication build withdraws it only once the worker has seen the DS gone
 * and waited out its TTL (`unsigning`): resolvers never see a DS for a zone that is not served.
 */
export async function prepareDeletion(ctx: WriteContext, deps: DnssecDeps, zone: Zone, force: boolean): Promise<void> {
  const state = zone.dnssec.state as DnssecState;
  if (state === 'off' || DISABLING.includes(state)) return;
  const mode = zone.dnssec.mode as DnssecMode;
  const dsSeen = (await zoneDnssecStatus<DnssecStatus | null>(ctx.db, zone.id))?.ds_at_parent?.state;
  if (mode === 'assisted' && (dsSeen === 'matching' || dsSeen === 'mismatch') && !force) throw new DomainError('dnssec_ds_present', { name: zone.name });
  const now = ctx.clock.now();
  const dsMayBeUp = !(['signing', 'keys_published'] as DnssecState[]).includes(state) && !(mode === 'assisted' && force);
  if (dsMayBeUp) {
    await recordTransition(ctx.db, zone, state, 'ds_removing', mode, now);
    if (mode === 'automatic') await deps.registrar.setDs(zone.name, [], ctx.db);
  } else {
    await recordTransition(ctx.db, zone, state, 'unsigning', mode, now);
  }
}

/**
 * A key rollover on request (docs/dnssec.md "Key rollover"), for provider staff. `zsk`: the
 * automatic pre-publish rollover starts now instead of at the end of the ZSK's lifetime. `ksk`: a
 * double-KSK rollover (RFC 6781 §4.1.2) — the new KSK signs the DNSKEY set beside the old one and
 * is published with its CDS; the worker replaces the DS at the parent (automatic mode; assisted:
 * the customer, `next_action` `replace_ds_at_registrar`) and removes the old KSK once the DS TTL passed.
 */
export async function requestRollover(ctx: WriteContext, deps: DnssecDeps, zoneRef: string, key: KeyRole): Promise<DnssecView> {
  return writeDnssec(ctx, deps, zoneRef, 'tenant', async (zone, state) => {
    // After the lookup: a zone the token cannot see is a 404 for everyone, staff or not.
    if (ctx.actor.token.tenant.type !== 'platform') throw new DomainError('forbidden', { reason: 'rollover_for_platform' });
    const keys = await zoneKeys(ctx.db, zone.id);
    const status = await zoneDnssecStatus<(DnssecStatus & { ksk_rollover?: unknown }) | null>(ctx.db, zone.id);
    const running = key === 'ksk' ? status?.ksk_rollover != null : keys.some((k) => k.role === 'zsk' && k.state !== 'active');
    if (state !== 'active' || running) throw new DomainError('conflict', { reason: 'dnssec_rollover_needs_active', name: zone.name, state });
    const now = ctx.clock.now();
    const current = keys.find((k) => k.role === key && k.state === 'active')!;
    // A ZSK successor is published first (the worker activates it); a new KSK signs at once beside the old.
    const id = await insertKey(
      ctx.db,
      zone.id,
      sealedZoneKey(key, current.algorithm, (pkcs8) => sealSecret(pkcs8, deps.kek)),
      key === 'ksk' ? 'active' : 'published',
      now,
    );
    if (key === 'ksk') {
      const rollover = { old_key: current.id, new_key: id, phase: 'published', since: now.toISOString() };
      await recordKskRollover(ctx.db, zone.id, rollover, now);
    }
    await republish(ctx, zone, `${key}_rollover`);
    return dnssecView(ctx, zone);
  });
}
