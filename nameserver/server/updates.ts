// The seam between the nameserver and whoever applies dynamic updates (RFC 2136). The nameserver
// reads the message, checks its TSIG, that the zone is served here and that the message is well
// formed (wire/update.ts checkUpdateForm), refuses unsigned updates, and then hands the rest to
// an UpdateHandler: prerequisites, permissions, the change itself and when to answer are the
// handler's. Its rcode goes back to the client in a response signed with the request's key.
import type { TsigKey } from '../wire/tsig.js';
import type { UpdateRecord } from '../wire/update.js';

export type { UpdateRecord } from '../wire/update.js';

export interface UpdateRequest {
  /** The zone section's name: lower case, no trailing dot; a zone this server serves. */
  zone: string;
  /** As sent; CLASS and TTL say what each asks for (RFC 2136 §2.4). */
  prerequisites: UpdateRecord[];
  /** As sent; CLASS and TTL say what each does (RFC 2136 §2.5). */
  updates: UpdateRecord[];
  /** The verified key, null when unsigned (the server refuses those before asking the handler). */
  key: TsigKey | null;
  transport: 'udp' | 'tcp';
  /** The client's address as the socket reports it (for UDP helper processes, the one the helper saw). */
  remoteAddress: string;
}

/**
 * Resolves to the rcode to answer (NOERROR, REFUSED, NOTAUTH, YXDOMAIN, YXRRSET, NXRRSET, NOTZONE,
 * SERVFAIL, …; 0–15). Never rejects (a rejection is answered SERVFAIL and logged).
 */
export type UpdateHandler = (request: UpdateRequest) => Promise<number>;
