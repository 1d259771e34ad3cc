// The worker side of the state machine (docs/dnssec.md "States"): for every zone whose DNSSEC is
// not off, look at the real DNS — are the keys served by every authoritative server, what DS does
// the parent publish, does the chain validate — store what was seen, and take the step the table
// (./states.ts) says. Observing needs no lock (it is network I/O); storing and stepping happen in
// one short transaction under the zone's row lock, after checking that nobody moved the zone meanwhile.
import type { HostPort } from '../config/index.js';
import type { Pool, Transaction } from '../db/context.js';
import { dnssecZoneRow, maxPublishedTtl, notifyZoneChanged, zonesDueForDnssecCheck } from '../db/repositories/dnssecChecks.js';
import { activateKey, deleteKey, deleteKeys, insertKey, type StoredKey, zoneKeys } from '../db/repositories/dnssecKeys.js';
import type { Clock } from '../domain/clock.js';
import type { Logger } from '../observability/logger.js';
import { TYPE } from '../../nameserver/types.js';
import { presentRdata } from '../../nameserver/wire/rdata.js';
import { validateChain } from './chain.js';
import { queryDns } from '../../nameserver/client/dnsQuery.js';
import { dnskeyRdata, dsOfKey, sealedZoneKey } from '../../nameserver/dnssec/keys.js';
import { sealSecret } from '../db/sealedSecrets.js';
import { zskRolloverStep } from '../domain/dnssec/rollover.js';
import { recordCheckedTransition, storeDnssecCheck, storeKskRollover } from '../db/repositories/dnssecTransitions.js';
import type { Registrar } from '../domain/dnssec/registrar.js';
import { type Action, type DnssecMode, type KskRolloverPhase, type DnssecState, needs, nextStep, type Observations } from '../domain/dnssec/states.js';
import { transactionWithRetry } from '../db/transaction.js';
import { advisoryLock, LAB_PARENTS_LOCK } from '../db/lockOrder.js';
import { fleetServing } from '../db/repositories/secondaryFleet.js';

export interface DnssecWorkerDeps {
  db: Pool;
  clock: Clock;
  logger: Pick<Logger, 'info' | 'warn'>;
  /** Every authoritative server of the service: its own nameserver(s) and the secondaries (the secondary sets' are read per zone). */
  servers(): HostPort[];
  /**
   * Where DS and chain questions go: the lab's own nameserver, which hosts the parents (asked
   * authoritatively), or a recursive resolver (DNSSEC_RESOLVER, asked with RD and CD); null: no
   * observer, DS and chain stay unknown.
   */
  observer(): { server: HostPort; recursive: boolean } | null;
  /** An outside validating resolver whose verdict (AD on the zone's SOA) the chain check also needs; null: none. */
  validator: HostPort | null;
  /** DS RDATA of the trust anchor (the root's KSKs). */
  trustAnchors(): Promise<Buffer[]>;
  registrar: Registrar<Transaction>;
  dnskeyTtl: number;
  dsTtl: number;
  /** How long a zone in transition waits between checks; an active zone is looked at 30 times less often. */
  checkIntervalMs: number;
  /** ZSK rollover (./rollover.ts): how long a ZSK signs, and the key that seals new keys. */
  zskLifetimeMs: number;
  kek: Buffer;
}

interface ZoneDnssecRow {
  id: string;
  name: string;
  tenant_id: string;
  dnssec_state: DnssecState;
  dnssec_mode: DnssecMode | null;
  dnssec_state_changed_at: Date | null;
  dnssec_status: { ksk_rollover?: KskRollover | null } | null;
  kind: string;
}

/** A KSK rollover on request (src/services/dnssec.ts requestRollover), kept in dnssec_status. */
interface KskRollover {
  old_key: string;
  new_key: string;
  /** published: both KSKs sign; ds_submitted: the new DS is asked for; ds_replaced: only the new DS is seen. */
  phase: KskRolloverPhase;
  since: string;
}

/** What one look at the DNS saw. */
interface Seen {
  observations: Observations;
  status: Record<string, unknown>;
  /** The DS RDATA at the parent, when asked. */
  seenDs: Buffer[] | null;
}

export class DnssecWorker {
  constructor(private readonly deps: DnssecWorkerDeps) {}

