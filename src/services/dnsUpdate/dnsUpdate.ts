// RFC 2136 dynamic UPDATE (docs/dynamic-update.md): a message signed with a tenant's TSIG key,
// handed over by the nameserver once it verified the signature, that the zone is served here and
// that the message is well formed (nameserver/server/updates.ts). Like a router's /nic/update
// (dyndns/nicUpdate.ts), a write by a credential that is not an API token: ONE change set
// through the zone-write seam, inside transactionWithRetry, so validation, quotas, the
// credential's policy, the audit entry, zone.changed and webhooks are exactly the API's. Nothing
// is half-applied: the prerequisites are read and the update applied under the zone's lock, in
// one transaction. The answer waits for the commit and then, by default, until the change is
// served by every nameserver of the deployment (DNS_UPDATE_WAIT_MS), so the client's next query
// sees it.
//
// In order (each refusal stores nothing):
//   1. the key: a tenant's (a deployment key may not update: REFUSED), still there (else NOTAUTH);
//   2. its tenant's rate limit (`tsig:<key id>`, the tenant's API requests per minute) and
//      suspension: REFUSED;
//   3. the key's policy for the zone, source address and expiry: REFUSED, audited — before any
//      prerequisite is read, so a key learns nothing of a zone outside its policy;
//   4. the zone, among the key's tenant's (its subtree, as an API token of that tenant reaches):
//      else NOTAUTH;
//   5. prerequisites (§3.2) against the zone's records, its SOA and apex NS included;
//   6. the update section (§3.4, applyUpdates) in memory, then the changed RRsets as replace_rrset
//      items through applyChangeSet: the API's rules and the policy's names and types decide
//      (REFUSED, the credential's refusals audited); a message that changes nothing stores nothing.
import type { Config } from '../../config/index.js';
import type { Pool } from '../../db/context.js';
import { recordsNamed } from '../../db/repositories/recordRows.js';
import type { Tenant } from '../../db/repositories/tenantRows.js';
import { tsigKeyWithChain } from '../../db/repositories/tsigKeyRows.js';
import { transactionWithRetry } from '../../db/transaction.js';
import type { Clock } from '../../domain/clock.js';
import type { CredentialPolicy } from '../../domain/credentialPolicy.js';
import { applyUpdates } from '../../domain/dnsUpdate/applyUpdates.js';
import { evaluatePrerequisites } from '../../domain/dnsUpdate/prerequisites.js';
import { readPrerequisite, readUpdate, type UpdateRcode } from '../../domain/dnsUpdate/updateRecords.js';
import { ZoneRRsets, type ZoneRecordInput } from '../../domain/dnsUpdate/zoneRRsets.js';
import { DomainError } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import type { LiveWaitState } from '../../domain/publication.js';
import { isEffectivelySuspended } from '../../domain/tenancy.js';
import { relativeName } from '../../../nameserver/wire/name.js';
import type { TsigKey } from '../../../nameserver/wire/tsig.js';
import type { UpdateRecord } from '../../../nameserver/wire/update.js';
import { type Actor, tokenlessActor } from '../actor.js';
import { applyChangeSet } from '../changeSets.js';
import { assertCredentialAllows, auditCredentialRefusal } from '../credentialPolicy.js';
import { type LiveWaitDeps, waitUntilLive } from '../liveWait.js';
import type { RateLimiter } from '../rateLimiter.js';
import { withDatabaseDeadline } from '../requestDeadline.js';
import { renderSystemRecords } from '../systemRecords.js';
import { tokenlessWriteContext } from '../writeContext.js';
import { writeZone } from '../zoneWrite.js';

export interface DnsUpdateDeps extends LiveWaitDeps {
  db: Pool;
  config: Config;
  clock: Clock;
  rateLimiter: RateLimiter;
}

/** An UPDATE as the nameserver hands it over (its UpdateRequest, in the codec's terms). */
export interface DnsUpdateRequest {
  /** Lower case, no trailing dot: a zone the nameserver serves. */
  zone: string;
  prerequisites: readonly UpdateRecord[];
  updates: readonly UpdateRecord[];
  /** The verified key; `owner` is the tenant key's id, null for a deployment key. */
  key: Pick<TsigKey, 'name' | 'owner'> | null;
  transport: 'udp' | 'tcp';
  remoteAddress: string;
}

export interface DnsUpdateResult {
  rcode: UpdateRcode;
  /** Why it was refused or what was passed over (for the log); null for a plain success. */
  reason: string | null;
  requestId: string;
  /** The TSIG key's id, when it is a tenant's. */
  keyId: string | null;
  /** The change set stored; null when nothing was (a refusal, or nothing to change). */
  changeSetId: string | null;
  /** Where the change set was when the answer went: null without one or without waiting. */
  live: LiveWaitState | null;
}

interface UpdateKey {
  id: string;
  name: string;
  tenantId: string;
  policy: CredentialPolicy | null;
  chain: Tenant[];
}

/** What a refusal of the write seam says in the log: its code and each problem's detail. */
const describe = (err: DomainError) => [err.message, ...err.errors.map((e) => e.detail)].join('; ');

/** Outcomes that end the transaction with nothing stored (a prerequisite, a §3.4 refusal). */
class Answered extends Error {
  constructor(
    readonly rcode: UpdateRcode,
    readonly reason: string,
  ) {
    super(reason);
  }
}

