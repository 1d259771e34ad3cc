// The statements of the provider's address spaces (docs/rdns.md "The model") and of their reverse
// zones' space column. The space's row is locked before any zone's (src/db/lockOrder.ts).
import { noteLock } from '../lockOrder.js';
import type { DbContext, Runner, Transaction } from '../context.js';
import { paginate } from '../paginate.js';
import type { IpSpaceRow } from './rdnsRows.js';
import { zonesQuery } from './zoneQueries.js';
import type { ZoneRow } from './zoneRows.js';

/** Spaces with the name of their forward zone. */
const spacesQuery = (db: Runner) => db('ip_spaces as s').leftJoin('zones as fz', 'fz.id', 's.forward_zone_id').select('s.*', 'fz.name as forward_zone_name');

export const allIpSpaceRows = async (db: Runner) => (await spacesQuery(db).orderBy('s.cidr')) as IpSpaceRow[];

/** Whether the provider has any address space. */
export const anyIpSpace = async (db: Runner): Promise<boolean> => (await db('ip_spaces').first('id')) !== undefined;

export const ipSpaceRow = async (db: Runner, id: string) => (await spacesQuery(db).where('s.id', id).first()) as IpSpaceRow | undefined;

/** The first of the zone names already taken, or null. */
export const takenZoneName = async (trx: Transaction, names: string[]): Promise<string | null> =>
  ((await trx('zones').whereIn('name', names).first('name')) as { name: string } | undefined)?.name ?? null;

export async function insertIpSpaceRow(
  trx: Transaction,
  row: { id: string; cidr: string; ptr_pattern: string; dnssec: boolean; forward_zone_id: string | null; created_at: Date },
): Promise<void> {
  await trx('ip_spaces').insert(row);
}

/** The space's reverse zones not being deleted, by name. */
const liveSpaceZones = (trx: Transaction, spaceId: string) =>
  trx('zones').where({ ip_space_id: spaceId, kind: 'provider_reverse' }).whereNot('status', 'deleting').orderBy('name');

export const liveSpaceZoneNames = async (trx: Transaction, spaceId: string) => (await liveSpaceZones(trx, spaceId).pluck('name')) as string[];

export const liveSpaceZoneStates = async <S extends string>(trx: Transaction, spaceId: string) =>
  (await liveSpaceZones(trx, spaceId).select('name', 'dnssec_state')) as { name: string; dnssec_state: S }[];

/**
 * The space's row for a change of its columns. FOR NO KEY UPDATE: assignments inserted into the
 * space meanwhile (FOR KEY SHARE) need not wait.
 */
export async function lockIpSpaceForChange(trx: Transaction, id: string): Promise<IpSpaceRow | undefined> {
  noteLock(trx, 'ip_spaces');
  return (await trx('ip_spaces').where('id', id).forNoKeyUpdate().first()) as IpSpaceRow | undefined;
}

/** The space's row for its deletion (FOR UPDATE). */
export async function lockIpSpaceForDeletion(trx: Transaction, id: string): Promise<IpSpaceRow | undefined> {
  noteLock(trx, 'ip_spaces');
  return (await trx('ip_spaces').where('id', id).forUpdate().first()) as IpSpaceRow | undefined;
}

export const zoneNameById = async (trx: Transaction, id: string): Promise<string> =>
  ((await trx('zones').where('id', id).first('name')) as { name: string }).name;

export async function updateIpSpaceRow(
  trx: Transaction,
  id: string,
  columns: { ptr_pattern: string; forward_zone_id: string | null; dnssec?: boolean },
): Promise<void> {
  await trx('ip_spaces').where('id', id).update(columns);
}

export const spaceHasAssignments = async (trx: Transaction, id: string): Promise<boolean> =>
  (await trx('ip_assignments').where('space_id', id).first('id')) !== undefined;

/** The space's row goes; its zones (deleted already, or going) forget it. */
export async function deleteIpSpaceRow(trx: Transaction, id: string): Promise<void> {
  await trx('zones').where('ip_space_id', id).update({ ip_space_id: null });
  await trx('ip_spaces').where('id', id).delete();
}

const SPACE_ZONE_SORT = [
  { column: 'z.reverse_block', direction: 'asc' as const, field: 'reverse_block_text' },
  { column: 'z.id', direction: 'asc' as const, field: 'id' },
];

/** A page of the space's reverse zones, by block, each with its block as text. */
export const pageSpaceZoneRows = (ctx: DbContext, protectedNames: string[], spaceId: string, after: unknown[] | null, limit: number) =>
  paginate<ZoneRow & { reverse_block_text: string } & Record<string, unknown>>(
    zonesQuery(ctx.scoped, protectedNames, 'provider_reverse')
      .where('z.ip_space_id', spaceId)
      .select(ctx.db.raw('z.reverse_block::text as reverse_block_text')),
    SPACE_ZONE_SORT,
    after,
    limit,
  );
