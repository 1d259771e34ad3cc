// Builds a zone's next published version as explicit steps over a draft of it
// (docs/publication.md):
//   lock → plan (version/buildPlan.ts) → collect touched names → render the record sources
//   (version/recordSources.ts) → sign → commit (the version store, src/db/repositories/versionStore.ts)
// The stored records at the owner names the unpublished change sets touched are compared with
// what the nameservers serve; the SOA (with the version's serial) and the apex NS set (from
// NAMESERVERS) are rendered, never stored; the sign step gets the version's diff; one statement
// commits the zone_versions row the nameservers apply (records in wire form, encoded once here),
// and the change sets go `pending → pushed`. One transaction under the zone's row lock, so API
// writes to the zone wait for it (a few milliseconds) and two workers never publish the same zone;
// a signed zone is read and signed outside the lock first (publishZone below).
// The serial lives in one place: the published version (zone_versions.serial, pointed at by
// zones.published_serial).
import type { Pool, Transaction } from '../db/context.js';
import { type KeyRow, keyRowsOf } from '../db/repositories/dnssecKeys.js';
import {
  type BuildZone,
  lockForBuild,
  markBuildFailed,
  readBuildZone,
  readVersionInputs,
  type VersionRow,
  writeVersion,
  writeVersionInHalves,
  writeWithdrawal,
  zoneExists,
} from '../db/repositories/versionStore.js';
import { transactionWithRetry } from '../db/transaction.js';
import type { Clock } from '../domain/clock.js';
import { updateOwners } from '../../nameserver/dnssec/signUpdate.js';
import { absoluteName, relativeName } from '../../nameserver/wire/name.js';
import { signingKeys } from '../dnssec/signingKeys.js';
import { type DnssecState, isSigned } from '../domain/dnssec/states.js';
import { type BuildPlan, needsKeys, planBuild, signPolicy, stillApplies, withdrawalSerial } from './version/buildPlan.js';
import { BuildError, collectTouched } from './version/collectTouched.js';
import { readRenderedInputs } from './version/recordSources.js';
import { servedChain } from './version/servedChain.js';
import { isDnssecRecord, signChange } from './version/signDraft.js';
import { type SigningThreadOptions, usesSigningThread, versionInSigningThread } from './version/signingThread.js';
import { synthesizeSystemRecords } from './version/synthesizeSystemRecords.js';
import type { VersionDraft } from './version/versionDraft.js';
import { currentRecords, type DraftInputs, draftFrom, type VersionInputs, versionRow } from './version/versionFromRead.js';
import { fromStored } from '../versionRecords/zoneRecords.js';

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
  db: Pool;
  clock: Clock;
  /** The configured NAMESERVERS: the apex NS set of every zone, the SOA MNAME the first. */
  nameservers: readonly string[];
  dnssec: {
    /** Decrypts the zone keys for the sign step (src/db/sealedSecrets.ts). */
    kek: Buffer;
    dnskeyTtl: number;
    /** When a zone signed whole is made in a thread of its own. */
    signingThread: SigningThreadOptions;
  };
}

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
    await transactionWithRetry(deps.db, (trx) => markBuildFailed(trx, deps.clock.now(), zoneId, err.message));
    return { kind: 'failed', detail: err.message };
  }
}

/** buildVersion's answer when the version is to be signed: that is done first, outside the lock (prepareSigned). */
const SIGN_OUTSIDE = Symbol('sign outside the lock');

/** A version signed outside the row lock, from a snapshot of the zone as `plan` saw it, ready to write. */
interface PreparedVersion {
  plan: BuildPlan;
  row: VersionRow;
  signed: 'by_change' | 'whole';
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
      const zone = await readBuildZone(trx, zoneId, false);
      if (!zone) return null;
      const plan = await planFor(trx, deps, zone, now);
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
      const zone = await readBuildZone(trx, zoneId, true);
      if (!zone) return null;
      if (!zone.build_lock) return { kind: 'busy' } as const;
      const plan = await planFor(trx, deps, zone, now);
      if (!plan || !stillApplies(prepared.plan, plan)) return null;
      // Up to the snapshot's change sets: those written since stay pending for the next build.
      const built = { ...zone, changeset_seq: prepared.plan.zone.changeset_seq };
      const pushed = await writeVersionInHalves(trx, built, now, prepared.row);
      if (pushed === null) throw NOT_APPLIED;
      return {
        kind: 'published',
        serial: prepared.plan.serial,
        changeSets: pushed,
        signed: prepared.signed,
        behind: zone.changeset_seq > built.changeset_seq,
      } as const;
    });
  } catch (err) {
    if (err === NOT_APPLIED) return null;
    throw err;
  }
}
const NOT_APPLIED = new Error('the zone was published while its version was being signed');