/**
 * Applies one UPDATE and says what to answer. Throws only for failures of the service itself
 * (the database, its deadline): the caller answers SERVFAIL.
 */
export async function applyDnsUpdate(deps: DnsUpdateDeps, request: DnsUpdateRequest): Promise<DnsUpdateResult> {
  const requestId = newId('req');
  const keyId = request.key?.owner ?? null;
  const answer = (rcode: UpdateRcode, reason: string | null, more: Partial<DnsUpdateResult> = {}): DnsUpdateResult => ({
    rcode,
    reason,
    requestId,
    keyId,
    changeSetId: null,
    live: null,
    ...more,
  });
  if (!request.key || keyId === null)
    return answer('REFUSED', `the deployment's key ${request.key?.name ?? '(none)'} is for transfers and NOTIFY, not for updates`);

  const written = await withDatabaseDeadline(deps.config.database.requestTimeoutMs, async () => {
    const key: UpdateKey | null = await tsigKeyWithChain(deps.db, keyId);
    // Deleted since the nameserver's key list was loaded: unknown now.
    if (!key?.chain.length) return answer('NOTAUTH', `the TSIG key ${request.key!.name} no longer exists`);
    const tenant = key.chain[key.chain.length - 1]!;
    const now = deps.clock.now();
    if (!(await deps.rateLimiter.consume(`tsig:${key.id}`, tenant.limits.apiRateLimitPerMinute, now)).allowed) {
      return answer('REFUSED', `rate limit: more than ${tenant.limits.apiRateLimitPerMinute} updates this minute with key ${key.name}`);
    }
    if (isEffectivelySuspended(key.chain)) return answer('REFUSED', `tenant ${tenant.id} is suspended`);
    // The key writes as itself: the audit log and the change set name the key.
    const actor = tokenlessActor(key.id, `TSIG key ${key.name}`, key.chain, deps.config.deployment, requestId, {
      policy: key.policy,
      source: request.remoteAddress,
    });
    const refused = async (err: DomainError) => {
      await auditCredentialRefusal(deps.db, actor, err, deps.clock.now(), { dns_update: { zone: request.zone, transport: request.transport } });
      return answer('REFUSED', describe(err));
    };
    try {
      assertCredentialAllows(actor, { zone: request.zone }, now);
    } catch (err) {
      if (err instanceof DomainError && err.code === 'credential_policy') return refused(err);
      throw err;
    }
    try {
      const stored = await writeUpdate(deps, actor, key, request);
      return answer('NOERROR', stored.ignored.length ? `ignored: ${stored.ignored.join('; ')}` : null, { changeSetId: stored.changeSetId });
    } catch (err) {
      if (err instanceof Answered) return answer(err.rcode, err.reason);
      if (!(err instanceof DomainError)) throw err;
      if (err.code === 'credential_policy') return refused(err);
      // Not a zone of the key's tenant (or going away): not one this key may update here (§3.1.2).
      if (err.code === 'not_found' || (err.code === 'conflict' && err.params.reason === 'zone_being_deleted'))
        return answer('NOTAUTH', `zone ${request.zone} is not a zone of the key's tenant`);
      // The API's refusals: invalid data, managed and system records, quotas. The write contention
      // 503 (still aborted after every retry) is the service's failure: thrown on.
      if (err.code === 'service_unavailable' || err.code === 'internal_error') throw err;
      return answer('REFUSED', describe(err));
    }
  });
  if (!written.changeSetId || deps.config.dns.updateWaitMs === 0) return written;
  // After the commit, holding no connection: the client's next query must see the change.
  return { ...written, live: await waitUntilLive(deps, [written.changeSetId], deps.config.dns.updateWaitMs) };
}

/** Steps 4 to 6 in one transaction under the zone's lock; the change set's id, or null when nothing changed. */
async function writeUpdate(
  deps: DnsUpdateDeps,
  actor: Actor,
  key: UpdateKey,
  request: DnsUpdateRequest,
): Promise<{ changeSetId: string | null; ignored: string[] }> {
  const prerequisites = request.prerequisites.map(readPrerequisite);
  const updates = request.updates.map(readUpdate);
  return transactionWithRetry(deps.db, async (trx) => {
    const ctx = tokenlessWriteContext(trx, actor, deps.clock);
    return writeZone(ctx, deps.config, request.zone, {}, async (zone) => {
      const names = [...new Set([...prerequisites, ...updates].map((r) => relativeName(r.name, zone.name)))];
      const stored = (await recordsNamed(trx, zone.id, names)) as Omit<ZoneRecordInput, 'system'>[];
      const system = names.includes('@') ? renderSystemRecords(zone, deps.config.zones.nameservers) : [];
      const rrsets = new ZoneRRsets(zone, [...stored.map((r) => ({ ...r, system: false })), ...system]);

      const unmet = evaluatePrerequisites(rrsets, prerequisites);
      if (unmet !== 'NOERROR') throw new Answered(unmet, `prerequisite not met: ${unmet}`);
      const outcome = applyUpdates(rrsets, updates);
      if (outcome.refused !== null) throw new Answered('REFUSED', outcome.refused);
      const { changeSet } = await applyChangeSet(
        ctx,
        zone,
        { changes: rrsets.changeItems(), comment: `RFC 2136 update signed with TSIG key ${key.name}` },
        { kind: 'records', skipWhenUnchanged: true },
      );
      return { changeSetId: changeSet?.id ?? null, ignored: outcome.ignored };
    });
  });
}
