// Scopes of the spec's table, plus the tenant-administration scopes of docs/tenants.md and the
// TSIG-key scopes of docs/credentials.md and the secondary-set scopes of docs/catalog-zones.md.
// `*:write` never implies `*:read`: each operation names every scope it needs.
export const SCOPES = [
  'tenant:read',
  'zones:read',
  'zones:write',
  'records:read',
  'records:write',
  'dnssec:read',
  'dnssec:write',
  'rdns:read',
  'rdns:write',
  'dyndns:read',
  'dyndns:write',
  'audit:read',
  'webhooks:manage',
  'act_as',
  'tenants:read',
  'tenants:write',
  'tsig:read',
  'tsig:write',
  'secondaries:read',
  'secondaries:write',
] as const;

export type Scope = (typeof SCOPES)[number];

export function missingScopes(granted: readonly string[], required: readonly Scope[]): Scope[] {
  return required.filter((s) => !granted.includes(s));
}
