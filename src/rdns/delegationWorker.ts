// The worker's daily delegation check (docs/rdns.md "Delegation checks"): every reverse zone of a
// customer prefix whose last check is a day old (or that was never checked) is looked at again,
// a few per run, and what its parent shows is stored like the API's check stores it.
import type { Pool } from '../db/context.js';
import { storeDelegationCheck, zonesDueForDelegationCheck } from '../db/repositories/prefixRows.js';
import type { Clock } from '../domain/clock.js';
import { classifyDelegation, type ObservedDelegation, observeDelegations } from '../domain/ip/delegation.js';

export const DAILY_MS = 24 * 60 * 60 * 1000;
/** Zones looked at per run: a run stays short, and the backlog of a large deployment spreads out. */
const PER_RUN = 50;

export interface DelegationCheckDeps {
  db: Pool;
  clock: Clock;
  nameservers: readonly string[];
  observe(zone: string): Promise<ObservedDelegation>;
}

/** One run: checks the zones that are due; returns how many it checked. */
export async function checkDueDelegations(deps: DelegationCheckDeps): Promise<number> {
  const due = new Date(deps.clock.now().getTime() - DAILY_MS).toISOString();
  const zones = await zonesDueForDelegationCheck(deps.db, due, PER_RUN);
  const observed = await observeDelegations(
    zones.map((z) => z.name),
    deps.observe,
  );
  for (const zone of zones) {
    const delegation = classifyDelegation(observed.get(zone.name)!, deps.nameservers, deps.clock.now());
    await storeDelegationCheck(deps.db, zone.id, delegation);
  }
  return zones.length;
}
