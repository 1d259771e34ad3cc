// Forward records of default PTRs (docs/rdns.md "Forward records of default PTRs"): an address
// space may name a zone of the platform (`forward_zone`) in which the service keeps, as ordinary
// records marked as the space's (records.managed_by, docs/records.md "Managed records"), an A or
// AAAA record for every default name of the space: every IPv4 address of it, and the IPv6
// addresses assigned alone (/128), the only IPv6 addresses with a default. Each change is one
// change set of that zone through the write seam, computed as the difference between what the
// space should keep there and what it keeps.
import type { Config } from '../../config/index.js';
import { DomainError, validationFailed } from '../../domain/errors.js';
import { type Address, type Block, blockSize, formatAddress, parseAddress, parseBlock } from '../../domain/ip/address.js';
import { patternSuffix, renderDefaultPtr } from '../../domain/ip/defaultPtr.js';
import type { ChangeItem } from '../../domain/changeSets/planChangeSet.js';
import { normalizeOwner } from '../../domain/names.js';
import type { Zone } from '../../domain/model/zone.js';
import { isAtOrBelow } from '../../../nameserver/wire/name.js';
import { applyChangeSet } from '../changeSets.js';
import type { WriteContext } from '../writeContext.js';
import { findZone } from '../zoneReads.js';
import { writeZone } from '../zoneWrite.js';
import { ownerScope } from './reverseZones.js';

/**
 * The largest IPv4 space with forward records: each of its changes (a new pattern renames every
 * record: 2 × 4,096 items) stays one change set well within a request and the database's statement
 * timeout. A /16's 65,536 records took 13–17 s to store on the 2-core test machine under load, a
 * rename of them past the 5 s statement timeout (docs/rdns.md).
 */
export const MAX_FORWARD_IPV4_SPACE = 20;

/**
 * The zone a space names as `forward_zone`: a forward zone of the platform tenant (the acting
 * one: staff), not being deleted, holding every name the pattern gives (422 otherwise).
 */
export async function forwardZoneInput(ctx: WriteContext, config: Config, name: string, pattern: string, block: Block): Promise<Zone> {
  const problem = (code: string, detail: string) => validationFailed([{ pointer: '/forward_zone', code, detail }]);
  if (block.family === 4 && block.prefixLength < MAX_FORWARD_IPV4_SPACE) {
    throw problem('space_too_large', `An IPv4 space with forward records is at most a /${MAX_FORWARD_IPV4_SPACE} (4,096 records); add the block in parts of that size to give it forward records.`);
  }
  const zone = await findZone(ctx.scoped, config, name, null).catch((e: unknown) => {
    if (e instanceof DomainError && e.code === 'not_found') return null;
    throw e;
  });
  if (!zone) throw problem('zone_not_found', `No zone ${name} is hosted by the service.`);
  if (zone.tenantId !== ctx.actor.acting.id || zone.kind !== 'forward') {
    throw problem('not_platform_zone', `${zone.name} is not a forward zone of the provider (the platform tenant): default names resolve only in the provider's own zones.`);
  }
  if (zone.status === 'deleting') throw problem('zone_being_deleted', `${zone.name} is being deleted.`);
  const suffix = patternSuffix(pattern);
  if (suffix === '' || !isAtOrBelow(suffix, zone.name)) {
    throw problem('pattern_outside_forward_zone', `The names of the pattern ${pattern} do not lie inside ${zone.name}.`);
  }
  return zone;
}

/** A default name and the address it resolves to. */
interface ForwardRecord {
  name: string;
  type: 'A' | 'AAAA';
  address: string;
}

interface SpaceForForward {
  id: string;
  cidr: string;
  ptr_pattern: string;
}

/** Every default name of the space: each IPv4 address; each IPv6 address assigned alone. */
async function defaultNames(ctx: WriteContext, space: SpaceForForward, block: Block): Promise<ForwardRecord[]> {
  const addresses: Address[] = [];
  if (block.family === 4) {
    for (let i = 0n; i < blockSize(block); i++) addresses.push({ family: 4, value: block.network + i });
  } else {
    const singles = (await ctx.trx('ip_assignments').where('space_id', space.id).whereRaw('masklen(cidr) = 128').distinct(ctx.trx.raw('host(cidr) AS ip'))) as { ip: string }[];
    addresses.push(...singles.map((r) => parseAddress(r.ip)));
  }
  const type = block.family === 4 ? 'A' : 'AAAA';
  return addresses.map((a) => ({ name: renderDefaultPtr(space.ptr_pattern, a), type, address: formatAddress(a) }));
}

/**
 * Brings the records the space keeps in the zone `zoneId` to what it should keep there —
 * every default name when `keep`, none otherwise (the space left the zone, or is removed) — in
 * one change set of that zone, none when nothing differs. A zone being deleted is left alone:
 * its records go with it.
 */
export async function syncForwardRecords(
  ctx: WriteContext,
  config: Config,
  space: SpaceForForward,
  block: Block,
  zoneId: string,
  keep: boolean,
  comment: string,
): Promise<string | null> {
  const row = (await ctx.trx('zones').where('id', zoneId).first('name', 'tenant_id', 'status')) as { name: string; tenant_id: string; status: string } | undefined;
  if (!row || row.status === 'deleting') return null;
  // The zone is the platform's; a reseller's assignment of a /128 writes there too.
  const owner = ownerScope(ctx, row.tenant_id);
  return writeZone(owner, config, row.name, {}, async (zone) => {
    const wanted = keep ? await defaultNames(ctx, space, block) : [];
    const key = (name: string, type: string, address: string) => `${name}|${type}|${address}`;
    const wantedKeys = new Map(wanted.map((r) => [key(normalizeOwner(`${r.name}.`, zone.name), r.type, r.address), r]));
    const kept = (await ctx.trx('records').where({ zone_id: zone.id, managed_by: space.id }).select('id', 'name', 'type', ctx.trx.raw("data->>'address' AS address"))) as {
      id: string;
      name: string;
      type: string;
      address: string;
    }[];
    const changes: ChangeItem[] = [];
    for (const r of kept) {
      const k = key(r.name, r.type, r.address);
      if (wantedKeys.has(k)) wantedKeys.delete(k);
      else changes.push({ op: 'delete', id: r.id });
    }
    for (const r of wantedKeys.values()) changes.push({ op: 'create', record: { name: `${r.name}.`, type: r.type, data: { address: r.address } } });
    if (!changes.length) return null;
    // Whatever an item trips over (a CNAME of the platform's own at a default name, the zone's
    // record limit), it is the choice of this forward zone that the request must change.
    const applied = await applyChangeSet(owner, zone, { changes, comment }, { kind: 'records', manager: space.id, locate: () => ({ pointer: '/forward_zone' }) });
    return applied.changeSet?.id ?? null;
  });
}

/**
 * The forward records of the space's /128 assignments after one is made or taken back (IPv6:
 * only an address assigned alone has a default name). Called by the assignments: one change
 * set, none when nothing differs.
 */
export async function syncSpaceForwardRecords(ctx: WriteContext, config: Config, spaceId: string, comment: string): Promise<void> {
  // FOR SHARE: a PATCH of the pattern or the zone (FOR UPDATE) commits first, and its names are the ones kept.
  const row = (await ctx.trx('ip_spaces').where('id', spaceId).forShare().first('id', 'cidr', 'ptr_pattern', 'forward_zone_id')) as (SpaceForForward & { forward_zone_id: string | null }) | undefined;
  if (!row?.forward_zone_id) return;
  await syncForwardRecords(ctx, config, row, parseBlock(row.cidr), row.forward_zone_id, true, comment);
}
