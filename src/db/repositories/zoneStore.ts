// The statements of zone creation, deletion and the zone and record lists (src/services/zones.ts):
// one function per question. Lock notes stay with the statements that take the locks.
import type { Runner, Transaction } from '../context.js';
import { countRows } from '../count.js';
import { likeEscape } from '../like.js';
import { noteLock } from '../lockOrder.js';
import { paginate, type SortKey } from '../paginate.js';
import type { ScopedDb } from '../tenantScope.js';
import type { ChangeSetState } from '../../domain/publication.js';
import { ancestorsOf } from '../../domain/zoneName.js';
import type { DeletedZoneRow } from './deletedZoneRows.js';
import type { RecordRow } from './recordRows.js';
import { deleteAllSecondarySets } from './secondarySetRows.js';
import type { ZoneRow } from './zoneRows.js';
import { recordsQuery, zonesQuery } from './zoneQueries.js';

export interface ZonePageFilter {
  q?: string;
  kind?: string;
  dnssecState?: string[];
  publicationState?: ChangeSetState[];
  tenantId?: string;
}

/** A page of the scope's zones and the count of all that match. */
export async function zonePage(scoped: ScopedDb, protectedNames: string[], filter: ZonePageFilter, sort: SortKey[], after: unknown[] | null, limit: number) {
  const q = zonesQuery(scoped, protectedNames);
  if (filter.q) {
    // Names are stored lower case; the U-label form only for IDN zones (null: same as the name).
    const pattern = `%${likeEscape(filter.q)}%`;
    q.where((w) => w.where('z.name', 'like', pattern).orWhere('z.unicode_name', 'like', pattern));
  }
  if (filter.kind) q.where('z.kind', filter.kind);
  if (filter.dnssecState?.length) q.whereIn('z.dnssec_state', filter.dnssecState);
  if (filter.publicationState?.length) q.whereIn('c.state', filter.publicationState);
  if (filter.tenantId) q.where('z.tenant_id', filter.tenantId);
  const total = await countRows(q.clone());
  const page = await paginate<ZoneRow & Record<string, unknown>>(q, sort, after, limit);
  return { ...page, total };
}

/** Whether any tenant's zone has this name (the lab's parent zones aside). */
export const zoneNameTaken = async (trx: Transaction, name: string): Promise<boolean> =>
  Boolean(await trx('zones').where({ name }).whereNot('kind', 'lab_parent').first('id'));

/** The id of the zone of this name, of any kind (a lab parent too); undefined when none. */
export const zoneIdNamed = async (db: Runner, name: string): Promise<string | undefined> =>
  ((await db('zones').where('name', name).first('id')) as { id: string } | undefined)?.id;

/** Whether any tenant's zone lies above or inside `name` (the lab's parent zones aside). */
export const zoneOverlaps = async (trx: Transaction, name: string): Promise<boolean> =>
  Boolean(
    await trx('zones')
      .whereNot('kind', 'lab_parent')
      .where((q) => q.whereIn('name', ancestorsOf(name)).orWhere('name', 'like', `%.${likeEscape(name)}`))
      .first('name'),
  );

/**
 * The tenants of an ancestry path with their zone quota, locked root first FOR NO KEY UPDATE:
 * concurrent creations queue instead of overshooting, inserts referencing a tenant still pass.
 */
export async function lockedTenantQuotas(trx: Transaction, path: readonly string[]): Promise<{ id: string; max_zones: number }[]> {
  noteLock(trx, 'tenants');
  return (await trx('tenants').whereIn('id', path).orderByRaw('cardinality(path)').forNoKeyUpdate().select('id', 'max_zones', 'path')) as {
    id: string;
    max_zones: number;
  }[];
}

