// Finding the reverse zone of an address and the name of its PTR there, shared by the PTR service
// and the assignments (docs/rdns.md "Reverse zones and the zone kinds").
import type { Knex } from 'knex';
import { ScopedDb } from '../../db/tenantScope.js';
import { type Address, formatAddress } from '../../domain/ip/address.js';
import type { ZoneKind } from '../../domain/model/zone.js';
import type { WriteContext } from '../writeContext.js';

export interface ReverseZoneRow {
  id: string;
  name: string;
  kind: ZoneKind;
  tenant_id: string;
  ip_space_id: string | null;
  prefix_id: string | null;
  reverse_block: string;
}

/** The most specific reverse zone holding the address (an RFC 2317 zone before its /24's). */
export async function reverseZoneOf(db: Knex | Knex.Transaction, a: Address, kinds: ZoneKind[] = ['provider_reverse', 'reverse']): Promise<ReverseZoneRow | undefined> {
  return (await db('zones')
    .whereIn('kind', kinds)
    .whereNot('status', 'deleting')
    .whereRaw('reverse_block >>= ?::inet', [formatAddress(a)])
    .orderByRaw('masklen(reverse_block) desc')
    .first('id', 'name', 'kind', 'tenant_id', 'ip_space_id', 'prefix_id', db.raw('reverse_block::text as reverse_block'))) as ReverseZoneRow | undefined;
}

/**
 * The write context of a reverse zone's owner: a provider reverse zone belongs to the platform
 * tenant, outside a customer's scope. The caller has checked the address is the acting tenant's
 * (assignment or prefix) before it writes through this.
 */
export const ownerScope = (ctx: WriteContext, tenantId: string): WriteContext =>
  tenantId === ctx.scoped.rootTenantId ? ctx : { ...ctx, scoped: new ScopedDb(ctx.trx, tenantId) };
