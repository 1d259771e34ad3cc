// TSIG keys as resources of a tenant (docs/credentials.md): create, list, read, rotate, change
// the policy, delete; and the decrypted list the nameservers verify signatures with.
//
// - The secret is generated here (the algorithm's hash length, RFC 8945 §6), returned once on
//   creation and on rotation, and stored sealed the way DNSSEC private keys are (sealSecret
//   under the key-encryption key). It never reaches a log, an audit entry or an event.
// - A key's name is unique in the deployment, the deployment's own keys (DNS_TSIG_KEYS) included:
//   a nameserver finds a key by its name alone.
// - Every change NOTIFYs TSIG_KEYS_CHANNEL on commit, so nameserver processes reload the list.
import type { Config } from '../config/index.js';
import type { DbContext, Pool } from '../db/context.js';
import { recordAudit } from '../db/repositories/auditLog.js';
import { lockTenantRow } from '../db/repositories/tenantRows.js';
import {
  allTsigKeyRows,
  countTenantTsigKeys,
  deleteTsigKeyRow,
  findTsigKey,
  insertTsigKey,
  notifyTsigKeysChanged,
  pageTsigKeys,
  type TsigKey,
  updateTsigKeyRow,
} from '../db/repositories/tsigKeyRows.js';
import { sealSecret, unsealSecret } from '../db/sealedSecrets.js';
import { type CredentialPolicy, type CredentialPolicyInput, normalizeCredentialPolicy } from '../domain/credentialPolicy.js';
import { DomainError, notFound, validationFailed } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import { NameError } from '../domain/names.js';
import { DEFAULT_TSIG_ALGORITHM, generateTsigSecret, MAX_TSIG_KEYS_PER_TENANT, normalizeTsigKeyName, type TsigAlgorithm } from '../domain/tsigKeys.js';
import { assertPolicyWithinActor } from './credentialPolicy.js';
import type { WriteContext } from './writeContext.js';

export type { TsigKey };

export interface TsigKeyDeps {
  /** The key-encryption key (src/db/sealedSecrets.ts): seals the secrets. */
  kek: Buffer;
  config: Pick<Config, 'dns'>;
}

export interface TsigKeyInput {
  name: string;
  algorithm?: TsigAlgorithm;
  policy?: CredentialPolicyInput | null;
}

/** A key with its secret, as the nameservers need it (loadTenantTsigKeys). */
export interface TenantTsigKey {
  id: string;
  tenantId: string;
  name: string;
  algorithm: TsigAlgorithm;
  secret: Buffer;
  policy: CredentialPolicy | null;
}

function keyName(input: string): string {
  try {
    return normalizeTsigKeyName(input);
  } catch (e) {
    if (e instanceof NameError) throw validationFailed([{ pointer: '/name', code: e.code, detail: e.message }]);
    throw e;
  }
}

const policyOf = (ctx: WriteContext, input: CredentialPolicyInput | null | undefined) => {
  const policy = input ? normalizeCredentialPolicy(input, ctx.clock.now()) : null;
  assertPolicyWithinActor(ctx.actor, policy);
  return policy;
};

/** Room for one more key of the acting tenant, its row locked so parallel creations queue. */
async function assertKeyQuota(ctx: WriteContext): Promise<void> {
  await lockTenantRow(ctx.db, ctx.actor.acting.id);
  if ((await countTenantTsigKeys(ctx.db, ctx.actor.acting.id)) >= MAX_TSIG_KEYS_PER_TENANT)
    throw new DomainError('quota_exceeded', { quota: 'max_tsig_keys', limit: MAX_TSIG_KEYS_PER_TENANT });
}

export const listTsigKeys = (ctx: DbContext, after: unknown[] | null, limit: number) => pageTsigKeys(ctx.scoped, after, limit);

export async function getTsigKey(ctx: DbContext, id: string): Promise<TsigKey> {
  const key = await findTsigKey(ctx.scoped, id);
  if (!key) throw notFound('TSIG key');
  return key;
}

