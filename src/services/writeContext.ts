import type { Transaction, TransactionContext } from '../db/context.js';
import { IdentityStore } from '../db/repositories/identityStore.js';
import { ScopedDb } from '../db/tenantScope.js';
import type { Clock } from '../domain/clock.js';
import type { Deployment } from '../domain/deployment.js';
import { newId } from '../domain/ids.js';
import type { WriteContext as DomainWriteContext } from '../domain/model/writeContext.js';
import { type Actor, tokenlessActor } from './actor.js';

/**
 * The context of every service that writes: a DbContext inside a transaction (`db`, `scoped`)
 * plus who writes and when. Being a DbContext, it is handed as is to any read.
 */
export interface WriteContext extends TransactionContext, DomainWriteContext<Transaction, ScopedDb, Actor> {}

/** The write context of a request's transaction (runWrite's), in the actor's name. */
export const writeContextIn = (tx: TransactionContext, actor: Actor, clock: Clock, identityChanged: () => void): WriteContext => ({
  db: tx.db,
  scoped: tx.scoped,
  actor,
  clock,
  identityChanged,
});

/** The context of a write made without an API token (tokenlessActor): no API identity to change. */
export const tokenlessWriteContext = (trx: Transaction, actor: Actor, clock: Clock): WriteContext =>
  writeContextIn({ db: trx, scoped: new ScopedDb(trx, actor.acting.id) }, actor, clock, () => {});

/**
 * A part of the service writing in a tenant's name on its own (the lab registry, an address
 * space's forward records, an RFC 2136 update signed with the tenant's TSIG key): a tokenless
 * actor `as` acting as that tenant; null when it is gone. `credential`: the policy and client
 * address the write seam checks (a TSIG key's; docs/credentials.md).
 */
export async function tenantWriteContext(
  trx: Transaction,
  clock: Clock,
  tenantId: string,
  as: { id: string; name: string },
  deployment: Deployment,
  credential?: Parameters<typeof tokenlessActor>[5],
): Promise<WriteContext | null> {
  const tenant = await new IdentityStore(trx).tenantById(tenantId);
  if (!tenant) return null;
  return tokenlessWriteContext(trx, tokenlessActor(as.id, as.name, [tenant], deployment, newId('req'), credential), clock);
}
