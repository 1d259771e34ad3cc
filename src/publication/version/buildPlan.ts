// What a build does, decided from the zone's row (as the version store reads it), its keys and
// the configured NAMESERVERS, and nothing else: whether there is anything to build, which serial,
// from which version, which names, signed how (docs/dnssec.md "Signing in the build"). Pure, so
// each rule is a unit test (test/unit/buildPlan.test.ts); publishZone.ts runs it under its lock.
import { createHash } from 'node:crypto';
import type { BuildZone } from '../../db/repositories/versionStore.js';
import type { KeyRow } from '../../db/repositories/dnssecKeys.js';
import { signingFingerprint } from '../../dnssec/signingKeys.js';
import { cdsPolicy, type DnssecState, isSigned } from '../../domain/dnssec/states.js';
import { firstSerial, nextSerial } from '../../domain/soa.js';

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

export interface BuildPlan {
  zone: BuildZone;
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

const sameList = (a: readonly string[] | null, b: readonly string[]) => a !== null && a.length === b.length && a.every((x, i) => x === b[i]);

/** The zone is or was signed: the plan needs its keys. */
export const needsKeys = (zone: BuildZone) => isSigned(zone.dnssec_state as DnssecState) || zone.served_signing !== null;

/** The build of `zone` (its keys read where needsKeys), or null: the served version is current. */
export function planBuild(zone: BuildZone, keys: KeyRow[], nameservers: readonly string[], now: Date): BuildPlan | null {
  const state = zone.dnssec_state as DnssecState;
  const rendered = sameList(zone.served_nameservers, nameservers);
  const signed = isSigned(state);
  const signing = signingFingerprint({ signed, denial: zone.dnssec_denial, cds: cdsPolicy(state) }, keys);
  const resignDue = signing !== null && zone.served_at !== null && now.getTime() - zone.served_at.getTime() >= RESIGN_AFTER_MS;
  // A catalog's members changed since its served version (docs/catalog-zones.md "Change without a
  // lock"), or a zone moving between catalogs is due its next step ("Moving between catalogs").
  const membersChanged = zone.catalog_stamp !== zone.served_catalog_stamp || zone.catalog_due;
  if (zone.published_seq >= zone.changeset_seq && rendered && signing === zone.served_signing && !resignDue && !membersChanged) return null;

  const published = zone.published_serial === null ? null : Number(zone.published_serial);
  // A version without rendered system records (built before they were) is followed by a whole
  // one: what it served in presentation form is gone.
  const fromSerial = published !== null && zone.served_nameservers !== null ? published : null;
  const sets = zone.pending_touched;
  const touched = sets.some((names) => names === null) ? null : [...new Set(sets.flatMap((names) => names ?? []))];
  // A signed zone whose keys and policy stay is signed by the names the change touched; signing
  // starts, stops, changes keys or refreshes signatures over the whole zone (docs/dnssec.md).
  // Names with an escaped octet are left to the whole signer: the lookup of what lies below a
  // name (servedChain) matches names as text.
  const byChange =
    signing !== null &&
    signing === zone.served_signing &&
    !resignDue &&
    rendered &&
    fromSerial !== null &&
    touched !== null &&
    !touched.some((n) => n.includes('\\'));
  const whole = fromSerial === null || touched === null || ((signing !== null || zone.served_signing !== null) && !byChange);
  const serial = published === null ? firstSerial(zone.created_at, zone.serial_floor) : nextSerial(published, now);
  return { zone, keys, signing, touched, byChange, whole, fromSerial, serial };
}

/** A version planned from a snapshot (`then`) still applies under the lock (`now`): nothing was published since, and it is signed as the zone asks now. */
export function stillApplies(then: BuildPlan, now: BuildPlan): boolean {
  const [before, after] = [then.zone.served_nameservers, now.zone.served_nameservers];
  const sameNameservers = before === null || after === null ? before === after : sameList(before, after);
  return then.zone.published_serial === now.zone.published_serial && then.signing === now.signing && sameNameservers;
}

/** How the version is signed: its denial, its signatures' window (jittered per zone), the CDS policy. */
export function signPolicy(zone: Pick<BuildZone, 'id' | 'dnssec_state' | 'dnssec_denial'>, now: Date, dnskeyTtl: number) {
  const t = Math.floor(now.getTime() / 1000);
  // A fixed offset per zone (from its id), so that zones signed in the same minute expire apart.
  const jitter = createHash('sha1').update(zone.id).digest().readUInt32BE(0) % SIGNATURE_JITTER_S;
  const cds = cdsPolicy(zone.dnssec_state as DnssecState);
  return {
    denial: zone.dnssec_denial,
    window: { inception: t - SIGNATURE_BACKDATE_S, expiration: t + SIGNATURE_VALIDITY_S - jitter },
    refreshBefore: t + SIGNATURE_REFRESH_S,
    dnskeyTtl,
    cds,
  } as const;
}

/** The serial of a withdrawal (a version of nothing) after the zone's published one. */
export const withdrawalSerial = (zone: Pick<BuildZone, 'published_serial' | 'created_at' | 'serial_floor'>, now: Date) =>
  nextSerial(zone.published_serial === null ? firstSerial(zone.created_at, zone.serial_floor) : Number(zone.published_serial), now);
