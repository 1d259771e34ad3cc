import type { Knex } from 'knex';
import { consumeRateLimit, type RateLimitReading } from '../db/rateLimitWindows.js';
import type { Tenant } from '../db/repositories/tenantRows.js';

export type { RateLimitReading };

// Every API client counts against its tenant's api_rate_limit_per_minute: counted in the token
// lookup itself (IdentityStore.findTokenByHash), one round trip for both.

/** Acting for a customer also counts against the customer's own limit, whoever acts. */
export const consumeCustomerLimit = (db: Knex, customer: Tenant, now: Date) =>
  consumeRateLimit(db, `tenant:${customer.id}`, customer.limits.apiRateLimitPerMinute, now);
