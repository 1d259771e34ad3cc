// What the incremental signer (src/dnssec/signUpdate.ts) asks of the zone beyond the names a
// change touched, answered from the version store inside the build's transaction: whether anything
// is left below a name (the zone's stored records, as this version will serve them), and the NSEC3
// records that precede a hash in the served chain. NSEC3 owners are stored by their hash label
// (relative to the zone), so the chain's hash order is the order of the (zone_id, name) index: a
// predecessor is one index step away.
import { TYPE, type ZoneRecord } from '../../../nameserver/types.js';
import { absoluteName, relativeName } from '../../../nameserver/wire/name.js';
import type { Transaction } from '../../db/context.js';
import { namesWithStoredDescendants, servedNsec3Before, servedRecordsAt } from '../../db/repositories/versionStore.js';
import type { ChainLookup } from '../../../nameserver/dnssec/signUpdate.js';

/** Above every base32hex label (its alphabet is 0-9 and a-v): where the chain wraps around. */
const PAST_THE_LAST_LABEL = 'w';

export function servedChain(trx: Transaction, zone: { id: string; name: string }): ChainLookup {
  return {
    async withDescendants(names) {
      const found = await namesWithStoredDescendants(
        trx,
        zone.id,
        names.map((n) => relativeName(n, zone.name)),
      );
      return new Set(found.map((n) => absoluteName(n, zone.name)));
    },

    async nsec3Predecessors(labels, count) {
      const order = await servedNsec3Before(trx, zone.id, TYPE.NSEC3, [...labels, PAST_THE_LAST_LABEL], count);
      const lists = new Map<string, string[]>();
      for (const row of order) lists.set(row.h, [...(lists.get(row.h) ?? []), row.name]);
      const last = lists.get(PAST_THE_LAST_LABEL) ?? [];
      const preceding = new Map(labels.map((h) => [h, [...(lists.get(h) ?? []), ...last].slice(0, count)]));
      const owners = [...new Set([...preceding.values()].flat())];
      const records: ZoneRecord[] = (await servedRecordsAt(trx, zone.id, owners)).map((r) => ({
        name: absoluteName(r.name, zone.name),
        type: r.type,
        ttl: r.ttl,
        rdata: r.rdata,
      }));
      return { preceding, records };
    },
  };
}
