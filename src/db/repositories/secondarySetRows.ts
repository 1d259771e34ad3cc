// Secondary sets (docs/catalog-zones.md): the row, its mapper and its statements. The set's
// catalog zone is a zone row of kind 'catalog' (zoneStore / catalogMembers); this is the set alone.
import type { GroupBy, Secondary, SetSelection, ZoneGroup } from '../../domain/secondarySets.js';
import type { Runner, Transaction } from '../context.js';
import { paginate } from '../paginate.js';
import type { ScopedDb } from '../tenantScope.js';

export interface SecondarySetRow {
  id: string;
  tenant_id: string;
  name: string;
  catalog_zone_id: string;
  secondaries: Secondary[];
  group_by: GroupBy;
  tsig_key_id: string | null;
  /** Which zones it carries (migration 20261128070000): null and null for all of the owner's subtree. */
  zones_tenant_id: string | null;
  zones_group: ZoneGroup | null;
  version: number | string;
  created_at: Date;
  updated_at: Date;
}

export interface SecondarySet {
  id: string;
  tenantId: string;
  name: string;
  catalogZoneId: string;
  /** The catalog zone's name (joined). */
  catalogZone: string;
  secondaries: Secondary[];
  groupBy: GroupBy;
  tsigKeyId: string | null;
  zones: SetSelection;
  /** Counts the writes of the set: its ETag (rowEtag). */
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

type JoinedRow = SecondarySetRow & { catalog_zone: string };

const toDomain = (r: JoinedRow): SecondarySet => ({
  id: r.id,
  tenantId: r.tenant_id,
  name: r.name,
  catalogZoneId: r.catalog_zone_id,
  catalogZone: r.catalog_zone,
  secondaries: r.secondaries,
  groupBy: r.group_by,
  tsigKeyId: r.tsig_key_id,
  zones: { tenantId: r.zones_tenant_id, group: r.zones_group },
  version: Number(r.version),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const setsOf = (scoped: ScopedDb) => scoped.from('secondary_sets', 's').join('zones as z', 'z.id', 's.catalog_zone_id').select('s.*', 'z.name as catalog_zone');

const byId = [{ column: 's.id', direction: 'asc' as const, field: 'id' }];

export async function pageSecondarySets(scoped: ScopedDb, after: unknown[] | null, limit: number) {
  const page = await paginate<JoinedRow & Record<string, unknown>>(setsOf(scoped), byId, after, limit);
  return { items: page.rows.map(toDomain), next: page.next };
}

/** The set of the subtree; `lock`: FOR NO KEY UPDATE, so its writers queue. */
export async function findSecondarySet(scoped: ScopedDb, id: string, lock = false): Promise<SecondarySet | null> {
  const q = setsOf(scoped).where('s.id', id).first();
  if (lock) q.forNoKeyUpdate('s');
  const row = (await q) as JoinedRow | undefined;
  return row ? toDomain(row) : null;
}

/** The new set; false when the tenant has a set of that name (parallel creations: the loser inserts nothing). */
export async function insertSecondarySet(trx: Transaction, row: Omit<SecondarySetRow, 'version'>): Promise<boolean> {
  const inserted = await trx('secondary_sets')
    .insert({ ...row, secondaries: JSON.stringify(row.secondaries) })
    .onConflict(['tenant_id', 'name'])
    .ignore()
    .returning('id');
  return inserted.length === 1;
}

export const secondarySetNameTaken = async (db: Runner, tenantId: string, name: string): Promise<boolean> =>
  Boolean(await db('secondary_sets').where({ tenant_id: tenantId, name }).first('id'));

/** Changes columns of the set, its version moved. */
export async function updateSecondarySetRow(
  scoped: ScopedDb,
  id: string,
  columns: Partial<Pick<SecondarySetRow, 'secondaries' | 'group_by' | 'tsig_key_id' | 'zones_tenant_id' | 'zones_group'>>,
  now: Date,
  trx: Transaction,
): Promise<void> {
  const set = {
    ...columns,
    ...(columns.secondaries ? { secondaries: JSON.stringify(columns.secondaries) } : {}),
    updated_at: now,
    version: trx.raw('version + 1'),
  };
  await scoped.from('secondary_sets').where('id', id).update(set);
}

export async function deleteSecondarySetRow(scoped: ScopedDb, id: string): Promise<void> {
  await scoped.from('secondary_sets').where('id', id).delete();
}

/** Every set goes (the lab's nightly reset, before the zones: a set references its catalog zone). */
export const deleteAllSecondarySets = (trx: Transaction) => trx('secondary_sets').delete();
