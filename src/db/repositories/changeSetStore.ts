// The statements of the change-set write path (src/services/changeSets.ts) and the change-set
// reads: one function per question. The write path's statements are prepared and batched exactly
// as the service describes; the service decides, these only run.
import { ZONE_CHANNEL } from '../channels.js';
import type { Statement, Transaction, TransactionContext } from '../context.js';
import { noteLock } from '../lockOrder.js';
import { paginate } from '../paginate.js';
import { PREPARED } from '../preparedStatements.js';
import type { ScopedDb } from '../tenantScope.js';
import type { ChangeSetState } from '../../domain/publication.js';
import type { ChangeSetRow } from './changeSetRows.js';

/**
 * ONE statement: the change set row, its audit entry, its event, the zone's pointer, version and
 * record count, the record writes (`w0`…) and the NOTIFY delivered on commit. Prepared.
 */
export async function storeChangeSet(
  ctx: TransactionContext,
  rows: { changeSet: Record<string, unknown>; audit: Record<string, unknown>; event: Record<string, unknown> },
  zone: { id: string; columns: Record<string, unknown>; growth: number },
  recordWrites: Statement[],
): Promise<void> {
  const statement = ctx.db
    .with('cs', ctx.db('change_sets').insert(rows.changeSet))
    .with('a', ctx.db('audit_log').insert(rows.audit))
    .with('e', ctx.db('events').insert(rows.event))
    .with(
      'z',
      ctx.scoped
        .from('zones')
        .where('id', zone.id)
        .update({
          ...zone.columns,
          version: ctx.db.raw('version + 1'),
          record_count: ctx.db.raw('record_count + ?', [zone.growth]),
        }),
    );
  for (const [i, write] of recordWrites.entries()) statement.with(`w${i}`, write);
  await statement.select(ctx.db.raw('pg_notify(?, ?)', [ZONE_CHANNEL, zone.id])).options(PREPARED);
}

/**
 * The statements that store a plan's records, not yet run: deletes, one update, one insert, as
 * needed. Each record row travels in ONE jsonb parameter (an import creates tens of thousands).
 */
export async function recordWriteStatements(
  ctx: TransactionContext,
  zone: { id: string; tenantId: string },
  records: { deletedIds: string[]; updated: Record<string, unknown>[]; created: Record<string, unknown>[] },
  changeSetId: string,
  now: Date,
): Promise<Statement[]> {
  const trx = ctx.db;
  const writes: Statement[] = [];
  if (records.deletedIds.length)
    writes.push(ctx.scoped.from('records').where('zone_id', zone.id).whereRaw('id = any(?::text[])', [records.deletedIds]).delete());
  if (records.updated.length) {
    // Each write of a row moves its version (its ETag).
    writes.push(
      trx.raw(
        `UPDATE records AS r SET name = x.name, name_sort = x.name_sort, ttl = x.ttl, data = x.data, content = x.content,
           comment = x.comment, last_changeset_id = ?, updated_at = ?, version = r.version + 1
         FROM jsonb_to_recordset(?::jsonb) AS x(id text, name text, name_sort text, ttl int, data jsonb, content text, comment text)
         WHERE r.id = x.id AND r.zone_id = ?`,
        [changeSetId, now, JSON.stringify(records.updated), zone.id],
      ),
    );
  }
  if (records.created.length) {
    // 1000-row INSERTs with 14 parameters per row and RETURNING * cost more in building and
    // parsing than the database spends storing them. The owner is the zone's tenant, checked like
    // ScopedDb.insert checks it. Version: 1 (default).
    await ctx.scoped.assertInSubtree([zone.tenantId]);
    writes.push(
      trx.raw(
        `INSERT INTO records (id, zone_id, tenant_id, name, name_sort, type, ttl, data, content, comment, managed_by, last_changeset_id, created_at, updated_at)
         SELECT x.id, ?, ?, x.name, x.name_sort, x.type, x.ttl, x.data, x.content, x.comment, x.managed_by, ?, ?, ?
         FROM jsonb_to_recordset(?::jsonb) AS x(id text, name text, name_sort text, type text, ttl int, data jsonb, content text, comment text, managed_by text)`,
        [zone.id, zone.tenantId, changeSetId, now, now, JSON.stringify(records.created)],
      ),
    );
  }
  return writes;
}

/** The owner names of a zone's records with these ids (one array parameter). */
export const recordNamesByIds = async (scoped: ScopedDb, zoneId: string, ids: string[]): Promise<string[]> =>
  ((await scoped.from('records').where('zone_id', zoneId).whereRaw('id = any(?::text[])', [ids]).distinct('name')) as { name: string }[]).map((r) => r.name);

/** A change set written earlier in this transaction gets the counts and results of its items. */
export const restateChangeSet = (trx: Transaction, id: string, entry: { itemCount: number; summary: Record<string, number>; results: unknown[] }) =>
  trx('change_sets')
    .where('id', id)
    .update({ item_count: entry.itemCount, summary: JSON.stringify(entry.summary), results: JSON.stringify(entry.results) });

/** The zone's version moves and its record count by `growth`. */
export const bumpZoneVersion = (ctx: TransactionContext, zoneId: string, growth: number) =>
  ctx.scoped
    .from('zones')
    .where('id', zoneId)
    .update({ version: ctx.db.raw('version + 1'), record_count: ctx.db.raw('record_count + ?', [growth]) });

/** A change set of the zone; `lock`: FOR UPDATE (noted in the lock order). */
export async function changeSetRowById(scoped: ScopedDb, zoneId: string, id: string, lock?: Transaction): Promise<ChangeSetRow | undefined> {
  const q = scoped.from('change_sets').where({ zone_id: zoneId, id });
  if (lock) {
    noteLock(lock, 'change_sets');
    q.forUpdate();
  }
  return (await q.first()) as ChangeSetRow | undefined;
}

/** A page of the zone's change sets, newest first. */
export async function changeSetPage(
  scoped: ScopedDb,
  zoneId: string,
  filter: { state?: ChangeSetState[]; since?: Date },
  after: unknown[] | null,
  limit: number,
) {
  const q = scoped.from('change_sets').where('zone_id', zoneId).select('*');
  if (filter.state?.length) q.whereIn('state', filter.state);
  if (filter.since) q.where('created_at', '>=', filter.since);
  return paginate<ChangeSetRow & Record<string, unknown>>(q, [{ column: 'seq', direction: 'desc', field: 'seq' }], after, limit);
}

/** A failed change set back to pending, and the NOTIFY that wakes the publication workers on commit. */
export async function requeueChangeSet(ctx: TransactionContext, zoneId: string, id: string, now: Date): Promise<ChangeSetRow> {
  const [updated] = (await ctx.scoped
    .from('change_sets')
    .where('id', id)
    .update({ state: 'pending', error: null, updated_at: now })
    .returning('*')) as ChangeSetRow[];
  await ctx.db.raw('SELECT pg_notify(?, ?)', [ZONE_CHANNEL, zoneId]);
  return updated!;
}

/** The zone's newest change set of these kinds. */
export const lastChangeSetOfKinds = async (scoped: ScopedDb, zoneId: string, kinds: string[]) =>
  (await scoped.from('change_sets').where('zone_id', zoneId).whereIn('kind', kinds).orderBy('seq', 'desc').first('id', 'state', 'created_at')) as
    | { id: string; state: ChangeSetState; created_at: Date }
    | undefined;
