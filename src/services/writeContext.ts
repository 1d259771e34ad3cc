import type { Knex } from 'knex';
import { type TenantRow, tenantToDomain } from '../db/repositories/tenantRows.js';
import { ScopedDb } from '../db/tenantScope.js';
import type { Clock } from '../domain/clock.js';
import type { Deployment } from '../domain/deployment.js';
import { newId } from '../domain/ids.js';
import type { WriteContext as DomainWriteContext } from '../domain/model/writeContext.js';
import { type Actor, tokenlessActor } from './actor.js';

/** The write context of every service that writes: the request transaction, its scope, actor, clock. */
export type WriteContext = DomainWriteContext<Knex.Transaction, ScopedDb, Actor>;

/** The context of a write made without an API token (tokenlessActor): no API identity to change. */
export const tokenlessWriteContext = (trx: Knex.Transaction, actor: Actor, clock: Clock): WriteContext => ({
  trx,
  scoped: new ScopedDb(trx, actor.acting.id),
  actor,
  clock,
  identityChanged: () => {},
});

/**
 * A part of the service writing in a tenant's name on its own (the lab registry, an address
 * space's forward records, an RFC 2136 update signed with the tenant's TSIG key): a tokenless
 * actor `as` acting as that tenant; null when it is gone. `credential`: the policy and client
 * address the write seam checks (a TSIG key's; docs/credentials.md).
 */
export async function tenantWriteContext(
  trx: Knex.Transaction,
  clock: Clock,
  tenantId: string,
  as: { id: string; name: string },
  deployment: Deployment,
  credential?: Parameters<typeof tokenlessActor>[5],
): Promise<WriteContext | null> {
  const row = (await trx('tenants').where('id', tenantId).first()) as TenantRow | undefined;
  if (!row) return null;
  return tokenlessWriteContext(trx, tokenlessActor(as.id, as.name, [tenantToDomain(row)], deployment, newId('req'), credential), clock);
}
