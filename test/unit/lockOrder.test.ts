// The lock order is written once (src/db/lockOrder.ts) and shown once (docs/architecture.md); a
// transaction that steps back up it is reported.
import fs from 'node:fs';
import type { Knex } from 'knex';
import { describe, expect, it } from 'vitest';
import { LOCK_ORDER, type LockOrderViolation, noteLock, setLockOrderViolationHandler } from '../../src/db/lockOrder.js';

/** A stand-in transaction: noteLock only needs an object identity and knex's parentTransaction link. */
const fakeTrx = (parent?: object) => ({ parentTransaction: parent }) as unknown as Knex.Transaction;

describe('the lock order', () => {
  it('is the one docs/architecture.md shows, row by row', () => {
    const doc = fs.readFileSync(new URL('../../docs/architecture.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('## One lock order'), doc.indexOf('## ', doc.indexOf('## One lock order') + 3));
    const rows = [...section.matchAll(/^\| (\d+) \| `([a-z_]+)` \|/gm)].map((m) => [Number(m[1]), m[2]]);
    expect(rows).toEqual(LOCK_ORDER.map((name, i) => [i + 1, name]));
  });

  it('lets a transaction go down the order and reports a step back up, savepoints included', () => {
    const seen: LockOrderViolation[] = [];
    setLockOrderViolationHandler((v) => seen.push(v));
    try {
      const trx = fakeTrx();
      noteLock(trx, 'zone_family');
      noteLock(trx, 'tenants');
      noteLock(trx, 'tenants');
      noteLock(trx, 'zones');
      expect(seen).toEqual([]);
      const savepoint = fakeTrx(trx);
      noteLock(savepoint, 'tenants');
      expect(seen.map((v) => [v.taking, v.after])).toEqual([['tenants', 'zones']]);
      // Another transaction starts from the top.
      noteLock(fakeTrx(), 'idempotency_key');
      expect(seen).toHaveLength(1);
    } finally {
      setLockOrderViolationHandler(() => {});
    }
  });
});
