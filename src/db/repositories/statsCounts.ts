// The counts of GET /stats and GET /me usage (src/services/stats.ts, src/services/index.ts): one
// function per question, each over the acting tenant's scope.
import type { Knex } from 'knex';
import { countRows } from '../count.js';
import type { ScopedDb } from '../tenantScope.js';
import { tenantZones } from './zoneQueries.js';

const countBy = async (q: Knex.QueryBuilder, column: string): Promise<Record<string, number>> => {
  const rows = (await q.select(column).count({ n: '*' }).groupBy(column)) as Record<string, unknown>[];
  return Object.fromEntries(rows.map((r) => [String(r[column]), Number(r.n)]));
};

/** Tokens that still authenticate: neither revoked nor expired (the token's `status: active`). */
const whereTokenActive = (q: Knex.QueryBuilder, now: Date) =>
  q.whereNull('revoked_at').andWhere((w) => w.whereNull('expires_at').orWhere('expires_at', '>', now));

/** The tenants below the acting one: by type, and how many are suspended. */
export const subtenantCounts = async (scoped: ScopedDb, actingId: string) => ({
  byType: await countBy(scoped.from('tenants').whereNot('id', actingId), 'type'),
  suspended: await countRows(scoped.from('tenants').whereNot('id', actingId).whereNotNull('suspended_at')),
});

/** Active and revoked tokens and API clients of the subtree. */
export const credentialCounts = async (scoped: ScopedDb, now: Date) => ({
  active: await countRows(whereTokenActive(scoped.from('api_tokens'), now)),
  revoked: await countRows(scoped.from('api_tokens').whereNotNull('revoked_at')),
  api_clients: await countRows(scoped.from('api_clients')),
});

/** The API clients and active tokens of one tenant (not its subtree). */
export const tenantCredentialCounts = async (scoped: ScopedDb, tenantId: string, now: Date) => ({
  api_clients: await countRows(scoped.from('api_clients').where('tenant_id', tenantId)),
  active_tokens: await countRows(whereTokenActive(scoped.from('api_tokens').where('tenant_id', tenantId), now)),
});

/** The tenants' zones of the scope by one of their columns. */
export const zoneCountsBy = (scoped: ScopedDb, column: 'kind' | 'status' | 'dnssec_state') => countBy(tenantZones(scoped), column);

/** The tenants' zones of the scope. */
export const zoneCount = (scoped: ScopedDb) => countRows(tenantZones(scoped));

/** The stored records of the scope's tenant zones by type. */
export const recordCountsByType = (scoped: ScopedDb) => countBy(scoped.from('records').whereIn('zone_id', tenantZones(scoped).select('id')), 'type');