  /**
   * One pass: every zone due for a look (a few at a time; the next pass takes the rest). A run
   * aborted at its bound (a resolver hung) stops between zones.
   */
  async runDue(limit = 20, signal?: AbortSignal): Promise<number> {
    const now = this.deps.clock.now();
    const due = await zonesDueForDnssecCheck(this.deps.db, now, limit);
    for (const id of due) {
      if (signal?.aborted) break;
      await this.checkZone(id);
    }
    return due.length;
  }

  /**
   * Observe, then store and step; after a step, look again at once (validated → active needs no
   * wait, and what the next state asks may already hold). Also what POST …/check runs.
   */
  async checkZone(zoneId: string): Promise<void> {
    for (let steps = 0; steps < 4; steps++) {
      const zone = await dnssecZoneRow<ZoneDnssecRow>(this.deps.db, zoneId);
      if (!zone || zone.dnssec_state === 'off') return;
      const keys = await zoneKeys(this.deps.db, zoneId);
      const seen = await this.observe(zone, keys);
      const stepped = await transactionWithRetry(this.deps.db, async (trx) => {
        // A lab parent zone (the lab's root, its TLDs) is written under the registry's lock, which
        // the lock order puts before its row (src/db/lockOrder.ts): take it first, as the registry does.
        if (zone.kind === 'lab_parent') await advisoryLock(trx, 'lab_parents', LAB_PARENTS_LOCK);
        const locked = await dnssecZoneRow<ZoneDnssecRow>(trx, zoneId, zone.kind === 'lab_parent' ? 'lab_parent_zones' : 'zones');
        // Someone (enable, disable, another worker) moved the zone while we looked: look again later.
        if (!locked || locked.dnssec_state !== zone.dnssec_state) return false;
        return this.store(trx, locked, keys, seen);
      });
      if (!stepped) return;
    }
  }

  private async observe(zone: ZoneDnssecRow, keys: StoredKey[]): Promise<Seen> {
    const wanted = new Set(needs(zone.dnssec_state));
    // A pre-published ZSK signs only once every server serves it (./rollover.ts); a KSK rollover
    // watches the keys and the DS at the parent.
    if (zone.dnssec_state === 'active' && keys.some((k) => k.state === 'published')) wanted.add('keysServed');
    if (zone.dnssec_state === 'active' && zone.dnssec_status?.ksk_rollover) for (const w of ['keysServed', 'dsAtParent'] as const) wanted.add(w);
    let seenDs: Buffer[] | null = null;
    const observations: Observations = { keysServed: null, dsAtParent: null, chainValid: null, unsignedServed: null };
    const status: Record<string, unknown> = {};
    const dnskeys = keys.map((k) => dnskeyRdata(k));
    if (wanted.has('keysServed') || wanted.has('unsignedServed')) {
      // The secondary sets' servers gate keys (a DS or a new key waits for them), not their going:
      // a set secondary still serving old keys after the DS is gone harms no one, and a zone being
      // deleted has left its catalogs already.
      const fleet = wanted.has('keysServed') ? await fleetServing(this.deps.db, zone.id) : [];
      const servers = [...this.deps.servers(), ...fleet];
      const served = await Promise.all(servers.map((server) => queryDns(server, zone.name, TYPE.DNSKEY)));
      const setOf = (i: number) => {
        const reply = served[i]!;
        return reply.kind === 'reply' && reply.aa ? reply.answer.filter((r) => r.type === TYPE.DNSKEY).map((r) => r.rdata) : null;
      };
      observations.keysServed = served.every((_, i) => {
        const set = setOf(i);
        return set !== null && dnskeys.every((k) => set.some((s) => s.equals(k)));
      });
      // Unsigned: no DNSKEY any more — or no zone at all (REFUSED: a deleted zone withdrawn).
      observations.unsignedServed = served.every((reply, i) => setOf(i)?.length === 0 || (reply.kind === 'reply' && reply.rcode === 5));
      status.keys_served = observations.keysServed;
    }
    const observer = this.deps.observer();
    if ((wanted.has('dsAtParent') || wanted.has('chainValid')) && observer) {
      // The root has no parent: its "DS at the parent" is the trust anchor validators start from.
      const ask = (name: string, type: number) => queryDns(observer.server, name, type, { recursive: observer.recursive });
      const reply = zone.name === '' ? ({ kind: 'reply', answer: [] } as const) : await ask(zone.name, TYPE.DS);
      if (reply.kind === 'reply') {
        seenDs =
          zone.name === ''
            ? await this.deps.trustAnchors()
            : reply.answer.filter((r) => r.type === TYPE.DS && r.name.toLowerCase() === zone.name).map((r) => r.rdata);
        const expected = keys.filter((k) => k.role === 'ksk').map((k) => dsOfKey(zone.name, k));
        observations.dsAtParent = seenDs.length === 0 ? 'none' : seenDs.some((d) => expected.some((e) => e.equals(d))) ? 'matching' : 'mismatch';
        status.ds_at_parent = { state: observations.dsAtParent, records: seenDs.map((d) => presentRdata('DS', d)) };
      }
      if (wanted.has('chainValid')) {
        let result = await validateChain(ask, zone.name, await this.deps.trustAnchors(), Math.floor(this.deps.clock.now().getTime() / 1000));
        if (result.valid && this.deps.validator) result = await this.askValidator(this.deps.validator, zone.name);
        observations.chainValid = result.valid;
        status.validation = { result: result.valid ? 'valid' : 'invalid', reason: result.reason, checked_at: this.deps.clock.now().toISOString() };
      }
    }
    status.checked_at = this.deps.clock.now().toISOString();
    return { observations, status, seenDs };
  }

