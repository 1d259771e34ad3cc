import type { TokenRecord } from '../db/repositories/identityStore.js';
import type { Tenant } from '../db/repositories/tenantRows.js';
import type { CredentialPolicy } from '../domain/credentialPolicy.js';

/**
 * Who is asking, and for whom: built once per request by authentication and act-as. The
 * credential's policy travels as `token.policy` (an API token's, or the TSIG key's of an RFC 2136
 * update: tokenlessActor's `credential`), checked against `source` by every write to a zone
 * (src/services/credentialPolicy.ts, called at the write seam).
 */
export interface Actor {
  requestId: string;
  token: TokenRecord;
  /** The client's address: the API's TCP peer, a DNS client's address; null where there is none (the service's own writes). */
  source: string | null;
  /** The tenant the request is evaluated as: the token's own, or the customer acted for. */
  acting: Tenant;
  /** The acting tenant and its ancestors, root first. */
  actingChain: Tenant[];
  /** True when X-Act-As-Customer named the acting tenant. */
  onBehalfOf: boolean;
}

/**
 * An actor that writes without an API token (the lab registry, a DynDNS host's router, later a
 * TSIG-signed RFC 2136 update): it stands in the audit log and on its change sets as `id`, acting
 * as the last tenant of `chain`. `credential`: the policy of the credential it writes with (a TSIG
 * key's) and the client's address, checked like an API token's.
 */
export function tokenlessActor(
  id: string,
  name: string,
  chain: Tenant[],
  deployment: TokenRecord['deployment'],
  requestId: string,
  credential: { policy: CredentialPolicy | null; source: string | null } = { policy: null, source: null },
): Actor {
  const tenant = chain[chain.length - 1]!;
  return {
    requestId,
    source: credential.source,
    token: {
      id,
      apiClientId: id,
      apiClientName: name,
      name,
      deployment,
      scopes: [],
      displayPrefix: '',
      expiresAt: null,
      revokedAt: null,
      lastUsedAt: null,
      tenant,
      chain,
      user: null,
      policy: credential.policy,
    },
    acting: tenant,
    actingChain: chain,
    onBehalfOf: false,
  };
}
