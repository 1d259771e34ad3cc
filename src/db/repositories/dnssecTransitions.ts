// The one writer of a zone's DNSSEC state: the state columns and the dnssec.state_changed event in
// the caller's transaction, for the API's transitions (src/services/dnssec.ts) and the worker's
// (src/dnssec/dnssecWorker.ts) alike.
import type { Knex } from 'knex';
import type { Runner, Transaction } from '../context.js';
import { type DnssecState, isSigned } from '../../domain/dnssec/states.js';
import { membershipStamp } from './catalogMembers.js';
import { recordEvents } from './events.js';

/** The zone's dnssec_status with `status`'s keys merged in (what a check saw replaces what an earlier one did). */
const mergedStatus = (db: Runner, status: Record<string, unknown>) => db.raw('dnssec_status || ?::jsonb', [JSON.stringify(status)]);

/** A KSK rollover's state put into the zone's dnssec_status (null: the rollover is over). */
const withKskRollover = (db: Runner, rollover: object | null) =>
  db.raw(`dnssec_status || jsonb_build_object('ksk_rollover', ?::jsonb)`, [JSON.stringify(rollover)]);

/**
 * Moves the zone to `to`, with its event; `columns` are further zone columns of the same statement
 * (they win over the defaults here). A zone back at `off` keeps no mode and is checked no more.
 */
export async function recordTransition(
  trx: Knex.Transaction,
  zone: { id: string; tenantId: string; name: string },
  /** States and modes of src/domain/dnssec/states.ts (this layer does not know the table). */
  from: string,
  to: string,
  mode: string | null,
  now: Date,
  columns: Record<string, unknown> = {},
): Promise<void> {
  const off = to === 'off';
  // Signed or unsigned changes the zone's group in catalogs that group by DNSSEC: a fresh membership stamp (catalogMembers.ts).
  const regrouped = isSigned(from as DnssecState) !== isSigned(to as DnssecState);
  await trx('zones')
    .where('id', zone.id)
    .update({
      dnssec_state: to,
      dnssec_mode: off ? null : mode,
      dnssec_state_changed_at: now,
      dnssec_next_check_at: off ? null : now,
      ...(regrouped ? { catalog_seq: membershipStamp(trx) } : {}),
      ...columns,
    });
  await recordEvents(trx, [{ tenantId: zone.tenantId, kind: 'dnssec.state_changed', zoneId: zone.id, payload: { zone: zone.name, from, to, mode } }], now);
}

/** What a check saw, when it takes no step: the status merged in, and when to look next. */
export async function storeDnssecCheck(trx: Transaction, zoneId: string, status: Record<string, unknown>, nextCheckAt: Date): Promise<void> {
  await trx('zones')
    .where('id', zoneId)
    .update({ dnssec_status: mergedStatus(trx, status), dnssec_next_check_at: nextCheckAt });
}

/**
 * A check's step (recordTransition) with what it saw merged into the status; `nextCheckAt` null:
 * recordTransition's own (a zone back at off is checked no more).
 */
export async function recordCheckedTransition(
  trx: Transaction,
  zone: { id: string; tenantId: string; name: string },
  from: string,
  to: string,
  mode: string | null,
  now: Date,
  status: Record<string, unknown>,
  nextCheckAt: Date | null,
): Promise<void> {
  await recordTransition(trx, zone, from, to, mode, now, {
    dnssec_status: mergedStatus(trx, status),
    ...(nextCheckAt === null ? {} : { dnssec_next_check_at: nextCheckAt }),
  });
}

/** The DNSSEC columns of zones, by id (the state the API shows beside the keys). */
export const zoneDnssecRows = async <Row>(db: Knex | Knex.Transaction, zoneIds: string[]): Promise<(Row & { id: string })[]> =>
  (await db('zones')
    .whereIn('id', zoneIds)
    .select('id', 'dnssec_state', 'dnssec_mode', 'dnssec_denial', 'dnssec_state_changed_at', 'dnssec_status')) as (Row & { id: string })[];

/** What the last check saw of the zone (zones.dnssec_status). */
export const zoneDnssecStatus = async <Status>(db: Knex | Knex.Transaction, zoneId: string): Promise<Status> =>
  ((await db('zones').where('id', zoneId).first('dnssec_status')) as { dnssec_status: Status }).dnssec_status;

/** Records a KSK rollover under way in the zone's status, and has the worker look at it now. */
export async function recordKskRollover(trx: Knex.Transaction, zoneId: string, rollover: Record<string, unknown>, now: Date): Promise<void> {
  await trx('zones')
    .where('id', zoneId)
    .update({ dnssec_status: withKskRollover(trx, rollover), dnssec_next_check_at: now });
}

/** The worker's step of a KSK rollover: its new state in the zone's status (null: done). */
export async function storeKskRollover(trx: Transaction, zoneId: string, rollover: object | null): Promise<void> {
  await trx('zones')
    .where('id', zoneId)
    .update({ dnssec_status: withKskRollover(trx, rollover) });
}