  /** Stores what was seen and takes the table's step, if any; true when the state moved. */
  private async store(trx: Transaction, zone: ZoneDnssecRow, keys: StoredKey[], observed: Seen): Promise<boolean> {
    const { observations: seen, status } = observed;
    const now = this.deps.clock.now();
    const since = zone.dnssec_state_changed_at ? (now.getTime() - zone.dnssec_state_changed_at.getTime()) / 1000 : Infinity;
    const mode = zone.dnssec_mode ?? 'assisted';
    const step = nextStep({ state: zone.dnssec_state, mode, sinceSeconds: since, dnskeyTtl: this.deps.dnskeyTtl, dsTtl: this.deps.dsTtl }, seen);
    const interval = step || zone.dnssec_state !== 'active' ? this.deps.checkIntervalMs : this.deps.checkIntervalMs * 30;
    const nextCheck = new Date(now.getTime() + interval);
    if (!step) {
      await storeDnssecCheck(trx, zone.id, status, nextCheck);
      if (zone.dnssec_state === 'active') await this.rollZsk(trx, zone, keys, seen.keysServed === true, now);
      if (zone.dnssec_state === 'active' && zone.dnssec_status?.ksk_rollover)
        await this.rollKsk(trx, zone, keys, zone.dnssec_status.ksk_rollover, observed, now);
      // Signatures age without writes: the build makes near-expiry ones anew once the served
      // version is a day old (publishZone's RESIGN_AFTER_MS); a key change needs a build too.
      if (zone.dnssec_state === 'active') await notifyZoneChanged(trx, zone.id);
      return false;
    }
    for (const action of step.actions) await this.act(trx, zone, keys, action);
    const zoneRef = { id: zone.id, tenantId: zone.tenant_id, name: zone.name };
    // Back at off, the zone is checked no more (recordTransition clears the next check).
    await recordCheckedTransition(trx, zoneRef, zone.dnssec_state, step.to, zone.dnssec_mode, now, status, step.to === 'off' ? null : nextCheck);
    // What is served may change with the state (CDS delete form, signing off): the build compares.
    await notifyZoneChanged(trx, zone.id);
    this.deps.logger.info({ zone: zone.name, from: zone.dnssec_state, to: step.to }, 'DNSSEC state changed');
    return true;
  }

