// The records of an RFC 2136 UPDATE in the service's terms: the type's mnemonic, what the record
// asks or does (its class, read by the codec: wire/update.ts prerequisiteKind, updateKind) and,
// where it carries RDATA, the record's data through the one codec (the zone-file reader's
// rdataFromWire) with the key records are compared by. Pure.
import { presentData } from '../../../nameserver/wire/rdata.js';
import { typeName } from '../../../nameserver/wire/rrTypes.js';
import { type PrerequisiteKind, prerequisiteKind, type UpdateKind, updateKind, type UpdateRecord } from '../../../nameserver/wire/update.js';
import { rdataFromWire } from '../zonefile/rdataFromPresentation.js';

/** RFC 2136's answers (§2.2), by name: the wiring turns them into numbers. */
export type UpdateRcode = 'NOERROR' | 'FORMERR' | 'SERVFAIL' | 'NXDOMAIN' | 'REFUSED' | 'YXDOMAIN' | 'YXRRSET' | 'NXRRSET' | 'NOTAUTH' | 'NOTZONE';

/** A record's RDATA as the service holds it, and the key it is compared by. */
export interface RecordValue {
  /**
   * The presentation of the record's wire form (names lower case): two records are the same RR
   * exactly when their keys are equal (RFC 2136 §1.1.1, RDATA compared as a whole, names without
   * regard to case). TXT strings are joined as the service stores them, so `"a" "b"` is `"ab"`.
   */
  key: string;
  data: Record<string, unknown>;
}

/** An RDATA the service cannot hold as data (malformed, or not representable): why. */
export interface UnreadableValue {
  key: null;
  problem: string;
}

export interface Prerequisite {
  name: string;
  type: string;
  kind: PrerequisiteKind;
  /** For rrset_equals: the record; else null. */
  value: RecordValue | UnreadableValue | null;
}

export interface UpdateItem {
  name: string;
  type: string;
  kind: UpdateKind;
  ttl: number;
  /** For add and delete_record: the record; else null. */
  value: RecordValue | UnreadableValue | null;
}

/** The key of a record's data (stored, rendered or sent). Throws RangeError where the codec cannot encode it. */
export const valueKey = (type: string, data: Record<string, unknown>): string => presentData(type, data);

function recordValueOf(type: string, rdata: Buffer): RecordValue | UnreadableValue {
  const read = rdataFromWire(type, rdata);
  if (!read.ok) return { key: null, problem: read.detail };
  try {
    return { key: valueKey(type, read.value), data: read.value };
  } catch (e) {
    if (e instanceof RangeError) return { key: null, problem: e.message };
    throw e;
  }
}

export const readPrerequisite = (rr: UpdateRecord): Prerequisite => {
  const type = typeName(rr.type);
  const kind = prerequisiteKind(rr);
  return { name: rr.name, type, kind, value: kind === 'rrset_equals' ? recordValueOf(type, rr.rdata) : null };
};

export const readUpdate = (rr: UpdateRecord): UpdateItem => {
  const type = typeName(rr.type);
  const kind = updateKind(rr);
  return { name: rr.name, type, kind, ttl: rr.ttl, value: kind === 'add' || kind === 'delete_record' ? recordValueOf(type, rr.rdata) : null };
};
