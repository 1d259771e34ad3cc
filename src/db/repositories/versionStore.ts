// The version store: every statement of a zone's publication build (docs/architecture.md "The
// build: record sources over a version store"). It reads the zone's row under the build's lock,
// its stored and served records and the served version's rendered records, the served NSEC3 chain
// for the incremental signer; it writes a version (zone_versions, published_records, the zone's
// pointer, its change sets, the NOTIFY), a withdrawal, a failed build. What to build and how to
// sign it is decided elsewhere (src/publication/version/buildPlan.ts), from what this reads.
import { CHANGESETS_SETTLED_CHANNEL } from '../channels.js';
import type { Pool, Transaction } from '../context.js';
import { noteLock } from '../lockOrder.js';
import { PREPARED } from '../preparedStatements.js';
import { catalogDueSql, catalogStampSql } from './catalogMembers.js';
import { recordEvents } from './events.js';

/** The channel a committed version is announced on (the nameserver feed listens). */
export const PUBLISHED_CHANNEL = 'zone_published';
/** How long the poll leaves a zone alone after a failed build (writes and retries try at once). */
const FAILED_BUILD_BACKOFF_MS = 60_000;

/** The zone's row as the build reads it (with the served version's columns and the pending change sets' names). */
export interface BuildZone {
  id: string;
  name: string;
  tenant_id: string;
  status: string;
  default_ttl: number;
  soa_email: string;
  created_at: Date;
  /** The serial the name's previous zone last had (migration 20261128060000), else null. */
  serial_floor: number | string | null;
  changeset_seq: number;
  published_seq: number;
  published_serial: number | null;
  /** The NAMESERVERS the served version was rendered from; null: none, or built before rendering. */
  served_nameservers: string[] | null;
  /** A DnssecState (src/dnssec/states.ts). */
  dnssec_state: string;
  dnssec_denial: 'nsec3' | 'nsec';
  /** What the served version was signed with (signingFingerprint); null: unsigned. */
  served_signing: string | null;
  served_at: Date | null;
  /** touched_names of each unpublished change set (null: it touched the whole zone), read with the row. */
  pending_touched: (string[] | null)[];
  /** This transaction holds the zone's build lock. */
  build_lock: boolean;
  kind: string;
  /** A provider reverse zone's address space: its default PTRs are rendered (docs/rdns.md). */
  ip_space_id: string | null;
  reverse_block: string | null;
  /** A catalog zone: its members' stamp now, and the one its served version rendered (catalogMembers.ts); null for other zones. */
  catalog_stamp: string | null;
  served_catalog_stamp: string | null;
  /** A catalog zone due a build although its members' stamp did not move (catalogDueSql); false for other zones. */
  catalog_due: boolean;
}

const ZONE_COLUMNS = (q: Pool | Transaction, buildLock = true) => [
  'id',
  'name',
  'tenant_id',
  'status',
  'default_ttl',
  'soa_email',
  'created_at',
  'serial_floor',
  'changeset_seq',
  'published_seq',
  'published_serial',
  'dnssec_state',
  'dnssec_denial',
  'kind',
  'ip_space_id',
  q.raw('reverse_block::text AS reverse_block'),
  q.raw('(SELECT v.nameservers FROM zone_versions v WHERE v.zone_id = zones.id AND v.serial = zones.published_serial) AS served_nameservers'),
  q.raw('(SELECT v.signing FROM zone_versions v WHERE v.zone_id = zones.id AND v.serial = zones.published_serial) AS served_signing'),
  q.raw('(SELECT v.created_at FROM zone_versions v WHERE v.zone_id = zones.id AND v.serial = zones.published_serial) AS served_at'),
  q.raw('(SELECT v.catalog_stamp FROM zone_versions v WHERE v.zone_id = zones.id AND v.serial = zones.published_serial) AS served_catalog_stamp'),
  q.raw(`${catalogStampSql('zones')} AS catalog_stamp`),
  q.raw(`${catalogDueSql('zones')} AS catalog_due`),
  // In the row's statement, not one of its own: a statement less per version.
  q.raw(
    "(SELECT coalesce(jsonb_agg(c.touched_names), '[]'::jsonb) FROM change_sets c WHERE c.zone_id = zones.id AND c.seq > zones.published_seq AND c.seq <= zones.changeset_seq) AS pending_touched",
  ),
  // One builder per zone, whether it holds the row (a build) or not (a version prepared outside the lock).
  buildLock ? q.raw('pg_try_advisory_xact_lock(?, hashtext(zones.id)) AS build_lock', [BUILD_LOCK_CLASS]) : q.raw('false AS build_lock'),
];
/** The advisory-lock class of zone builds (pg_try_advisory_xact_lock(class, key)). */
const BUILD_LOCK_CLASS = 0x6d646e73; // 'mdns'
/** The bound on the statements that write a large version prepared outside the lock (DB_STATEMENT_TIMEOUT_MS is for requests). */
const LARGE_VERSION_TIMEOUT_MS = 120_000;

