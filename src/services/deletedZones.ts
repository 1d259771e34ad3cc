// The last export of a deleted zone, kept 30 days (spec), for provider staff to read and restore.
import type { DbContext } from '../db/context.js';
import type { Config } from '../config/index.js';
import { type DeletedZone, deletedZoneToDomain } from '../db/repositories/deletedZoneRows.js';
import { keptExportRow, keptExportRows } from '../db/repositories/zoneStore.js';
import { DomainError, notFound } from '../domain/errors.js';
import type { Actor } from './actor.js';
import type { WriteContext } from './writeContext.js';
import { zoneFileChangeItems } from './zoneImport.js';
import { createZone } from './zones.js';

export type { DeletedZone } from '../db/repositories/deletedZoneRows.js';

/** Provider staff only: the token must be the platform's own (it may act for the customer). */
export function assertProviderStaff(actor: Actor) {
  if (actor.token.tenant.type !== 'platform') {
    throw new DomainError('forbidden', { reason: 'deleted_zones_for_platform' });
  }
}

export async function listDeletedZones(ctx: DbContext, now: Date, name?: string): Promise<DeletedZone[]> {
  return (await keptExportRows(ctx.scoped, now, name)).map(deletedZoneToDomain);
}

export async function getDeletedZone(ctx: DbContext, now: Date, id: string): Promise<DeletedZone> {
  const row = await keptExportRow(ctx.scoped, now, id);
  if (!row) throw notFound('deleted zone');
  return deletedZoneToDomain(row);
}

/**
 * Recreates the zone from its kept export, for the tenant that owned it: the request acts for
 * that tenant (X-Act-As-Customer), so quota and checks apply as for any creation.
 */
export async function restoreDeletedZone(ctx: WriteContext, config: Config, id: string) {
  const kept = await getDeletedZone(ctx, ctx.clock.now(), id);
  if (kept.tenantId !== ctx.actor.acting.id) {
    throw new DomainError('validation_failed', {}, [
      { in: 'header', pointer: '/X-Act-As-Customer', code: 'wrong_tenant', detail: `Restore while acting for ${kept.tenantId}, the zone's owner.` },
    ]);
  }
  return createZone(ctx, config, { name: kept.zoneName }, async (zone) => (await zoneFileChangeItems(ctx, zone, kept.zonefile, 'replace')).items);
}
