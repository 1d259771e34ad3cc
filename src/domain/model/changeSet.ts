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

/**
 * Who wrote a change set, by the kind of its writer's id (the change set's api_client_id): an API
 * client (`cli_`), a DynDNS host's router (`dyn_`, /nic/update), a TSIG key's RFC 2136 UPDATE
 * (`tsk_`), or the service itself (the lab registry, address spaces' forward records, DNSSEC).
 */
export type ChangeSetSource = 'api' | 'dyndns' | 'rfc2136' | 'service';

const SOURCE_OF_PREFIX: Readonly<Record<string, ChangeSetSource>> = { cli: 'api', dyn: 'dyndns', tsk: 'rfc2136' };

export function changeSetSource(writerId: string | null): { source: ChangeSetSource; sourceId: string | null } {
  const source = writerId === null ? undefined : SOURCE_OF_PREFIX[writerId.slice(0, writerId.indexOf('_'))];
  return source ? { source, sourceId: writerId } : { source: 'service', sourceId: null };
}
