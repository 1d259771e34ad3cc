// A version made from what the build read, and encoded as the write statements take it. No
// database access and nothing that cannot cross to another thread: a version signed whole runs
// this in the signing thread (signingThread.ts), every other build in the build's own thread.
import { isDnssecRecord, signDraft } from './signDraft.js';
import type { SignPolicy, SigningKeys } from '../../dnssec/signZone.js';
import { collectTouched, type StoredRecord } from './collectTouched.js';
import { type DefaultPtrInputs, synthesizeSystemRecords } from './synthesizeSystemRecords.js';
import { type DraftRecord, draftDiff, type VersionDraft } from './versionDraft.js';
import { toStored, type WireRecord } from '../zoneRecords.js';

/** What the build read: stored records and served ones at the names it read, the served version's system records. */
export interface DraftInputs {
  stored: StoredRecord[];
  served: DraftRecord[];
  system: WireRecord[];
  defaults: DefaultPtrInputs | null;
}

/** The version to make, decided by the build under the zone's row (keys already decrypted). */
export interface VersionInputs {
  zone: VersionDraft['zone'];
  serial: number;
  fromSerial: number | null;
  nameservers: readonly string[];
  /** Null: the version is unsigned. */
  signing: { keys: SigningKeys; policy: SignPolicy } | null;
}

/** The version from what was read, signed whole where the zone is or was signed. */
export async function draftFrom(v: VersionInputs, read: DraftInputs): Promise<VersionDraft> {
  const servedDnssec = read.served.filter(isDnssecRecord);
  const servedOwn = servedDnssec.length === 0 ? read.served : read.served.filter((r) => !isDnssecRecord(r));
  const records = collectTouched(read.stored, servedOwn);
  const system = synthesizeSystemRecords(v.zone, v.serial, v.nameservers, read.system, read.defaults);
  const draft: VersionDraft = { zone: v.zone, serial: v.serial, fromSerial: v.fromSerial, records, system, signatures: { removed: [], added: [] } };
  if (v.signing !== null || servedDnssec.length > 0) {
    draft.signatures = await signDraft({
      zoneName: v.zone.name,
      signing: v.signing,
      unsigned: [...currentRecords(servedOwn, records), ...system.after],
      previous: { records: [...servedOwn, ...system.before], dnssec: servedDnssec },
    });
  }
  return draft;
}

/** The zone's own records as this version serves them: what was served, less what goes, plus what comes. */
export function currentRecords(served: DraftRecord[], records: VersionDraft['records']): DraftRecord[] {
  const removed = new Set(records.removed.map((r) => r.recordId));
  return [...served.filter((r) => !removed.has(r.recordId)), ...records.added];
}

/**
 * A jsonb parameter: text, or jsonb's binary form (a version octet, then the text) in a Buffer,
 * which a large version is handed over in from the signing thread without being copied into a
 * string (pg sends a Buffer parameter in binary form).
 */
export type JsonbParam = string | Buffer;

export interface VersionRow {
  serial: number;
  fromSerial: number | null;
  removed: JsonbParam;
  added: JsonbParam;
  system: string | null;
  nameservers: string[] | null;
  withdrawn: boolean;
  /** published_records: rows no longer served (a text[] parameter, or its literal), and rows new or changed (jsonb array). */
  gone: string[] | string;
  upserted: JsonbParam;
  /** signingFingerprint of the version; null: unsigned. */
  signing: string | null;
}

/** The version as the write statements take it: its diff and records as JSON, made in turns for a large one. */
export async function versionRow(draft: VersionDraft, signing: string | null): Promise<VersionRow> {
  const diff = draftDiff(draft);
  const upserted = [...draft.records.added, ...draft.signatures.added];
  return {
    serial: draft.serial,
    fromSerial: draft.fromSerial,
    removed: await jsonInTurns(diff.removed, toStored),
    added: await jsonInTurns(diff.added, toStored),
    system: JSON.stringify(draft.system.after.map(toStored)),
    nameservers: draft.system.nameservers,
    withdrawn: false,
    gone: [...draft.records.gone, ...draft.signatures.removed.map((r) => r.recordId)],
    upserted: await jsonInTurns(upserted, (r) => ({ record_id: r.recordId, ...toStored(r) })),
    signing,
  };
}

/** A JSON array of `items`, written a few thousand at a time with the thread handed back between (a zone signed whole has hundreds of thousands). */
async function jsonInTurns<T>(items: readonly T[], map: (item: T) => unknown): Promise<string> {
  const CHUNK = 5000;
  if (items.length <= CHUNK) return JSON.stringify(items.map(map));
  const parts: string[] = [];
  for (let i = 0; i < items.length; i += CHUNK) {
    parts.push(JSON.stringify(items.slice(i, i + CHUNK).map(map)).slice(1, -1));
    await new Promise((resolve) => setImmediate(resolve));
  }
  return `[${parts.join(',')}]`;
}
