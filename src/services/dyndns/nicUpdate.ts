// GET /nic/update (docs/dyndns.md): a router's update of its host, authenticated by the host's
// own credentials. An update that changes an address is ONE change set through the zone-write
// seam, published like any other; the same address again is `nochg` and writes nothing (it reads
// the host outside any transaction and never locks the zone).
import type { Config } from '../../config/index.js';
import type { Pool } from '../../db/context.js';
import { type DyndnsHost, dyndnsHostWithChain, markDyndnsHostUpdated } from '../../db/repositories/dyndnsHostRows.js';
import type { Tenant } from '../../db/repositories/tenantRows.js';
import type { Clock } from '../../domain/clock.js';
import { DomainError } from '../../domain/errors.js';
import { type DyndnsAnswer, type DyndnsAnswerCode, type DyndnsUpdateRequest, unpublishableAddress } from '../../domain/dyndns.js';
import { type Address, formatAddress } from '../../domain/ip/address.js';
import { NameError, toAsciiName } from '../../domain/names.js';
import { hasFeature, isEffectivelySuspended } from '../../domain/tenancy.js';
import { tokenlessActor } from '../actor.js';
import { applyChangeSet } from '../changeSets.js';
import type { RateLimiter } from '../rateLimiter.js';
import { tokenlessWriteContext } from '../writeContext.js';
import { writeZone } from '../zoneWrite.js';
import type { CredentialVerifier } from './credentials.js';
import { addressChanges } from './hosts.js';
import { transactionWithRetry } from '../../db/transaction.js';

export interface NicUpdateDeps {
  db: Pool;
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

/** The host named by a username (with its tenant's chain); null for a username no host could have. */
async function loadHost(db: Pool, id: string): Promise<{ host: DyndnsHost; chain: Tenant[] } | null> {
  if (!/^dyn_[a-z2-7]{26}$/.test(id)) return null;
  return dyndnsHostWithChain(db, id);
}

/** The host was deleted between its reading and the zone's lock: nothing of the update is kept. */
class HostGone extends Error {}

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

  if (!request.username || !request.password) return lines('badauth');
  const found = await loadHost(deps.db, request.username);
  // A host whose zone is on its way out is gone already (its row goes in the same transaction).
  const live = found && found.host.zoneStatus !== 'deleting' ? found : null;
  if (!live || !deps.dyndnsCredentials.isRemembered(request.username, request.password, live.host.passwordHash)) {
    // Counted before it is checked, in one upsert (the window's next number): of N attempts at
    // once, only those numbered within the limit are checked, in every process. Beyond it the
    // address is not heard out this minute, right or wrong (and spends no scrypt).
    if (failureBucket && !(await deps.rateLimiter.consume(failureBucket, limits.authFailuresPerMinute, now)).allowed) return lines('abuse');
    if (!live || !(await deps.dyndnsCredentials.verify(request.username, request.password, live.host.passwordHash))) return lines('badauth');
    // The limit is on failed logins: a right password gives its number back (and is remembered
    // from now on, so it is counted no more).
    if (failureBucket) await deps.rateLimiter.giveBack(failureBucket, now);
  }
  const { host, chain } = live;

  const named = request.hostnames ?? [host.fqdn];
  const fqdns = named.map(fqdnOf);
  const mine = fqdns.map((n) => n === host.fqdn);
  const others = (i: number): DyndnsAnswer => (fqdns[i] === null ? answer('notfqdn') : answer('nohost'));
  if (!mine.some(Boolean)) return named.map((_, i) => others(i));

  const result = await (async (): Promise<DyndnsAnswer> => {
    if (isEffectivelySuspended(chain) || !hasFeature(chain, 'dyndns')) return answer('abuse');
    const reading = await deps.rateLimiter.consume(`dyndns-host:${host.id}`, limits.hostUpdatesPerMinute, now);
    if (!reading.allowed) return answer('abuse');
    // No address sent: the client's own is the one to publish, if others can reach it. One they
    // cannot (the loopback: a router on this machine, or behind a proxy missing from
    // DYNDNS_TRUSTED_PROXIES) is the service's setup to fix, not the router's request: dnserr.
    if (!request.offline && !request.ipv4 && !request.ipv6 && request.source && unpublishableAddress(request.source, deps.config.deployment))
      return answer('dnserr');
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
  // Nothing asked (no address, no source) counts as unchanged too.
  if (unchanged(host, want)) return answer('nochg', shown(want, host));
  // A router writes as its host: the audit log and the change set name the host, not an API client.
  const actor = tokenlessActor(host.id, `DynDNS host ${host.fqdn}`, chain, deps.config.deployment, requestId);
  try {
    return await transactionWithRetry(deps.db, async (trx) => {
      const ctx = tokenlessWriteContext(trx, actor, deps.clock);
      return writeZone(ctx, deps.config, host.zoneName, {}, async (zone) => {
        const asList = (a: Address | null | 'none') => (a === null ? null : a === 'none' ? [] : [a]);
        const changes = addressChanges(host.name, host.ttl, asList(want.ipv4), asList(want.ipv6));
        // Planned under the zone's lock against the records as they are now: if another request
        // of the same router wrote them meanwhile, nothing changes and nothing is stored.
        const { changeSet } = await applyChangeSet(
          ctx,
          zone,
          { changes, comment: `DynDNS update of ${host.fqdn}` },
          { kind: 'records', skipWhenUnchanged: true, manager: host.id },
        );
        const ip = shown(want, host);
        if (!changeSet) return answer('nochg', ip);
        const now = deps.clock.now();
        const kept = await markDyndnsHostUpdated(
          trx,
          host.id,
          zone.id,
          { ip: request.offline ? null : (ip ?? null), client: request.client?.slice(0, 200) ?? null },
          now,
        );
        // Its deletion (under the same lock) came first: roll the records back with the rest.
        if (!kept) throw new HostGone();
        return answer('good', ip);
      });
    });
  } catch (err) {
    if (err instanceof HostGone) return answer('nohost');
    if (!(err instanceof DomainError)) throw err;
    // The zone went (not_found) or is going (conflict): the host with it.
    if (err.code === 'not_found' || err.code === 'conflict') return answer('nohost');
    // The zone refused the records (a CNAME written at the name since, a full zone): the
    // router cannot fix that; the customer can.
    return answer('dnserr');
  }
}
