// Forward records of default PTRs (docs/rdns.md "Forward records of default PTRs"): an address
// space may name a zone of the platform (`forward_zone`) in which the service keeps, as ordinary
// records marked as the space's (records.managed_by, docs/records.md "Managed records"), an A or
// AAAA record for every default name of the space: every IPv4 address of it, and the IPv6
// addresses assigned alone (/128), the only IPv6 addresses with a default. A change is written as
// the difference between what the space should keep there and what it keeps, in chunks of at
// most FORWARD_CHUNK items, each one change set of that zone through the write seam: the request
// writes the first chunk (its refusals are the request's), a job row (forward_record_jobs) keeps
// the rest for the worker (writeDueForwardRecords), which writes one chunk per
// transaction until nothing differs. A chunk recomputes the difference from what is stored, so a
// crash, a second worker or a change in between never writes a record twice.
import type { Pool, Transaction, DbContext } from '../../db/context.js';
import {
  deleteForwardJob,
  dueForwardJobs,
  forwardJobExists,
  forwardJobsOf,
  forwardZoneRow,
  keptForwardRecordCount,
  keptForwardRecords,
  recordForwardJobFailure,
  shareSpaceForForward,
  singleAssignmentCounts,
  spaceSingleAddresses,
  upsertForwardJob,
  zoneTenantId,
} from '../../db/repositories/forwardRecordRows.js';
import type { Config } from '../../config/index.js';
import type { Clock } from '../../domain/clock.js';
import { DomainError, localise, validationFailed } from '../../domain/errors.js';
import { MAX_RECORDS_PER_ZONE } from '../../domain/records/ttl.js';
import { type Address, type Block, blockSize, formatAddress, parseAddress, parseBlock } from '../../domain/ip/address.js';
import { patternSuffix, renderDefaultPtr } from '../../domain/ip/defaultPtr.js';
import type { ChangeItem } from '../../domain/changeSets/planChangeSet.js';
import { normalizeOwner } from '../../domain/names.js';
import type { Zone } from '../../domain/model/zone.js';
import { isAtOrBelow } from '../../../nameserver/wire/name.js';
import { applyChangeSet } from '../changeSets.js';
import { tenantWriteContext, type WriteContext } from '../writeContext.js';
import { getZone } from '../zoneReads.js';
import { writeZone } from '../zoneWrite.js';
import { ownerScope } from './reverseZones.js';
import { tryAdvisoryLock } from '../../db/lockOrder.js';
import { transactionWithRetry } from '../../db/transaction.js';

/**
 * Items per change set of forward records: 4,096 records took about 1 s to store on the 2-core
 * test machine under load, well inside the 5 s statement timeout, where a /16's 65,536 in one
 * change set took 13–17 s and their rename ran past it (docs/rdns.md). A /20 is one chunk.
 */
const FORWARD_CHUNK = 4096;

/**
 * The zone a space names as `forward_zone`: a forward zone of the platform tenant (the acting
 * one: staff), not being deleted, holding every name the pattern gives and with room for the
 * records (422 otherwise; `spaceId`: the space's own records there already count as room).
 */
export async function forwardZoneInput(
  ctx: WriteContext,
  config: Config,
  name: string,
  pattern: string,
  block: Block,
  spaceId: string | null = null,
): Promise<Zone> {
  const problem = (code: string, detail: string) => validationFailed([{ pointer: '/forward_zone', code, detail }]);
  const zone = await getZone(ctx, config, name).catch((e: unknown) => {
    if (e instanceof DomainError && e.code === 'not_found') return null;
    throw e;
  });
  if (!zone) throw problem('zone_not_found', `No zone ${name} is hosted by the service.`);
  if (zone.tenantId !== ctx.actor.acting.id || zone.kind !== 'forward') {
    throw problem(
      'not_platform_zone',
      `${zone.name} is not a forward zone of the provider (the platform tenant): default names resolve only in the provider's own zones.`,
    );
  }
  if (zone.status === 'deleting') throw problem('zone_being_deleted', `${zone.name} is being deleted.`);
  const suffix = patternSuffix(pattern);
  if (suffix === '' || !isAtOrBelow(suffix, zone.name)) {
    throw problem('pattern_outside_forward_zone', `The names of the pattern ${pattern} do not lie inside ${zone.name}.`);
  }
  // Checked whole here: the chunks after the request's first would meet the limit only later, in the worker.
  if (block.family === 4) {
    const room = MAX_RECORDS_PER_ZONE - (zone.recordCount - (spaceId ? await keptForwardRecordCount(ctx.db, spaceId, zone.id) : 0));
    if (Number(blockSize(block)) > room) {
      throw problem(
        'too_many_records',
        `${zone.name} has room for ${room} more records; the space's ${blockSize(block)} forward records do not fit (a zone holds at most ${MAX_RECORDS_PER_ZONE}).`,
      );
    }
  }
  return zone;
}

