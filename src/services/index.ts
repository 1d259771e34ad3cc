import type { BillingDirectory } from '../billing/billingDirectory.js';
import type { Config } from '../config/index.js';
import type { DbContext, Pool, Transaction } from '../db/context.js';
import { tenantCredentialCounts, zoneCount } from '../db/repositories/statsCounts.js';
import { IdentityStore } from '../db/repositories/identityStore.js';
import type { Tenant } from '../db/repositories/tenantRows.js';
import { ScopedDb } from '../db/tenantScope.js';
import type { Clock } from '../domain/clock.js';
import type { CursorCodec } from '../domain/cursor.js';
import type { DnssecDeps } from './dnssec.js';
import type { RdnsDeps } from './rdns/prefixes.js';
import { RateLimiter } from './rateLimiter.js';
import { TokenCache } from './tokenCache.js';
import { deleteLabZoneData } from '../db/repositories/zoneStore.js';
import { backendStats } from './backendQuota.js';
import { CredentialVerifier } from './dyndns/credentials.js';
import { dyndnsStats } from './dyndns/stats.js';
import { ipStats } from './ipStats.js';
import type { LiveWaiters } from './liveWait.js';
import { recordStats, StatsService, type StatsContributor, tenantStats, tokenStats, zoneStats } from './stats.js';

/** One step of the nightly lab reset, run in its transaction with the ids of the seeded tenants. */
export type LabResetStep = (trx: Transaction, seedTenantIds: string[]) => Promise<void>;

export interface ServiceDeps {
  db: Pool;
  clock: Clock;
  config: Config;
  billing: BillingDirectory;
  cursors: CursorCodec;
  /** The DNSSEC endpoints' dependencies (keys, registrar, the worker's check). */
  dnssec: DnssecDeps;
  /** The prefixes' look at the parent reverse zones (src/rdns/delegationCheck.ts; the lab's registry in the lab). */
  rdns: RdnsDeps;
  /** Sections added to GET /stats by later capabilities. */
  statsContributors?: StatsContributor[];
  /** Entries added to `usage` of GET /me by later capabilities. */
  usageContributors?: UsageContributor[];
  /** Parts of the nightly lab reset contributed by later capabilities. */
  labResetSteps?: LabResetStep[];
  /** Answers that wait until their change sets are live (`Prefer: wait`, src/services/liveWait.ts). */
  liveWaiters: LiveWaiters;
}

export type UsageContributor = (ctx: DbContext, acting: Tenant) => Promise<Record<string, unknown>>;

const credentialUsage =
  (clock: Clock): UsageContributor =>
  async (ctx, acting) => {
    return tenantCredentialCounts(ctx.scoped, acting.id, clock.now());
  };

/** What route handlers reach: the dependencies and the long-lived service objects. */
export interface Services extends ServiceDeps {
  identity: IdentityStore;
  /** Tokens read in the last second (authenticate); emptied by the writes that change them. */
  tokens: TokenCache;
  /** Request counts of API clients and acted-for customers (rate limits). */
  rateLimiter: RateLimiter;
  /** DynDNS passwords verified in this process (src/services/dyndns/credentials.ts). */
  dyndnsCredentials: CredentialVerifier;
  stats: StatsService;
  usage: UsageContributor[];
  labResetSteps: LabResetStep[];
  /**
   * The pool confined to a tenant's subtree and to the zones a credential policy names
   * (`zoneNames`; null: every zone of the subtree): a request's reads, and where its write
   * transaction starts (runWrite).
   */
  contextFor(tenantId: string, zoneNames: readonly string[] | null): DbContext;
}

/**
 * Lab zones go with the nightly reset (their records and change sets cascade); the lab's parent
 * zones stay, and the lab registry's reset step (src/lab/labParents.ts) brings them in line.
 */
const deleteLabZones: LabResetStep = (trx) => deleteLabZoneData(trx);

export function createServices(deps: ServiceDeps): Services {
  return {
    ...deps,
    identity: new IdentityStore(deps.db),
    tokens: new TokenCache(),
    rateLimiter: new RateLimiter(deps.db),
    dyndnsCredentials: new CredentialVerifier(),
    stats: new StatsService(
      [
        tenantStats,
        tokenStats,
        zoneStats,
        recordStats(deps.config.zones.nameservers),
        ipStats(deps.db),
        backendStats(deps.db),
        dyndnsStats,
        ...(deps.statsContributors ?? []),
      ],
      deps.clock,
    ),
    usage: [credentialUsage(deps.clock), ...(deps.usageContributors ?? [])],
    labResetSteps: [deleteLabZones, ...(deps.labResetSteps ?? [])],
    contextFor: (tenantId, zoneNames) => ({ db: deps.db, scoped: new ScopedDb(deps.db, tenantId, zoneNames) }),
  };
}
