// Production has no seed: the operator creates the platform tenant and its first token once,
// with `npm run admin -- create-platform "<name>"`. Everything else is then done over the API.
import type { Deployment } from '../config/index.js';
import type { Pool } from '../db/context.js';
import { insertBootstrapCredentials } from '../db/repositories/apiCredentialRows.js';
import { insertPlatformTenant, platformTenantExists, TENANT_DEFAULTS } from '../db/repositories/tenantRows.js';
import { DomainError } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import { SCOPES } from '../domain/scopes.js';
import { displayPrefix, generateToken, hashToken } from '../domain/tokens.js';
import { advisoryLock } from '../db/lockOrder.js';

export interface BootstrappedPlatform {
  tenantId: string;
  apiClientId: string;
  token: string;
}

export async function bootstrapPlatform(pool: Pool, deployment: Deployment, name: string, now: Date): Promise<BootstrappedPlatform> {
  return pool.transaction(async (trx) => {
    await advisoryLock(trx, 'deployment', 'bootstrap-platform');
    if (await platformTenantExists(trx)) throw new DomainError('conflict', { reason: 'platform_exists' });
    const tenantId = newId('ten');
    const defaults = TENANT_DEFAULTS.platform;
    await insertPlatformTenant(trx, {
      id: tenantId,
      parent_id: null,
      type: 'platform',
      name,
      path: [tenantId],
      api_rate_limit_per_minute: defaults.apiRateLimitPerMinute,
      max_zones: defaults.maxZones,
      features: defaults.features,
      created_at: now,
      updated_at: now,
    });
    const apiClientId = newId('cli');
    const token = generateToken(deployment);
    await insertBootstrapCredentials(
      trx,
      { id: apiClientId, tenantId, name: 'Platform administration', createdAt: now },
      {
        id: newId('tok'),
        apiClientId,
        tenantId,
        userId: null,
        name: 'Bootstrap token',
        deployment,
        tokenHash: hashToken(token),
        displayPrefix: displayPrefix(token),
        scopes: [...SCOPES],
        expiresAt: null,
        policy: null,
        createdAt: now,
      },
    );
    return { tenantId, apiClientId, token };
  });
}
