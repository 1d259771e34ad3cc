// A reverse zone's delegation as its parent shows it (docs/rdns.md "Delegation checks"): what a
// look at the parent found, and the state stored on the zone. Pure: the API's check and the
// worker's daily one share it.
import { canonicalName } from '../names.js';

export const DELEGATION_STATES = ['ok', 'missing', 'wrong', 'unchecked'] as const;
export type DelegationState = (typeof DELEGATION_STATES)[number];

export interface Delegation {
  state: DelegationState;
  /** The NS names the parent delegates to (empty when missing or unchecked). */
  seen: string[];
  checked_at: string | null;
}

/** What a look at the parent found: the NS names it delegates the zone to, or null (no delegation); or why it could not be asked. */
export type ObservedDelegation = { delegatedTo: string[] | null } | { unreachable: string };

export const UNCHECKED: Delegation = { state: 'unchecked', seen: [], checked_at: null };

/** ok: exactly the service's nameservers (as sets, case and final dot aside); wrong: any other set; missing: none. */
export function classifyDelegation(observed: ObservedDelegation, nameservers: readonly string[], checkedAt: Date): Delegation {
  const checked_at = checkedAt.toISOString();
  if ('unreachable' in observed) return { state: 'unchecked', seen: [], checked_at };
  if (!observed.delegatedTo?.length) return { state: 'missing', seen: [], checked_at };
  const seen = [...new Set(observed.delegatedTo.map(canonicalName))].sort();
  const own = new Set(nameservers.map(canonicalName));
  const exact = seen.length === own.size && seen.every((n) => own.has(n));
  return { state: exact ? 'ok' : 'wrong', seen, checked_at };
}

/** Lookups in flight at once for one check: a prefix of many zones (up to 256) is seen in a few rounds, not one zone after another. */
const OBSERVE_AT_ONCE = 8;

/** What the parent shows for each of `zones`, asked a few at a time. */
export async function observeDelegations(
  zones: readonly string[],
  observe: (zone: string) => Promise<ObservedDelegation>,
): Promise<Map<string, ObservedDelegation>> {
  const seen = new Map<string, ObservedDelegation>();
  let next = 0;
  const lane = async () => {
    while (next < zones.length) {
      const zone = zones[next++]!;
      seen.set(zone, await observe(zone));
    }
  };
  await Promise.all(Array.from({ length: Math.min(OBSERVE_AT_ONCE, zones.length) }, lane));
  return seen;
}
