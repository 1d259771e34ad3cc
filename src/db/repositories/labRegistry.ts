// The sandbox lab's simulated registry (docs/lab.md "Registrar", "Lab parent zones", "Reverse
// parents"): registrations (lab_registrations), the prefix delegations the lab endpoint sets
// (lab_prefix_delegations), what the parent zones delegate, and the events the parent sync follows.
import type { Runner, Transaction } from '../context.js';

/** A zone's row in the registry; a zone without one is registered here, delegated to the service. */
export interface RegistrationRow {
  zone_name: string;
  registered_here: boolean;
  /** NS names at the parent; null: the service's nameservers. */
  delegation: string[] | null;
  /** DS records at the parent, presentation form. */
  ds: string[];
}

export const registrationRow = async (db: Runner, zone: string): Promise<RegistrationRow | undefined> =>
  (await db('lab_registrations').where('zone_name', zone).first()) as RegistrationRow | undefined;

/** Stores the zone's registration, whether it had one or not. */
export async function storeRegistration(trx: Transaction, row: RegistrationRow, now: Date): Promise<void> {
  await trx('lab_registrations')
    .insert({ zone_name: row.zone_name, registered_here: row.registered_here, delegation: row.delegation, ds: row.ds, updated_at: now })
    .onConflict('zone_name')
    .merge();
}

/** The nightly reset: every registration goes. */
export async function deleteRegistrations(trx: Transaction): Promise<void> {
  await trx('lab_registrations').delete();
}

/** The DS (presentation form) the registry holds for these zones, by zone. */
export const registeredDsRows = async (trx: Transaction, zones: string[]) =>
  (await trx('lab_registrations').whereIn('zone_name', zones).select('zone_name', 'ds')) as { zone_name: string; ds: string[] | null }[];

export type PrefixDelegationState = 'correct' | 'missing' | 'wrong';

/**
 * Every tenant zone whose creation is live (not a lab parent, not on its way out), by name, with
 * its registration's delegation and DS and its prefix's delegation as the lab set it.
 */
export const delegatedZoneRows = async (trx: Transaction) =>
  (await trx('zones as z')
    .leftJoin('lab_registrations as r', 'r.zone_name', 'z.name')
    .leftJoin('lab_prefix_delegations as p', 'p.prefix_id', 'z.prefix_id')
    .whereNotIn('z.kind', ['lab_parent', 'catalog'])
    .where('z.status', 'active')
    .orderBy('z.name')
    .select('z.name', 'z.reverse_block', 'r.delegation', 'r.ds', 'p.state as prefix_state')) as {
    name: string;
    reverse_block: string | null;
    delegation: string[] | null;
    ds: string[] | null;
    prefix_state: PrefixDelegationState | null;
  }[];

/** The NS names the lab parent zone `parent` holds at `owner` (relative to the parent). */
export const labParentNsTargets = async (db: Runner, parent: string, owner: string): Promise<string[]> =>
  (
    (await db('records as r')
      .join('zones as z', 'z.id', 'r.zone_id')
      .where({ 'z.kind': 'lab_parent', 'z.name': parent, 'r.type': 'NS', 'r.name': owner })
      .select('r.data')) as { data: { nameserver: string } }[]
  ).map((r) => r.data.nameserver);

/** The lab's parent zones that are not signed and not on their way to it, by name. */
export const unsignedLabParentNames = async (db: Runner): Promise<string[]> =>
  ((await db('zones').where({ kind: 'lab_parent', dnssec_state: 'off' }).orderBy('name').select('name')) as { name: string }[]).map((r) => r.name);

// Customer prefixes as the lab registry sees them (unscoped: the registry is the deployment's).

/** The id of the prefix of exactly that cidr; undefined when none. */
export const prefixIdByCidr = async (trx: Transaction, cidr: string): Promise<string | undefined> =>
  ((await trx('prefixes').whereRaw('cidr = ?::cidr', [cidr]).first('id')) as { id: string } | undefined)?.id;

/** The names of the prefix's reverse zones, whatever their status. */
export const prefixZoneNames = async (trx: Transaction, prefixId: string): Promise<string[]> =>
  (await trx('zones').where('prefix_id', prefixId).pluck('name')) as string[];

/** The prefix is delegated correctly again: its row goes (`correct` is no row at all). */
export async function deletePrefixDelegation(trx: Transaction, prefixId: string): Promise<void> {
  await trx('lab_prefix_delegations').where('prefix_id', prefixId).delete();
}

/** How the lab delegates the prefix when not correctly. */
export async function storePrefixDelegation(trx: Transaction, prefixId: string, state: Exclude<PrefixDelegationState, 'correct'>, now: Date): Promise<void> {
  await trx('lab_prefix_delegations').insert({ prefix_id: prefixId, state, updated_at: now }).onConflict('prefix_id').merge();
}

// The events outbox as the parent sync follows it.

/** The newest event's seq; null when there is none. */
export const lastEventSeq = async (db: Runner): Promise<string | null> =>
  ((await db('events').max('seq as last').first()) as { last: string | null } | undefined)?.last ?? null;

/**
 * Of the events after `seq`: the last seq (`seq` itself when none), and whether any tells of a
 * zone created, its creation live, or its deletion (asked or done).
 */
export async function lifecycleEventsAfter(db: Runner, seq: number): Promise<{ last: number; relevant: boolean }> {
  const row = (await db('events as e')
    .where('e.seq', '>', seq)
    .select(
      db.raw('max(e.seq) AS last'),
      db.raw(
        `bool_or(
           (e.kind = 'zone.changed' AND e.payload->>'change' IN ('created', 'deletion_requested', 'deleted'))
           OR (e.kind = 'record.published' AND EXISTS (
                 SELECT 1 FROM change_sets c WHERE c.id = e.payload->>'changeset_id' AND c.kind = 'zone_create'))
         ) AS relevant`,
      ),
    )
    .first()) as { last: string | null; relevant: boolean | null };
  return { last: row.last === null ? seq : Number(row.last), relevant: row.relevant === true };
}
