import type { Knex } from 'knex';
import { consumeRateLimit, type RateLimitReading } from '../db/rateLimitWindows.js';
import type { TokenRecord } from '../db/repositories/identityStore.js';
import type { Tenant } from '../db/repositories/tenantRows.js';

export type { RateLimitReading };

/** Every API client counts against its tenant's api_rate_limit_per_minute. */
export const consumeClientLimit = (db: Knex, token: TokenRecord, now: Date) =>
  consumeRateLimit(db, `client:${token.apiClientId}`, token.tenant.limits.apiRateLimitPerMinute, now);

/** Acting for a customer also counts against the customer's own limit, whoever acts. */
export const consumeCustomerLimit = (db: Knex, customer: Tenant, now: Date) =>
  consumeRateLimit(db, `tenant:${customer.id}`, customer.limits.apiRateLimitPerMinute, now);