/** The zones of a tenant's whole subtree (the lab's parent zones and catalog zones aside: no zones of the quota). */
export const subtreeZoneCount = (trx: Transaction, tenantId: string): Promise<number> =>
  countRows(
    trx('zones')
      .whereNotIn('kind', ['lab_parent', 'catalog'])
      .whereIn('tenant_id', trx('tenants').select('id').whereRaw('path @> ARRAY[?]::text[]', [tenantId])),
  );

/** A new zone row, its owner checked against the scope. */
export const insertZone = (scoped: ScopedDb, row: Record<string, unknown>) => scoped.insert('zones', row);

/** Names of the lab's parent zones ('' the root). */
export const labParentNames = (trx: Transaction): Promise<string[]> => trx('zones').where('kind', 'lab_parent').pluck('name');

/** Whether the zone of this name is one of the lab's parent zones. */
export const isLabParentZone = async (db: Runner, name: string): Promise<boolean> =>
  (await db('zones').where({ name, kind: 'lab_parent' }).first('id')) !== undefined;

/** The owner name and type of every RRset stored in the zone. */
export const zoneRRsetKeys = async (trx: Transaction, zoneId: string): Promise<Pick<RecordRow, 'name' | 'type'>[]> =>
  (await trx('records').where('zone_id', zoneId).distinct('name', 'type')) as Pick<RecordRow, 'name' | 'type'>[];

/** A deleted zone's export, kept for restore. */
export const insertDeletedZoneExport = (trx: Transaction, row: Record<string, unknown>) => trx('deleted_zone_exports').insert(row);

/** Unexpired kept exports, newest first (at most 500), of one zone name or all. */
export async function keptExportRows(scoped: ScopedDb, now: Date, name?: string): Promise<DeletedZoneRow[]> {
  const q = scoped
    .from('deleted_zone_exports')
    .where('expires_at', '>', now)
    .orderBy([{ column: 'deleted_at', order: 'desc' }, 'id'])
    .limit(500);
  if (name) q.where('zone_name', name);
  return (await q) as DeletedZoneRow[];
}

/** An unexpired kept export. */
export const keptExportRow = async (scoped: ScopedDb, now: Date, id: string): Promise<DeletedZoneRow | undefined> =>
  (await scoped.from('deleted_zone_exports').where('id', id).where('expires_at', '>', now).first()) as DeletedZoneRow | undefined;

/** The zone's DynDNS hosts go (with the zone). */
export const deleteZoneDyndnsHosts = (trx: Transaction, zoneId: string) => trx('dyndns_hosts').where('zone_id', zoneId).delete();

export interface RecordPageFilter {
  type?: string[];
  name?: string;
  q?: string;
  publicationState?: ChangeSetState[];
}

/** A page of a zone's stored records with their publication state. */
export function recordPage(scoped: ScopedDb, zoneId: string, filter: RecordPageFilter, sort: SortKey[], after: unknown[] | null, limit: number) {
  const q = recordsQuery(scoped).where('r.zone_id', zoneId);
  if (filter.type?.length) q.whereIn('r.type', filter.type);
  if (filter.name !== undefined) q.where('r.name', filter.name);
  if (filter.q) {
    const like = `%${likeEscape(filter.q)}%`;
    q.andWhere((w) => w.whereILike('r.name', like).orWhereILike('r.content', like));
  }
  if (filter.publicationState?.length) q.whereIn('c.state', filter.publicationState);
  return paginate<RecordRow & Record<string, unknown>>(q, sort, after, limit);
}

/**
 * The lab's nightly reset: every tenant zone (records and change sets cascade), secondary sets
 * with their catalog zones (the sets first: they reference them), customer prefixes (with their
 * reverse zones), kept exports and templates. The lab's parent zones stay.
 */
export async function deleteLabZoneData(trx: Transaction): Promise<void> {
  await deleteAllSecondarySets(trx);
  await trx('zones').whereNot('kind', 'lab_parent').delete();
  await trx('prefixes').delete();
  await trx('deleted_zone_exports').delete();
  await trx('templates').delete();
}