/** A default name and the address it resolves to. */
interface ForwardRecord {
  name: string;
  type: 'A' | 'AAAA';
  address: string;
}

interface SpaceForForward {
  id: string;
  cidr: string;
  ptr_pattern: string;
}

/** The records a space should keep in a zone, by `recordKey` (owner relative to the zone). */
type WantedRecords = ReadonlyMap<string, ForwardRecord>;
const recordKey = (name: string, type: string, address: string) => `${name}|${type}|${address}`;

/**
 * An IPv4 space's default names in a zone depend on its block, pattern and the zone's name alone:
 * kept for the chunks that follow. A /16's 65,536 names were rendered again for each of its 16–32
 * chunks, a fifth of the worker's CPU and most of its garbage in a rename (bench/RESULTS.md).
 * Two spaces' worth (a /16 is some 10 MB): a chunk of a third evicts the oldest.
 */
const wantedIpv4 = new Map<string, WantedRecords>();
const WANTED_IPV4_KEPT = 2;

/** Every default name of the space, keyed as in `zoneName`: each IPv4 address; each IPv6 address assigned alone. */
async function defaultNames(ctx: WriteContext, space: SpaceForForward, block: Block, zoneName: string): Promise<WantedRecords> {
  const keyed = (addresses: Address[]): WantedRecords => {
    const type = block.family === 4 ? 'A' : 'AAAA';
    return new Map(
      addresses.map((a) => {
        const r: ForwardRecord = { name: renderDefaultPtr(space.ptr_pattern, a), type, address: formatAddress(a) };
        return [recordKey(normalizeOwner(`${r.name}.`, zoneName), r.type, r.address), r];
      }),
    );
  };
  if (block.family === 6) {
    const singles = await spaceSingleAddresses(ctx.db, space.id);
    return keyed(singles.map((ip) => parseAddress(ip)));
  }
  const cacheKey = `${space.cidr}|${space.ptr_pattern}|${zoneName}`;
  const wanted =
    wantedIpv4.get(cacheKey) ?? keyed(Array.from({ length: Number(blockSize(block)) }, (_, i) => ({ family: 4, value: block.network + BigInt(i) })));
  // Newest last, so that the first is the one to evict.
  wantedIpv4.delete(cacheKey);
  wantedIpv4.set(cacheKey, wanted);
  if (wantedIpv4.size > WANTED_IPV4_KEPT) wantedIpv4.delete(wantedIpv4.keys().next().value!);
  return wanted;
}

/** What a zone still lacks after a chunk: the space's names there, those not stored yet, and the space's records there that should go. */
export interface ForwardProgress {
  total: number;
  missing: number;
  stale: number;
}

/**
 * One chunk towards what the space should keep in the zone (the zone's writer lock held): the
 * difference between `wanted` (null: nothing, the space left the zone or is gone) and the
 * records the space keeps there, at most FORWARD_CHUNK items of it as one change set. A rename
 * takes as many removals as additions per chunk, so the zone never holds both name sets whole.
 * null when the zone is gone or being deleted (its records go with it).
 */