async function buildVersion(trx: Transaction, deps: PublishDeps, zoneId: string, lastTry: boolean): Promise<PublishOutcome | typeof SIGN_OUTSIDE> {
  const now = deps.clock.now();
  const zone = await lockForBuild(trx, zoneId);
  if (!zone) return (await zoneExists(trx, zoneId)) ? { kind: 'busy' } : { kind: 'idle' };
  if (!zone.build_lock) return { kind: 'busy' };
  // A signed zone being deleted stays served (signed) until the worker saw its DS leave the
  // parent and waited out its TTL (docs/dnssec.md "Deleting a signed zone").
  if (zone.status === 'deleting') return zone.dnssec_state === 'ds_removing' ? { kind: 'idle' } : withdraw(trx, now, zone);
  if (isSigned(zone.dnssec_state as DnssecState) && !lastTry) return SIGN_OUTSIDE;
  const plan = await planFor(trx, deps, zone, now);
  if (!plan) return { kind: 'idle' };

  const build = draftBuild(trx, deps, plan, now);
  const byNames = plan.byChange ? await draftSignedChange(build, plan.touched!) : null;
  const row = byNames
    ? await versionRow(byNames, plan.signing)
    : await versionRowFrom(build, await readDraftInputs(trx, zone, plan.whole || plan.byChange ? null : plan.touched, plan.fromSerial));
  const pushed = await writeVersion(trx, zone, now, row);
  return { kind: 'published', serial: plan.serial, changeSets: pushed, signed: plan.signing === null ? null : byNames ? 'by_change' : 'whole', behind: false };
}

function draftBuild(trx: Transaction, deps: PublishDeps, plan: BuildPlan, now: Date): DraftBuild;
function draftBuild(trx: null, deps: PublishDeps, plan: BuildPlan, now: Date): Omit<DraftBuild, 'trx'>;
function draftBuild(trx: Transaction | null, deps: PublishDeps, plan: BuildPlan, now: Date): Omit<DraftBuild, 'trx'> {
  const { zone } = plan;
  const draftZone = { id: zone.id, name: zone.name, defaultTtl: zone.default_ttl, soaEmail: zone.soa_email };
  return { ...(trx && { trx }), deps, zone, draftZone, serial: plan.serial, fromSerial: plan.fromSerial, now, keys: plan.keys, signing: plan.signing };
}

interface DraftBuild {
  trx: Transaction;
  deps: PublishDeps;
  zone: BuildZone;
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
  const owners = updateOwners(
    b.zone.name,
    touched.map((n) => absoluteName(n, b.zone.name)),
    policy.denial,
  );
  const names = [...owners.names, ...owners.nsec3Owners].map((n) => relativeName(n, b.zone.name));
  const read = await readDraftInputs(b.trx, b.zone, names, b.fromSerial);
  const servedOwn = read.served.filter((r) => !isDnssecRecord(r));
  const records = collectTouched(read.stored, servedOwn);
  const signing = { keys: signingKeys(b.keys, b.deps.dnssec.kek), policy };
  const system = synthesizeSystemRecords({ zone: b.draftZone, serial: b.serial, nameservers: b.deps.nameservers, signing }, read.system, read.rendered);
  const signatures = await signChange(
    {
      zoneName: b.zone.name,
      signing,
      touched,
      before: [...read.served, ...system.before],
      after: [...currentRecords(servedOwn, records), ...system.after],
    },
    servedChain(b.trx, b.zone),
  );
  return signatures && { zone: b.draftZone, serial: b.serial, fromSerial: b.fromSerial, records, system, signatures };
}

/** Deletion: the nameservers drop the zone; the verifier removes the row once none serves it. */
async function withdraw(trx: Transaction, now: Date, zone: BuildZone): Promise<PublishOutcome> {
  if (zone.published_serial === null && zone.published_seq >= zone.changeset_seq) return { kind: 'idle' };
  await writeWithdrawal(trx, now, zone, withdrawalSerial(zone, now));
  return { kind: 'withdrawn' };
}

/** The build's plan, with the zone's keys where it is or was signed. */
async function planFor(trx: Transaction, deps: PublishDeps, zone: BuildZone, now: Date): Promise<BuildPlan | null> {
  return planBuild(zone, needsKeys(zone) ? await keyRowsOf(trx, zone.id) : [], deps.nameservers, now);
}

/**
 * What the build reads, in one statement: the zone's stored records and its served records at
 * `names` (null: the whole zone), the rendered records of the served version, and the inputs of
 * each record source that applies to the zone.
 */
async function readDraftInputs(trx: Transaction, zone: BuildZone, names: string[] | null, fromSerial: number | null): Promise<DraftInputs> {
  const read = await readVersionInputs(trx, zone, names, fromSerial);
  return { stored: read.stored, served: read.served, system: read.system.map(fromStored), rendered: await readRenderedInputs(trx, zone) };
}
