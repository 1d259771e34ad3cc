// Production has no seed: the operator creates the platform tenant and its first token once,
// with `npm run admin -- create-platform "<name>"`. Everything else is then done over the API.
import type { Knex } from 'knex';
import type { Deployment } from '../config/index.js';
import { TENANT_DEFAULTS } from '../db/repositories/tenantRows.js';
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

export async function bootstrapPlatform(db: Knex, deployment: Deployment, name: string, now: Date): Promise<BootstrappedPlatform> {
  return db.transaction(async (trx) => {
    await advisoryLock(trx, 'deployment', 'bootstrap-platform');
    if (await trx('tenants').where({ type: 'platform' }).first('id')) {
      throw new DomainError('conflict', { reason: 'platform_exists' });
    }
    const tenantId = newId('ten');
    const defaults = TENANT_DEFAULTS.platform;
    await trx('tenants').insert({
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
    await trx('api_clients').insert({ id: apiClientId, tenant_id: tenantId, name: 'Platform administration', created_at: now });
    const token = generateToken(deployment);
    await trx('api_tokens').insert({
      id: newId('tok'),
      api_client_id: apiClientId,
      tenant_id: tenantId,
      name: 'Bootstrap token',
      deployment,
      token_hash: hashToken(token),
      display_prefix: displayPrefix(token),
      scopes: [...SCOPES],
      created_at: now,
    });
    return { tenantId, apiClientId, token };
  });
}
