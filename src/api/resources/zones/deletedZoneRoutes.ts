import { z } from 'zod';
import { canonicalName } from '../../../domain/names.js';
import { assertProviderStaff, getDeletedZone, listDeletedZones, restoreDeletedZone } from '../../../services/deletedZones.js';
import { defineRoute, writeContext } from '../../routing/route.js';
import { iso, timestamp } from '../common.js';
import { presentZone, storedEtag, zoneSchema } from './presenter.js';

const TAG = 'Deleted zones (provider staff)';
const params = z.strictObject({ deleted_zone: z.string().regex(/^zon_[a-z2-7]+$/, 'must be a deleted zone id') });

const deletedSchema = z.object({ id: z.string(), zone: z.string(), tenant_id: z.string(), deleted_at: timestamp, expires_at: timestamp });
const present = (d: { id: string; zoneName: string; tenantId: string; deletedAt: Date; expiresAt: Date }) => ({
  id: d.id,
  zone: d.zoneName,
  tenant_id: d.tenantId,
  deleted_at: iso(d.deletedAt),
  expires_at: iso(d.expiresAt),
});

export const deletedZoneRoutes = [
  defineRoute({
    method: 'get',
    path: '/deleted-zones',
    operationId: 'listDeletedZones',
    summary: 'Deleted zones whose last export is still kept (30 days)',
    description: 'Platform tokens only (403 forbidden otherwise); newest first, at most 500.',
    tag: TAG,
    scopes: ['zones:read'],
    query: z.strictObject({ name: z.string().max(253).optional().describe('Exact zone name (A-label).') }),
    errors: ['forbidden'],
    responses: { 200: { description: 'Kept exports', schema: z.object({ data: z.array(deletedSchema) }) } },
    handler: async (input) => {
      assertProviderStaff(input.actor);
      const list = await listDeletedZones(
        input.context,
        input.services.clock.now(),
        input.query.name === undefined ? undefined : canonicalName(input.query.name),
      );
      return { status: 200, body: { data: list.map(present) } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/deleted-zones/{deleted_zone}/export',
    operationId: 'exportDeletedZone',
    summary: 'The zone file of a deleted zone as it was deleted',
    tag: TAG,
    scopes: ['zones:read', 'records:read'],
    params,
    errors: ['forbidden'],
    responses: { 200: { description: 'The zone file', contentType: 'text/dns', schema: z.string() } },
    handler: async (input) => {
      assertProviderStaff(input.actor);
      const kept = await getDeletedZone(input.context, input.services.clock.now(), input.params.deleted_zone);
      return { status: 200, body: kept.zonefile, contentType: 'text/dns; charset=utf-8', etag: true };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/deleted-zones/{deleted_zone}/restore',
    operationId: 'restoreDeletedZone',
    summary: 'Recreate a deleted zone from its kept export',
    description:
      'A platform token acting for the zone’s owner (X-Act-As-Customer); the zone is created with the usual checks (the name must be free again: a zone still `deleting` gives 409 zone_exists) and its records are imported in the creation change set.',
    tag: TAG,
    scopes: ['zones:write', 'records:write'],
    params,
    errors: ['forbidden', 'zone_exists', 'zone_overlap', 'quota_exceeded'],
    responses: { 201: { description: 'Restored', schema: zoneSchema, headers: ['Location'] } },
    handler: async (input) => {
      assertProviderStaff(input.actor);
      const { zone } = await restoreDeletedZone(writeContext(input), input.services.config, input.params.deleted_zone);
      return { status: 201, body: presentZone(zone, input.services.config), etag: storedEtag(zone), headers: { Location: `/api/v1/zones/${zone.name}` } };
    },
  }),
];
