// Credential policies at work (docs/credentials.md; the rules: src/domain/credentialPolicy.ts).
// Where they are checked:
//   - every API request: source address and expiry (the pipeline, before anything else runs);
//   - every zone a request names, read or write: the zones (getZone and the zone list, through
//     the zone names the request's ScopedDb carries);
//   - every write to a zone, at the write seam (applyChangeSet per record, appendChangeSet for a
//     write to the whole zone): all rules, against the actor's credential — an API token's policy,
//     and the same for a TSIG key's RFC 2136 update, whose actor carries the key's policy.
// A refusal is `403 credential_policy` naming the rule; nothing of the write is stored (it rolls
// back with its transaction) and the refusal is audited on its own (auditCredentialRefusal).
import type { Pool } from '../db/context.js';
import { recordAudit } from '../db/repositories/auditLog.js';
import { type CredentialPolicy, type CredentialUse, type PolicyRefusal, type PolicyRule, policyRefusal, policyWiderThan } from '../domain/credentialPolicy.js';
import { DomainError, type ErrorParams, type ProblemReason } from '../domain/errors.js';
import type { Actor } from './actor.js';

/** A use of the actor's credential: what is touched (the actor brings its address, the caller the time). */
export type CredentialTouch = Omit<CredentialUse, 'source' | 'now'>;

const REASONS: Record<PolicyRule, ProblemReason> = {
  expired: 'policy_expired',
  source_cidrs: 'policy_source',
  zones: 'policy_zone',
  names: 'policy_name',
  types: 'policy_type',
};

/** The problem of a refusal; its params name what was refused (never a secret). */
function credentialPolicyError(refusal: PolicyRefusal, use: Partial<CredentialUse>, policy: CredentialPolicy | null): DomainError {
  const wholeZone = (refusal.rule === 'names' && use.name === null) || (refusal.rule === 'types' && use.type === null);
  const params: ErrorParams = { rule: refusal.rule, reason: wholeZone ? 'policy_whole_zone' : REASONS[refusal.rule] };
  if (refusal.rule === 'expired') params.expires_at = policy?.expires_at;
  if (refusal.rule === 'source_cidrs') params.source = use.source ?? '-';
  if (refusal.rule === 'zones' || wholeZone) params.zone = use.zone ?? undefined;
  if (refusal.rule === 'names' && !wholeZone) params.name = use.name ?? undefined;
  if (refusal.rule === 'types' && !wholeZone) params.type = use.type ?? undefined;
  return new DomainError('credential_policy', params);
}

/** Throws 403 credential_policy when the actor's credential may not do `touch` now. */
export function assertCredentialAllows(actor: Actor, touch: CredentialTouch, now: Date): void {
  const policy = actor.token.policy;
  if (!policy) return;
  const use = { ...touch, source: actor.source, now };
  const refusal = policyRefusal(policy, use);
  if (refusal) throw credentialPolicyError(refusal, use, policy);
}

/**
 * A request naming a zone outside the zones its credential may touch: refused the same whether
 * the zone exists or not (so a restricted credential learns nothing about the tenant's others).
 */
export const zoneOutsidePolicy = (zone: string): DomainError =>
  credentialPolicyError({ rule: 'zones', detail: `the zone ${zone} is not among the credential's zones` }, { zone }, null);

/**
 * A credential issued by an actor with a policy (a token, a TSIG key) must lie within that
 * policy: no escalation by minting, as with scopes (docs/credentials.md).
 */
export function assertPolicyWithinActor(actor: Actor, policy: CredentialPolicy | null): void {
  const rule = policyWiderThan(policy, actor.token.policy);
  if (rule) throw new DomainError('credential_policy', { rule, reason: 'policy_wider' });
}

/**
 * The audit entry of a refusal (`credential.refused`), written on its own connection: the
 * refused request's transaction rolled back with everything it did. `details`: where it
 * happened (the API request, the DNS message).
 */
export async function auditCredentialRefusal(pool: Pool, actor: Actor, error: DomainError, now: Date, details: Record<string, unknown> = {}): Promise<void> {
  const { reason: _reason, ...refused } = error.params;
  await recordAudit(pool, actor, now, {
    action: 'credential.refused',
    targetType: 'credential',
    targetId: actor.token.id,
    details: { ...refused, ...(actor.source ? { source: actor.source } : {}), ...details },
  });
}
