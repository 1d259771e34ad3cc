// Rendered records come from sources: records the service serves in a zone without storing them
// (the apex SOA/NS, the DNSSEC key sets, a reverse zone's default PTRs, …), each rendered anew from its inputs by every
// build. A source says which zones it renders in, reads its inputs through a repository inside
// the build's snapshot, and renders them purely — in the signing thread too, so its inputs cross
// threads by structured cloning (plain data, Set, bigint, Buffer).
//
// When a source's inputs change without a record of the zone's own changing, the writer asks for
// a build (requestRebuild, src/services/requestRebuild.ts) naming the owners whose rendered
// records change, or none for the whole zone: the pending change sets say what changed since the
// published sequence, for rendered records as for stored ones.
import type { Transaction } from '../db/context.js';
import type { BuildZone } from '../db/repositories/versionStore.js';
import type { ZoneRecord } from '../../nameserver/types.js';
import type { SignPolicy, SigningKeys } from '../../nameserver/dnssec/signZone.js';

/** The zone a version is built for, as every step of the build and every source sees it. */
export interface RenderZone {
  id: string;
  name: string;
  defaultTtl: number;
  soaEmail: string;
}

/** What every source renders with: the zone, the version's serial, the configured NAMESERVERS, how the version is signed. */
export interface RenderContext {
  zone: RenderZone;
  serial: number;
  nameservers: readonly string[];
  /** The keys and policy the version is signed with (read by the build for its signer); null: unsigned. */
  signing: { keys: SigningKeys; policy: SignPolicy } | null;
}

export interface RecordSource<Inputs = unknown> {
  /** Names the source's inputs in what the build read (DraftInputs.rendered). */
  readonly name: string;
  /** Whether the source renders records in this zone (no read happens where it does not). */
  appliesTo(zone: BuildZone): boolean;
  /** Its inputs for this zone, read in the build's transaction; null: nothing to render. Absent: it renders in every zone from the RenderContext alone. */
  read?(trx: Transaction, zone: BuildZone): Promise<Inputs | null>;
  /** Its records for this version (zone-relative owners, wire form). */
  render(ctx: RenderContext, inputs: Inputs): ZoneRecord[];
}

/** The sources' inputs as the build read them, by source name. */
export type RenderedInputs = Record<string, unknown>;
