// TSIG keys of tenants (docs/credentials.md): the row and its mapper. The secret stays sealed in
// the row (AES-256-GCM under the key-encryption key); the domain object never carries it.
import type { Knex } from 'knex';
import type { CredentialPolicy } from '../../domain/credentialPolicy.js';
import type { TsigAlgorithm } from '../../domain/tsigKeys.js';

export interface TsigKeyRow {
  id: string;
  tenant_id: string;
  name: string;
  algorithm: TsigAlgorithm;
  /** Sealed: src/db/sealedSecrets.ts sealSecret. */
  secret: Buffer;
  policy: CredentialPolicy | null;
  created_at: Date;
  updated_at: Date;
  rotated_at: Date | null;
}

export interface TsigKey {
  id: string;
  tenantId: string;
  /** The key's DNS name: lower case, A-labels, no trailing dot; unique in the deployment. */
  name: string;
  algorithm: TsigAlgorithm;
  policy: CredentialPolicy | null;
  createdAt: Date;
  updatedAt: Date;
  rotatedAt: Date | null;
}

/** The columns a read selects: never the secret, which only the nameservers' list decrypts. */
export const TSIG_KEY_COLUMNS = ['id', 'tenant_id', 'name', 'algorithm', 'policy', 'created_at', 'updated_at', 'rotated_at'] as const;

export const tsigKeyToDomain = (r: Omit<TsigKeyRow, 'secret'>): TsigKey => ({
  id: r.id,
  tenantId: r.tenant_id,
  name: r.name,
  algorithm: r.algorithm,
  policy: r.policy ?? null,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  rotatedAt: r.rotated_at,
});

/**
 * Every tenant's key with its sealed secret, by name. Unscoped like the publication's reads of
 * every zone: the nameservers serve every tenant, and find a key by its name alone.
 */
export const allTsigKeyRows = (db: Knex): Promise<TsigKeyRow[]> => db<TsigKeyRow>('tsig_keys').select('*').orderBy('name');
