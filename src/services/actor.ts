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
