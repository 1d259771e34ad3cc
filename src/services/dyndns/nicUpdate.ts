// GET /nic/update (docs/dyndns.md): a router's update of its host, authenticated by the host's
// own credentials. An update that changes an address is ONE change set through the zone-write
// seam, published like any other; the same address again is `nochg` and writes nothing (it reads
// the host outside any transaction and never locks the zone).
import type { Knex } from 'knex';
import type { Config } from '../../config/index.js';
import { type DyndnsHost, type DyndnsHostRow, dyndnsHostToDomain, withHostDetails } from '../../db/repositories/dyndnsHostRows.js';
import { readWindowCount, windowStartOf } from '../../db/rateLimitWindows.js';
import { type Tenant, type TenantRow, tenantToDomain } from '../../db/repositories/tenantRows.js';
import { ScopedDb } from '../../db/tenantScope.js';
import type { Clock } from '../../domain/clock.js';
import { DomainError } from '../../domain/errors.js';
import type { DyndnsAnswer, DyndnsAnswerCode, DyndnsUpdateRequest } from '../../domain/dyndns.js';
import { type Address, formatAddress } from '../../domain/ip/address.js';
import { NameError, toAsciiName } from '../../domain/names.js';
import { hasFeature, isEffectivelySuspended } from '../../domain/tenancy.js';
import { tokenlessActor } from '../actor.js';
import { applyChangeSet } from '../changeSets.js';
import type { RateLimiter } from '../rateLimiter.js';
import type { WriteContext } from '../writeContext.js';
import { writeZone } from '../zoneWrite.js';
import type { CredentialVerifier } from './credentials.js';
import { addressChanges } from './hosts.js';

export interface NicUpdateDeps {
  db: Knex;
  config: Config;
  clock: Clock;
  rateLimiter: RateLimiter;
  dyndnsCredentials: CredentialVerifier;
}

const answer = (code: DyndnsAnswerCode, ip?: string): DyndnsAnswer => (ip === undefined ? { code } : { code, ip });

/** A host name as a client sends it: canonical, or null when it is not a fully-qualified name. */
function fqdnOf(raw: string): string | null {
  try {
    const name = toAsciiName(raw);
    return name.includes('.') && !name.startsWith('*') ? name : null;
  } catch (e) {
    if (e instanceof NameError) return null;
    throw e;
  }
}

async function loadHost(db: Knex | Knex.Transaction, id: string): Promise<DyndnsHost | null> {
  if (!/^dyn_[a-z2-7]{26}$/.test(id)) return null;
  const row = (await withHostDetails(db, db('dyndns_hosts as h')).where('h.id', id).first()) as DyndnsHostRow | undefined;
  return row ? dyndnsHostToDomain(row) : null;
}

/** The host's tenant and its ancestors, root first. */
async function tenantChain(db: Knex, tenantId: string): Promise<Tenant[]> {
  const rows = (await db('tenants')
    .whereRaw('id = any((SELECT path FROM tenants WHERE id = ?)::text[])', [tenantId])
    .orderByRaw('array_length(path, 1)')) as TenantRow[];
  return rows.map(tenantToDomain);
}

export interface NicUpdateLimits {
  hostUpdatesPerMinute: number;
  authFailuresPerMinute: number;
}

/**
 * One answer per host name asked (the credentials' host when none is named). Throws only for
 * failures of the service itself (the database): the caller answers `911`.
 */
export async function nicUpdate(deps: NicUpdateDeps, limits: NicUpdateLimits, request: DyndnsUpdateRequest, requestId: string): Promise<DyndnsAnswer[]> {
  const now = deps.clock.now();
  const lines = (code: DyndnsAnswerCode) => Array.from({ length: Math.max(1, request.hostnames?.length ?? 1) }, () => answer(code));
  const failureBucket = request.source ? `dyndns-auth:${formatAddress(request.source)}` : null;
  const failedAuth = async () => {
    if (failureBucket) await deps.rateLimiter.consume(failureBucket, limits.authFailuresPerMinute, now);
    return lines('badauth');
  };

  if (!request.username || !request.password) return lines('badauth');
  const host = await loadHost(deps.db, request.username);
  // A host whose zone is on its way out is gone already (its row goes in the same transaction).
  if (!host || host.zoneStatus === 'deleting') return failedAuth();
  if (!deps.dyndnsCredentials.isRemembered(request.username, request.password, host.passwordHash)) {
    // An address that failed too often this minute is not heard out, right or wrong (no scrypt either).
    if (failureBucket && (await readWindowCount(deps.db, failureBucket, windowStartOf(now))) >= limits.authFailuresPerMinute) return lines('abuse');
    if (!(await deps.dyndnsCredentials.verify(request.username, request.password, host.passwordHash))) return failedAuth();
  }

  const named = request.hostnames ?? [host.fqdn];
  const fqdns = named.map(fqdnOf);
  const mine = fqdns.map((n) => n === host.fqdn);
  const others = (i: number): DyndnsAnswer => (fqdns[i] === null ? answer('notfqdn') : answer('nohost'));
  if (!mine.some(Boolean)) return named.map((_, i) => others(i));

  const chain = await tenantChain(deps.db, host.tenantId);
  const result = await (async (): Promise<DyndnsAnswer> => {
    if (isEffectivelySuspended(chain) || !hasFeature(chain, 'dyndns')) return answer('abuse');
    const reading = await deps.rateLimiter.consume(`dyndns-host:${host.id}`, limits.hostUpdatesPerMinute, now);
    if (!reading.allowed) return answer('abuse');
    return updateHost(deps, host, chain, request, requestId);
  })();
  return named.map((_, i) => (mine[i] ? result : others(i)));
}

