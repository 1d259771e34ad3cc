// The lab registry's side of customer prefixes (docs/lab.md "Reverse parents"): the lab endpoint
// makes a prefix's delegation in in-addr.arpa / ip6.arpa correct, missing or wrong, and the
// delegation check reads what the lab parent holds.
import type { Knex } from 'knex';
import type { Config } from '../config/index.js';
import type { Clock } from '../domain/clock.js';
import { notFound } from '../domain/errors.js';
import { type Block, formatBlock } from '../domain/ip/address.js';
import type { ObservedDelegation } from '../domain/ip/delegation.js';
import { relativeName } from '../../nameserver/wire/name.js';
import { syncLabParents } from './labParents.js';
import { labParentOf } from './parentRecords.js';
import { advisoryLock, LAB_PARENTS_LOCK } from '../db/lockOrder.js';

export type LabPrefixDelegation = 'correct' | 'missing' | 'wrong';

/**
 * Where the lab parent delegates `zone`. The lab's parents and the reverse zones are served by the
 * same nameserver, which answers a zone's NS from the zone itself: asking it would always find the
 * service's own NS. So the lab reads the parent's side from the registry's zone data — what the
 * lab nameserver serves for that parent once published.
 */
export const labDelegationObserver =
  (db: Knex) =>
  async (zone: string): Promise<ObservedDelegation> => {
    const parent = labParentOf(zone);
    const rows = (await db('records as r')
      .join('zones as z', 'z.id', 'r.zone_id')
      .where({ 'z.kind': 'lab_parent', 'z.name': parent, 'r.type': 'NS', 'r.name': relativeName(zone, parent) })
      .select('r.data')) as { data: { nameserver: string } }[];
    return { delegatedTo: rows.length ? rows.map((r) => r.data.nameserver) : null };
  };

/** Sets how the lab registry delegates the prefix's reverse zones; the parents' change sets are stored before it returns. */
export async function setLabPrefixDelegation(
  db: Knex,
  config: Config,
  clock: Clock,
  block: Block,
  state: LabPrefixDelegation,
): Promise<{ cidr: string; state: LabPrefixDelegation }> {
  return db.transaction(async (trx) => {
    await advisoryLock(trx, 'lab_parents', LAB_PARENTS_LOCK);
    const cidr = formatBlock(block);
    const prefix = (await trx('prefixes').whereRaw('cidr = ?::cidr', [cidr]).first('id')) as { id: string } | undefined;
    if (!prefix) throw notFound('prefix');
    if (state === 'correct') await trx('lab_prefix_delegations').where('prefix_id', prefix.id).delete();
    else await trx('lab_prefix_delegations').insert({ prefix_id: prefix.id, state, updated_at: clock.now() }).onConflict('prefix_id').merge();
    const zones = (await trx('zones').where('prefix_id', prefix.id).pluck('name')) as string[];
    await syncLabParents(trx, config, clock, [...new Set(zones.map(labParentOf))]);
    return { cidr, state };
  });
}
