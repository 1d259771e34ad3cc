import type { RouteSpec } from '../routing/route.js';
import { auditLogRoutes } from './auditLog/routes.js';
import { credentialRoutes } from './credentials/routes.js';
import { labRoutes } from './lab/routes.js';
import { meRoutes } from './me/routes.js';
import { tenantRoutes } from './tenants/routes.js';

/** Every API operation; the router, the OpenAPI document and the isolation test read this list. */
export const allRoutes: RouteSpec[] = [...meRoutes, ...tenantRoutes, ...credentialRoutes, ...auditLogRoutes, ...labRoutes];
