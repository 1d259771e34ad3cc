// Builds a zone's next published version from the stored records: the records whose owners the
// unpublished change sets touched are compared with what the nameservers serve, the difference
// becomes a zone_versions row the nameservers apply, the SOA serial moves on, and the change sets
// go `pending → pushed`. One transaction under the zone's row lock, so API writes to the zone wait
// for it (a few milliseconds) and two workers never publish the same zone.
import type { Knex } from 'knex';
import { PREPARED } from '../db/preparedStatements.js';
import { recordEvents } from '../db/repositories/events.js';
import type { Clock } from '../domain/clock.js';
import { canonicalJson } from '../domain/canonicalJson.js';
import { nextSerial, type SoaData, soaPresentation } from '../domain/soa.js';
import { type PublishedRecord, toZoneRecord } from './zoneRecords.js';

export const PUBLISHED_CHANNEL = 'zone_published';
/** How long the poll leaves a zone alone after a failed build (writes and retries try at once). */
export const FAILED_BUILD_BACKOFF_MS = 60_000;

export type PublishOutcome =
  | { kind: 'idle' }
  | { kind: 'busy' }
  | { kind: 'published'; serial: number; changeSets: number }
  | { kind: 'withdrawn' }
  | { kind: 'failed'; detail: string };

interface ZoneLockRow {
  id: string;
  name: string;
  tenant_id: string;
  status: string;
  default_ttl: number;
  serial: number;
  changeset_seq: number;
  published_seq: number;
  published_serial: number | null;
}

interface StoredRow extends PublishedRecord {
  record_id: string;
}

class BuildError extends Error {}

const sameRecord = (a: StoredRow, b: StoredRow) =>
  a.name === b.name && a.type === b.type && a.ttl === b.ttl && canonicalJson(a.data) === canonicalJson(b.data);

const strip = ({ name, type, ttl, data }: StoredRow): PublishedRecord => ({ name, type, ttl, data });

export async function publishZone(deps: { db: Knex; clock: Clock }, zoneId: string): Promise<PublishOutcome> {
  try {
    return await deps.db.transaction((trx) => buildVersion(trx, deps.clock.now(), zoneId));
  } catch (err) {
    if (!(err instanceof BuildError)) throw err;
    await deps.db.transaction((trx) => markFailed(trx, deps.clock.now(), zoneId, err.message));
    return { kind: 'failed', detail: err.message };
  }
}

async function buildVersion(trx: Knex.Transaction, now: Date, zoneId: string): Promise<PublishOutcome> {
  const zone = (await trx('zones').where('id', zoneId).forUpdate().skipLocked().first().options(PREPARED)) as ZoneLockRow | undefined;
  if (!zone) return (await trx('zones').where('id', zoneId).first('id')) ? { kind: 'busy' } : { kind: 'idle' };
  if (zone.status === 'deleting') return withdraw(trx, now, zone);
  if (zone.published_seq >= zone.changeset_seq) return { kind: 'idle' };

  const sets = (await trx('change_sets')
    .where('zone_id', zone.id)
    .andWhere('seq', '>', zone.published_seq)
    .andWhere('seq', '<=', zone.changeset_seq)
    .select('touched_names')
    .options(PREPARED)) as { touched_names: string[] | null }[];
  const first = zone.published_serial === null;
  const whole = first || sets.some((s) => s.touched_names === null);
  // The apex is always re-read: its SOA carries the new serial.
  const names = whole ? null : [...new Set(['@', ...sets.flatMap((s) => s.touched_names ?? [])])];
  const serial = first ? Number(zone.serial) : nextSerial(Number(zone.serial), now);

  const { current, served } = await recordsAt(trx, zone, names);
  const soa = current.find((r) => r.type === 'SOA' && r.name === '@');
  if (!soa) throw new BuildError(`The zone ${zone.name} has no SOA record.`);
  const soaNext: SoaData = { ...(soa.data as unknown as SoaData), serial };
  soa.data = { ...soaNext };

  const servedById = new Map(served.map((r) => [r.record_id, r]));
  const currentIds = new Set(current.map((r) => r.record_id));
  const added = current.filter((r) => {
    const before = servedById.get(r.record_id);
    return !before || !sameRecord(before, r);
  });
  const addedIds = new Set(added.map((r) => r.record_id));
  const removed = served.filter((r) => !currentIds.has(r.record_id) || addedIds.has(r.record_id));
  // A record the nameservers could not serve fails the build here, not in every nameserver. The
  // API cannot store one (parseRecordData validates through the codec's encoder); this catches
  // rows that bypassed it (SQL edits, restored dumps, rows from before the codec decided) and
  // system records made from configuration.
  for (const r of added) {
    try {
      toZoneRecord(zone.name, r);
    } catch (err) {
      throw new BuildError(`${r.name} ${r.type}: ${(err as Error).message}`);
    }
  }

  const pushed = await commitVersion(trx, zone, now, {
    version: { serial, from_serial: zone.published_serial, removed: JSON.stringify(removed.map(strip)), added: JSON.stringify(added.map(strip)), withdrawn: false },
    zone: { serial, published_serial: serial },
    soa: { id: soa.record_id, data: JSON.stringify(soaNext), content: soaPresentation(soaNext) },
    served: { gone: removed.filter((r) => !addedIds.has(r.record_id)).map((r) => r.record_id), upserted: JSON.stringify(added) },
  });
  return { kind: 'published', serial, changeSets: pushed };
}

/**
 * The zone's records as stored and as served, at `names` (null: the whole zone), in one statement.
 * Stored TTLs are resolved against the zone's default_ttl, as served ones were.
 */