async function writeForwardChunk(
  ctx: WriteContext,
  config: Config,
  spaceId: string,
  wanted: ((zoneName: string) => Promise<WantedRecords>) | null,
  zoneId: string,
  comment: string,
): Promise<ForwardProgress | null> {
  const row = await forwardZoneRow(ctx.db, zoneId);
  if (!row || row.status === 'deleting') return null;
  // The zone is the platform's; a reseller's assignment of a /128 writes there too.
  const owner = ownerScope(ctx, row.tenant_id);
  return writeZone(owner, config, row.name, {}, async (zone) => {
    const names = wanted ? await wanted(zone.name) : new Map<string, ForwardRecord>();
    const missing = new Map(names);
    const kept = await keptForwardRecords(ctx.db, zone.id, spaceId);
    const stale: string[] = [];
    for (const r of kept) if (!missing.delete(recordKey(r.name, r.type, r.address))) stale.push(r.id);
    const creates = Math.min(missing.size, stale.length ? FORWARD_CHUNK / 2 : FORWARD_CHUNK);
    const deletes = Math.min(stale.length, FORWARD_CHUNK - creates);
    const changes: ChangeItem[] = stale.slice(0, deletes).map((id) => ({ op: 'delete', id }));
    for (const r of [...missing.values()].slice(0, creates))
      changes.push({ op: 'create', record: { name: `${r.name}.`, type: r.type, data: { address: r.address } } });
    // Whatever an item trips over (a CNAME of the platform's own at a default name, the zone's
    // record limit), it is the choice of this forward zone that the request must change.
    if (changes.length)
      await applyChangeSet(owner, zone, { changes, comment }, { kind: 'records', manager: spaceId, locate: () => ({ pointer: '/forward_zone' }) });
    return { total: names.size, missing: missing.size - creates, stale: stale.length - deletes };
  });
}

/**
 * Brings the records the space keeps in the zone `zoneId` towards what it should keep there —
 * every default name when `keep`, none otherwise (the space left the zone, or is removed): the
 * first chunk now, in the caller's transaction (so its refusals are the request's), the rest
 * left to the worker as the space's job row for that zone. The caller holds the space's row
 * (FOR UPDATE or FOR SHARE): locks go space, zone, job row, as the worker takes them.
 */
export async function syncForwardRecords(
  ctx: WriteContext,
  config: Config,
  space: SpaceForForward,
  block: Block,
  zoneId: string,
  keep: boolean,
  comment: string,
): Promise<void> {
  const progress = await writeForwardChunk(ctx, config, space.id, keep ? (zoneName) => defaultNames(ctx, space, block, zoneName) : null, zoneId, comment);
  await storeForwardJob(ctx.db, space.id, zoneId, progress, ctx.clock.now());
}

/** What remains after a chunk: the job row updated, or gone once nothing does. */
async function storeForwardJob(trx: Transaction, spaceId: string, zoneId: string, progress: ForwardProgress | null, now: Date): Promise<void> {
  const job = { space_id: spaceId, zone_id: zoneId };
  if (!progress || (progress.missing === 0 && progress.stale === 0)) return deleteForwardJob(trx, job);
  await upsertForwardJob(trx, job, { total: progress.total, missing: progress.missing, stale: progress.stale }, now);
}

/**
 * The forward records of the space's /128 assignments after one is made or taken back (IPv6:
 * only an address assigned alone has a default name). Called by the assignments: one change
 * set, none when nothing differs.
 */
export async function syncSpaceForwardRecords(ctx: WriteContext, config: Config, spaceId: string, comment: string): Promise<void> {
  // FOR SHARE: a PATCH of the pattern or the zone (FOR UPDATE) commits first, and its names are the ones kept.
  const row = await shareSpaceForForward(ctx.db, spaceId);
  if (!row?.forward_zone_id) return;
  await syncForwardRecords(ctx, config, row, parseBlock(row.cidr), row.forward_zone_id, true, comment);
}

/** How far the space's forward records are (the API's `forward_records`, docs/rdns.md). */
export interface ForwardRecordsState {
  state: 'complete' | 'pending' | 'failed';
  /** Default names the space keeps in its forward zone, and of those how many are stored. */
  total: number;
  written: number;
  /** Records of the space still to be removed (old names, a zone it left). */
  stale: number;
  error: { code: string; detail: string; at: string } | null;
}

/** The forward-record state of each space: from its job rows, or complete without any. */
export async function forwardRecordsStates(
  ctx: DbContext,
  spaces: { id: string; block: Block; forwardZoneId: string | null }[],
): Promise<Map<string, ForwardRecordsState>> {
  const ids = spaces.map((s) => s.id);
  const jobs = ids.length ? await forwardJobsOf(ctx.db, ids) : [];
  const singles = ids.length ? await singleAssignmentCounts(ctx.db, ids) : [];
  const states = new Map<string, ForwardRecordsState>();
  for (const s of spaces) {
    const own = jobs.filter((j) => j.space_id === s.id);
    const current = own.find((j) => j.zone_id === s.forwardZoneId);
    const names = s.forwardZoneId === null ? 0 : s.block.family === 4 ? Number(blockSize(s.block)) : (singles.find((r) => r.space_id === s.id)?.n ?? 0);
    const total = current?.total ?? names;
    const error = own.find((j) => j.last_error)?.last_error ?? null;
    states.set(s.id, {
      state: own.length === 0 ? 'complete' : error ? 'failed' : 'pending',
      total,
      written: total - (current?.missing ?? 0),
      stale: own.reduce((n, j) => n + j.stale, 0),
      error,
    });
  }
  return states;
}

