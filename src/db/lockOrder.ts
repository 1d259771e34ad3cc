// The one lock order of the service (docs/architecture.md "One lock order"). PostgreSQL's manual
// ("Explicit Locking", 13.3.4): deadlocks are avoided by every transaction taking its locks in one
// consistent order. Every explicit lock a write path takes — advisory or row — names its class
// here, and a transaction may only go down this list, never back up: `noteLock` checks it.
// Within one class, several keys are taken in ascending order (zone names, tenant path root first).
//
// Implicit locks follow from it: an INSERT or a key UPDATE of a row with a foreign key takes
// FOR KEY SHARE on the referenced row. That is why the classes that are parents of foreign keys
// (tenants, zones) are locked FOR NO KEY UPDATE, which does not conflict with FOR KEY SHARE:
// inserting a tenant's assignment never waits for a zone creation's quota check, nor the reverse.
import type { Knex } from 'knex';

export const LOCK_ORDER = [
  /** Advisory, tried (never waits): one request per Idempotency-Key (db/idempotencyRecords.ts). */
  'idempotency_key',
  /** Advisory: the lab's seed and reset, the platform bootstrap (one-off, whole-deployment). */
  'deployment',
  /** Advisory: every creation or removal of an address block (spaces, assignments, prefixes). */
  'rdns_blocks',
  /** Advisory, tried: the forward-record worker's job of one space and zone, before their rows. */
  'forward_record_job',
  /** Advisory, one per registrable domain: zone creations that could overlap. */
  'zone_family',
  /** Rows of tenants, FOR NO KEY UPDATE, root first: quotas, settings, suspension. */
  'tenants',
  /** Rows of templates, FOR UPDATE: a template's edit before the zones it is applied to. */
  'templates',
  /** Rows of ip_spaces (FOR UPDATE or FOR SHARE): a space before the zones it renders into. */
  'ip_spaces',
  /** Rows of zones, FOR NO KEY UPDATE (the write seam's lockedZone); several in name order. */
  'zones',
  /** Advisory: the lab registry's parent zones, after the child zone whose delegation it edits. */
  'lab_parents',
  /** Rows of the lab's parent zones (the root, TLDs), under the registry's lock. */
  'lab_parent_zones',
  /** Rows of change_sets (a retry of a failed one), after its zone. */
  'change_sets',
  /** Rows of webhooks, FOR UPDATE: their owner's edits, pause, redelivery. */
  'webhooks',
  /** Rows of webhook_deliveries, FOR UPDATE: a redelivery, after its webhook. */
  'webhook_deliveries',
] as const;

export type LockClass = (typeof LOCK_ORDER)[number];

/** The key of the lab registry's advisory lock (class lab_parents): its registrar and the DNSSEC worker take it. */
export const LAB_PARENTS_LOCK = 'lab-parents';

const RANK = new Map<LockClass, number>(LOCK_ORDER.map((name, i) => [name, i]));

export class LockOrderViolation extends Error {
  constructor(
    readonly taking: LockClass,
    readonly after: LockClass,
  ) {
    super(`lock order violated: ${taking} taken after ${after} (docs/architecture.md "One lock order")`);
  }
}

/** What a violation does: tests throw (set by the test service), a deployment logs and counts it. */
let onViolation: (violation: LockOrderViolation) => void = () => {};
export function setLockOrderViolationHandler(handler: (violation: LockOrderViolation) => void): void {
  onViolation = handler;
}

/** Per transaction (its outermost one: savepoints share it), the lowest row reached and the advisory keys it holds. */
interface Held {
  lowest: LockClass;
  keys: Set<string>;
}
const held = new WeakMap<object, Held>();

const outermost = (trx: Knex.Transaction): object => {
  let t = trx as Knex.Transaction & { parentTransaction?: Knex.Transaction };
  while (t.parentTransaction) t = t.parentTransaction as typeof t;
  return t;
};

/**
 * Records that `trx` is about to take a lock of `lock`'s class; reports a step back up the order.
 * An advisory `key` the transaction holds already is taken again without waiting: no step.
 */
export function noteLock(trx: Knex.Transaction, lock: LockClass, key?: string): void {
  const root = outermost(trx);
  if (exempt.has(root)) return;
  const mine = held.get(root);
  if (key !== undefined && mine?.keys.has(key)) return;
  if (mine && RANK.get(mine.lowest)! > RANK.get(lock)!) {
    onViolation(new LockOrderViolation(lock, mine.lowest));
    return;
  }
  if (mine) mine.lowest = lock;
  else held.set(root, { lowest: lock, keys: new Set() });
  if (key !== undefined) held.get(root)!.keys.add(key);
}

const exempt = new WeakSet<object>();

/**
 * The lab's nightly reset only: one transaction that deletes and seeds the whole lab under the
 * deployment's lock, whose locks cannot follow the order. It runs retried (src/db/transaction.ts).
 */
export function exemptFromLockOrder(trx: Knex.Transaction): void {
  exempt.add(outermost(trx));
}

/** Takes the transaction-scoped advisory lock `key` of class `lock` (waits for it). */
export async function advisoryLock(trx: Knex.Transaction, lock: LockClass, key: string): Promise<void> {
  noteLock(trx, lock, key);
  await trx.raw('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [key]);
}

/** Tries the transaction-scoped advisory lock `key` of class `lock`; false: another holds it. */
export async function tryAdvisoryLock(trx: Knex.Transaction, lock: LockClass, key: string): Promise<boolean> {
  noteLock(trx, lock, key);
  const result = (await trx.raw('SELECT pg_try_advisory_xact_lock(hashtextextended(?, 0)) AS ok', [key])) as { rows: { ok: boolean }[] };
  return result.rows[0]!.ok;
}
