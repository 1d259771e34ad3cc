// Builds a zone's next published version as explicit steps over a draft of it
// (docs/publication.md):
//   lock → collect touched names → synthesize the system records → sign → commit
// The stored records at the owner names the unpublished change sets touched are compared with
// what the nameservers serve; the SOA (with the version's serial) and the apex NS set (from
// NAMESERVERS) are rendered, never stored; the sign step gets the version's diff; one statement
// commits the zone_versions row the nameservers apply (records in wire form, encoded once here),
// and the change sets go `pending → pushed`. One transaction under the zone's row lock, so API
// writes to the zone wait for it (a few milliseconds) and two workers never publish the same zone;
// a signed zone is read and signed outside the lock first (publishZone below).
// The serial lives in one place: the published version (zone_versions.serial, pointed at by
// zones.published_serial).
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { PREPARED } from '../db/preparedStatements.js';
import { recordEvents } from '../db/repositories/events.js';
import type { Clock } from '../domain/clock.js';
import { initialSerial, nextSerial } from '../domain/soa.js';
import { type KeyRow, keyRowsOf } from '../db/repositories/dnssecKeys.js';
import { updateOwners } from '../dnssec/signUpdate.js';
import { absoluteName, relativeName } from '../../nameserver/wire/name.js';
import { signingFingerprint, signingKeys } from '../dnssec/signingKeys.js';
import { cdsPolicy, type DnssecState, isSigned } from '../dnssec/states.js';
import { BuildError, collectTouched, type StoredRecord } from './version/collectTouched.js';
import { servedChain } from './version/servedChain.js';
import { isDnssecRecord, signChange } from './version/signDraft.js';
import { type SigningThreadOptions, usesSigningThread, versionInSigningThread } from './version/signingThread.js';
import { type DefaultPtrInputs, synthesizeSystemRecords } from './version/synthesizeSystemRecords.js';
import { parseAddress } from '../domain/ip/address.js';
import type { DraftRecord, VersionDraft } from './version/versionDraft.js';
import { currentRecords, type DraftInputs, draftFrom, type JsonbParam, jsonText, type VersionInputs, type VersionRow, versionRow } from './version/versionFromRead.js';
import { fromStored, type StoredWireRecord, type WireRecord } from './zoneRecords.js';
import { transactionWithRetry } from '../db/transaction.js';
import { noteLock } from '../db/lockOrder.js';
import { CHANGESETS_SETTLED_CHANNEL } from '../db/channels.js';

export const PUBLISHED_CHANNEL = 'zone_published';
/** How long the poll leaves a zone alone after a failed build (writes and retries try at once). */
export const FAILED_BUILD_BACKOFF_MS = 60_000;

export type PublishOutcome =
  | { kind: 'idle' }
  | { kind: 'busy' }
  /** signed: how the sign step signed the version (docs/dnssec.md "Signing in the build"); null: unsigned. */
  | {
      kind: 'published';
      serial: number;
      changeSets: number;
      signed: 'by_change' | 'whole' | null;
      /** Change sets were written while the version was signed (outside the lock): build again. */
      behind: boolean;
    }
  | { kind: 'withdrawn' }
  | { kind: 'failed'; detail: string };

export interface PublishDeps {
  db: Knex;
  clock: Clock;
  /** The configured NAMESERVERS: the apex NS set of every zone, the SOA MNAME the first. */
  nameservers: readonly string[];
  dnssec: {
    /** Decrypts the zone keys for the sign step (src/dnssec/keyEncryptionKey.ts). */
    kek: Buffer;
    dnskeyTtl: number;
    /** When a zone signed whole is made in a thread of its own. */
    signingThread: SigningThreadOptions;
  };
}