/** Writes columns of a key, with its audit entry (never the secret) and the reload signal. */
async function changeKey(
  ctx: WriteContext,
  current: TsigKey,
  now: Date,
  columns: Parameters<typeof updateTsigKeyRow>[2],
  action: string,
  details: Record<string, unknown>,
): Promise<TsigKey> {
  const key = await updateTsigKeyRow(ctx.scoped, current.id, columns, now);
  if (!key) throw notFound('TSIG key');
  await recordAudit(ctx.db, ctx.actor, now, { action, targetType: 'tsig_key', targetId: current.id, details: { name: current.name, ...details } });
  await notifyTsigKeysChanged(ctx.db, current.id);
  return key;
}

/** A new key of the acting tenant; its base64 secret is returned this once. */
export async function createTsigKey(ctx: WriteContext, deps: TsigKeyDeps, input: TsigKeyInput): Promise<{ key: TsigKey; secret: string }> {
  const name = keyName(input.name);
  const algorithm = input.algorithm ?? DEFAULT_TSIG_ALGORITHM;
  const policy = policyOf(ctx, input.policy);
  if (deps.config.dns.tsigKeys.some((k) => k.name === name)) throw new DomainError('conflict', { reason: 'tsig_key_name_taken', name });
  await assertKeyQuota(ctx);
  const secret = generateTsigSecret(algorithm);
  const now = ctx.clock.now();
  await ctx.scoped.assertInSubtree([ctx.actor.acting.id]);
  // The unique name decides between parallel creations: the loser inserts nothing.
  const key = await insertTsigKey(ctx.db, {
    id: newId('tsk'),
    tenant_id: ctx.actor.acting.id,
    name,
    algorithm,
    secret: sealSecret(secret, deps.kek),
    policy,
    created_at: now,
    updated_at: now,
  });
  if (!key) throw new DomainError('conflict', { reason: 'tsig_key_name_taken', name });
  await recordAudit(ctx.db, ctx.actor, now, {
    action: 'tsig_key.created',
    targetType: 'tsig_key',
    targetId: key.id,
    details: { name, algorithm, ...(policy ? { policy } : {}) },
  });
  await notifyTsigKeysChanged(ctx.db, key.id);
  return { key, secret: secret.toString('base64') };
}

/** A new secret for the key (same name and algorithm), returned this once; the old one stops working. */
export async function rotateTsigKey(ctx: WriteContext, deps: TsigKeyDeps, id: string): Promise<{ key: TsigKey; secret: string }> {
  const current = await getTsigKey(ctx, id);
  const secret = generateTsigSecret(current.algorithm);
  const now = ctx.clock.now();
  const key = await changeKey(ctx, current, now, { secret: sealSecret(secret, deps.kek), rotated_at: now }, 'tsig_key.rotated', {});
  return { key, secret: secret.toString('base64') };
}

/** Replaces the key's policy (null: none, its tenant's zones alone). */
export async function updateTsigKeyPolicy(ctx: WriteContext, id: string, input: CredentialPolicyInput | null): Promise<TsigKey> {
  const current = await getTsigKey(ctx, id);
  const policy = policyOf(ctx, input);
  return changeKey(ctx, current, ctx.clock.now(), { policy }, 'tsig_key.updated', { policy });
}

export async function deleteTsigKey(ctx: WriteContext, id: string): Promise<void> {
  const current = await getTsigKey(ctx, id);
  await deleteTsigKeyRow(ctx.scoped, id);
  await recordAudit(ctx.db, ctx.actor, ctx.clock.now(), { action: 'tsig_key.deleted', targetType: 'tsig_key', targetId: id, details: { name: current.name } });
  await notifyTsigKeysChanged(ctx.db, id);
}

/**
 * Every tenant's TSIG key with its secret decrypted, for the nameservers: what they verify
 * signed messages with (by the key's name) and, for an RFC 2136 update, whose tenant and policy
 * the update is checked against. Reload on TSIG_KEYS_CHANNEL.
 */
export async function loadTenantTsigKeys(pool: Pool, kek: Buffer): Promise<TenantTsigKey[]> {
  return (await allTsigKeyRows(pool)).map((r) => ({
    id: r.id,
    tenantId: r.tenant_id,
    name: r.name,
    algorithm: r.algorithm,
    secret: unsealSecret(r.secret, kek),
    policy: r.policy ?? null,
  }));
}
