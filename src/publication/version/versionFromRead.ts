// A version made from what the build read, and encoded as the write statements take it. No
// database access and nothing that cannot cross to another thread: a version signed whole runs
// this in the signing thread (signingThread.ts), every other build in the build's own thread.
import { isDnssecRecord, signDraft } from './signDraft.js';
import type { SignPolicy, SigningKeys } from '../../../nameserver/dnssec/signZone.js';
import { collectTouched } from './collectTouched.js';
import type { StoredRecord } from '../../db/repositories/versionStore.js';
import type { JsonbParam, VersionRow } from '../../db/repositories/versionStore.js';
import type { RenderedInputs } from '../../versionRecords/recordSource.js';
import { synthesizeSystemRecords } from './synthesizeSystemRecords.js';
import { type DraftRecord, draftDiff, type VersionDraft } from './versionDraft.js';
import type { ZoneRecord } from '../../../nameserver/types.js';
import { toStored } from '../../versionRecords/zoneRecords.js';

/** What the build read: stored records and served ones at the names it read, the served version's rendered records, the record sources' inputs. */
export interface DraftInputs {
  stored: StoredRecord[];
  served: DraftRecord[];
  system: ZoneRecord[];
  rendered: RenderedInputs;
}

export type { JsonbParam, VersionRow };

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
  const system = synthesizeSystemRecords(v, read.system, read.rendered);
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
 * The version as the write statements take it: its diff and records as JSON, made in turns for a
 * large one; the diff and the rows to upsert in arrays of `rowsPerStatement` (the signing thread's
 * version is written by several statements, each a few megabytes for pg to copy).
 */
export async function versionRow(draft: VersionDraft, signing: string | null, rowsPerStatement = Infinity): Promise<VersionRow> {
  const diff = draftDiff(draft);
  const upserted = [...draft.records.added, ...draft.signatures.added];
  const perStatement = Math.max(1, Math.floor(rowsPerStatement / JSON_PART));
  const arrays = (parts: string[]) =>
    parts.length <= perStatement
      ? [jsonArray(parts)]
      : Array.from({ length: Math.ceil(parts.length / perStatement) }, (_, i) => jsonArray(parts.slice(i * perStatement, (i + 1) * perStatement)));
  return {
    serial: draft.serial,
    fromSerial: draft.fromSerial,
    removed: arrays(await jsonParts(diff.removed, toStored)),
    added: arrays(await jsonParts(diff.added, toStored)),
    system: JSON.stringify(draft.system.after.map(toStored)),
    nameservers: draft.system.nameservers,
    withdrawn: false,
    gone: [...draft.records.gone, ...draft.signatures.removed.map((r) => r.recordId)],
    upserted: arrays(await jsonParts(upserted, (r) => ({ record_id: r.recordId, ...toStored(r) }))),
    signing,
  };
}

/** Items per JSON part: a part is written in one piece, between two of them the thread is handed back. */
const JSON_PART = 5000;

/** The JSON array elements of `items`, JSON_PART at a time (a zone signed whole has hundreds of thousands). */
async function jsonParts<T>(items: readonly T[], map: (item: T) => unknown): Promise<string[]> {
  const parts: string[] = [];
  for (let i = 0; i < items.length; i += JSON_PART) {
    if (i > 0) await new Promise((resolve) => setImmediate(resolve));
    parts.push(JSON.stringify(items.slice(i, i + JSON_PART).map(map)).slice(1, -1));
  }
  return parts;
}

const jsonArray = (parts: string[]) => `[${parts.join(',')}]`;