/** What the host's addresses should become: a family not asked for stays as it is. */
function wanted(request: DyndnsUpdateRequest): { ipv4: Address | null | 'none'; ipv6: Address | null | 'none' } {
  if (request.offline) return { ipv4: 'none', ipv6: 'none' };
  let { ipv4, ipv6 } = request;
  if (!ipv4 && !ipv6 && request.source) {
    if (request.source.family === 4) ipv4 = request.source;
    else ipv6 = request.source;
  }
  return { ipv4, ipv6 };
}

const text = (a: Address | null | 'none') => (a === null ? undefined : a === 'none' ? null : formatAddress(a));

/** Whether the stored addresses already are what is asked. */
const unchanged = (host: Pick<DyndnsHost, 'ipv4' | 'ipv6'>, want: ReturnType<typeof wanted>) =>
  (text(want.ipv4) === undefined || text(want.ipv4) === host.ipv4) && (text(want.ipv6) === undefined || text(want.ipv6) === host.ipv6);

/** The address shown after good/nochg: the IPv4 asked for, else the IPv6 (docs/dyndns.md). */
const shown = (want: ReturnType<typeof wanted>, host: Pick<DyndnsHost, 'ipv4' | 'ipv6'>): string | undefined =>
  want.ipv4 === 'none' ? undefined : (text(want.ipv4) ?? text(want.ipv6) ?? host.ipv4 ?? host.ipv6 ?? undefined);

async function updateHost(deps: NicUpdateDeps, host: DyndnsHost, chain: Tenant[], request: DyndnsUpdateRequest, requestId: string): Promise<DyndnsAnswer> {
  const want = wanted(request);
  if (want.ipv4 === null && want.ipv6 === null) return answer('nochg', shown(want, host));
  if (unchanged(host, want)) return answer('nochg', shown(want, host));
  // A router writes as its host: the audit log and the change set name the host, not an API client.
  const actor = tokenlessActor(host.id, `DynDNS host ${host.fqdn}`, chain, deps.config.deployment, requestId);
  try {
    return await deps.db.transaction(async (trx) => {
      const ctx: WriteContext = { trx, scoped: new ScopedDb(trx, host.tenantId), actor, clock: deps.clock, identityChanged: () => {} };
      return writeZone(ctx, deps.config, host.zoneName, {}, async (zone) => {
        // Under the zone's lock: another request of the same router may have written meanwhile.
        const current = await loadHost(trx, host.id);
        if (!current || current.zoneId !== zone.id) return answer('nohost');
        if (unchanged(current, want)) return answer('nochg', shown(want, current));
        const asList = (a: Address | null | 'none') => (a === null ? null : a === 'none' ? [] : [a]);
        const changes = addressChanges(current.name, current.ttl, asList(want.ipv4), asList(want.ipv6));
        await applyChangeSet(ctx, zone, { changes, comment: `DynDNS update of ${current.fqdn}` }, { kind: 'records', skipWhenUnchanged: true, manager: host.id });
        const ip = shown(want, current);
        await trx('dyndns_hosts')
          .where('id', host.id)
          .update({ last_update_at: deps.clock.now(), last_update_ip: request.offline ? null : (ip ?? null), last_update_client: request.client?.slice(0, 200) ?? null, updated_at: deps.clock.now() });
        return answer('good', ip);
      });
    });
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    // The zone went (not_found) or is going (conflict): the host with it.
    if (err.code === 'not_found' || err.code === 'conflict') return answer('nohost');
    // The zone refused the records (a CNAME written at the name since, a full zone): the
    // router cannot fix that; the customer can.
    return answer('dnserr');
  }
}
