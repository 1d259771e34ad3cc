// What the incremental signer (src/dnssec/signUpdate.ts) asks of the zone beyond the names a
// change touched, answered from the database inside the build's transaction: whether anything is
// left below a name (the zone's stored records, as this version will serve them), and the NSEC3
// records that precede a hash in the served chain. NSEC3 owners are stored by their hash label
// (relative to the zone) and published_records.name is COLLATE "C", so the chain's hash order is
// the order of the (zone_id, name) index: a predecessor is one index step away.
import type { Knex } from 'knex';
import { TYPE, type ZoneRecord } from '../../../nameserver/types.js';
import { absoluteName, relativeName } from '../../../nameserver/wire/name.js';
import type { ChainLookup } from '../../dnssec/signUpdate.js';
import { PREPARED } from '../../db/preparedStatements.js';

/** Above every base32hex label (its alphabet is 0-9 and a-v): where the chain wraps around. */
const PAST_THE_LAST_LABEL = 'w';

const likeLiteral = (s: string) => s.replace(/[%_\\]/g, (c) => `\\${c}`);

export function servedChain(trx: Knex.Transaction, zone: { id: string; name: string }): ChainLookup {
  return {
    async withDescendants(names) {
      const relative = names.map((n) => relativeName(n, zone.name));
      const result = await trx
        .raw<{ rows: { name: string }[] }>(
          `SELECT t.name FROM unnest(?::text[], ?::text[]) AS t(name, pattern)
           WHERE EXISTS (SELECT 1 FROM records r WHERE r.zone_id = ? AND r.name LIKE t.pattern)`,
          [relative, relative.map((n) => `%.${likeLiteral(n)}`), zone.id],
        )
        .options(PREPARED);
      return new Set(result.rows.map((r) => absoluteName(r.name, zone.name)));
    },

    async nsec3Predecessors(labels, count) {
      const order = await trx
        .raw<{ rows: { h: string; name: string }[] }>(
          `SELECT t.h, p.name FROM unnest(?::text[]) WITH ORDINALITY AS t(h, i)
           CROSS JOIN LATERAL (
             SELECT name FROM published_records WHERE zone_id = ? AND type = ? AND name < t.h ORDER BY name DESC LIMIT ?
           ) p ORDER BY t.i`,
          [[...labels, PAST_THE_LAST_LABEL], zone.id, TYPE.NSEC3, count],
        )
        .options(PREPARED);
      const lists = new Map<string, string[]>();
      for (const row of order.rows) lists.set(row.h, [...(lists.get(row.h) ?? []), row.name]);
      const last = lists.get(PAST_THE_LAST_LABEL) ?? [];
      const preceding = new Map(labels.map((h) => [h, [...(lists.get(h) ?? []), ...last].slice(0, count)]));
      const owners = [...new Set([...preceding.values()].flat())];
      const rows = await trx
        .raw<{ rows: { name: string; type: number; ttl: number; rdata: Buffer }[] }>(
          'SELECT name, type, ttl, rdata FROM published_records WHERE zone_id = ? AND name = any(?::text[])',
          [zone.id, owners],
        )
        .options(PREPARED);
      const records: ZoneRecord[] = rows.rows.map((r) => ({ name: absoluteName(r.name, zone.name), type: r.type, ttl: r.ttl, rdata: r.rdata }));
      return { preceding, records };
    },
  };
}
