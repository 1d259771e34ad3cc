// GET /stats: counts for the acting subtree. Each capability contributes its own section, so the
// stats grow with the service without this file knowing every table.
import type { DbContext } from '../db/context.js';
import type { Clock } from '../domain/clock.js';
import type { Tenant } from '../db/repositories/tenantRows.js';
import { credentialCounts, recordCountsByType, subtenantCounts, zoneCountsBy } from '../db/repositories/statsCounts.js';

export type StatsSection = Record<string, unknown>;

export interface StatsContributor {
  /** Top-level key of the section in the stats object. */
  name: string;
  /** Only in the platform's stats (spec: "With scope: platform it additionally carries …"). */
  platformOnly?: boolean;
  collect(ctx: DbContext, acting: Tenant, now: Date): Promise<StatsSection>;
}

export const tenantStats: StatsContributor = {
  name: 'tenants',
  async collect(ctx, acting) {
    const { byType, suspended } = await subtenantCounts(ctx.scoped, acting.id);
    return { resellers: byType.reseller ?? 0, customers: byType.customer ?? 0, suspended };
  },
};

export const tokenStats: StatsContributor = {
  name: 'api_tokens',
  async collect(ctx, _acting, now) {
    return credentialCounts(ctx.scoped, now);
  },
};

const STATS_TTL_MS = 60_000;

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

  async forTenant(ctx: DbContext, acting: Tenant): Promise<StatsSection> {
    const now = this.clock.now().getTime();
    const hit = this.cache.get(acting.id);
    if (hit && now - hit.at < STATS_TTL_MS) return hit.value;
    const contributors = this.contributors.filter((c) => !c.platformOnly || acting.type === 'platform');
    const sections = await Promise.all(contributors.map(async (c) => [c.name, await c.collect(ctx, acting, new Date(now))] as const));
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
  async collect(ctx) {
    const byKind = await zoneCountsBy(ctx.scoped, 'kind');
    const byStatus = await zoneCountsBy(ctx.scoped, 'status');
    // DNSSEC states of the spec's machine ("off" included): how many zones are signed, on their way, or failing to get a DS.
    const byDnssecState = await zoneCountsBy(ctx.scoped, 'dnssec_state');
    return { total: Object.values(byKind).reduce((a, b) => a + b, 0), by_kind: byKind, by_status: byStatus, by_dnssec_state: byDnssecState };
  },
};

/** Records by type: the stored ones and, in every zone, the rendered SOA and apex NS set. */
export const recordStats = (nameservers: readonly string[]): StatsContributor => ({
  name: 'records',
  async collect(ctx) {
    const byType = await recordCountsByType(ctx.scoped);
    const zones = Object.values(await zoneCountsBy(ctx.scoped, 'kind')).reduce((a, b) => a + b, 0);
    if (zones) {
      byType.SOA = (byType.SOA ?? 0) + zones;
      byType.NS = (byType.NS ?? 0) + zones * nameservers.length;
    }
    return { total: Object.values(byType).reduce((a, b) => a + b, 0), by_type: byType };
  },
});