  /** The outside validating resolver's verdict: NOERROR with AD on the zone's SOA. */
  private async askValidator(validator: HostPort, zone: string): Promise<{ valid: boolean; reason: string | null }> {
    const reply = await queryDns(validator, zone, TYPE.SOA, { validating: true, timeoutMs: 5000 });
    if (reply.kind !== 'reply') return { valid: false, reason: `the validating resolver ${validator.host}:${validator.port} did not answer: ${reply.message}` };
    if (reply.rcode !== 0)
      return {
        valid: false,
        reason: `the validating resolver ${validator.host}:${validator.port} answered rcode ${reply.rcode} for ${zone}. SOA (2: the chain does not validate there)`,
      };
    if (!reply.ad) return { valid: false, reason: `the validating resolver ${validator.host}:${validator.port} does not call ${zone}. SOA authentic (no AD)` };
    return { valid: true, reason: null };
  }

  /**
   * One step of a KSK rollover on request (double-KSK, RFC 6781 §4.1.2): once the new KSK is served
   * everywhere and the DNSKEY TTL has passed, the new DS replaces the old at the parent (automatic;
   * assisted: the customer does it); once only the new DS is seen and the DS TTL has passed, the
   * old KSK goes.
   */
  private async rollKsk(trx: Transaction, zone: ZoneDnssecRow, keys: StoredKey[], rollover: KskRollover, observed: Seen, now: Date): Promise<void> {
    const since = (now.getTime() - Date.parse(rollover.since)) / 1000;
    const dsOf = (id: string) => {
      const k = keys.find((key) => key.id === id);
      return k ? dsOfKey(zone.name, k) : null;
    };
    const [oldDs, newDs] = [dsOf(rollover.old_key), dsOf(rollover.new_key)];
    const seenDs = observed.seenDs ?? [];
    let next: KskRollover | null | undefined;
    if (rollover.phase === 'published' && observed.observations.keysServed && since >= this.deps.dnskeyTtl && newDs) {
      if (zone.dnssec_mode === 'automatic') await this.deps.registrar.setDs(zone.name, [newDs], trx);
      next = { ...rollover, phase: 'ds_submitted', since: now.toISOString() };
    } else if (rollover.phase === 'ds_submitted' && newDs && seenDs.some((d) => d.equals(newDs)) && !(oldDs && seenDs.some((d) => d.equals(oldDs)))) {
      next = { ...rollover, phase: 'ds_replaced', since: now.toISOString() };
    } else if (rollover.phase === 'ds_replaced' && since >= this.deps.dsTtl) {
      await deleteKey(trx, rollover.old_key);
      next = null;
    }
    if (next === undefined) return;
    await storeKskRollover(trx, zone.id, next);
    this.deps.logger.info({ zone: zone.name, phase: next?.phase ?? 'done' }, 'KSK rollover');
  }

  /** One step of the automatic ZSK rollover, when one is due; the next build publishes it. */
  private async rollZsk(trx: Transaction, zone: ZoneDnssecRow, keys: StoredKey[], keysServed: boolean, now: Date): Promise<void> {
    const maxTtl = await maxPublishedTtl(trx, zone.id);
    const step = zskRolloverStep(keys, {
      now,
      lifetimeMs: this.deps.zskLifetimeMs,
      dnskeyTtlMs: this.deps.dnskeyTtl * 1000,
      maxTtlMs: Math.max(maxTtl ?? 0, this.deps.dnskeyTtl) * 1000,
      keysServed,
    });
    if (!step) return;
    if (step.kind === 'prepublish') {
      const current = keys.find((k) => k.role === 'zsk' && k.state === 'active')!;
      await insertKey(
        trx,
        zone.id,
        sealedZoneKey('zsk', current.algorithm, (pkcs8) => sealSecret(pkcs8, this.deps.kek)),
        'published',
        now,
      );
    } else if (step.kind === 'activate') {
      await activateKey(trx, step.successor, step.predecessor, now);
    } else {
      await deleteKey(trx, step.key);
    }
    this.deps.logger.info({ zone: zone.name, step: step.kind }, 'ZSK rollover');
  }

  private async act(trx: Transaction, zone: ZoneDnssecRow, keys: StoredKey[], action: Action): Promise<void> {
    switch (action) {
      case 'submit_ds': {
        const ksks = keys.filter((k) => k.role === 'ksk' && k.state !== 'retired');
        await this.deps.registrar.setDs(
          zone.name,
          ksks.map((k) => dsOfKey(zone.name, k)),
          trx,
        );
        return;
      }
      case 'forget_keys':
        await deleteKeys(trx, zone.id);
        return;
    }
  }
}
