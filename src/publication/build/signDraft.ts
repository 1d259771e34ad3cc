// Build step 3: signing (docs/dnssec.md "Signing"). The zone's DNSSEC records — DNSKEY, CDS,
// CDNSKEY, NSEC3PARAM, the NSEC3 or NSEC chain and every RRSIG — are made here, once, and stored
// with the version like its other records, so every nameserver process and every secondary
// serves the very same signatures. A signed zone is signed whole on each build, but signatures
// whose RRset did not change and that are not near expiry are kept (signZone's `previous`), so a
// one-record change signs that RRset, the SOA and the denial records around it. A zone that stops
// being signed loses every DNSSEC record in one version.
import { createHash } from 'node:crypto';
import { TYPE } from '../../../nameserver/types.js';
import { absoluteName, relativeName } from '../../../nameserver/wire/name.js';
import { type SignPolicy, type SigningKeys, signZone } from '../../dnssec/signZone.js';
import type { WireRecord } from '../zoneRecords.js';
import type { DraftRecord } from './versionDraft.js';

/** The types only the sign step writes; user records of these types do not exist. */
export const DNSSEC_TYPES: ReadonlySet<number> = new Set([TYPE.DNSKEY, TYPE.RRSIG, TYPE.NSEC, TYPE.NSEC3, TYPE.NSEC3PARAM, TYPE.CDS, TYPE.CDNSKEY]);

/** Rows of published_records the sign step wrote: ids of their own, made from the record. */
export const DNSSEC_RECORD_PREFIX = 'dnssec:';
export const isDnssecRecord = (r: { recordId: string }) => r.recordId.startsWith(DNSSEC_RECORD_PREFIX);

const idOf = (r: WireRecord) => `${DNSSEC_RECORD_PREFIX}${createHash('sha1').update(`${r.name}\u0000${r.type}\u0000${r.ttl}\u0000`).update(r.rdata).digest('hex')}`;

export interface SignInputs {
  zoneName: string;
  /** Null: the version is unsigned. */
  signing: { keys: SigningKeys; policy: SignPolicy } | null;
  /** The version's records before signing: the zone's own and the rendered SOA and apex NS. */
  unsigned: WireRecord[];
  /** What is served now: the zone's records, its rendered records and its DNSSEC records. */
  previous: { records: WireRecord[]; dnssec: DraftRecord[] };
}

export function signDraft(inputs: SignInputs): { removed: DraftRecord[]; added: DraftRecord[] } {
  const { zoneName, signing, previous } = inputs;
  if (!signing) return { removed: previous.dnssec, added: [] };
  const absolute = (r: WireRecord) => ({ ...r, name: absoluteName(r.name, zoneName) });
  const signed = signZone(zoneName, inputs.unsigned.map(absolute), signing.keys, signing.policy, [...previous.records, ...previous.dnssec].map(absolute));
  const made = new Map<string, DraftRecord>();
  for (const r of signed) {
    if (!DNSSEC_TYPES.has(r.type)) continue;
    const record = { name: relativeName(r.name, zoneName), type: r.type, ttl: r.ttl, rdata: r.rdata };
    made.set(idOf(record), { recordId: idOf(record), ...record });
  }
  const before = new Set(previous.dnssec.map((r) => r.recordId));
  return {
    removed: previous.dnssec.filter((r) => !made.has(r.recordId)),
    added: [...made.values()].filter((r) => !before.has(r.recordId)),
  };
}