/** The zone's row without the row lock (null: gone, or being deleted); `buildLock`: take the build's advisory lock with it. */
export async function readBuildZone(trx: Transaction, zoneId: string, buildLock: boolean): Promise<BuildZone | null> {
  const zone = (await trx('zones')
    .where('id', zoneId)
    .first(...ZONE_COLUMNS(trx, buildLock))) as BuildZone | undefined;
  return zone && zone.status !== 'deleting' ? zone : null;
}

/** Whether the zone's row exists (a build that found it locked: busy, or gone). */
export const zoneExists = async (trx: Transaction, zoneId: string): Promise<boolean> => Boolean(await trx('zones').where('id', zoneId).first('id'));

/**
 * The zone's row, locked for the build (undefined: locked by a writer or another build). FOR UPDATE
 * locks the row's newest version, but the statement's subqueries (the unpublished change sets'
 * touched names, the served version's columns) read the snapshot taken when the statement began:
 * a write committed between the two is in the row (its changeset_seq) and missing from them, and a
 * build from them would mark that change set published without its names (seen: a chunk of a
 * /16's forward-record rename never served). Then the row is read again, in a statement of its
 * own, now that no write can come in between. `wait`: wait for a writer's lock instead of skipping
 * the row (the same race, made certain: test/integration/buildLock.test.ts).
 */
export async function lockForBuild(trx: Transaction, zoneId: string, wait = false) {
  type Locked = BuildZone & { locked_version: string; snapshot_version: string | null };
  noteLock(trx, 'zones');
  const lock = () => {
    const q = trx('zones').where('id', zoneId).forUpdate();
    const versions = [trx.raw('zones.xmin::text AS locked_version'), trx.raw('(SELECT z.xmin::text FROM zones z WHERE z.id = zones.id) AS snapshot_version')];
    return (wait ? q : q.skipLocked()).first(...ZONE_COLUMNS(trx), ...versions).options(PREPARED) as Promise<Locked | undefined>;
  };
  const zone = await lock();
  return zone && zone.locked_version !== zone.snapshot_version ? lock() : zone;
}

/**
 * Zones whose served version was rendered from other NAMESERVERS than these (or before system
 * records were rendered): the worker builds them at start, so a configuration change reaches
 * every zone without a write.
 */
export async function zonesRenderedElsewise(db: Pool, nameservers: readonly string[]): Promise<string[]> {
  const rows = (await db
    .raw(
      `SELECT z.id FROM zones z LEFT JOIN zone_versions v ON v.zone_id = z.id AND v.serial = z.published_serial
       WHERE z.published_serial IS NOT NULL AND z.status <> 'deleting' AND v.nameservers IS DISTINCT FROM ?::text[]`,
      [[...nameservers]],
    )
    .then((r: { rows: { id: string }[] }) => r.rows)) as { id: string }[];
  return rows.map((r) => r.id);
}

/** How a version row (zone_versions.added/removed/system, jsonb) carries a record: rdata in base64. */
export interface StoredWireRecord {
  name: string;
  type: number;
  ttl: number;
  /** base64 */
  rdata: string;
}

/** A stored record as the build reads it: its TTL already resolved against the zone's default. */
export interface StoredRecord {
  recordId: string;
  name: string;
  type: string;
  ttl: number;
  data: Record<string, unknown>;
}

