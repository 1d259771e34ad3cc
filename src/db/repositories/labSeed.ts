// The sandbox lab's seed rows and the nightly reset's statements (src/lab/seed.ts,
// src/lab/nightlyReset.ts and the capabilities' LabResetSteps): the seeded tenants, made once and
// restored every night, and what the reset clears. Unscoped: the lab is the whole deployment.
import type { Transaction } from '../context.js';

/** A seeded tenant's row (columns as stored; the lab marks it lab_seed). */
export async function insertSeedTenant(trx: Transaction, row: Record<string, unknown>): Promise<void> {
  await trx('tenants').insert(row);
}

/**
 * Tenants created in the lab go, with their clients and tokens (ON DELETE CASCADE); the seeded
 * tenants (`seeds`, in order) get `settings` back, a new version each; users go, except those a
 * surviving token is tied to (deleting them would cascade to it).
 */
export async function restoreSeedTenants(trx: Transaction, seeds: { id: string; settings: Record<string, unknown> }[], now: Date): Promise<void> {
  const seedIds = seeds.map((s) => s.id);
  await trx('tenants').whereNotIn('id', seedIds).whereNotNull('parent_id').delete();
  for (const seed of seeds) {
    await trx('tenants')
      .where({ id: seed.id })
      .update({ ...seed.settings, version: trx.raw('version + 1'), updated_at: now });
  }
  await trx('users')
    .whereIn('tenant_id', seedIds)
    .whereNotExists(trx('api_tokens').select(trx.raw('1')).whereRaw('api_tokens.user_id = users.id'))
    .delete();
}

/** The audit log and the idempotency records: nothing of the lab's day stays. */
export async function deleteLabHistory(trx: Transaction): Promise<void> {
  await trx('audit_log').delete();
  await trx('idempotency_records').delete();
}

/** Webhooks (their deliveries cascade) and the mail outbox. */
export async function deleteWebhooksAndMail(trx: Transaction): Promise<void> {
  await trx('webhooks').delete();
  await trx('mail_outbox').delete();
}

/**
 * The address blocks: assignments and spaces, and the forward-record jobs (the zones are gone and
 * their jobs with them; a removed space's job would outlive it).
 */
export async function deleteIpBlocks(trx: Transaction): Promise<void> {
  await trx('ip_assignments').delete();
  await trx('ip_spaces').delete();
  await trx('forward_record_jobs').delete();
}