async function recordsAt(trx: Knex.Transaction, zone: ZoneLockRow, names: string[] | null): Promise<{ current: StoredRow[]; served: StoredRow[] }> {
  const at = names ? 'AND name = any(?::text[])' : '';
  const bindings = names ? [zone.default_ttl, zone.id, names, zone.id, names] : [zone.default_ttl, zone.id, zone.id];
  const result = await trx
    .raw<{ rows: (StoredRow & { served: boolean })[] }>(
      `SELECT false AS served, id AS record_id, name, type, coalesce(ttl, ?)::int AS ttl, data FROM records WHERE zone_id = ? ${at}
       UNION ALL
       SELECT true, record_id, name, type, ttl, data FROM published_records WHERE zone_id = ? ${at}`,
      bindings,
    )
    .options(PREPARED);
  const current: StoredRow[] = [];
  const served: StoredRow[] = [];
  for (const { served: isServed, ...row } of result.rows) (isServed ? served : current).push(row);
  return { current, served };
}

interface VersionWrite {
  version: { serial: number; from_serial: number | null; removed: string; added: string; withdrawn: boolean };
  zone: { serial: number; published_serial: number | null };
  /** The apex SOA record with the version's serial. */
  soa?: { id: string; data: string; content: string };
  /** published_records: rows no longer served, and rows new or changed (jsonb array). */
  served?: { gone: string[]; upserted: string };
}

/**
 * One statement: the version row, the SOA record's serial, what the nameservers serve, the zone's
 * published pointer, every change set up to the zone's newest pushed with the version's serial,
 * and the NOTIFY for the nameservers. The CTEs touch disjoint rows: a changed record is upserted,
 * only records gone for good are deleted.
 */
async function commitVersion(trx: Knex.Transaction, zone: ZoneLockRow, now: Date, row: VersionWrite): Promise<number> {
  const { version, soa, served } = row;
  const result = await trx
    .raw<{ rows: { pushed: number }[] }>(
      `WITH v AS (
         INSERT INTO zone_versions (zone_id, serial, from_serial, removed, added, withdrawn, created_at)
         VALUES (?, ?, ?, ?::jsonb, ?::jsonb, ?, ?)
       ), z AS (
         UPDATE zones SET serial = ?, published_serial = ?, published_seq = ?, publish_retry_at = NULL WHERE id = ?
       ), c AS (
         UPDATE change_sets SET state = 'pushed', serial = ?, pushed_at = ?, error = NULL, updated_at = ?
         WHERE zone_id = ? AND seq > ? AND seq <= ? AND state IN ('pending', 'failed')
         RETURNING 1
       ), soa AS (
         UPDATE records SET data = ?::jsonb, content = ? WHERE id = ?
       ), gone AS (
         DELETE FROM published_records WHERE zone_id = ? AND record_id = any(?::text[])
       ), upserted AS (
         INSERT INTO published_records (zone_id, record_id, name, type, ttl, data)
         SELECT ?, x.record_id, x.name, x.type, x.ttl, x.data
         FROM jsonb_to_recordset(?::jsonb) AS x(record_id text, name text, type text, ttl int, data jsonb)
         ON CONFLICT (zone_id, record_id) DO UPDATE SET name = excluded.name, type = excluded.type, ttl = excluded.ttl, data = excluded.data
       )
       SELECT (SELECT count(*) FROM c) AS pushed, pg_notify(?, ?)`,
      [
        zone.id, version.serial, version.from_serial, version.removed, version.added, version.withdrawn, now,
        row.zone.serial, row.zone.published_serial, zone.changeset_seq, zone.id,
        version.serial, now, now, zone.id, zone.published_seq, zone.changeset_seq,
        soa?.data ?? null, soa?.content ?? null, soa?.id ?? null,
        zone.id, served?.gone ?? [],
        zone.id, served?.upserted ?? '[]',
        PUBLISHED_CHANNEL, zone.id,
      ],
    )
    .options(PREPARED);
  return Number(result.rows[0]!.pushed);
}

/** Deletion: the nameservers drop the zone; the verifier removes the row once none serves it. */
async function withdraw(trx: Knex.Transaction, now: Date, zone: ZoneLockRow): Promise<PublishOutcome> {
  if (zone.published_serial === null && zone.published_seq >= zone.changeset_seq) return { kind: 'idle' };
  const serial = nextSerial(Number(zone.serial), now);
  await trx('published_records').where('zone_id', zone.id).delete();
  await commitVersion(trx, zone, now, {
    version: { serial, from_serial: zone.published_serial, removed: '[]', added: '[]', withdrawn: true },
    zone: { serial: Number(zone.serial), published_serial: null },
  });
  return { kind: 'withdrawn' };
}

async function markFailed(trx: Knex.Transaction, now: Date, zoneId: string, detail: string): Promise<void> {
  const zone = (await trx('zones').where('id', zoneId).forUpdate().first('id', 'name', 'published_seq')) as
    | { id: string; name: string; published_seq: number }
    | undefined;
  if (!zone) return;
  const failed = (await trx('change_sets')
    .where('zone_id', zoneId)
    .andWhere('seq', '>', zone.published_seq)
    .andWhere('state', 'pending')
    .update({ state: 'failed', error: JSON.stringify({ code: 'build_failed', detail }), updated_at: now })
    .returning(['id', 'tenant_id'])) as { id: string; tenant_id: string }[];
  await trx('zones').where('id', zoneId).update({ publish_retry_at: new Date(now.getTime() + FAILED_BUILD_BACKOFF_MS) });
  await recordEvents(
    trx,
    failed.map((c) => ({ tenantId: c.tenant_id, kind: 'record.failed', zoneId, payload: { zone: zone.name, changeset_id: c.id, error: { code: 'build_failed', detail } } })),
    now,
  );
}