/** What the build reads of a zone's records (readVersionInputs). */
export interface VersionRead {
  /** Stored records, their TTL resolved against the zone's default. */
  stored: StoredRecord[];
  /** What the nameservers serve, in wire form. */
  served: { recordId: string; name: string; type: number; ttl: number; rdata: Buffer }[];
  /** The rendered records of the served version. */
  system: StoredWireRecord[];
}

/**
 * What the build reads, in one statement: the zone's stored records and its served records at
 * `names` (null: the whole zone), and the system records of the served version. Stored TTLs are
 * resolved against the zone's default_ttl, as served ones were.
 */
export async function readVersionInputs(trx: Transaction, zone: BuildZone, names: string[] | null, fromSerial: number | null): Promise<VersionRead> {
  const at = names ? 'AND name = any(?::text[])' : '';
  const bindings = [zone.default_ttl, zone.id, ...(names ? [names] : []), zone.id, ...(names ? [names] : []), zone.id, fromSerial];
  const result = await trx
    .raw<{
      rows: {
        src: number;
        record_id: string | null;
        name: string;
        mnemonic: string | null;
        type: number | null;
        ttl: number;
        data: Record<string, unknown> | null;
        rdata: Buffer | null;
        system: StoredWireRecord[] | null;
      }[];
    }>(
      `SELECT 0 AS src, id AS record_id, name, type AS mnemonic, NULL::int AS type, coalesce(ttl, ?)::int AS ttl, data, NULL::bytea AS rdata, NULL::jsonb AS system
         FROM records WHERE zone_id = ? ${at}
       UNION ALL
       SELECT 1, record_id, name, NULL, type, ttl, NULL, rdata, NULL FROM published_records WHERE zone_id = ? ${at}
       UNION ALL
       SELECT 2, NULL, '@', NULL, NULL, 0, NULL, NULL, system FROM zone_versions WHERE zone_id = ? AND serial = ?`,
      bindings,
    )
    .options(PREPARED);
  const stored: VersionRead['stored'] = [];
  const served: VersionRead['served'] = [];
  let system: StoredWireRecord[] = [];
  for (const row of result.rows) {
    if (row.src === 0) stored.push({ recordId: row.record_id!, name: row.name, type: row.mnemonic!, ttl: row.ttl, data: row.data! });
    else if (row.src === 1) served.push({ recordId: row.record_id!, name: row.name, type: row.type!, ttl: row.ttl, rdata: row.rdata! });
    else system = row.system ?? [];
  }
  return { stored, served, system };
}

/**
 * A jsonb parameter: text, or jsonb's binary form (a version octet, then the text) in a Buffer,
 * which a large version is handed over in from the signing thread without being copied into a
 * string (pg sends a Buffer parameter in binary form).
 */
export type JsonbParam = string | Buffer;

/** A jsonb parameter's JSON text (a Buffer without the version octet: a text parameter in binary form). */
const jsonText = (p: JsonbParam): string | Buffer => (typeof p === 'string' ? p : p.subarray(1));

export interface VersionRow {
  serial: number;
  fromSerial: number | null;
  /** The version's diff: JSON arrays, one for a version made in one statement, several for a large one (concatenated in the database). */
  removed: JsonbParam[];
  added: JsonbParam[];
  system: string | null;
  nameservers: string[] | null;
  withdrawn: boolean;
  /** published_records: rows no longer served (a text[] parameter, or its literal), and rows new or changed (jsonb arrays, one statement each). */
  gone: string[] | string;
  upserted: JsonbParam[];
  /** signingFingerprint of the version; null: unsigned. */
  signing: string | null;
}

/** Rows new or changed in what the nameservers serve (a jsonb array). */
const UPSERT_SQL = `INSERT INTO published_records (zone_id, record_id, name, type, ttl, rdata)
         SELECT ?, x.record_id, x.name, x.type, x.ttl, decode(x.rdata, 'base64')
         FROM jsonb_to_recordset(?::jsonb) AS x(record_id text, name text, type int, ttl int, rdata text)
         ON CONFLICT (zone_id, record_id) DO UPDATE SET name = excluded.name, type = excluded.type, ttl = excluded.ttl, rdata = excluded.rdata`;

