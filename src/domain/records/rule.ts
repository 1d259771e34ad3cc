// The shape of one row of the record-type table (types.ts). Kept apart from the table so that the
// per-type modules can name it without importing the table that imports them. A row is policy
// only: what the codec (nameserver/wire/types/) can encode is checked there, and the presentation
// is the codec's.
import type { z } from 'zod';
import type { TypeMnemonic } from '../../../nameserver/wire/rrTypes.js';

/**
 * A type the API may be asked for: a registered mnemonic (nameserver/wire/rrTypes.ts), or RFC 3597
 * `TYPEnnn` of an unnamed type, held as opaque RDATA (./opaque.ts). Which of them the API writes
 * is the policy table's (types.ts: a type with a row).
 */
export type RecordType = TypeMnemonic | `TYPE${number}`;

export type { ZoneKind } from '../model/zone.js';
import type { ZoneKind } from '../model/zone.js';

/** What the API allows of a type, beyond what the codec can encode. */
export interface RecordTypePolicy {
  type: RecordType;
  /**
   * zod strict object for `data`: the business rules (ranges the service allows, host-name rules,
   * CAA values, TLSA digest lengths) and the canonical stored form (case, whitespace). The result
   * then goes through the codec's encoder (parseRecordData).
   */
  data: z.ZodType<Record<string, unknown>>;
  /** Error detail when the owner (relative name, '@' = apex) cannot hold this type, else null. */
  ownerProblem(owner: string): string | null;
  /** Zone kinds that may hold the type. */
  zoneKinds: readonly ZoneKind[];
}

export interface RecordTypeRule extends RecordTypePolicy {
  /** RDATA in RFC 1035 master-file presentation format, from the codec's wire form; names absolute WITH trailing dot. */
  presentation(data: Record<string, unknown>): string;
}
