// The worker's daily delegation check (docs/rdns.md "Delegation checks"): every reverse zone of a
// customer prefix whose last check is a day old (or that was never checked) is looked at again,
// a few per run, and what its parent shows is stored like the API's check stores it.
import type { Knex } from 'knex';
import type { Clock } from '../domain/clock.js';
import { classifyDelegation, type ObservedDelegation, observeDelegations } from '../domain/ip/delegation.js';

export const DAILY_MS = 24 * 60 * 60 * 1000;
/** Zones looked at per run: a run stays short, and the backlog of a large deployment spreads out. */
const PER_RUN = 50;

export interface DelegationCheckDeps {
  db: Knex;
  clock: Clock;
  nameservers: readonly string[];
  observe(zone: string): Promise<ObservedDelegation>;
}

/** One run: checks the zones that are due; returns how many it checked. */
export async function checkDueDelegations(deps: DelegationCheckDeps): Promise<number> {
  const due = new Date(deps.clock.now().getTime() - DAILY_MS).toISOString();
  const zones = (await deps
    .db('zones')
    .whereNotNull('prefix_id')
    .where('status', 'active')
    .where((q) =>
      q.whereNull('delegation').orWhereRaw("delegation->>'checked_at' IS NULL").orWhereRaw("(delegation->>'checked_at')::timestamptz < ?::timestamptz", [due]),
    )
    .orderByRaw("delegation->>'checked_at' NULLS FIRST")
    .limit(PER_RUN)
    .select('id')
    .select('name')) as { id: string; name: string }[];
  const observed = await observeDelegations(
    zones.map((z) => z.name),
    deps.observe,
  );
  for (const zone of zones) {
    const delegation = classifyDelegation(observed.get(zone.name)!, deps.nameservers, deps.clock.now());
    await deps
      .db('zones')
      .where('id', zone.id)
      .update({ delegation: JSON.stringify(delegation) });
  }
  return zones.length;
}