/** The version row and what the nameservers serve: the heavy half of a version's write (with upsertRest). */
const versionRowsSql = (diff: DiffColumns) => `v AS (
         INSERT INTO zone_versions (zone_id, serial, from_serial, removed, added, system, nameservers, withdrawn, created_at, signing, catalog_stamp)
         VALUES (?, ?, ?, ${diff.removed}, ${diff.added}, ?::jsonb, ?::text[], ?, ?, ?, ?)
       ), gone AS (
         DELETE FROM published_records WHERE zone_id = ? AND record_id = any(?::text[])
       ), upserted AS (${UPSERT_SQL}
       ), trimmed AS (
         DELETE FROM zone_versions WHERE zone_id = ? AND created_at < ?
           AND created_at < (SELECT h.created_at FROM zone_versions h WHERE h.zone_id = ? ORDER BY h.created_at DESC OFFSET ? LIMIT 1)
       )`;
const versionRowsBindings = (zone: BuildZone, now: Date, v: VersionRow, diff: DiffColumns) => [
  zone.id,
  v.serial,
  v.fromSerial,
  ...diff.bindings,
  v.system,
  v.nameservers,
  v.withdrawn,
  now,
  v.signing,
  // The stamp read with the zone's row, before the members were: a member changed in between is
  // rendered already and built once more, never missed.
  zone.catalog_stamp,
  zone.id,
  v.gone,
  zone.id,
  v.upserted[0] ?? '[]',
  zone.id,
  new Date(now.getTime() - VERSION_HISTORY.minAgeMs),
  zone.id,
  VERSION_HISTORY.minVersions - 1,
];

/**
 * The versions a zone keeps, for nameservers that fell behind (the feed's catch-up, IXFR): those
 * of the last day, and at least its last 100; a nameserver further behind loads the zone whole.
 * Each build trims its zone's older ones (the version statement's `trimmed`; it does not see the
 * version it inserts, so 101 are kept), an index probe of 100 entries, so a busy zone's history
 * stays bounded without a sweep of every zone's versions.
 */
const VERSION_HISTORY = { minVersions: 100, minAgeMs: 24 * 3600_000 } as const;

/** The SQL of a version's removed and added columns, and their parameters. */
interface DiffColumns {
  removed: string;
  added: string;
  bindings: JsonbParam[];
  /** The columns read the parts staged in version_parts: the statement's text cannot be prepared. */
  staged: boolean;
}

/**
 * A version's diff as one parameter per column, or, for a large version made in parts (the signing
 * thread's), staged in a temporary table a part per statement and put together by the version's
 * INSERT: pg copies a statement's parameters into one buffer in one piece on the thread that
 * answers requests, which for the 55 MB diff of a zone of 100,000 records signed whole held it
 * for 0.5–1.7 s. A temporary table writes no WAL.
 */
async function diffColumns(trx: Transaction, v: VersionRow, timeoutMs?: number): Promise<DiffColumns> {
  if (v.removed.length === 1 && v.added.length === 1) return { removed: '?::jsonb', added: '?::jsonb', bindings: [v.removed[0]!, v.added[0]!], staged: false };
  // As text: the arrays' elements joined in their order and parsed once, as the one parameter was
  // (not parsed per array, taken apart and aggregated again).
  await trx.raw('CREATE TEMPORARY TABLE version_parts (side text NOT NULL, n int NOT NULL, part text NOT NULL) ON COMMIT DROP');
  for (const [side, parts] of [
    ['removed', v.removed],
    ['added', v.added],
  ] as const) {
    for (const [n, part] of parts.entries())
      await trx
        .raw('INSERT INTO version_parts (side, n, part) VALUES (?, ?, ?::text)', [side, n, jsonText(part)])
        .options(timeoutMs ? { query_timeout: timeoutMs } : {});
  }
  const joined = (side: 'removed' | 'added') =>
    `(SELECT ('[' || coalesce(string_agg(nullif(substr(p.part, 2, length(p.part) - 2), ''), ',' ORDER BY p.n), '') || ']')::jsonb FROM version_parts p WHERE p.side = '${side}')`;
  return { removed: joined('removed'), added: joined('added'), bindings: [], staged: true };
}

/** The upserted rows beyond the first array, a statement each (the CTEs of VERSION_ROWS_SQL took the first). */
async function upsertRest(trx: Transaction, zone: BuildZone, v: VersionRow, timeoutMs?: number): Promise<void> {
  for (const rows of v.upserted.slice(1)) await trx.raw(UPSERT_SQL, [zone.id, rows]).options(timeoutMs ? { query_timeout: timeoutMs } : {});
}

