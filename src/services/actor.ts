import type { TokenRecord } from '../db/repositories/identityStore.js';
import type { Tenant } from '../db/repositories/tenantRows.js';

/** Who is asking, and for whom: built once per request by authentication and act-as. */
export interface Actor {
  requestId: string;
  token: TokenRecord;
  /** The tenant the request is evaluated as: the token's own, or the customer acted for. */
  acting: Tenant;
  /** The acting tenant and its ancestors, root first. */
  actingChain: Tenant[];
  /** True when X-Act-As-Customer named the acting tenant. */
  onBehalfOf: boolean;
}

/**
 * An actor that writes without an API token (the lab registry, a DynDNS host's router): it
 * stands in the audit log and on its change sets as `id`, acting as the last tenant of `chain`.
 */
export function tokenlessActor(id: string, name: string, chain: Tenant[], deployment: TokenRecord['deployment'], requestId: string): Actor {
  const tenant = chain[chain.length - 1]!;
  return {
    requestId,
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
    },
    acting: tenant,
    actingChain: chain,
    onBehalfOf: false,
  };
}
