// Unscoped reads and writes that must happen before an acting tenant is known: authenticating a
// token and resolving X-Act-As-Customer. Nothing else may use it (see docs/architecture.md).
import type { Knex } from 'knex';
import type { CredentialPolicy } from '../../domain/credentialPolicy.js';
import { newId } from '../../domain/ids.js';
import { PREPARED } from '../preparedStatements.js';
import { type Tenant, type TenantRow, TENANT_DEFAULTS, tenantToDomain } from './tenantRows.js';

export interface TokenRecord {
  id: string;
  apiClientId: string;
  apiClientName: string;
  name: string;
  deployment: 'sandbox' | 'production';
  scopes: string[];
  displayPrefix: string;
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  tenant: Tenant;
  /** The token's tenant and its ancestors, root first. */
  chain: Tenant[];
  user: { id: string; email: string; permissions: string[] } | null;
  /**
   * The token's credential policy (docs/credentials.md); null: its scopes alone. Fixed at issue,
   * so a cached record (src/services/tokenCache.ts) never holds a stale one.
   */
  policy: CredentialPolicy | null;
}

/** A tenants row as to_jsonb gives it: timestamps arrive as strings. */
function tenantRowFromJson(j: Record<string, unknown>): TenantRow {
  const date = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string));
  return { ...(j as unknown as TenantRow), created_at: date(j.created_at)!, updated_at: date(j.updated_at)!, suspended_at: date(j.suspended_at) };
}

/** A tenant and its ancestors, root first, from `to_jsonb` rows of the tenants on its path (any order). */
export function chainFromJson(tenantId: string, rows: Record<string, unknown>[] | null): Tenant[] {
  const byId = new Map((rows ?? []).map((j) => [j.id as string, tenantToDomain(tenantRowFromJson(j))]));
  const tenant = byId.get(tenantId);
  if (!tenant) return [];
  return tenant.path.map((id) => byId.get(id)).filter((t): t is Tenant => t !== undefined);
}

export class IdentityStore {
  constructor(private readonly db: Knex) {}

  /** The token with its tenant and ancestor chain, in one round trip. */
  async findTokenByHash(hash: string): Promise<TokenRecord | null> {
    const result = await this.db
      .raw<{ rows: Record<string, any>[] }>(
        `SELECT k.id, k.api_client_id, c.name AS api_client_name, k.name, k.deployment, k.scopes, k.display_prefix,
                k.expires_at, k.revoked_at, k.last_used_at, k.tenant_id, k.policy,
                u.id AS user_id, u.email AS user_email, u.permissions AS user_permissions,
                (SELECT jsonb_agg(to_jsonb(a.*)) FROM tenants a WHERE a.id = ANY (t.path)) AS chain
         FROM api_tokens k
         JOIN api_clients c ON c.id = k.api_client_id
         JOIN tenants t ON t.id = k.tenant_id
         LEFT JOIN users u ON u.id = k.user_id
         WHERE k.token_hash = ?`,
        [hash],
      )
      .options(PREPARED);
    const row = result.rows[0];
    if (!row) return null;
    const chain = chainFromJson(row.tenant_id, row.chain);
    const tenant = chain[chain.length - 1];
    if (!tenant) return null;
    return {
      id: row.id,
      apiClientId: row.api_client_id,
      apiClientName: row.api_client_name,
      name: row.name,
      deployment: row.deployment,
      scopes: row.scopes,
      displayPrefix: row.display_prefix,
      expiresAt: row.expires_at,
      revokedAt: row.revoked_at,
      lastUsedAt: row.last_used_at,
      tenant,
      chain,
      user: row.user_id ? { id: row.user_id, email: row.user_email, permissions: row.user_permissions } : null,
      policy: row.policy ?? null,
    };
  }

  /** Records use at most once a minute per token, so reads do not turn into a write each. */
  async touchToken(id: string, now: Date): Promise<void> {
    await this.db('api_tokens')
      .where('id', id)
      .andWhere((q) => q.whereNull('last_used_at').orWhere('last_used_at', '<', new Date(now.getTime() - 60_000)))
      .update({ last_used_at: now });
  }

  async tenantById(id: string): Promise<Tenant | null> {
    const row = await this.db<TenantRow>('tenants').where('id', id).first();
    return row ? tenantToDomain(row) : null;
  }

  /** The tenant and its ancestors, root first. */
  async chain(tenant: Tenant): Promise<Tenant[]> {
    const rows = await this.db<TenantRow>('tenants').whereIn('id', tenant.path);
    const byId = new Map(rows.map((r) => [r.id, tenantToDomain(r)]));
    return tenant.path.map((id) => byId.get(id)).filter((t): t is Tenant => t !== undefined);
  }

  async tenantByBillingClient(clientId: string): Promise<Tenant | null> {
    const row = await this.db<TenantRow>('tenants').where('billing_client_id', clientId).first();
    return row ? tenantToDomain(row) : null;
  }

  /**
   * Creates the customer for a billing client directly below the platform, exactly once: the
   * unique billing_client_id decides between parallel first requests. `created` tells the one
   * winner, which writes the audit entries in the same transaction.
   */
  async linkBillingCustomer(
    trx: Knex.Transaction,
    platform: Tenant,
    client: { id: string; name: string; email: string | null },
  ): Promise<{ tenant: Tenant; created: boolean }> {
    const id = newId('ten');
    const defaults = TENANT_DEFAULTS.customer;
    const inserted = await trx<TenantRow>('tenants')
      .insert({
        id,
        parent_id: platform.id,
        type: 'customer',
        name: client.name,
        path: [...platform.path, id],
        api_rate_limit_per_minute: defaults.apiRateLimitPerMinute,
        max_zones: defaults.maxZones,
        features: defaults.features,
        support_email: client.email,
        billing_client_id: client.id,
      } as Partial<TenantRow>)
      .onConflict('billing_client_id')
      .ignore()
      .returning('*');
    if (inserted[0]) return { tenant: tenantToDomain(inserted[0] as TenantRow), created: true };
    const existing = await trx<TenantRow>('tenants').where('billing_client_id', client.id).first();
    if (!existing) throw new Error(`billing client ${client.id} neither inserted nor found`);
    return { tenant: tenantToDomain(existing), created: false };
  }
}
