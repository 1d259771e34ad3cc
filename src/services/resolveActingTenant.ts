import { type BillingDirectory, BillingUnavailableError } from '../billing/billingDirectory.js';
import type { Config } from '../config/index.js';
import type { Pool } from '../db/context.js';
import { recordAudit } from '../db/repositories/auditLog.js';
import type { IdentityStore, TokenRecord } from '../db/repositories/identityStore.js';
import type { Tenant } from '../db/repositories/tenantRows.js';
import type { Clock } from '../domain/clock.js';
import { DomainError } from '../domain/errors.js';
import { assertMayActFor, autoLinkDecision, parseActAsHeader } from '../domain/tenancy.js';
import type { Actor } from './actor.js';

export interface ActAsDeps {
  db: Pool;
  identity: IdentityStore;
  billing: BillingDirectory;
  clock: Clock;
  config: Config;
}

/** Applies the spec's X-Act-As-Customer case table and returns the request's actor. */
export async function resolveActingTenant(
  deps: ActAsDeps,
  token: TokenRecord,
  header: string | undefined,
  requestId: string,
  /** The client's address (the TCP peer), for the token's credential policy. */
  source: string | null,
): Promise<Actor> {
  const actorFor = async (acting: Tenant, onBehalfOf: boolean): Promise<Actor> => ({
    requestId,
    token,
    source,
    acting,
    actingChain: await deps.identity.chain(acting),
    onBehalfOf,
  });
  if (header === undefined || header.trim() === '') {
    return { requestId, token, source, acting: token.tenant, actingChain: token.chain, onBehalfOf: false };
  }
  if (!token.scopes.includes('act_as')) throw new DomainError('insufficient_scope', { scopes: 'act_as' });

  const target = parseActAsHeader(header);
  const label = header.trim();
  // A customer has no customers below it; say so without revealing whether the target exists.
  if (token.tenant.type === 'customer') throw new DomainError('act_as_not_allowed', { target: label });

  if (target.kind === 'tenant') {
    const tenant = await deps.identity.tenantById(target.id);
    if (!tenant) throw new DomainError('act_as_unknown', { target: label });
    assertMayActFor(token.tenant, tenant, label);
    return actorFor(tenant, true);
  }

  const linked = await deps.identity.tenantByBillingClient(target.clientId);
  if (linked) {
    assertMayActFor(token.tenant, linked, label);
    return actorFor(linked, true);
  }
  const decision = autoLinkDecision({
    deployment: deps.config.deployment,
    tokenTenantType: token.tenant.type,
    userPermissions: token.user?.permissions ?? null,
  });
  if (decision === 'unknown') throw new DomainError('act_as_unknown', { target: label });
  if (decision === 'not_allowed') throw new DomainError('act_as_not_allowed', { target: label });

  let client;
  try {
    client = await deps.billing.findClient(target.clientId);
  } catch (e) {
    if (e instanceof BillingUnavailableError) {
      throw new DomainError('service_unavailable', { reason: 'billing_unreachable' }, [], { 'Retry-After': '30' });
    }
    throw e;
  }
  // A billing system answering for another id than asked is not trusted with the link.
  if (client?.status !== 'active' || client.id !== target.clientId) {
    throw new DomainError('act_as_unknown', { target: label });
  }

  const tenant = await deps.db.transaction(async (trx) => {
    const { tenant, created } = await deps.identity.linkBillingCustomer(trx, token.tenant, client);
    if (created) {
      const creator: Actor = { requestId, token, source, acting: token.tenant, actingChain: [], onBehalfOf: false };
      const now = deps.clock.now();
      await recordAudit(trx, creator, now, {
        action: 'tenant.created',
        targetType: 'tenant',
        targetId: tenant.id,
        details: { type: 'customer', parent_id: token.tenant.id, name: tenant.name, via: 'billing_auto_link' },
      });
      await recordAudit(trx, creator, now, {
        action: 'tenant.billing_linked',
        targetType: 'tenant',
        targetId: tenant.id,
        details: { billing_client_id: client.id },
      });
    }
    return tenant;
  });
  return actorFor(tenant, true);
}
