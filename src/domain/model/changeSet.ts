import type { ChangeSetKind, ChangeSetState } from '../publication.js';

/** One unit of writes to a zone (stored by src/db/repositories/changeSetRows.ts). */
export interface ChangeSet {
  id: string;
  zoneId: string;
  zoneName: string;
  seq: number;
  state: ChangeSetState;
  error: { code: string; detail?: string } | null;
  kind: ChangeSetKind;
  comment: string | null;
  itemCount: number;
  summary: Record<string, number>;
  results: unknown[];
  /** Owner names the change touched, for an incremental publication; null: the whole zone. */
  touchedNames: string[] | null;
  /** The published version (SOA serial) that carried it. */
  serial: number | null;
  apiClientId: string | null;
  requestId: string | null;
  pushedAt: Date | null;
  liveAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}
