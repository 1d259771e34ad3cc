// The sandbox lab's seed: a platform, one reseller with two customers, API clients and tokens
// with every scope, and the simulated billing system. The seed is created once; tokens survive
// restarts and nightly resets, and DATA_DIR/lab-tokens.json always holds working ones.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Pool, Runner, Transaction } from '../db/context.js';
import { insertBootstrapCredentials, unrevokedTokenExists } from '../db/repositories/apiCredentialRows.js';
import { insertLabBillingClients } from '../db/repositories/labBillingClients.js';
import { insertSeedTenant } from '../db/repositories/labSeed.js';
import { insertLabState, labStateValue } from '../db/repositories/labState.js';
import { TENANT_DEFAULTS } from '../db/repositories/tenantRows.js';
import { newId } from '../domain/ids.js';
import { SCOPES } from '../domain/scopes.js';
import type { TenantType } from '../domain/tenancy.js';
import { displayPrefix, generateToken, hashToken } from '../domain/tokens.js';
import { advisoryLock } from '../db/lockOrder.js';

export interface LabSeedIds {
  platform: string;
  reseller: string;
  customers: [string, string];
}

export interface LabTokensFile {
  platform: string;
  reseller: string;
  customers: [string, string];
  tenants: LabSeedIds;
}

interface SeedTenant {
  role: 'platform' | 'reseller' | 'customer_a' | 'customer_b';
  type: TenantType;
  name: string;
  billingClientId: string | null;
  parent: SeedTenant['role'] | null;
}

export const SEED_TENANTS: SeedTenant[] = [
  { role: 'platform', type: 'platform', name: 'Lab Hosting Platform', billingClientId: null, parent: null },
  { role: 'reseller', type: 'reseller', name: 'Lab Reseller', billingClientId: null, parent: 'platform' },
  { role: 'customer_a', type: 'customer', name: 'Lab Customer A', billingClientId: '10001', parent: 'reseller' },
  { role: 'customer_b', type: 'customer', name: 'Lab Customer B', billingClientId: '10002', parent: 'reseller' },
];

/** The simulated billing system: the seeded customers' clients, one unlinked, one closed. */
export const SEED_BILLING_CLIENTS = [
  { id: '10001', name: 'Lab Customer A', email: 'a@customers.lab.example', status: 'active' },
  { id: '10002', name: 'Lab Customer B', email: 'b@customers.lab.example', status: 'active' },
  { id: '10003', name: 'Lab Prospect C (unlinked)', email: 'c@customers.lab.example', status: 'active' },
  { id: '10004', name: 'Lab Former Customer D (closed)', email: 'd@customers.lab.example', status: 'closed' },
] as const;

const SEED_KEY = 'seed';
export const LAST_RESET_KEY = 'last_reset_at';

export async function readSeedIds(db: Runner): Promise<LabSeedIds | null> {
  return (await labStateValue<LabSeedIds>(db, SEED_KEY)) ?? null;
}

/** Seed values of a tenant, used at creation and by the nightly reset. */
export function seedTenantSettings(seed: SeedTenant) {
  const defaults = TENANT_DEFAULTS[seed.type];
  return {
    name: seed.name,
    api_rate_limit_per_minute: defaults.apiRateLimitPerMinute,
    max_zones: defaults.maxZones,
    features: defaults.features,
    branding: JSON.stringify({ display_name: seed.name }),
    support_email: `support@${seed.role.replace('_', '-')}.lab.example`,
    billing_client_id: seed.billingClientId,
    suspended_at: null,
    suspension_reason: null,
  };
}

export const seedRoleIds = (ids: LabSeedIds): Record<SeedTenant['role'], string> => ({
  platform: ids.platform,
  reseller: ids.reseller,
  customer_a: ids.customers[0],
  customer_b: ids.customers[1],
});

async function createSeed(trx: Transaction, now: Date): Promise<LabSeedIds> {
  const ids: LabSeedIds = { platform: newId('ten'), reseller: newId('ten'), customers: [newId('ten'), newId('ten')] };
  const byRole = seedRoleIds(ids);
  const paths = new Map<string, string[]>();
  for (const seed of SEED_TENANTS) {
    const id = byRole[seed.role];
    const parentId = seed.parent ? byRole[seed.parent] : null;
    const tenantPath = [...(parentId ? paths.get(parentId)! : []), id];
    paths.set(id, tenantPath);
    await insertSeedTenant(trx, {
      id,
      parent_id: parentId,
      type: seed.type,
      path: tenantPath,
      lab_seed: true,
      created_at: now,
      updated_at: now,
      ...seedTenantSettings(seed),
    });
  }
  await insertLabBillingClients(trx, SEED_BILLING_CLIENTS);
  await insertLabState(trx, [
    { key: SEED_KEY, value: JSON.stringify(ids) },
    { key: LAST_RESET_KEY, value: JSON.stringify(now.toISOString()) },
  ]);
  return ids;
}

async function tokenIsUsable(db: Pool, token: unknown, tenantId: string): Promise<boolean> {
  if (typeof token !== 'string') return false;
  return unrevokedTokenExists(db, hashToken(token), tenantId);
}

async function issueLabToken(db: Pool, tenantId: string, label: string, now: Date): Promise<string> {
  const clientId = newId('cli');
  const secret = generateToken('sandbox');
  await insertBootstrapCredentials(
    db,
    { id: clientId, tenantId, name: `${label} (lab)`, createdAt: now },
    {
      id: newId('tok'),
      apiClientId: clientId,
      tenantId,
      userId: null,
      name: `${label} lab token`,
      deployment: 'sandbox',
      tokenHash: hashToken(secret),
      displayPrefix: displayPrefix(secret),
      scopes: [...SCOPES],
      expiresAt: null,
      policy: null,
      createdAt: now,
    },
  );
  return secret;
}

/**
 * Creates the seed on first start (under an advisory lock, so parallel processes agree) and makes
 * sure lab-tokens.json holds a usable token for each seeded tenant, issuing new ones only where
 * the file's token no longer works.
 */
export async function ensureLabSeed(db: Pool, dataDir: string, now: Date): Promise<{ file: string; tokens: LabTokensFile }> {
  const ids = await db.transaction(async (trx) => {
    await advisoryLock(trx, 'deployment', 'lab-seed');
    return (await readSeedIds(trx)) ?? createSeed(trx, now);
  });
  const file = path.join(dataDir, 'lab-tokens.json');
  const previous = await fs
    .readFile(file, 'utf8')
    .then((t) => JSON.parse(t) as Partial<LabTokensFile>)
    .catch(() => ({}) as Partial<LabTokensFile>);
  const keep = async (token: unknown, tenantId: string, label: string) =>
    (await tokenIsUsable(db, token, tenantId)) ? (token as string) : issueLabToken(db, tenantId, label, now);
  const tokens: LabTokensFile = {
    platform: await keep(previous.platform, ids.platform, 'Platform'),
    reseller: await keep(previous.reseller, ids.reseller, 'Reseller'),
    customers: [await keep(previous.customers?.[0], ids.customers[0], 'Customer A'), await keep(previous.customers?.[1], ids.customers[1], 'Customer B')],
    tenants: ids,
  };
  await fs.mkdir(dataDir, { recursive: true });
  await fs.writeFile(file, `${JSON.stringify(tokens, null, 2)}\n`, { mode: 0o600 });
  return { file, tokens };
}
