import type { RouteSpec } from '../routing/route.js';
import { auditLogRoutes } from './auditLog/routes.js';
import { credentialRoutes } from './credentials/routes.js';
import { dnssecRoutes } from './dnssec/routes.js';
import { dyndnsRoutes } from './dyndns/routes.js';
import { eventRoutes } from './events/routes.js';
import { labRoutes } from './lab/routes.js';
import { meRoutes } from './me/routes.js';
import { prefixRoutes } from './prefixes/routes.js';
import { rdnsRoutes } from './rdns/routes.js';
import { templateRoutes } from './templates/routes.js';
import { tenantRoutes } from './tenants/routes.js';
import { changeSetRoutes } from './zones/changeSetRoutes.js';
import { recordRoutes } from './zones/recordRoutes.js';
import { zoneRoutes } from './zones/routes.js';
import { zoneFileRoutes } from './zones/zoneFileRoutes.js';
import { deletedZoneRoutes } from './zones/deletedZoneRoutes.js';
import { webhookRoutes } from './webhooks/routes.js';
import { tsigKeyRoutes } from './tsigKeys/routes.js';
import { secondarySetRoutes } from './secondarySets/routes.js';

/** Every API operation; the router, the OpenAPI document and the isolation test read this list. */
export const allRoutes: RouteSpec[] = [
  ...meRoutes,
  ...tenantRoutes,
  ...credentialRoutes,
  ...tsigKeyRoutes,
  ...secondarySetRoutes,
  ...auditLogRoutes,
  ...zoneRoutes,
  ...recordRoutes,
  ...changeSetRoutes,
  ...zoneFileRoutes,
  ...dnssecRoutes,
  ...prefixRoutes,
  ...templateRoutes,
  ...deletedZoneRoutes,
  ...rdnsRoutes,
  ...dyndnsRoutes,
  ...webhookRoutes,
  ...eventRoutes,
  ...labRoutes,
];
