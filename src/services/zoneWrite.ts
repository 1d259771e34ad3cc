// The write seam: the one entry point of every write to an existing zone (records, change sets,
// zone settings and deletion, imports, templates, retries; later PTRs, dynamic DNS and DNSSEC's
// own records). docs/architecture.md "One write path for zones" draws it.
//
//   writeZone: lock the zone row (FOR NO KEY UPDATE)   — writers of one zone are serialised
//            → check If-Match against the STORED version — rowEtag(id, version), never a body
//            → the write: plan (pure) and store with its change set and its events in one
//              statement (applyChangeSet / appendChangeSet)
//
// Zone creation and restore have no row to lock yet: createZone serialises on the name family
// and stores through the same appendChangeSet / applyChangeSet.
import type { Config } from '../config/index.js';
import { DomainError } from '../domain/errors.js';
import { ifMatchSatisfied, rowEtag } from '../domain/model/etag.js';
import type { Zone } from '../domain/model/zone.js';
import { lockedZone, type ZoneReach } from './zoneReads.js';
import type { WriteContext } from './writeContext.js';

export interface ZonePreconditions {
  /** The request's If-Match header for the zone itself (zone PATCH and DELETE). */
  ifMatch?: string | null;
  /** The zones the name may find: the tenants' (default) or the lab's parent zones (the lab registrar). */
  reach?: ZoneReach;
}

/** RFC 9110 §13.1.1 on the zone's stored version; 412 with the header located. */
export function assertZoneMatches(
  zone: Zone,
  ifMatch: string | null | undefined,
  where: { in?: 'header'; pointer: string } = { in: 'header', pointer: '/If-Match' },
) {
  if (ifMatchSatisfied(ifMatch, rowEtag(zone.id, zone.version))) return;
  throw new DomainError('precondition_failed', {}, [
    { ...where, code: 'etag_mismatch', detail: `The zone's current ETag is ${rowEtag(zone.id, zone.version)}.` },
  ]);
}

/** The one entry point of a write to an existing zone: lock, precondition, then the write. */
export async function writeZone<T>(
  ctx: WriteContext,
  config: Config,
  pathName: string,
  preconditions: ZonePreconditions,
  write: (zone: Zone) => Promise<T>,
): Promise<T> {
  const zone = await lockedZone(ctx, config, pathName, preconditions.reach);
  assertZoneMatches(zone, preconditions.ifMatch);
  return write(zone);
}