/**
 * The zone's published pointer (only from the version it was built on: null rows otherwise),
 * its change sets up to the version's, and the NOTIFY: the light half, the only one that takes
 * the zone's row lock.
 */
const VERSION_POINTER_SQL = `z AS (
         UPDATE zones SET published_serial = ?, published_seq = ?, publish_retry_at = NULL
         WHERE id = ? AND published_serial IS NOT DISTINCT FROM ? RETURNING 1
       ), c AS (
         UPDATE change_sets SET state = 'pushed', serial = ?, pushed_at = ?, error = NULL, updated_at = ?
         WHERE zone_id = ? AND seq > ? AND seq <= ? AND state IN ('pending', 'failed') AND EXISTS (SELECT 1 FROM z)
         RETURNING 1
       )
       SELECT (SELECT count(*) FROM z) AS moved, (SELECT count(*) FROM c) AS pushed, CASE WHEN EXISTS (SELECT 1 FROM z) THEN pg_notify(?, ?) END AS notified`;
const versionPointerBindings = (zone: BuildZone, now: Date, v: VersionRow) => [
  v.withdrawn ? null : v.serial,
  zone.changeset_seq,
  zone.id,
  zone.published_serial,
  v.serial,
  now,
  now,
  zone.id,
  zone.published_seq,
  zone.changeset_seq,
  PUBLISHED_CHANNEL,
  zone.id,
];

/**
 * Commit under the zone's row lock, one statement: the version row (its diff and its system
 * records in wire form), what the nameservers serve, the zone's published pointer, every change
 * set up to the zone's newest pushed with the version's serial, and the NOTIFY for the
 * nameservers (and a statement for each further array of rows to upsert). The CTEs touch disjoint
 * rows: a changed record is upserted, only records gone for good are deleted. The number of
 * change sets pushed.
 */
export async function writeVersion(trx: Transaction, zone: BuildZone, now: Date, v: VersionRow): Promise<number> {
  const diff = await diffColumns(trx, v);
  const result = await trx
    .raw<{ rows: { pushed: number }[] }>(`WITH ${versionRowsSql(diff)}, ${VERSION_POINTER_SQL}`, [
      ...versionRowsBindings(zone, now, v, diff),
      ...versionPointerBindings(zone, now, v),
    ])
    .options(diff.staged ? {} : PREPARED);
  await upsertRest(trx, zone, v);
  return Number(result.rows[0]!.pushed);
}

/**
 * In halves, for a large version prepared outside the lock: the rows first (seconds for a zone
 * signed whole; the zone's row held only FOR KEY SHARE by the foreign keys, which its writers'
 * FOR NO KEY UPDATE does not wait for), then the pointer. Null
 * when the zone was published meanwhile (the caller rolls back).
 */
export async function writeVersionInHalves(trx: Transaction, zone: BuildZone, now: Date, v: VersionRow): Promise<number | null> {
  await trx.raw(`SET LOCAL statement_timeout = ${LARGE_VERSION_TIMEOUT_MS}`);
  const diff = await diffColumns(trx, v, LARGE_VERSION_TIMEOUT_MS + 5000);
  await trx.raw(`WITH ${versionRowsSql(diff)} SELECT 1`, versionRowsBindings(zone, now, v, diff)).options({ query_timeout: LARGE_VERSION_TIMEOUT_MS + 5000 });
  await upsertRest(trx, zone, v, LARGE_VERSION_TIMEOUT_MS + 5000);
  const result = await trx.raw<{ rows: { moved: number; pushed: number }[] }>(`WITH ${VERSION_POINTER_SQL}`, versionPointerBindings(zone, now, v));
  return Number(result.rows[0]!.moved) === 1 ? Number(result.rows[0]!.pushed) : null;
}

/** Deletion: the nameservers drop the zone (a version of nothing, `serial`); the verifier removes the row once none serves it. */
export async function writeWithdrawal(trx: Transaction, now: Date, zone: BuildZone, serial: number): Promise<void> {
  await trx('published_records').where('zone_id', zone.id).delete();
  await writeVersion(trx, zone, now, {
    serial,
    fromSerial: zone.published_serial,
    removed: ['[]'],
    added: ['[]'],
    system: null,
    nameservers: null,
    withdrawn: true,
    gone: [],
    upserted: [],
    signing: null,
  });
}

