// The sandbox lab's own key/value state (lab_state): the seed's tenant ids and when the lab was
// last reset (src/lab/seed.ts, src/lab/nightlyReset.ts).
import type { Runner, Transaction } from '../context.js';

/** The value stored under `key`; undefined when there is none. */
export async function labStateValue<T>(db: Runner, key: string): Promise<T | undefined> {
  const row = (await db('lab_state').where({ key }).first('value')) as { value: T } | undefined;
  return row?.value;
}

/** New entries, each value already JSON. */
export async function insertLabState(trx: Transaction, entries: { key: string; value: string }[]): Promise<void> {
  await trx('lab_state').insert(entries);
}

/** Sets `key` to `value` (JSON), whether it was there or not. */
export async function storeLabState(trx: Transaction, key: string, value: string): Promise<void> {
  await trx('lab_state').insert({ key, value }).onConflict('key').merge();
}
