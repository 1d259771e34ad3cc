// The DynDNS section of GET /stats (spec "Stats": "DynDNS hosts"): the hosts of the acting
// subtree, and how many of them have an address now.
import { countRows } from '../../db/count.js';
import type { StatsContributor } from '../stats.js';

export const dyndnsStats: StatsContributor = {
  name: 'dyndns',
  async collect(scoped) {
    const hosts = scoped.from('dyndns_hosts', 'h');
    const withAddress = scoped
      .from('dyndns_hosts', 'h')
      .whereExists((q) => q.from('records as r').whereRaw('r.managed_by = h.id'));
    return { hosts: await countRows(hosts), with_address: await countRows(withAddress) };
  },
};