export interface ForwardWorkerDeps {
  db: Pool;
  config: Config;
  clock: Clock;
}

/** A job whose chunk failed waits this long before the next attempt, doubling up to the cap. */
const RETRY_FIRST_MS = 10_000;
const RETRY_MAX_MS = 15 * 60_000;

/**
 * The worker's run (wired by src/service.ts on a one-second PeriodicJob): chunk after chunk while
 * jobs are due, until none is or `stopping` says so (a stop waits only for the chunk in flight,
 * whose transaction commits or rolls back whole). A refused chunk is stored on its job and the
 * others go on. The job rows are in the database: a restart, or another worker process, resumes
 * where the last chunk ended.
 */
export async function writeDueForwardRecords(deps: ForwardWorkerDeps, stopping: () => boolean): Promise<void> {
  while (!stopping() && (await runForwardChunk(deps)) !== 'idle');
}

/**
 * One chunk of one due job, in a transaction of its own: 'written' (the job may go on), 'idle'
 * (no due job this worker could take), or 'failed' (stored on the job with its next attempt).
 */
async function runForwardChunk(deps: ForwardWorkerDeps): Promise<'written' | 'idle' | 'failed'> {
  const now = deps.clock.now();
  const due = await dueForwardJobs(deps.db, now);
  for (const candidate of due) {
    try {
      const outcome = await transactionWithRetry(deps.db, (trx) => forwardJobChunk(trx, deps, candidate));
      if (outcome === 'written') return outcome;
    } catch (err) {
      await recordFailure(deps, candidate, err);
      return 'failed';
    }
  }
  return 'idle';
}

async function forwardJobChunk(trx: Transaction, deps: ForwardWorkerDeps, candidate: { space_id: string; zone_id: string }): Promise<'written' | 'skipped'> {
  // Workers take a job by this lock (requests never do): the locks a chunk then takes — space,
  // zone, job row — come in the order the requests take them, so a request never waits on a
  // worker that waits on it.
  const jobKey = `forward-records:${candidate.space_id}:${candidate.zone_id}`;
  if (!(await tryAdvisoryLock(trx, 'forward_record_job', jobKey))) return 'skipped';
  const space = await shareSpaceForForward(trx, candidate.space_id);
  const zoneTenant = await zoneTenantId(trx, candidate.zone_id);
  // The worker writes as the zone's tenant (the platform), without a token: the audit log names it.
  const ctx = zoneTenant
    ? await tenantWriteContext(trx, deps.clock, zoneTenant, { id: 'rdns-forward-records', name: 'address space forward records' }, deps.config.deployment)
    : null;
  if (!ctx) {
    await deleteForwardJob(trx, candidate);
    return 'skipped';
  }
  // Between the pick and the lock a request may have finished the job.
  if (!(await forwardJobExists(trx, candidate))) return 'skipped';
  const keep = space !== undefined && space.forward_zone_id === candidate.zone_id;
  const comment = space ? `address space ${space.cidr}: forward records of its default PTRs` : 'removed address space: its forward records';
  const progress = await writeForwardChunk(
    ctx,
    deps.config,
    candidate.space_id,
    keep ? (zoneName) => defaultNames(ctx, space, parseBlock(space.cidr), zoneName) : null,
    candidate.zone_id,
    comment,
  );
  await storeForwardJob(trx, candidate.space_id, candidate.zone_id, progress, deps.clock.now());
  return 'written';
}

async function recordFailure(deps: ForwardWorkerDeps, job: { space_id: string; zone_id: string }, err: unknown): Promise<void> {
  const now = deps.clock.now();
  const error =
    err instanceof DomainError
      ? { code: err.errors[0]?.code ?? err.code, detail: err.errors[0]?.detail ?? localise(err.code, 'en', err.params).detail, at: now.toISOString() }
      : { code: 'internal_error', detail: err instanceof Error ? err.message : String(err), at: now.toISOString() };
  await recordForwardJobFailure(deps.db, job, error, now, RETRY_FIRST_MS, RETRY_MAX_MS);
  if (!(err instanceof DomainError)) throw err;
}
