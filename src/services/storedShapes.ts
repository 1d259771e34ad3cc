// Shapes the API presents as the repositories return them, named here so that src/api imports
// nothing of src/db but its context types.
export type { DyndnsHost } from '../db/repositories/dyndnsHostRows.js';
export type { IpAssignment } from '../db/repositories/rdnsRows.js';
export type { Tenant } from '../db/repositories/tenantRows.js';
export type { TokenRecord } from '../db/repositories/identityStore.js';