/** RRSIG validity (docs/dnssec.md): back-dated an hour, about two weeks, refreshed with a week left. */
const SIGNATURE_BACKDATE_S = 3600;
const SIGNATURE_VALIDITY_S = 14 * 86400;
const SIGNATURE_REFRESH_S = 7 * 86400;
/** Zones' expirations spread over this much, so that many zones do not re-sign in the same minute. */
const SIGNATURE_JITTER_S = 12 * 3600;
/**
 * A signed zone whose served version is older than this is built again with no change of its own,
 * so that signatures with less than SIGNATURE_REFRESH_S left are made anew long before they expire
 * (the DNSSEC worker asks for the build; docs/dnssec.md "Signing in the build").
 */
export const RESIGN_AFTER_MS = 24 * 3600 * 1000;

interface ZoneLockRow {
  id: string;
  name: string;
  tenant_id: string;
  status: string;
  default_ttl: number;
  soa_email: string;
  created_at: Date;
  changeset_seq: number;
  published_seq: number;
  published_serial: number | null;
  /** The NAMESERVERS the served version was rendered from; null: none, or built before rendering. */
  served_nameservers: string[] | null;
  dnssec_state: DnssecState;
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
}

const sameList = (a: readonly string[] | null, b: readonly string[]) => a !== null && a.length === b.length && a.every((x, i) => x === b[i]);

export async function publishZone(deps: PublishDeps, zoneId: string): Promise<PublishOutcome> {
  try {
    // A signed zone is read and signed before its row is locked (writes to it go on meanwhile),
    // from one snapshot of it (a large one signed whole in the signing thread,
    // version/signingThread.ts), and committed if nothing was published since: its writers wait
    // only for the version's pointer and commit. The build under the lock says when
    // (SIGN_OUTSIDE); the third attempt signs under the lock.
    let prepared: PreparedVersion | null = null;
    for (let attempt = 0; ; attempt++) {
      const committed = prepared && (await commitPrepared(deps, zoneId, prepared));
      if (committed) return committed;
      const outcome = await transactionWithRetry(deps.db, (trx) => buildVersion(trx, deps, zoneId, attempt >= 2));
      if (outcome !== SIGN_OUTSIDE) return outcome;
      const snapshot = await prepareSigned(deps, zoneId);
      if (snapshot === 'idle') return { kind: 'idle' };
      prepared = snapshot;
    }
  } catch (err) {
    if (!(err instanceof BuildError)) throw err;
    await transactionWithRetry(deps.db, (trx) => markFailed(trx, deps.clock.now(), zoneId, err.message));
    return { kind: 'failed', detail: err.message };
  }
}

/**
 * Zones whose served version was rendered from other NAMESERVERS than these (or before system
 * records were rendered): the worker builds them at start, so a configuration change reaches
 * every zone without a write.
 */
export async function zonesRenderedElsewise(db: Knex, nameservers: readonly string[]): Promise<string[]> {
  const rows = (await db
    .raw(
      `SELECT z.id FROM zones z LEFT JOIN zone_versions v ON v.zone_id = z.id AND v.serial = z.published_serial
       WHERE z.published_serial IS NOT NULL AND z.status <> 'deleting' AND v.nameservers IS DISTINCT FROM ?::text[]`,
      [[...nameservers]],
    )
    .then((r: { rows: { id: string }[] }) => r.rows)) as { id: string }[];
  return rows.map((r) => r.id);
}

/** buildVersion's answer when the version is to be signed: that is done first, outside the lock (prepareSigned). */
const SIGN_OUTSIDE = Symbol('sign outside the lock');

/** What the build will do, decided from the zone's row, keys and unpublished change sets. */
interface BuildPlan {
  zone: ZoneLockRow;
  keys: KeyRow[];
  /** signingFingerprint of the version to build; null: unsigned. */
  signing: string | null;
  /** The names the change sets touched (relative); null: one of them touched the whole zone. */
  touched: string[] | null;
  /** Signed by the names the change touched (signUpdate). */
  byChange: boolean;
  /** Read (and signed) whole. */
  whole: boolean;
  fromSerial: number | null;
  serial: number;
}

/** A version signed outside the row lock, from a snapshot of the zone as `plan` saw it, ready to write. */
interface PreparedVersion {
  plan: BuildPlan;
  row: VersionRow;
  signed: 'by_change' | 'whole';
}

