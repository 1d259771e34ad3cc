// The shape of one row of the record-type table (types.ts). Kept apart from the table so that the
// per-type modules can name it without importing the table that imports them.
import type { z } from 'zod';

export const RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'SRV', 'CAA', 'TLSA', 'NS', 'PTR'] as const;
export type RecordType = (typeof RECORD_TYPES)[number];

export type ZoneKind = 'forward' | 'reverse';

export interface RecordTypeRule {
  type: RecordType;
  /** zod strict object for `data`; parses AND normalises to the canonical stored form. */
  data: z.ZodType<Record<string, unknown>>;
  /** RDATA in RFC 1035 master-file presentation format; names absolute WITH trailing dot. */
  presentation(data: Record<string, unknown>): string;
  /** Error detail when the owner (relative name, '@' = apex) cannot hold this type, else null. */
  ownerProblem(owner: string): string | null;
  /** Zone kinds that may hold the type. */
  zoneKinds: readonly ZoneKind[];
}
