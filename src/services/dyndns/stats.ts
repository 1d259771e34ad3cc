// The DynDNS section of GET /stats (spec "Stats": "DynDNS hosts"): the hosts of the acting
// subtree, and how many of them have an address now.
import { dyndnsHostCounts } from '../../db/repositories/dyndnsHostRows.js';
import type { StatsContributor } from '../stats.js';

export const dyndnsStats: StatsContributor = {
  name: 'dyndns',
  async collect(ctx) {
    const { hosts, withAddress } = await dyndnsHostCounts(ctx.scoped);
    return { hosts, with_address: withAddress };
  },
};