/** The zone's pending change sets failed with `detail`, its next try backed off (FAILED_BUILD_BACKOFF_MS). */
export async function markBuildFailed(trx: Transaction, now: Date, zoneId: string, detail: string): Promise<void> {
  noteLock(trx, 'zones');
  const zone = (await trx('zones').where('id', zoneId).forUpdate().first('id', 'name', 'published_seq')) as
    | { id: string; name: string; published_seq: number }
    | undefined;
  if (!zone) return;
  const failed = (await trx('change_sets')
    .where('zone_id', zoneId)
    .andWhere('seq', '>', zone.published_seq)
    .andWhere('state', 'pending')
    .update({ state: 'failed', error: JSON.stringify({ code: 'build_failed', detail }), updated_at: now })
    .returning(['id', 'tenant_id', 'acting_tenant_id'])) as { id: string; tenant_id: string; acting_tenant_id: string | null }[];
  await trx('zones')
    .where('id', zoneId)
    .update({ publish_retry_at: new Date(now.getTime() + FAILED_BUILD_BACKOFF_MS) });
  // `failed` ends a `Prefer: wait` as `live` does (src/services/liveWait.ts); delivered on commit.
  if (failed.length) await trx.raw('SELECT pg_notify(?, ?)', [CHANGESETS_SETTLED_CHANNEL, zoneId]);
  await recordEvents(
    trx,
    failed.map((c) => ({
      tenantId: c.tenant_id,
      kind: 'record.failed',
      zoneId,
      payload: {
        zone: zone.name,
        changeset_id: c.id,
        state: 'failed',
        error: { code: 'build_failed', detail },
        ...(c.acting_tenant_id ? { acting_tenant_id: c.acting_tenant_id } : {}),
      },
    })),
    now,
  );
}

const likeLiteral = (s: string) => s.replace(/[%_\\]/g, (c) => `\\${c}`);

/** Of these names (zone-relative), those with a stored record below them. */
export async function namesWithStoredDescendants(trx: Transaction, zoneId: string, names: string[]): Promise<string[]> {
  const result = await trx
    .raw<{ rows: { name: string }[] }>(
      `SELECT t.name FROM unnest(?::text[], ?::text[]) AS t(name, pattern)
       WHERE EXISTS (SELECT 1 FROM records r WHERE r.zone_id = ? AND r.name LIKE t.pattern)`,
      [names, names.map((n) => `%.${likeLiteral(n)}`), zoneId],
    )
    .options(PREPARED);
  return result.rows.map((r) => r.name);
}

/**
 * For each hash label, the `count` served NSEC3 owners before it (`h`: the label; their order is
 * the (zone_id, name) index's: published_records.name is COLLATE "C").
 */
export async function servedNsec3Before(
  trx: Transaction,
  zoneId: string,
  nsec3Type: number,
  labels: string[],
  count: number,
): Promise<{ h: string; name: string }[]> {
  const order = await trx
    .raw<{ rows: { h: string; name: string }[] }>(
      `SELECT t.h, p.name FROM unnest(?::text[]) WITH ORDINALITY AS t(h, i)
       CROSS JOIN LATERAL (
         SELECT name FROM published_records WHERE zone_id = ? AND type = ? AND name < t.h ORDER BY name DESC LIMIT ?
       ) p ORDER BY t.i`,
      [labels, zoneId, nsec3Type, count],
    )
    .options(PREPARED);
  return order.rows;
}

/** The served records at these owners (zone-relative). */
export async function servedRecordsAt(
  trx: Transaction,
  zoneId: string,
  names: string[],
): Promise<{ name: string; type: number; ttl: number; rdata: Buffer }[]> {
  const rows = await trx
    .raw<{ rows: { name: string; type: number; ttl: number; rdata: Buffer }[] }>(
      'SELECT name, type, ttl, rdata FROM published_records WHERE zone_id = ? AND name = any(?::text[])',
      [zoneId, names],
    )
    .options(PREPARED);
  return rows.rows;
}
