// The statements of an address space's forward records (docs/rdns.md "Forward records"): the
// records it keeps, its job rows, and the space row read FOR SHARE before any zone's lock
// (src/db/lockOrder.ts: space, zone, job row).
import type { Runner, Transaction } from '../context.js';
import { noteLock } from '../lockOrder.js';

export interface ForwardJobRow {
  space_id: string;
  zone_id: string;
  total: number;
  missing: number;
  stale: number;
  attempts: number;
  last_error: { code: string; detail: string; at: string } | null;
}

export type ForwardJobKey = { space_id: string; zone_id: string };

/** The addresses of the space assigned alone (/128). */
export const spaceSingleAddresses = async (trx: Transaction, spaceId: string) =>
  ((await trx('ip_assignments').where('space_id', spaceId).whereRaw('masklen(cidr) = 128').distinct(trx.raw('host(cidr) AS ip'))) as { ip: string }[]).map(
    (r) => r.ip,
  );

export const forwardZoneRow = async (trx: Transaction, zoneId: string) =>
  (await trx('zones').where('id', zoneId).first('name', 'tenant_id', 'status')) as { name: string; tenant_id: string; status: string } | undefined;

/** The records the space keeps in the zone, with their address. */
export const keptForwardRecords = async (trx: Transaction, zoneId: string, spaceId: string) =>
  (await trx('records').where({ zone_id: zoneId, managed_by: spaceId }).select('id', 'name', 'type', trx.raw("data->>'address' AS address"))) as {
    id: string;
    name: string;
    type: string;
    address: string;
  }[];

export async function deleteForwardJob(trx: Transaction, job: ForwardJobKey): Promise<void> {
  await trx('forward_record_jobs').where(job).delete();
}

export async function upsertForwardJob(
  trx: Transaction,
  job: ForwardJobKey,
  counts: { total: number; missing: number; stale: number },
  now: Date,
): Promise<void> {
  const columns = { ...counts, attempts: 0, last_error: null, run_after: now };
  await trx('forward_record_jobs')
    .insert({ ...job, ...columns, created_at: now })
    .onConflict(['space_id', 'zone_id'])
    .merge(columns);
}

/** The space's row FOR SHARE: a PATCH of its pattern or zone (FOR UPDATE) commits first. */
export async function shareSpaceForForward(trx: Transaction, spaceId: string) {
  noteLock(trx, 'ip_spaces');
  return (await trx('ip_spaces').where('id', spaceId).forShare().first('id', 'cidr', 'ptr_pattern', 'forward_zone_id')) as
    | { id: string; cidr: string; ptr_pattern: string; forward_zone_id: string | null }
    | undefined;
}

export const forwardJobsOf = async (db: Runner, spaceIds: string[]) =>
  (await db('forward_record_jobs').whereIn('space_id', spaceIds).select('*')) as ForwardJobRow[];

/** How many addresses each space has assigned alone (/128). */
export const singleAssignmentCounts = async (db: Runner, spaceIds: string[]) =>
  (await db('ip_assignments')
    .whereIn('space_id', spaceIds)
    .whereRaw('masklen(cidr) = 128')
    .groupBy('space_id')
    .select('space_id', db.raw('count(DISTINCT cidr)::int AS n'))) as { space_id: string; n: number }[];

/** Up to 20 jobs due at `now`, the longest waiting first. */
export const dueForwardJobs = async (db: Runner, now: Date) =>
  (await db('forward_record_jobs').where('run_after', '<=', now).orderBy('run_after').limit(20).select('space_id', 'zone_id')) as ForwardJobKey[];

export const zoneTenantId = async (trx: Transaction, zoneId: string): Promise<string | null> =>
  ((await trx('zones').where('id', zoneId).first('tenant_id')) as { tenant_id: string } | undefined)?.tenant_id ?? null;

export const forwardJobExists = async (trx: Transaction, job: ForwardJobKey): Promise<boolean> =>
  (await trx('forward_record_jobs').where(job).first('space_id')) !== undefined;

/** One statement: the back-off doubles with the attempts the row holds (a job gone meanwhile: no row). */
export async function recordForwardJobFailure(
  db: Runner,
  job: ForwardJobKey,
  error: unknown,
  now: Date,
  retryFirstMs: number,
  retryMaxMs: number,
): Promise<void> {
  await db('forward_record_jobs')
    .where(job)
    .update({
      attempts: db.raw('attempts + 1'),
      last_error: JSON.stringify(error),
      run_after: db.raw("?::timestamptz + least(? * power(2, attempts), ?) * interval '1 millisecond'", [now, retryFirstMs, retryMaxMs]),
    });
}

/** How many records the space keeps in the zone. */
export const keptForwardRecordCount = async (db: Runner, spaceId: string, zoneId: string) =>
  Number(((await db('records').where({ zone_id: zoneId, managed_by: spaceId }).count({ n: '*' }).first()) as { n: string | number }).n);