const ZONE_COLUMNS = (q: Knex | Knex.Transaction, buildLock = true) => [
  'id', 'name', 'tenant_id', 'status', 'default_ttl', 'soa_email', 'created_at', 'changeset_seq', 'published_seq', 'published_serial',
  'dnssec_state', 'dnssec_denial', 'kind', 'ip_space_id', q.raw('reverse_block::text AS reverse_block'),
  q.raw('(SELECT v.nameservers FROM zone_versions v WHERE v.zone_id = zones.id AND v.serial = zones.published_serial) AS served_nameservers'),
  q.raw('(SELECT v.signing FROM zone_versions v WHERE v.zone_id = zones.id AND v.serial = zones.published_serial) AS served_signing'),
  q.raw('(SELECT v.created_at FROM zone_versions v WHERE v.zone_id = zones.id AND v.serial = zones.published_serial) AS served_at'),
  // In the row's statement, not one of its own: a statement less per version (issue 14).
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

async function planBuild(trx: Knex.Transaction, deps: PublishDeps, zone: ZoneLockRow, now: Date): Promise<BuildPlan | null> {
  const rendered = sameList(zone.served_nameservers, deps.nameservers);
  const signed = isSigned(zone.dnssec_state);
  const keys = signed || zone.served_signing !== null ? await keyRowsOf(trx, zone.id) : [];
  const signing = signingFingerprint({ signed, denial: zone.dnssec_denial, cds: cdsPolicy(zone.dnssec_state) }, keys);
  const resignDue = signing !== null && zone.served_at !== null && now.getTime() - zone.served_at.getTime() >= RESIGN_AFTER_MS;
  if (zone.published_seq >= zone.changeset_seq && rendered && signing === zone.served_signing && !resignDue) return null;

  const published = zone.published_serial === null ? null : Number(zone.published_serial);
  // A version without rendered system records (built before they were) is followed by a whole
  // one: what it served in presentation form is gone (migration 20261124000300).
  const fromSerial = published !== null && zone.served_nameservers !== null ? published : null;
  const sets = zone.pending_touched;
  const touched = sets.some((names) => names === null) ? null : [...new Set(sets.flatMap((names) => names ?? []))];
  // A signed zone whose keys and policy stay is signed by the names the change touched; signing
  // starts, stops, changes keys or refreshes signatures over the whole zone (docs/dnssec.md).
  // Names with an escaped octet are left to the whole signer: the lookup of what lies below a
  // name (servedChain) matches names as text.
  const byChange = signing !== null && signing === zone.served_signing && !resignDue && rendered && fromSerial !== null && touched !== null && !touched.some((n) => n.includes('\\'));
  const whole = fromSerial === null || touched === null || ((signing !== null || zone.served_signing !== null) && !byChange);
  const serial = published === null ? initialSerial(zone.created_at) : nextSerial(published, now);
  return { zone, keys, signing, touched, byChange, whole, fromSerial, serial };
}

/**
 * The version of a signed zone, made in a read-only snapshot without the zone's row lock: signed by
 * the names its change sets touched, or whole. Null where it is not signed (the build goes on under
 * the lock); 'idle' when there is nothing to build.
 */
async function prepareSigned(deps: PublishDeps, zoneId: string): Promise<PreparedVersion | 'idle' | null> {
  type Snapshot = null | 'idle' | { byChange: PreparedVersion } | { whole: { plan: BuildPlan; now: Date; read: DraftInputs } };
  const snapshot = await deps.db.transaction(
    async (trx): Promise<Snapshot> => {
      const now = deps.clock.now();
      const zone = (await trx('zones').where('id', zoneId).first(...ZONE_COLUMNS(trx, false))) as ZoneLockRow | undefined;
      if (!zone || zone.status === 'deleting') return null;
      const plan = await planBuild(trx, deps, zone, now);
      if (!plan) return 'idle';
      if (plan.signing === null) return null;
      const byNames = plan.byChange ? await draftSignedChange(draftBuild(trx, deps, plan, now), plan.touched!) : null;
      if (byNames) return { byChange: { plan, row: await versionRow(byNames, plan.signing), signed: 'by_change' } };
      return { whole: { plan, now, read: await readDraftInputs(trx, zone, null, plan.fromSerial) } };
    },
    { isolationLevel: 'repeatable read', readOnly: true },
  );
  if (snapshot === null || snapshot === 'idle') return snapshot;
  if ('byChange' in snapshot) return snapshot.byChange;
  // Signed whole after the snapshot's transaction ended: it holds no connection while it signs.
  const { plan, now, read } = snapshot.whole;
  return { plan, row: await versionRowFrom(draftBuild(null, deps, plan, now), read), signed: 'whole' };
}

/** A version signed outside the lock, committed if it still applies; null when it does not (the build tries again). */
async function commitPrepared(deps: PublishDeps, zoneId: string, prepared: PreparedVersion): Promise<PublishOutcome | null> {
  const now = deps.clock.now();
  try {
    return await transactionWithRetry(deps.db, async (trx) => {
      const zone = (await trx('zones').where('id', zoneId).first(...ZONE_COLUMNS(trx))) as ZoneLockRow | undefined;
      if (!zone || zone.status === 'deleting') return null;
      if (!zone.build_lock) return { kind: 'busy' } as const;
      const plan = await planBuild(trx, deps, zone, now);
      if (!plan || !stillApplies(prepared, plan)) return null;
      // Up to the snapshot's change sets: those written since stay pending for the next build.
      const built = { ...zone, changeset_seq: prepared.plan.zone.changeset_seq };
      const pushed = await writeVersionInHalves(trx, built, now, prepared.row);
      if (pushed === null) throw NOT_APPLIED;
      return { kind: 'published', serial: prepared.plan.serial, changeSets: pushed, signed: prepared.signed, behind: zone.changeset_seq > built.changeset_seq } as const;
    });
  } catch (err) {
    if (err === NOT_APPLIED) return null;
    throw err;
  }
}
const NOT_APPLIED = new Error('the zone was published while its version was being signed');

/** The prepared version still applies: nothing was published since its snapshot, and it is signed as the zone asks now. */
function stillApplies(prepared: PreparedVersion, plan: BuildPlan): boolean {
  const [then, now] = [prepared.plan.zone.served_nameservers, plan.zone.served_nameservers];
  const sameNameservers = then === null || now === null ? then === now : sameList(then, now);
  return prepared.plan.zone.published_serial === plan.zone.published_serial && prepared.plan.signing === plan.signing && sameNameservers;
}

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
export async function lockForBuild(trx: Knex.Transaction, zoneId: string, wait = false) {
  type Locked = ZoneLockRow & { locked_version: string; snapshot_version: string | null };
  noteLock(trx, 'zones');
  const lock = () => {
    const q = trx('zones').where('id', zoneId).forUpdate();
    const versions = [trx.raw('zones.xmin::text AS locked_version'), trx.raw('(SELECT z.xmin::text FROM zones z WHERE z.id = zones.id) AS snapshot_version')];
    return (wait ? q : q.skipLocked()).first(...ZONE_COLUMNS(trx), ...versions).options(PREPARED) as Promise<Locked | undefined>;
  };
  const zone = await lock();
  return zone && zone.locked_version !== zone.snapshot_version ? lock() : zone;
}

async function buildVersion(trx: Knex.Transaction, deps: PublishDeps, zoneId: string, lastTry: boolean): Promise<PublishOutcome | typeof SIGN_OUTSIDE> {
  const now = deps.clock.now();
  const zone = await lockForBuild(trx, zoneId);
  if (!zone) return (await trx('zones').where('id', zoneId).first('id')) ? { kind: 'busy' } : { kind: 'idle' };
  if (!zone.build_lock) return { kind: 'busy' };
  // A signed zone being deleted stays served (signed) until the worker saw its DS leave the
  // parent and waited out its TTL (docs/dnssec.md "Deleting a signed zone").
  if (zone.status === 'deleting') return zone.dnssec_state === 'ds_removing' ? { kind: 'idle' } : withdraw(trx, now, zone);
  if (isSigned(zone.dnssec_state) && !lastTry) return SIGN_OUTSIDE;
  const plan = await planBuild(trx, deps, zone, now);
  if (!plan) return { kind: 'idle' };

  const build = draftBuild(trx, deps, plan, now);
  const byNames = plan.byChange ? await draftSignedChange(build, plan.touched!) : null;
  const row = byNames ? await versionRow(byNames, plan.signing) : await versionRowFrom(build, await readDraftInputs(trx, zone, plan.whole || plan.byChange ? null : plan.touched, plan.fromSerial));
  const pushed = await writeVersion(trx, zone, now, row);
  return { kind: 'published', serial: plan.serial, changeSets: pushed, signed: plan.signing === null ? null : byNames ? 'by_change' : 'whole', behind: false };
}

function draftBuild(trx: Knex.Transaction, deps: PublishDeps, plan: BuildPlan, now: Date): DraftBuild;
function draftBuild(trx: null, deps: PublishDeps, plan: BuildPlan, now: Date): Omit<DraftBuild, 'trx'>;
function draftBuild(trx: Knex.Transaction | null, deps: PublishDeps, plan: BuildPlan, now: Date): Omit<DraftBuild, 'trx'> {
  const { zone } = plan;
  const draftZone = { id: zone.id, name: zone.name, defaultTtl: zone.default_ttl, soaEmail: zone.soa_email };
  return { ...(trx && { trx }), deps, zone, draftZone, serial: plan.serial, fromSerial: plan.fromSerial, now, keys: plan.keys, signing: plan.signing };
}

interface DraftBuild {
  trx: Knex.Transaction;
  deps: PublishDeps;
  zone: ZoneLockRow;
  draftZone: VersionDraft['zone'];
  serial: number;
  fromSerial: number | null;
  now: Date;
  keys: KeyRow[];
  signing: string | null;
}

/**
 * The version from what was read, signed whole where the zone is or was signed, ready to write: a
 * large one to be signed in the signing thread, off the thread that serves requests and queries.
 */
async function versionRowFrom(b: Omit<DraftBuild, 'trx'>, read: DraftInputs): Promise<VersionRow> {
  const signing = b.signing === null ? null : { keys: signingKeys(b.keys, b.deps.dnssec.kek), policy: signPolicy(b.zone, b.now, b.deps.dnssec.dnskeyTtl) };
  const inputs: VersionInputs = { zone: b.draftZone, serial: b.serial, fromSerial: b.fromSerial, nameservers: b.deps.nameservers, signing };
  const thread = b.deps.dnssec.signingThread;
  if (signing !== null && usesSigningThread(read, thread)) return versionInSigningThread(inputs, read, b.signing, thread);
  return versionRow(await draftFrom(inputs, read), b.signing);
}

/**
 * The version of a signed zone from the names its change sets touched, their ancestors and their
 * NSEC3 owners; null where the change reaches further (signUpdate) and the zone is signed whole.
 */
async function draftSignedChange(b: DraftBuild, touched: string[]): Promise<VersionDraft | null> {
  const policy = signPolicy(b.zone, b.now, b.deps.dnssec.dnskeyTtl);
  const owners = updateOwners(b.zone.name, touched.map((n) => absoluteName(n, b.zone.name)), policy.denial);
  const names = [...owners.names, ...owners.nsec3Owners].map((n) => relativeName(n, b.zone.name));
  const read = await readDraftInputs(b.trx, b.zone, names, b.fromSerial);
  const servedOwn = read.served.filter((r) => !isDnssecRecord(r));
  const records = collectTouched(read.stored, servedOwn);
  const system = synthesizeSystemRecords(b.draftZone, b.serial, b.deps.nameservers, read.system, read.defaults);
  const signatures = await signChange(
    {
      zoneName: b.zone.name,
      signing: { keys: signingKeys(b.keys, b.deps.dnssec.kek), policy },
      touched,
      before: [...read.served, ...system.before],
      after: [...currentRecords(servedOwn, records), ...system.after],
    },
    servedChain(b.trx, b.zone),
  );
  return signatures && { zone: b.draftZone, serial: b.serial, fromSerial: b.fromSerial, records, system, signatures };
}

function signPolicy(zone: ZoneLockRow, now: Date, dnskeyTtl: number) {
  const t = Math.floor(now.getTime() / 1000);
  // A fixed offset per zone (from its id), so that zones signed in the same minute expire apart.
  const jitter = createHash('sha1').update(zone.id).digest().readUInt32BE(0) % SIGNATURE_JITTER_S;
  const cds = cdsPolicy(zone.dnssec_state);
  return {
    denial: zone.dnssec_denial,
    window: { inception: t - SIGNATURE_BACKDATE_S, expiration: t + SIGNATURE_VALIDITY_S - jitter },
    refreshBefore: t + SIGNATURE_REFRESH_S,
    dnskeyTtl,
    cds,
  } as const;
}

/**
 * A provider reverse zone's default-PTR inputs: its space's pattern, the owners with a PTR of
 * their own (the whole zone's, whatever names this build reads), the IPv6 addresses assigned alone.
 */
async function readDefaultPtrInputs(trx: Knex.Transaction, zone: ZoneLockRow): Promise<DefaultPtrInputs | null> {
  if (zone.kind !== 'provider_reverse' || !zone.ip_space_id || !zone.reverse_block) return null;
  const space = (await trx('ip_spaces').where('id', zone.ip_space_id).first('ptr_pattern')) as { ptr_pattern: string } | undefined;
  if (!space) return null;
  const own = (await trx('records').where({ zone_id: zone.id, type: 'PTR' }).distinct('name')) as { name: string }[];
  const singles = zone.reverse_block.includes(':')
    ? ((await trx('ip_assignments').whereRaw('masklen(cidr) = 128 AND cidr <<= ?::cidr', [zone.reverse_block]).select(trx.raw('host(cidr) AS ip'))) as { ip: string }[]).map(
        (r) => parseAddress(r.ip).value,
      )
    : [];
  return { block: zone.reverse_block, pattern: space.ptr_pattern, ownPtrOwners: new Set(own.map((r) => r.name)), singles };
}

/**
 * What the build reads, in one statement: the zone's stored records and its served records at
 * `names` (null: the whole zone), and the system records of the served version. Stored TTLs are
 * resolved against the zone's default_ttl, as served ones were.
 */
async function readDraftInputs(
  trx: Knex.Transaction,
  zone: ZoneLockRow,
  names: string[] | null,
  fromSerial: number | null,
): Promise<DraftInputs> {
  const at = names ? 'AND name = any(?::text[])' : '';
  const bindings = [zone.default_ttl, zone.id, ...(names ? [names] : []), zone.id, ...(names ? [names] : []), zone.id, fromSerial];
  const result = await trx
    .raw<{ rows: { src: number; record_id: string | null; name: string; mnemonic: string | null; type: number | null; ttl: number; data: Record<string, unknown> | null; rdata: Buffer | null; system: StoredWireRecord[] | null }[] }>(
      `SELECT 0 AS src, id AS record_id, name, type AS mnemonic, NULL::int AS type, coalesce(ttl, ?)::int AS ttl, data, NULL::bytea AS rdata, NULL::jsonb AS system
         FROM records WHERE zone_id = ? ${at}
       UNION ALL
       SELECT 1, record_id, name, NULL, type, ttl, NULL, rdata, NULL FROM published_records WHERE zone_id = ? ${at}
       UNION ALL
       SELECT 2, NULL, '@', NULL, NULL, 0, NULL, NULL, system FROM zone_versions WHERE zone_id = ? AND serial = ?`,
      bindings,
    )
    .options(PREPARED);
  const stored: StoredRecord[] = [];
  const served: DraftRecord[] = [];
  let system: WireRecord[] = [];
  for (const row of result.rows) {
    if (row.src === 0) stored.push({ recordId: row.record_id!, name: row.name, type: row.mnemonic!, ttl: row.ttl, data: row.data! });
    else if (row.src === 1) served.push({ recordId: row.record_id!, name: row.name, type: row.type!, ttl: row.ttl, rdata: row.rdata! });
    else system = (row.system ?? []).map(fromStored);
  }
  return { stored, served, system, defaults: await readDefaultPtrInputs(trx, zone) };
}

/** Rows new or changed in what the nameservers serve (a jsonb array). */
const UPSERT_SQL = `INSERT INTO published_records (zone_id, record_id, name, type, ttl, rdata)
         SELECT ?, x.record_id, x.name, x.type, x.ttl, decode(x.rdata, 'base64')
         FROM jsonb_to_recordset(?::jsonb) AS x(record_id text, name text, type int, ttl int, rdata text)
         ON CONFLICT (zone_id, record_id) DO UPDATE SET name = excluded.name, type = excluded.type, ttl = excluded.ttl, rdata = excluded.rdata`;

/** The version row and what the nameservers serve: the heavy half of a version's write (with upsertRest). */
const versionRowsSql = (diff: DiffColumns) => `v AS (
         INSERT INTO zone_versions (zone_id, serial, from_serial, removed, added, system, nameservers, withdrawn, created_at, signing)
         VALUES (?, ?, ?, ${diff.removed}, ${diff.added}, ?::jsonb, ?::text[], ?, ?, ?)
       ), gone AS (
         DELETE FROM published_records WHERE zone_id = ? AND record_id = any(?::text[])
       ), upserted AS (${UPSERT_SQL}
       ), trimmed AS (
         DELETE FROM zone_versions WHERE zone_id = ? AND created_at < ?
           AND created_at < (SELECT h.created_at FROM zone_versions h WHERE h.zone_id = ? ORDER BY h.created_at DESC OFFSET ? LIMIT 1)
       )`;
const versionRowsBindings = (zone: ZoneLockRow, now: Date, v: VersionRow, diff: DiffColumns) => [
  zone.id, v.serial, v.fromSerial, ...diff.bindings, v.system, v.nameservers, v.withdrawn, now, v.signing,
  zone.id, v.gone,
  zone.id, v.upserted[0] ?? '[]',
  zone.id, new Date(now.getTime() - VERSION_HISTORY.minAgeMs), zone.id, VERSION_HISTORY.minVersions - 1,
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
 * for 0.5–1.7 s (bench/RESULTS.md, issue 12, run 9). A temporary table writes no WAL.
 */
async function diffColumns(trx: Knex.Transaction, v: VersionRow, timeoutMs?: number): Promise<DiffColumns> {
  if (v.removed.length === 1 && v.added.length === 1) return { removed: '?::jsonb', added: '?::jsonb', bindings: [v.removed[0]!, v.added[0]!], staged: false };
  // As text: the arrays' elements joined in their order and parsed once, as the one parameter was
  // (not parsed per array, taken apart and aggregated again).
  await trx.raw('CREATE TEMPORARY TABLE version_parts (side text NOT NULL, n int NOT NULL, part text NOT NULL) ON COMMIT DROP');
  for (const [side, parts] of [['removed', v.removed], ['added', v.added]] as const) {
    for (const [n, part] of parts.entries()) await trx.raw('INSERT INTO version_parts (side, n, part) VALUES (?, ?, ?::text)', [side, n, jsonText(part)]).options(timeoutMs ? { query_timeout: timeoutMs } : {});
  }
  const joined = (side: 'removed' | 'added') =>
    `(SELECT ('[' || coalesce(string_agg(nullif(substr(p.part, 2, length(p.part) - 2), ''), ',' ORDER BY p.n), '') || ']')::jsonb FROM version_parts p WHERE p.side = '${side}')`;
  return { removed: joined('removed'), added: joined('added'), bindings: [], staged: true };
}

/** The upserted rows beyond the first array, a statement each (the CTEs of VERSION_ROWS_SQL took the first). */
async function upsertRest(trx: Knex.Transaction, zone: ZoneLockRow, v: VersionRow, timeoutMs?: number): Promise<void> {
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
const versionPointerBindings = (zone: ZoneLockRow, now: Date, v: VersionRow) => [
  v.withdrawn ? null : v.serial, zone.changeset_seq, zone.id, zone.published_serial,
  v.serial, now, now, zone.id, zone.published_seq, zone.changeset_seq,
  PUBLISHED_CHANNEL, zone.id,
];

/**
 * Commit under the zone's row lock, one statement: the version row (its diff and its system
 * records in wire form), what the nameservers serve, the zone's published pointer, every change
 * set up to the zone's newest pushed with the version's serial, and the NOTIFY for the
 * nameservers (and a statement for each further array of rows to upsert). The CTEs touch disjoint
 * rows: a changed record is upserted, only records gone for good are deleted. The number of
 * change sets pushed.
 */
async function writeVersion(trx: Knex.Transaction, zone: ZoneLockRow, now: Date, v: VersionRow): Promise<number> {
  const diff = await diffColumns(trx, v);
  const result = await trx
    .raw<{ rows: { pushed: number }[] }>(`WITH ${versionRowsSql(diff)}, ${VERSION_POINTER_SQL}`, [...versionRowsBindings(zone, now, v, diff), ...versionPointerBindings(zone, now, v)])
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
async function writeVersionInHalves(trx: Knex.Transaction, zone: ZoneLockRow, now: Date, v: VersionRow): Promise<number | null> {
  await trx.raw(`SET LOCAL statement_timeout = ${LARGE_VERSION_TIMEOUT_MS}`);
  const diff = await diffColumns(trx, v, LARGE_VERSION_TIMEOUT_MS + 5000);
  await trx.raw(`WITH ${versionRowsSql(diff)} SELECT 1`, versionRowsBindings(zone, now, v, diff)).options({ query_timeout: LARGE_VERSION_TIMEOUT_MS + 5000 });
  await upsertRest(trx, zone, v, LARGE_VERSION_TIMEOUT_MS + 5000);
  const result = await trx.raw<{ rows: { moved: number; pushed: number }[] }>(`WITH ${VERSION_POINTER_SQL}`, versionPointerBindings(zone, now, v));
  return Number(result.rows[0]!.moved) === 1 ? Number(result.rows[0]!.pushed) : null;
}

/** Deletion: the nameservers drop the zone; the verifier removes the row once none serves it. */
async function withdraw(trx: Knex.Transaction, now: Date, zone: ZoneLockRow): Promise<PublishOutcome> {
  if (zone.published_serial === null && zone.published_seq >= zone.changeset_seq) return { kind: 'idle' };
  const serial = nextSerial(zone.published_serial === null ? initialSerial(zone.created_at) : Number(zone.published_serial), now);
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
  return { kind: 'withdrawn' };
}

async function markFailed(trx: Knex.Transaction, now: Date, zoneId: string, detail: string): Promise<void> {
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
  await trx('zones').where('id', zoneId).update({ publish_retry_at: new Date(now.getTime() + FAILED_BUILD_BACKOFF_MS) });
  // `failed` ends a `Prefer: wait` as `live` does (src/services/liveWait.ts); delivered on commit.
  if (failed.length) await trx.raw('SELECT pg_notify(?, ?)', [CHANGESETS_SETTLED_CHANNEL, zoneId]);
  await recordEvents(
    trx,
    failed.map((c) => ({
      tenantId: c.tenant_id,
      kind: 'record.failed',
      zoneId,
      payload: { zone: zone.name, changeset_id: c.id, state: 'failed', error: { code: 'build_failed', detail }, ...(c.acting_tenant_id ? { acting_tenant_id: c.acting_tenant_id } : {}) },
    })),
    now,
  );
}
