// Finding the reverse zone of an address and the name of its PTR there, shared by the PTR service
// and the assignments (docs/rdns.md "Reverse zones and the zone kinds").
import { ScopedDb } from '../../db/tenantScope.js';
import type { WriteContext } from '../writeContext.js';

export { type ReverseZoneRow, reverseZoneOf } from '../../db/repositories/rdnsRows.js';

/**
 * The write context of a reverse zone's owner: a provider reverse zone belongs to the platform
 * tenant, outside a customer's scope. The caller has checked the address is the acting tenant's
 * (assignment or prefix) before it writes through this.
 */
export const ownerScope = (ctx: WriteContext, tenantId: string): WriteContext =>
  tenantId === ctx.scoped.rootTenantId ? ctx : { ...ctx, scoped: new ScopedDb(ctx.db, tenantId) };
