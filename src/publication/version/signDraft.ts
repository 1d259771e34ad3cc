// Build step 3: signing (docs/dnssec.md "Signing in the build"). The zone's DNSSEC records —
// NSEC3PARAM, the NSEC3 or NSEC chain and every RRSIG — are made here, once, over the zone's own
// records and the rendered ones (the key sets among them: src/dnssec/keySetSource.ts), and stored
// with the version like its other records, so every nameserver process and every
// secondary serves the very same signatures. A change to a zone signed with the same keys and
// policy is signed by its names (signChange: the changed RRsets, the SOA and the denial records
// around them, read from the served chain); a zone signed for the first time, with other keys, or
// whose signatures are due for refresh, is signed whole (signDraft), keeping the signatures whose
// RRset did not change and that are not near expiry (signZone's `previous`). A zone that stops
// being signed loses every DNSSEC record in one version.
import { createHash } from 'node:crypto';
import type { ZoneRecord } from '../../../nameserver/types.js';
import { inTurns } from '../../../nameserver/zone/steps.js';
import { absoluteName, relativeName } from '../../../nameserver/wire/name.js';
import { type ChainLookup, signUpdate } from '../../../nameserver/dnssec/signUpdate.js';
import { GENERATED, type SignPolicy, type SigningKeys, signZoneSteps } from '../../../nameserver/dnssec/signZone.js';
import type { DraftRecord } from './versionDraft.js';

/** Rows of published_records the sign step wrote: ids of their own, made from the record. */
const DNSSEC_RECORD_PREFIX = 'dnssec:';
export const isDnssecRecord = (r: { recordId: string }) => r.recordId.startsWith(DNSSEC_RECORD_PREFIX);

const idOf = (r: ZoneRecord) =>
  `${DNSSEC_RECORD_PREFIX}${createHash('sha1').update(`${r.name}\u0000${r.type}\u0000${r.ttl}\u0000`).update(r.rdata).digest('hex')}`;

export interface SignInputs {
  zoneName: string;
  /** Null: the version is unsigned. */
  signing: { keys: SigningKeys; policy: SignPolicy } | null;
  /** The version's records before signing: the zone's own and the rendered ones (SOA, apex NS, key sets, …). */
  unsigned: ZoneRecord[];
  /** What is served now: the zone's records, its rendered records and its DNSSEC records. */
  previous: { records: ZoneRecord[]; dnssec: DraftRecord[] };
}

export async function signDraft(inputs: SignInputs): Promise<{ removed: DraftRecord[]; added: DraftRecord[] }> {
  const { zoneName, signing, previous } = inputs;
  if (!signing) return { removed: previous.dnssec, added: [] };
  return inTurns(signedDiff(inputs, signing));
}

function* signedDiff(inputs: SignInputs, signing: NonNullable<SignInputs['signing']>): Generator<void, { removed: DraftRecord[]; added: DraftRecord[] }> {
  const { zoneName, previous } = inputs;
  const absolute = (r: ZoneRecord) => ({ ...r, name: absoluteName(r.name, zoneName) });
  const signed = yield* signZoneSteps(
    zoneName,
    inputs.unsigned.map(absolute),
    signing.keys,
    signing.policy,
    [...previous.records, ...previous.dnssec].map(absolute),
    false,
  );
  const made = new Map<string, DraftRecord>();
  for (const [i, r] of signed.entries()) {
    if (i % 4096 === 0) yield;
    if (!GENERATED.has(r.type)) continue;
    const record = { name: relativeName(r.name, zoneName), type: r.type, ttl: r.ttl, rdata: r.rdata };
    const recordId = idOf(record);
    made.set(recordId, { recordId, ...record });
  }
  const before = new Set(previous.dnssec.map((r) => r.recordId));
  return {
    removed: previous.dnssec.filter((r) => !made.has(r.recordId)),
    added: [...made.values()].filter((r) => !before.has(r.recordId)),
  };
}

export interface ChangeInputs {
  zoneName: string;
  signing: { keys: SigningKeys; policy: SignPolicy };
  /** The names the change set touched (relative). */
  touched: string[];
  /** What is served at updateOwners(…) of those names: the zone's, the rendered and the DNSSEC records. */
  before: ZoneRecord[];
  /** The version's records before signing at those names. */
  after: ZoneRecord[];
}

/** A change signed by its names; null where it reaches further (signUpdate), and the zone is signed whole. */
export async function signChange(inputs: ChangeInputs, chain: ChainLookup): Promise<{ removed: DraftRecord[]; added: DraftRecord[] } | null> {
  const { zoneName } = inputs;
  const absolute = (r: ZoneRecord) => ({ ...r, name: absoluteName(r.name, zoneName) });
  const update = await signUpdate(
    {
      zone: zoneName,
      ...inputs.signing,
      touched: inputs.touched.map((n) => absoluteName(n, zoneName)),
      before: inputs.before.map(absolute),
      after: inputs.after.map(absolute),
    },
    chain,
  );
  if (!update) return null;
  const draft = (r: ZoneRecord): DraftRecord => {
    const record = { name: relativeName(r.name, zoneName), type: r.type, ttl: r.ttl, rdata: r.rdata };
    return { recordId: idOf(record), ...record };
  };
  return { removed: update.removed.map(draft), added: update.added.map(draft) };
}
