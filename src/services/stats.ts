// GET /stats: counts for the acting subtree. Each capability contributes its own section, so the
// stats grow with the service without this file knowing every table.
import { countRows } from '../db/count.js';
import type { ScopedDb } from '../db/tenantScope.js';
import type { Clock } from '../domain/clock.js';
import type { Tenant } from '../db/repositories/tenantRows.js';
import { tenantZones } from '../db/repositories/zoneQueries.js';

export type StatsSection = Record<string, unknown>;

export interface StatsContributor {
  /** Top-level key of the section in the stats object. */
  name: string;
  /** Only in the platform's stats (spec: "With scope: platform it additionally carries …"). */
  platformOnly?: boolean;
  collect(scoped: ScopedDb, acting: Tenant, now: Date): Promise<StatsSection>;
}

const countBy = async (q: ReturnType<ScopedDb['from']>, column: string) => {
  const rows = (await q.select(column).count({ n: '*' }).groupBy(column)) as Record<string, unknown>[];
  return Object.fromEntries(rows.map((r) => [String(r[column]), Number(r.n)]));
};

export const tenantStats: StatsContributor = {
  name: 'tenants',
  async collect(scoped, acting) {
    const byType = await countBy(scoped.from('tenants').whereNot('id', acting.id), 'type');
    const suspended = await countRows(scoped.from('tenants').whereNot('id', acting.id).whereNotNull('suspended_at'));
    return { resellers: byType.reseller ?? 0, customers: byType.customer ?? 0, suspended };
  },
};

/** Tokens that still authenticate: neither revoked nor expired (the token's `status: active`). */
export const whereTokenActive = (q: ReturnType<ScopedDb['from']>, now: Date) =>
  q.whereNull('revoked_at').andWhere((w) => w.whereNull('expires_at').orWhere('expires_at', '>', now));

export const tokenStats: StatsContributor = {
  name: 'api_tokens',
  async collect(scoped, _acting, now) {
    return {
      active: await countRows(whereTokenActive(scoped.from('api_tokens'), now)),
      revoked: await countRows(scoped.from('api_tokens').whereNotNull('revoked_at')),
      api_clients: await countRows(scoped.from('api_clients')),
    };
  },
};

export const STATS_TTL_MS = 60_000;

/**
 * Computes stats at most once a minute per acting tenant and process (spec: "cached about 60
 * seconds"); `generated_at` tells the client how old the figures are.
 */
export class StatsService {
  private readonly cache = new Map<string, { at: number; value: StatsSection }>();

  constructor(
    private readonly contributors: StatsContributor[],
    private readonly clock: Clock,
  ) {}

  async forTenant(scoped: ScopedDb, acting: Tenant): Promise<StatsSection> {
    const now = this.clock.now().getTime();
    const hit = this.cache.get(acting.id);
    if (hit && now - hit.at < STATS_TTL_MS) return hit.value;
    const contributors = this.contributors.filter((c) => !c.platformOnly || acting.type === 'platform');
    const sections = await Promise.all(contributors.map(async (c) => [c.name, await c.collect(scoped, acting, new Date(now))] as const));
    const value: StatsSection = {
      generated_at: new Date(now).toISOString(),
      scope: acting.type,
      tenant_id: acting.id,
      ...Object.fromEntries(sections),
    };
    this.cache.set(acting.id, { at: now, value });
    return value;
  }
}

export const zoneStats: StatsContributor = {
  name: 'zones',
  async collect(scoped) {
    const byKind = await countBy(tenantZones(scoped), 'kind');
    const byStatus = await countBy(tenantZones(scoped), 'status');
    // DNSSEC states of the spec's machine ("off" included): how many zones are signed, on their way, or failing to get a DS.
    const byDnssecState = await countBy(tenantZones(scoped), 'dnssec_state');
    return { total: Object.values(byKind).reduce((a, b) => a + b, 0), by_kind: byKind, by_status: byStatus, by_dnssec_state: byDnssecState };
  },
};

/** Records by type: the stored ones and, in every zone, the rendered SOA and apex NS set. */
export const recordStats = (nameservers: readonly string[]): StatsContributor => ({
  name: 'records',
  async collect(scoped) {
    const byType = await countBy(scoped.from('records').whereIn('zone_id', tenantZones(scoped).select('id')), 'type');
    const zones = Object.values(await countBy(tenantZones(scoped), 'kind')).reduce((a, b) => a + b, 0);
    if (zones) {
      byType.SOA = (byType.SOA ?? 0) + zones;
      byType.NS = (byType.NS ?? 0) + zones * nameservers.length;
    }
    return { total: Object.values(byType).reduce((a, b) => a + b, 0), by_type: byType };
  },
});
