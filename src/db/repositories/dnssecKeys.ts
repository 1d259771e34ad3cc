// Rows of dnssec_keys (migration 20261125000200): the zone keys the service makes and keeps. The
// private half is stored as the signing library encrypted it; only the build's sign step asks for it.
import type { Knex } from 'knex';
import { newId } from '../../domain/ids.js';

export type KeyRole = 'ksk' | 'zsk';
export type KeyState = 'published' | 'active' | 'retired';

/** A key as the API shows it: never its private half. */
export interface StoredKey {
  id: string;
  zoneId: string;
  role: KeyRole;
  algorithm: 13 | 15;
  flags: 256 | 257;
  keyTag: number;
  publicKey: Buffer;
  state: KeyState;
  createdAt: Date;
  activatedAt: Date | null;
  retiredAt: Date | null;
}

export interface KeyRow {
  id: string;
  zone_id: string;
  role: KeyRole;
  algorithm: number;
  flags: number;
  key_tag: number;
  public_key: Buffer;
  /** Encrypted (src/db/sealedSecrets.ts sealSecret). */
  private_key: Buffer;
  state: KeyState;
  created_at: Date;
  activated_at: Date | null;
  retired_at: Date | null;
}

const keyFromRow = (r: KeyRow): StoredKey => ({
  id: r.id,
  zoneId: r.zone_id,
  role: r.role,
  algorithm: r.algorithm as 13 | 15,
  flags: r.flags as 256 | 257,
  keyTag: r.key_tag,
  publicKey: r.public_key,
  state: r.state,
  createdAt: r.created_at,
  activatedAt: r.activated_at,
  retiredAt: r.retired_at,
});

/** With the encrypted private halves: for the sign step only. */
export const keyRowsOf = (db: Knex | Knex.Transaction, zoneId: string): Promise<KeyRow[]> =>
  db('dnssec_keys')
    .where('zone_id', zoneId)
    .orderBy([{ column: 'role' }, { column: 'created_at' }, { column: 'id' }]) as Promise<KeyRow[]>;

export const zoneKeys = async (db: Knex | Knex.Transaction, zoneId: string): Promise<StoredKey[]> => (await keyRowsOf(db, zoneId)).map(keyFromRow);

/** The keys of several zones in one query, by zone, each zone's in zoneKeys' order. */
export async function keysOfZones(db: Knex | Knex.Transaction, zoneIds: string[]): Promise<Map<string, StoredKey[]>> {
  const rows = (await db('dnssec_keys')
    .whereIn('zone_id', zoneIds)
    .orderBy([{ column: 'zone_id' }, { column: 'role' }, { column: 'created_at' }, { column: 'id' }])) as (KeyRow & { zone_id: string })[];
  const byZone = new Map<string, StoredKey[]>(zoneIds.map((id) => [id, []]));
  for (const r of rows) byZone.get(r.zone_id)!.push(keyFromRow(r));
  return byZone;
}

/** A new key, its private half already sealed (nameserver/dnssec/keys.ts sealedZoneKey). */
export interface NewKey {
  role: KeyRole;
  algorithm: 13 | 15;
  flags: 256 | 257;
  keyTag: number;
  publicKey: Buffer;
  sealedPrivateKey: Buffer;
}

/** Stores a new key of the zone in `state` (`active` keys are active from `now`); returns its id. */
export async function insertKey(trx: Knex.Transaction, zoneId: string, key: NewKey, state: 'published' | 'active', now: Date): Promise<string> {
  const id = newId('key');
  const row: KeyRow = {
    id,
    zone_id: zoneId,
    role: key.role,
    algorithm: key.algorithm,
    flags: key.flags,
    key_tag: key.keyTag,
    public_key: key.publicKey,
    private_key: key.sealedPrivateKey,
    state,
    created_at: now,
    activated_at: state === 'active' ? now : null,
    retired_at: null,
  };
  await trx('dnssec_keys').insert(row);
  return id;
}

/** A pre-published key starts signing; the one it replaces retires (still published). */
export async function activateKey(trx: Knex.Transaction, successor: string, predecessor: string, now: Date): Promise<void> {
  await trx('dnssec_keys').where('id', successor).update({ state: 'active', activated_at: now });
  await trx('dnssec_keys').where('id', predecessor).update({ state: 'retired', retired_at: now });
}

export async function deleteKey(trx: Knex.Transaction, id: string): Promise<void> {
  await trx('dnssec_keys').where('id', id).delete();
}

export async function deleteKeys(trx: Knex.Transaction, zoneId: string): Promise<void> {
  await trx('dnssec_keys').where('zone_id', zoneId).delete();
}
