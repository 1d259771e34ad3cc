// The sandbox lab's parent zones (the lab root and TLDs, kind 'lab_parent'; docs/lab.md): created
// and written here, by the lab registrar only, through the same seam as every zone write
// (appendChangeSet for the creation, writeZone + applyChangeSet for their records). The API never
// reaches them (zoneReads' ZoneReach).
import type { Config } from '../config/index.js';
import { insertZone, labParentNames, zoneRRsetKeys } from '../db/repositories/zoneStore.js';
import type { ChangeItem } from '../domain/changeSets/planChangeSet.js';
import { newId } from '../domain/ids.js';
import type { ChangeSet } from '../domain/model/changeSet.js';
import { applyChangeSet, appendChangeSet } from './changeSets.js';
import type { WriteContext } from './writeContext.js';
import { lockedZone } from './zoneReads.js';
import { writeZone } from './zoneWrite.js';

/** TTL of the parent zones' records: short, so a lab resolver follows delegation changes quickly. */
const LAB_PARENT_TTL = 300;

/** One RRset a parent zone should hold: owner relative to the zone ('@' the apex), records' data. */
export interface ParentRRset {
  name: string;
  type: 'NS' | 'A' | 'AAAA' | 'DS' | 'CNAME';
  records: Record<string, unknown>[];
}

/** Names of the lab parent zones that exist ('' the root). */
export async function labParentZoneNames(ctx: WriteContext): Promise<string[]> {
  return labParentNames(ctx.db);
}

/** Creates the parent zone `name` for the acting (platform) tenant, as createZone stores a zone. */
export async function createLabParentZone(ctx: WriteContext, config: Config, name: string): Promise<void> {
  const now = ctx.clock.now();
  await insertZone(ctx.scoped, {
    id: newId('zon'),
    tenant_id: ctx.actor.acting.id,
    name,
    unicode_name: null,
    kind: 'lab_parent',
    status: 'activating',
    default_ttl: LAB_PARENT_TTL,
    soa_email: config.zones.defaultSoaEmail,
    created_at: now,
    updated_at: now,
  });
  const zone = await lockedZone(ctx, config, name, 'lab_parent');
  await appendChangeSet(ctx, zone, { kind: 'zone_create', comment: 'lab parent zone', itemCount: 0, summary: {}, results: [] });
}

/**
 * Makes the parent zone hold exactly `rrsets`: one change set of replace_rrset items (RRsets no
 * longer wanted are emptied), none when nothing differs.
 */
export async function setLabParentRecords(ctx: WriteContext, config: Config, name: string, rrsets: ParentRRset[], comment: string): Promise<ChangeSet | null> {
  return writeZone(ctx, config, name, { reach: 'lab_parent' }, async (zone) => {
    const key = (owner: string, type: string) => `${owner}\u0000${type}`;
    const wanted = new Set(rrsets.map((s) => key(s.name, s.type)));
    const stored = await zoneRRsetKeys(ctx.db, zone.id);
    const changes: ChangeItem[] = [
      ...rrsets.map((s): ChangeItem => ({ op: 'replace_rrset', name: s.name, type: s.type, ttl: null, records: s.records })),
      ...stored.filter((r) => !wanted.has(key(r.name, r.type))).map((r): ChangeItem => ({ op: 'replace_rrset', name: r.name, type: r.type, records: [] })),
    ];
    const { changeSet } = await applyChangeSet(ctx, zone, { changes, comment }, { kind: 'records', skipWhenUnchanged: true });
    return changeSet;
  });
}
