// The lab registry's side of customer prefixes (docs/lab.md "Reverse parents"): the lab endpoint
// makes a prefix's delegation in in-addr.arpa / ip6.arpa correct, missing or wrong, and the
// delegation check reads what the lab parent holds.
import type { Config } from '../config/index.js';
import type { Pool } from '../db/context.js';
import {
  deletePrefixDelegation,
  labParentNsTargets,
  type PrefixDelegationState,
  prefixIdByCidr,
  prefixZoneNames,
  storePrefixDelegation,
} from '../db/repositories/labRegistry.js';
import type { Clock } from '../domain/clock.js';
import { notFound } from '../domain/errors.js';
import { type Block, formatBlock } from '../domain/ip/address.js';
import type { ObservedDelegation } from '../domain/ip/delegation.js';
import { relativeName } from '../../nameserver/wire/name.js';
import { syncLabParents } from './labParents.js';
import { labParentOf } from './parentRecords.js';
import { advisoryLock, LAB_PARENTS_LOCK } from '../db/lockOrder.js';

export type LabPrefixDelegation = PrefixDelegationState;

/**
 * Where the lab parent delegates `zone`. The lab's parents and the reverse zones are served by the
 * same nameserver, which answers a zone's NS from the zone itself: asking it would always find the
 * service's own NS. So the lab reads the parent's side from the registry's zone data — what the
 * lab nameserver serves for that parent once published.
 */
export const labDelegationObserver =
  (db: Pool) =>
  async (zone: string): Promise<ObservedDelegation> => {
    const parent = labParentOf(zone);
    const targets = await labParentNsTargets(db, parent, relativeName(zone, parent));
    return { delegatedTo: targets.length ? targets : null };
  };

/** Sets how the lab registry delegates the prefix's reverse zones; the parents' change sets are stored before it returns. */
export async function setLabPrefixDelegation(
  db: Pool,
  config: Config,
  clock: Clock,
  block: Block,
  state: LabPrefixDelegation,
): Promise<{ cidr: string; state: LabPrefixDelegation }> {
  return db.transaction(async (trx) => {
    await advisoryLock(trx, 'lab_parents', LAB_PARENTS_LOCK);
    const cidr = formatBlock(block);
    const prefixId = await prefixIdByCidr(trx, cidr);
    if (!prefixId) throw notFound('prefix');
    if (state === 'correct') await deletePrefixDelegation(trx, prefixId);
    else await storePrefixDelegation(trx, prefixId, state, clock.now());
    const zones = await prefixZoneNames(trx, prefixId);
    await syncLabParents(trx, config, clock, [...new Set(zones.map(labParentOf))]);
    return { cidr, state };
  });
}
