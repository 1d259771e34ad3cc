// What a dyndns2 update asks and what it is answered (docs/dyndns.md): the protocol side
// (src/dyndns/dyndns2.ts) reads requests into this shape, the update (src/services/dyndns/
// nicUpdate.ts) answers in it.
import type { Address } from './ip/address.js';

export type DyndnsAnswerCode = 'good' | 'nochg' | 'badauth' | 'nohost' | 'notfqdn' | 'abuse' | 'dnserr' | '911';

export interface DyndnsAnswer {
  code: DyndnsAnswerCode;
  /** The address the host now has, for good and nochg. */
  ip?: string;
}

export interface DyndnsUpdateRequest {
  username: string | null;
  password: string | null;
  /** As sent (comma-separated lists split); null: none named (the credentials' host). */
  hostnames: string[] | null;
  /** The addresses asked for; a family absent is left as it is. */
  ipv4: Address | null;
  ipv6: Address | null;
  /** offline=YES: the host's addresses are withdrawn (docs/dyndns.md "offline"). */
  offline: boolean;
  /** The client's address (the peer, or X-Forwarded-For from a trusted proxy): the update's address when none is given. */
  source: Address | null;
  /** The User-Agent, kept as the host's last client. */
  client: string | null;
}
