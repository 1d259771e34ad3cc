// What a dyndns2 update asks and what it is answered (docs/dyndns.md): the protocol side
// (src/dyndns/dyndns2.ts) reads requests into this shape, the update (src/services/dyndns/
// nicUpdate.ts) answers in it.
import type { Deployment } from './deployment.js';
import type { Address } from './ip/address.js';
import { type AddressKind, addressKind } from './ip/addressKind.js';

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

/**
 * Kinds of address no one can reach at a published name (docs/dyndns.md "Addresses a router may
 * publish"): a router that sends one misread its own address. Private and shared addresses stay
 * publishable (a name for a host on a LAN or a VPN is a use routers have).
 */
const NEVER_PUBLISHED: ReadonlySet<AddressKind> = new Set(['unspecified', 'this_network', 'loopback', 'link_local', 'multicast', 'broadcast', 'reserved']);

/**
 * Why a dyndns update may not publish this address, or null when it may. Documentation ranges
 * (RFC 5737, RFC 3849) are the lab's test addresses: allowed in the sandbox, refused in production.
 */
export function unpublishableAddress(a: Address, deployment: Deployment): AddressKind | null {
  const kind = addressKind(a);
  if (NEVER_PUBLISHED.has(kind) || (kind === 'documentation' && deployment === 'production')) return kind;
  return null;
}
